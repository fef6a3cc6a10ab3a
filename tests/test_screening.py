"""The secrets and personal-data screen: every pattern refuses what it should,
ordinary prose passes, the configuration works, and a refusal through the real
MCP server names what was found without echoing it and commits nothing."""

from __future__ import annotations

import ast
import json
import subprocess
import re
import sysconfig
import time
from pathlib import Path

import anyio
import pytest

from halo_git import Halo
from halo_git.errors import InvalidCall
from halo_git.model import MAX_SUMMARY, check_summary
from halo_git.screening import (
    PATTERNS,
    BrokenConfig,
    Screen,
    default_screen,
    load_screen,
    luhn_ok,
    screen_from_config,
)

from tests.conftest import git, server_params

# One realistic (fake or published-example) specimen per pattern, inside a sentence.
SECRETS = {
    "private-key": "pasted the key -----BEGIN RSA PRIVATE " "KEY-----\nMIIEowIBAAKCAQEA into the config",
    "aws-access-key": "uploaded with access key AKIA" "IOSFODNN7EXAMPLE to the bucket",
    "github-token": "cloned with ghp_" "16C7e42F292c6912E7710c838347Ae178B4a as the token",
    "gitlab-token": "the runner used glpat-" "Xy7kQ2mN9pL4vB8cR1tZ as credential",
    "slack-token": "posted with xoxb-" "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack-webhook": "sent to hooks.slack.com/services/" "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "google-api-key": "maps call with AIza" "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe worked",
    "google-oauth-token": "refreshed ya29." "a0AfH6SMBx3kFq9Zr-LmN0pQrStUvWxYz then retried",
    "stripe-key": "charged with sk_live_" "4eC39HqLyjWDarjtT1zdp7dc successfully",
    "api-secret-key": "called the model with sk-proj-" "abcdefghijklmnopqrstuvwxyz123456",
    "npm-token": "published using npm_" "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "pypi-token": "uploaded with pypi-" "AgEIcHlwaS5vcmcCJGQ4ZTY3MjQ2LTg0YzQtNDk2My1hZjE0LTJlOGI5YjYwMDAwMAACKlsz",
    "sendgrid-key": "mailer key SG." "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
    "jwt": "session eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "bearer-token": "sent Authorization: Bearer abc123def456ghi789jkl to the API",
    "url-credentials": "cloned https://alice:s3cr3t@git.example.com/repo.git",
    "secret-assignment": "set DB_PASSWORD=correct-horse in the env file",
    "high-entropy-string": "the value was 8hF3kLq9ZpX2mN7vB4cR1tY6 after rotation",
    "email-address": "emailed jane.doe@example.com about the delay",
    "phone-number": "called the customer back at +1 415 555 2671",
    "card-number": "paid with card 4111 1111 1111 1111 at checkout",
    "us-ssn": "form asked for 078-05-1120 and I filled it in",
    "iban": "refund goes to DE89 3704 0044 0532 0130 00",
}

# More forms of the same secrets (each must be refused, by any pattern).
MORE_SECRETS = [
    "-----BEGIN OPENSSH PRIVATE " "KEY-----",
    "-----BEGIN PGP PRIVATE " "KEY BLOCK-----",
    "-----BEGIN EC PRIVATE " "KEY-----",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "ASIA" "Y34FZKBOKMUTVV7A was the session key id",
    "github_pat_" "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "gho_" "16C7e42F292c6912E7710c838347Ae178B4a",
    "xoxp-" "1234567890-1234567890-abcdefabcdef",
    "rk_test_" "51H8abcdefGHIJKLMNOP",
    "sk-ant-" "api03-abcdefghijklmnopqrstuvwxyz0123456789",
    "password=hunter2",
    "password: 'hunter2'",
    "api_key: a8f9b7c6d5",
    "secret: hunter2!",
    "client_secret=Zm9vYmFyYmF6",
    "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZDEyMw=='",
    "https://user:pa55@example.com:8443/x",
    "postgres://app:Tr0ub4dor@db.internal:5432/app",
    "https://example.com/callback?token=4f9d8e7c6b5a",
    "contact: bob.smith+halo@mail.example.co.uk",
    "(415) 555-2671",
    "415.555.2671",
    "+44 20 7946 0958",
    "+49 (30) 901820",
    "5500-0000-0000-0004 was declined",
    "amex 378282246310005",
    "discover 6011111111111117",
    "Kq8vN3xR7tY2wP5zL9mB4cF6hJ1dG0sA/uE+iO3p",
    "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==",
    "GB82 WEST 1234 5698 7654 32",
]

# Ordinary agent summaries and technical prose: none may be refused.
PROSE = """
user asked for a reminder at 9:30 tomorrow
reminded the user at 09:30 as requested
meeting moved from 14:00 to 15:30 UTC
upgraded the parser from 1.2.3 to 1.10.0
pinned dulwich>=1.2,<2 and pyyaml 6.0.4
Python 3.11.7 on Debian 12
released v2.0.0-rc.1 after the tests passed
used the facts from e12 and e3 to answer
the outcome of e4 was positive; see e17
committed 3f2a9c1 and then 9c1e5b2d8a7f
HEAD is at 4b825dc642cb6eb9a060e54bf8d69288fbee4904
the content hash was e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
request id 550e8400-e29b-41d4-a716-446655440000 timed out
read https://docs.python.org/3/library/re.html#regular-expression-syntax
opened https://github.com/owner/repo/pull/1234/files?diff=split
fetched http://localhost:8765/mcp and got 200
the API lives at https://api.example.com/v2/users/12345/orders
served the site on 127.0.0.1:8000 and 0.0.0.0:8080
deadline is 2026-11-30, then 2026-12-15T09:30:00Z
the invoice of $1,234.56 was paid on 30/11/2026
refunded EUR 49.90 and USD 1,000,000
budget grew 12.5% to 3,400,000 this quarter
edited halo_git/store/repo.py and tests/test_verify.py
wrote /var/lib/halo/agents/demo.git/refs/heads/main
opened C:\\Users\\Alice\\Documents\\report-2026.docx
cleaned ~/.cache/pip and /tmp/pytest-of-root/pytest-12
renamed HaloServerConnectionManager to SessionRegistry
the class UpdateUserPreferencesRequestV2 needs a docstring
the test test_concurrency.py::test_http_16_clients passed in 42.1s
order number 1234567890123 shipped
tracking number 9400111202555842761234 arrived
timestamp 1732950000000 was out of range
the process pid 48213 used 512 MiB
port 5432 was busy, retried on 5433
ISBN 978-3-16-148410-0 is the book the user mentioned
serial number SN-2026-000123 registered
the password reset link was sent to the user
asked the user to rotate their API key
the token expired, so I asked for a new one
stored the secret in the vault instead of the log
password: reset by the user
secret: none of the files changed
api_key=<redacted> in the sample config
password=*** in the logged command line
token=${GITHUB_TOKEN} comes from the environment
set api_key=$API_KEY before running
the bearer token was refused, so I logged in again
basic authentication is disabled on that host
Bearer tokens must not be logged
the user prefers email over phone calls
the user's address is on file; I did not repeat it
version string 2026.11.30-hotfix-rollback-2
the build id is ci-20261130-0930-linux-x86_64
sha256 digests matched for all 12 artifacts
the commit message said fix: handle e0 and e-1 ids
uses [e1, e2, e3] and about e4
call me back in 10-15 minutes
the score went from 3.14159 to 2.71828
the ratio 16:9 fits the screen
windows 10.0.19045 and macOS 14.4.1
IP 192.168.1.100 and 10.0.0.1 are private
ipv6 fe80::1ff:fe23:4567:890a was assigned
MAC 00:1A:2B:3C:4D:5E belongs to the printer
the matrix was 1024x768 pixels
ran 8 processes x 250 events = 2000 events
latency p50 2.3 ms, p95 5.4 ms at 100,000 events
call at 555-0100 is a fictional number pattern
room 101, floor 3, building 42
the year 1999 and the range 2000-2025
heard "no" and "yes" from the user
quoted the YAML keys: id, kind, summary
the regex [A-Za-z0-9._-]{1,64} is the agent rule
logged with session label day2 and agent demo
recalled e5 (remember) and acted on it
the agent decided on its own to stay silent
S→A, M→A channels opened
emoji test 🎉 and accents: café, naïve, Zürich
Chinese: 你好，世界; Arabic: مرحبا
reminder set for Monday 8am; weekly on Fridays at 17:00
the report cites e1..e2000 contiguously
kernel 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC
node v20.11.1 and npm 10.2.4
docker image python:3.11-slim@sha256:2f0c6e3c4b1f9d8e
package halo-git==0.1.0 installed in .venv
a 40 character line: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
the base64 alphabet is A-Z, a-z, 0-9, + and /
the card was declined; asked the user to call their bank
the phone rang twice at 7:45
the last four digits were confirmed by the user
rotated the keys as scheduled (see e88)
cron 0 9 * * 1-5 runs weekdays at nine
the flight leaves at 06:15 and lands at 11:40 local time
scored 4 out of 5; median 3.5, mean 3.48
paid the 2,499.00 invoice for order 2026-0042
the quarter ran from 2026-07-01 to 2026-09-30
line 1234, column 56 in parser.py raised KeyError
added 3 tests and removed 1; 217 passed, 0 failed
the table has columns id, kind, summary, uses
agent names like ../x and /etc are refused
the session label was "sprint 12 (week 2)"
looked up the word ephemeral for the user
translated "Guten Morgen" to "good morning"
recommended the 3-2-1 backup rule to the user
temperature was 21.5 C at 08:00 and 24 C at noon
measured 1.6 ms per append with fsync and 0.9 ms without
zip code 94103 and area code 415 were mentioned, not the number
npm install left 1,203 packages in node_modules/
opened docs/security.md and docs/report.md side by side
the article doi 10.1000/xyz123 was cited
the hash function is sha1, the tree has 100 entries
"""

PROSE_LINES = [line for line in PROSE.strip().splitlines() if line.strip()]


def refusal(text: str, screen: Screen = default_screen) -> str:
    with pytest.raises(InvalidCall) as e:
        check_summary(text, screen)
    return str(e.value)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_pattern_refuses_its_specimen_by_name_without_echoing_it(name):
    text = SECRETS[name]
    message = refusal(text)
    assert f"({name})" in message
    assert "describe it instead" in message
    specimen = max(text.split(), key=len)
    assert specimen not in message


def test_every_builtin_pattern_has_a_specimen():
    assert sorted(SECRETS) == sorted(p.name for p in PATTERNS)


@pytest.mark.parametrize("text", MORE_SECRETS)
def test_more_secret_forms_are_refused(text):
    assert default_screen(text), text


def test_ordinary_prose_passes():
    flagged = {line: default_screen(line) for line in PROSE_LINES if default_screen(line)}
    assert flagged == {}
    assert len(PROSE_LINES) >= 100


def _stdlib_docstrings() -> list[str]:
    """Docstring paragraphs of the Python standard library, read without importing it."""
    root = Path(sysconfig.get_paths()["stdlib"])
    paragraphs: list[str] = []
    for path in sorted(root.glob("*.py")) + sorted(root.glob("*/*.py")):
        if "test" in path.parts[-2] or path.name.startswith("test"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                for para in (doc or "").split("\n\n"):
                    para = " ".join(para.split())
                    if 20 <= len(para) <= 2000:
                        paragraphs.append(para)
    return list(dict.fromkeys(paragraphs))


@pytest.mark.slow
def test_standard_library_docstrings_trigger_no_secret_pattern():
    """A large corpus of technical English (versions, paths, examples, URLs):
    the only hits allowed are real e-mail addresses (authors' credits)."""
    paragraphs = _stdlib_docstrings()
    assert len(paragraphs) > 5000
    hits: dict[str, list[str]] = {}
    for para in paragraphs:
        for found in default_screen(para):
            hits.setdefault(found, []).append(para)
    print(f"\nstdlib docstrings: {len(paragraphs)} paragraphs, {sum(map(len, paragraphs))} chars; hits: "
          + ", ".join(f"{k}: {len(v)}" for k, v in hits.items()))
    # The one credential in the corpus: urllib's example ``passwd='geheim$parole'``.
    secret_hits = {k: v[:3] for k, v in hits.items() if "(email-address)" not in k}
    assert all(re.search(r"passwd='[^']+'", p) for v in secret_hits.values() for p in v), secret_hits
    for para in hits.get("an e-mail address (email-address)", []):
        assert "@" in para


def test_luhn_decides_card_numbers():
    assert luhn_ok("4111111111111111") and luhn_ok("378282246310005") and luhn_ok("6011111111111117")
    assert not luhn_ok("4111111111111112")
    assert not default_screen("card 4111 1111 1111 1112 was typed wrong")  # Luhn fails
    assert not default_screen("reference 1234 5678 9012 3456")  # no issuer prefix... and Luhn fails
    assert not default_screen("account 0000 0000 0000 0000")
    assert default_screen("card 4012888888881881")


def test_screen_is_fast_on_hostile_input():
    """No catastrophic backtracking: summaries of the longest allowed length,
    crafted to make the regexes work hard, each screen in well under a second."""
    units = ["a", "password", "api_key_", "a-", "a_", "x_secret_", "1 ", "+1 ", "x@", "x.y@", "A1b2", "-----BEGIN ", "https://a:", "4111 ", "Bearer ", "eyJ-", "e1" * 3]
    for unit in units:
        text = (unit * (MAX_SUMMARY // len(unit) + 1))[:MAX_SUMMARY]
        start = time.perf_counter()
        default_screen(text)
        assert time.perf_counter() - start < 0.5, unit


# --- configuration ----------------------------------------------------------------------


def test_config_disables_adds_and_tunes(tmp_path):
    (tmp_path / "screening.yaml").write_text(
        "disable: [phone-number, email-address]\n"
        "add:\n"
        "  ticket-secret: 'TCK-[0-9]{8}'\n"
        "entropy: {min_length: 40}\n",
        encoding="utf-8",
    )
    screen = load_screen(tmp_path)
    assert "phone-number" not in screen.names and "ticket-secret" in screen.names
    assert screen("called +1 415 555 2671 and mailed jane@example.com") == []
    assert screen("the code is TCK-12345678") == ["a match of the configured pattern 'ticket-secret' (ticket-secret)"]
    assert screen("value 8hF3kLq9ZpX2mN7vB4cR1tY6") == []  # 24 < 40
    assert screen("value 8hF3kLq9ZpX2mN7vB4cR1tY6Qw8Er5Ty2Ui9Op3As") != []


def test_environment_disables_after_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HALO_SCREEN", "phone-number, card-number")
    screen = load_screen(tmp_path)
    assert screen("call +1 415 555 2671, card 4111 1111 1111 1111") == []
    assert screen("jane@example.com")
    monkeypatch.setenv("HALO_SCREEN", "off")
    assert load_screen(tmp_path) is None
    monkeypatch.delenv("HALO_SCREEN")
    assert load_screen(tmp_path) is default_screen


@pytest.mark.parametrize(
    "content, problem",
    [
        ("disable: [phone]\n", "unknown screening pattern(s) phone"),
        ("add: {bad: '(unclosed'}\n", "not a valid regular expression"),
        ("add: {Bad_Name: 'x'}\n", "must be new, lowercase"),
        ("add: {jwt: 'x'}\n", "must be new"),
        ("disable: phone-number\n", "'disable' must be a list"),
        ("colour: blue\n", "unknown key(s) colour"),
        ("entropy: {min_bits: high}\n", "'entropy' takes"),
        ("[1, 2]\n", "must be a mapping"),
        ("disable: [\n", "is not valid YAML"),
    ],
)
def test_broken_config_fails_closed(tmp_path, content, problem):
    (tmp_path / "screening.yaml").write_text(content, encoding="utf-8")
    screen = load_screen(tmp_path)
    assert isinstance(screen, BrokenConfig)
    message = refusal("an ordinary summary", screen)
    assert problem in message and "nothing was logged" in message


def test_config_file_can_switch_the_screen_off():
    assert screen_from_config({"enabled": False}) is None
    assert screen_from_config({"disable": []}).names == default_screen.names


def test_halo_uses_the_roots_configuration(root):
    (root / "screening.yaml").write_text("disable: [email-address]\n", encoding="utf-8")
    with Halo(root) as h:
        assert h.log("demo", "observe", "mailed jane@example.com")["id"] == "e1"
        with pytest.raises(InvalidCall, match=r"phone-number"):
            h.log("demo", "observe", "called +1 415 555 2671")
    with Halo(root, screen=None) as h:
        assert h.log("demo", "observe", "called +1 415 555 2671")["id"] == "e2"


# --- through the real server --------------------------------------------------------------


def test_refusals_through_mcp_commit_nothing_and_echo_nothing(root):
    from mcp import Client

    async def main() -> list[tuple[str, bool, str]]:
        out = []
        async with Client(server_params(root, "--agent", "demo")) as client:
            await client.call_tool("halo_observe", {"summary": "started"})
            for name, text in SECRETS.items():
                r = await client.call_tool("halo_observe", {"summary": text})
                out.append((name, r.is_error, r.content[0].text))
            r = await client.call_tool("halo_act", {"summary": "reminded at 9:30 about v1.2.3", "trigger": "self", "uses": ["e1"]})
            out.append(("prose", r.is_error, r.content[0].text))
        return out

    results = anyio.run(main)
    for name, is_error, text in results[:-1]:
        assert is_error, name
        message = json.loads(text)["error"]
        assert f"({name})" in message
        assert max(SECRETS[name].split(), key=len) not in message
    name, is_error, text = results[-1]
    assert not is_error and json.loads(text)["id"] == "e2"
    log = git(root / "demo.git", "log", "--format=%s").stdout.splitlines()
    assert log == ["e2 act: reminded at 9:30 about v1.2.3", "e1 observe: started"]
    objects = git(root / "demo.git", "count-objects", "-v").stdout
    blobs = git(root / "demo.git", "cat-file", "--batch-all-objects", "--batch-check").stdout
    assert "blob" in blobs and objects
    # not even an unreferenced object holds it: every object in the repository,
    # loose or packed, reachable or not, decompressed by git itself
    every_object = subprocess.run(
        ["git", "--git-dir", str(root / "demo.git"), "cat-file", "--batch-all-objects", "--batch", "--unordered"],
        capture_output=True, check=True,
    ).stdout
    assert b"reminded at 9:30 about v1.2.3" in every_object  # the accepted event is there, so the search works
    for name, text in SECRETS.items():
        assert max(text.split(), key=len).encode() not in every_object, name


def test_security_page_lists_every_pattern_and_the_model_limits():
    from halo_git.model import MAX_SESSION, MAX_TARGET, MAX_USES

    page = (Path(__file__).resolve().parents[1] / "docs" / "security.md").read_text(encoding="utf-8")
    for p in PATTERNS:
        assert f"`{p.name}`" in page, p.name
    for limit in (MAX_SUMMARY, MAX_USES, MAX_SESSION, MAX_TARGET):
        assert f"**{limit:,}**" in page, limit


# -- disguised secrets: normalised before matching ----------------------------------------

ZWSP = "\u200b"
DISGUISED = {
    "github-token": "cloned with ghp_16C7e42F292c" + ZWSP + "6912E7710c838347Ae178B4a as the token",
    "email-address": "emailed john.doe\uff20example.com about the delay",  # full-width at sign
    "secret-assignment": "the form posted password%3Dcorrect-horse-battery to the server",
    "aws-access-key": "uploaded with AKIA\u00adIOSFODNN7EXAMPLE (a soft hyphen inside)",
    "private-key": "pasted -----BEGIN\u2060 RSA PRIVATE KEY----- into the chat",  # word joiner
}


@pytest.mark.parametrize("name", sorted(DISGUISED))
def test_disguised_secrets_are_refused_by_name(name):
    assert f"({name})" in refusal(DISGUISED[name])


def test_normalising_adds_no_false_positive_on_the_prose_corpus():
    disguised_prose = [line.replace(" ", "\u00a0") + " 100%25 done" for line in PROSE_LINES]
    assert {line: default_screen(line) for line in disguised_prose if default_screen(line)} == {}


@pytest.mark.parametrize(
    "args, param",
    [
        ({"summary": "changed the rule", "target": "rule for ghp_16C7e42F292c6912E7710c838347Ae178B4a", "made_by": "agent", "governance": "none"}, "target"),
        ({"summary": "looked", "session": "jane.doe@example.com"}, "session"),
        ({"summary": "looked", "session": "chat-john.doe\uff20example.com"}, "session"),
        ({"summary": "looked", "agent": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, "agent"),
    ],
)
def test_target_session_and_agent_name_are_screened_through_mcp(root, args, param):
    from mcp import Client

    kind = "halo_revise" if "target" in args else "halo_observe"

    async def main():
        async with Client(server_params(root, "--agent", "demo")) as client:
            r = await client.call_tool(kind, args)
            return r.is_error, json.loads(r.content[0].text)

    is_error, payload = anyio.run(main)
    assert is_error
    assert payload["error"].startswith(f"'{param}' looks like it contains")
    assert "must not carry secrets" in payload["error"]
    assert "ghp_16C7" not in payload["error"] and "example.com" not in payload["error"]
    assert list(root.iterdir()) == []
