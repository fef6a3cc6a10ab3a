"""Hardening, round three: what an adversarial pass got through, each through the
real interface (MCP client over stdio or HTTP, the CLI as a subprocess, the
``git`` binary), and each checked to fail on the code before its fix.

Items: the HTTP session table under held streams and concurrent newcomers; the
memory of concurrent request bodies; invisible characters inside secrets;
observed evidence and client names screened before they are published; hostile
cache refs; tracebacks from hostile input; refusals that echo; what plain Git
shows that ``verify`` must see too; site builds and broken repositories; remote
URLs, branch names and far-future clocks.
"""

from __future__ import annotations

import json
import time
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from tests.conftest import PYTHON, git, run_cli, server_params

GITHUB_TOKEN = "ghp_" "16C7e42F292c6912E7710c838347Ae178B4a"
AWS_KEY = "AKIA" "IOSFODNN7EXAMPLE"
EMAIL = "jane.doe@example.com"


def disguise(secret: str, mark: str, every: int = 3) -> str:
    """``secret`` with ``mark`` inserted after every ``every`` characters."""
    return "".join(c + mark if i % every == every - 1 else c for i, c in enumerate(secret))


# -- invisible characters other than format characters (default-ignorable code points) ----

# Unicode's Default_Ignorable_Code_Point ranges, copied from DerivedCoreProperties.txt
# (Unicode 15.1), kept apart from the screen's own table so a typo there shows here.
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180D), (0x180E, 0x180E), (0x180F, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2065, 0x2065), (0x2066, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0000), (0xE0001, 0xE0001), (0xE0002, 0xE001F), (0xE0020, 0xE007F),
    (0xE0080, 0xE00FF), (0xE0100, 0xE01EF), (0xE01F0, 0xE0FFF),
]
INVISIBLES = ["\ufe0f", "\u034f", "\u3164"]  # variation selector 16, grapheme joiner, Hangul filler


def test_no_default_ignorable_code_point_hides_a_secret():
    """Every one of the 4,174 default-ignorable code points, inserted every third
    character into a GitHub token, an AWS key and an e-mail address: all refused
    (before, only category Cf was removed: 4,027 of the 4,165 outside the bidi
    controls passed)."""
    from halo_git.screening import default_screen

    points = [cp for a, b in DEFAULT_IGNORABLE for cp in range(a, b + 1)]
    assert len(points) == 4174
    passed = []
    for cp in points:
        for secret in (GITHUB_TOKEN, AWS_KEY, EMAIL):
            if not default_screen(f"used {disguise(secret, chr(cp))} today"):
                passed.append((hex(cp), secret[:4]))
    assert passed == []


def _mcp_calls(root: Path, calls: list[tuple[str, dict]]) -> list[tuple[bool, str]]:
    from mcp import Client

    async def main():
        out = []
        async with Client(server_params(root, "--agent", "demo")) as client:
            for tool, args in calls:
                r = await client.call_tool(tool, args)
                out.append((r.is_error, r.content[0].text))
        return out

    return anyio.run(main)


def _field_cases() -> list[tuple[str, str, dict]]:
    """(field, secret, halo_revise arguments) with the disguised secret in that field."""
    cases = []
    for mark in INVISIBLES:
        for secret in (GITHUB_TOKEN, AWS_KEY, EMAIL):
            hidden = disguise(secret, mark)
            base = {"summary": "changed the rule", "target": "the reply rule", "made_by": "agent", "governance": "none"}
            cases.append(("summary", secret, base | {"summary": f"used {hidden} for the call"}))
            cases.append(("target", secret, base | {"target": f"rule {hidden}"}))
            cases.append(("session", secret, base | {"session": f"s-{hidden}"}))
    return cases


def test_invisible_characters_do_not_get_secrets_past_the_screen_through_mcp(root):
    cases = _field_cases()
    results = _mcp_calls(root, [("halo_revise", args) for _, _, args in cases])
    for (field, secret, _), (is_error, text) in zip(cases, results):
        assert is_error, (field, secret)
        error = json.loads(text)["error"]
        assert error.startswith(f"'{field}' looks like it contains"), error
        assert secret[4:12] not in error
    assert not (root / "demo.git").exists()


@pytest.mark.parametrize("mark", INVISIBLES, ids=["fe0f", "034f", "3164"])
def test_invisible_characters_do_not_get_secrets_past_the_screen_through_log_and_import(root, tmp_path, mark):
    for field, secret, args in _field_cases():
        if mark not in args[field]:
            continue
        flags = [f"--{k.replace('_', '-')}={v}" for k, v in args.items()]
        r = run_cli("log", "revise", "--agent", "demo", *flags, root=root)
        assert r.returncode == 2 and f"'{field}' looks like it contains" in r.stderr, (field, secret, r.stderr)
        assert "Traceback" not in r.stderr and secret[4:12] not in r.stderr
    lines = [json.dumps({"kind": "revise", "time": "2026-11-30T09:00:00Z"} | args, ensure_ascii=False)
             for field, _, args in _field_cases() if mark in args[field]]
    for line in lines:  # one file per line: the import is all or nothing
        f = tmp_path / "one.jsonl"
        f.write_text(line + "\n", encoding="utf-8")
        r = run_cli("import", str(f), "--agent", "demo", root=root)
        assert r.returncode == 2 and "looks like it contains" in r.stderr, (line, r.stderr)
    assert not (root / "demo.git").exists() or git(root / "demo.git", "rev-list", "--all").stdout == ""


# -- observed evidence is screened before it is published ---------------------------------


def _observed_fixture(root: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """An agent that logged two steps, and an ATIF trajectory plus OTLP spans whose tool
    names, argument keys and session ids carry secrets. Returns (folder, secrets)."""
    for args in (["observe", "--summary", "read the task", "--session", "run1"],
                 ["act", "--summary", "ran the tests", "--session", "run1", "--trigger", "request", "--form", "execution"]):
        r = run_cli("log", *args, "--agent", "dev", root=root)
        assert r.returncode == 0, r.stderr
    tool_secret = "deploy_" + GITHUB_TOKEN
    key_secret = "to_" + EMAIL
    session_secret = "conv-" + AWS_KEY
    otlp_tool = "send_" + "xoxb-" "123456789012-1234567890123-AbCdEfGhIjKl"
    otlp_session = "john.smith@example.org"
    now = "2026-11-30T09:00:00Z"
    atif = {"schema_version": "ATIF-v1.6", "session_id": session_secret, "agent": {"name": "runtime", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": "", "timestamp": now, "tool_calls": [
                {"tool_call_id": "c1", "function_name": tool_secret, "arguments": {key_secret: "hello", "path": "a.txt"}},
                {"tool_call_id": "c2", "function_name": "read_file", "arguments": {"path": "b.txt"}}]}]}
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "execute_tool", "startTimeUnixNano": "1796029200000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                           {"key": "gen_ai.tool.name", "value": {"stringValue": otlp_tool}},
                           {"key": "gen_ai.conversation.id", "value": {"stringValue": otlp_session}},
                           {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps({key_secret: 1})}}]}
    folder = tmp_path / "observed"
    folder.mkdir()
    (folder / "trajectory.json").write_text(json.dumps(atif), encoding="utf-8")
    (folder / "spans.jsonl").write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n",
                                        encoding="utf-8")
    return folder, [GITHUB_TOKEN, EMAIL, AWS_KEY, "xoxb-123456789012", otlp_session]


def test_observed_tool_names_argument_keys_and_session_ids_are_screened(root, tmp_path):
    """A tool name, an argument key or a session id holding a token or an e-mail address
    reaches neither ``report --observed``, ``check --observed`` nor the site and its search
    index (before: only argument values were withheld)."""
    folder, secrets = _observed_fixture(root, tmp_path)
    report = run_cli("report", "--agent", "dev", "--observed", str(folder), root=root)
    assert report.returncode == 0, report.stderr
    check = run_cli("check", "--agent", "dev", "--observed", str(folder), "--format", "json", root=root)
    out = tmp_path / "site"
    site = run_cli("site", "--agent", "dev", "--observed", str(folder), "--out", str(out), root=root)
    assert site.returncode == 0, site.stderr
    published = {"report": report.stdout, "check": check.stdout + check.stderr}
    for f in out.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".json", ".md", ".xml", ".txt", ".js"):
            published[str(f.relative_to(out))] = f.read_text(encoding="utf-8", errors="replace")
    assert any("search_index" in name for name in published)
    for name, text in published.items():
        for secret in secrets:
            assert secret not in text, (name, secret)
            assert secret[4:14] not in text, (name, secret)
    # what is shown instead: the calls are still counted, under withheld names
    assert "withheld tool name" in report.stdout and "withheld session 1" in report.stdout
    page = (out / "agents" / "dev" / "observed.html").read_text(encoding="utf-8")
    assert "withheld key" in page and "read_file" in page and "path=a.txt" in page


# -- the HTTP session table locks nobody out -------------------------------------------------

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _initialize(url: str) -> tuple[int, str | None]:
    import httpx2

    with httpx2.Client(timeout=60) as c:
        r = c.post(url, content=json.dumps(INIT), headers=JSON_HEADERS)
        sid = r.headers.get("mcp-session-id")
        if r.status_code == 200:
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            c.post(url, content=json.dumps(note), headers=JSON_HEADERS | {"mcp-session-id": sid,
                                                                            "mcp-protocol-version": "2025-06-18"})
        return r.status_code, sid


def _hold_stream(port: int, sid: str):
    """A GET SSE stream of session ``sid``, held open (a socket whose response has begun)."""
    import socket

    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall((f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
               f"mcp-session-id: {sid}\r\nmcp-protocol-version: 2025-06-18\r\n\r\n").encode())
    head = s.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return s


def test_sessions_holding_streams_do_not_lock_out_a_newcomer(root):
    """Every slot of the session table held by a session with an open SSE stream: a new
    client still gets in and logs an event (before: 503 for as long as they held), and
    the stream held the longest is the one closed for it."""
    from mcp import Client

    from tests.test_http_security import running

    cap = 20
    with running(root, "--agent", "held", "--max-sessions", str(cap)) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        held = []
        for _ in range(cap):
            status, sid = _initialize(url)
            assert status == 200
            held.append(_hold_stream(port, sid))
            time.sleep(0.02)  # distinct start times: the first held is the oldest

        async def main():
            with anyio.fail_after(60):
                async with Client(url, mode="legacy") as c:
                    r = await c.call_tool("halo_observe", {"summary": "got in while every session held a stream"})
                    assert not r.is_error, r.content
                    return json.loads(r.content[0].text)["id"]

        assert anyio.run(main) == "e1"
        held[0].settimeout(30)
        closed = b""
        while True:  # the oldest stream ends: the server closed its session for the newcomer
            chunk = held[0].recv(4096)
            if not chunk:
                break
            closed += chunk
        held[-1].settimeout(0.5)
        with pytest.raises(TimeoutError):
            held[-1].recv(4096)  # the newest stream is still open
        for s in held:
            s.close()


def test_concurrent_newcomers_are_never_refused(root):
    """With the table full of idle sessions, 200 newcomers arriving 25 at a time all get
    in (before: each saw the table full and many got 503, 433 of 3,000 at the default cap)."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.test_http_security import running

    cap = 20
    with running(root, "--agent", "flood", "--max-sessions", str(cap)) as (url, _):
        for _ in range(cap):
            assert _initialize(url)[0] == 200
        with ThreadPoolExecutor(25) as pool:
            statuses = list(pool.map(lambda _: _initialize(url)[0], range(200)))
    assert statuses.count(200) == 200, {s: statuses.count(s) for s in set(statuses)}


def _vm(pid: int, key: str) -> int:
    """A /proc/<pid>/status figure in MiB (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) // 1024
    raise AssertionError(key)


def test_concurrent_large_bodies_cost_bounded_memory(root):
    """120 requests with a body just under the 4 MiB limit sent at once: the server's peak
    resident set grows by less than 400 MiB (+92 to +141 MiB measured), and every one is
    answered (before: +1,175 MiB, kept afterwards)."""
    import httpx2
    from concurrent.futures import ThreadPoolExecutor

    from tests.test_http_security import running

    with running(root, "--agent", "mem") as (url, proc):
        status, sid = _initialize(url)
        assert status == 200
        headers = JSON_HEADERS | {"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}

        def big(i: int) -> int:
            call = {"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                    "params": {"name": "halo_observe", "arguments": {"summary": "x" * (4 * 1024 * 1024 - 400)}}}
            with httpx2.Client(timeout=120) as c:
                return c.post(url, content=json.dumps(call), headers=headers).status_code

        before = _vm(proc.pid, "VmRSS")
        with ThreadPoolExecutor(120) as pool:
            statuses = list(pool.map(big, range(120)))
        peak = _vm(proc.pid, "VmHWM")
        small = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "halo_observe", "arguments": {"summary": "still serving"}}}
        with httpx2.Client(timeout=60) as c:
            r = c.post(url, content=json.dumps(small), headers=headers)
    print(f"peak RSS {peak} MiB, {peak - before:+} MiB over {before} MiB; statuses {set(statuses)}")
    assert statuses == [200] * 120  # each answered (the summary is refused as too long, inside a 200)
    assert r.status_code == 200 and "Logged e1" in r.text
    assert peak - before < 400, (before, peak)


# -- the client's name and every refusal: screened, never echoed -----------------------------


@pytest.mark.parametrize("client", ["bot-" + GITHUB_TOKEN, EMAIL, "agent " + AWS_KEY])
def test_a_client_name_holding_a_secret_never_becomes_an_agent_name(root, client):
    """The MCP client's name is the default agent name, i.e. a repository name kept
    forever: a token or an e-mail address in it is refused like an explicit ``agent``
    (before: ``bot-ghp_….git`` was created), while ``agent`` still works."""
    from mcp import Client
    from mcp_types import Implementation

    async def main():
        async with Client(server_params(root), client_info=Implementation(name=client, version="1")) as c:
            refused = await c.call_tool("halo_observe", {"summary": "started"})
            read = await c.call_tool("halo_trace", {})
            named = await c.call_tool("halo_observe", {"summary": "started", "agent": "demo"})
            return refused, read, named

    refused, read, named = anyio.run(main)
    assert refused.is_error and read.is_error
    error = json.loads(refused.content[0].text)["error"]
    assert "client's name" in error and "--agent" in error and "looks like it contains" in error
    assert json.loads(read.content[0].text)["error"] == error
    for part in (GITHUB_TOKEN[4:14], "example.com", AWS_KEY[4:14]):
        assert part not in error
    assert not named.is_error
    assert sorted(p.name for p in root.iterdir() if p.suffix == ".git") == ["demo.git"]


def test_refusals_never_echo_a_secret(root):
    """Unknown parameter names, invalid agent names, invalid ids, enum values, unknown tool,
    prompt and resource names holding a token or an e-mail address: each refusal names what
    is wrong without the text (before: the first 40-80 characters were echoed)."""
    from mcp import Client

    secrets = [GITHUB_TOKEN, EMAIL, "xoxb-" "123456789012-1234567890123-AbCdEfGhIjKl"]

    async def main():
        texts = []
        async with Client(server_params(root, "--agent", "demo")) as c:
            for s in secrets:
                calls = [
                    ("halo_observe", {"summary": "x", s: "1"}),
                    ("halo_trace", {s: 1}),
                    ("halo_observe", {"summary": "x", "agent": s + "/x"}),
                    ("halo_observe", {"summary": "x", "uses": [s]}),
                    ("halo_outcome", {"summary": "x", "about": s}),
                    ("halo_act", {"summary": "x", "trigger": s}),
                    (s, {}),
                ]
                for tool, args in calls:
                    r = await c.call_tool(tool, args)
                    assert r.is_error, (tool, args)
                    texts.append(r.content[0].text)
                for attempt in (lambda: c.get_prompt(s, {}), lambda: c.read_resource(f"halo://{s}/x"),
                                lambda: c.get_prompt("halo_self_review", {s: "1"})):
                    try:
                        await attempt()
                    except Exception as e:  # an MCP error reply
                        texts.append(str(e))
                    else:
                        raise AssertionError("accepted")
        return texts

    texts = anyio.run(main)
    assert len(texts) == 30
    for text in texts:
        for s in secrets:
            assert s[4:16] not in text, text
        assert "withheld" in text, text
    assert not (root / "demo.git").exists()


# -- one message, never a traceback -------------------------------------------------------


from tests.test_hostile_remote import remote  # noqa: E402,F401  (a fixture: a bare remote holding e1)


def test_a_remote_branch_named_in_bytes_that_are_not_utf8_gives_one_message(tmp_path, remote):
    """A remote holding a branch whose name is not UTF-8: clone refuses it in one
    message and creates nothing, pull of another branch and site --remote work or
    refuse cleanly (before: a UnicodeDecodeError traceback)."""
    bare, _ = remote
    local = tmp_path / "local"
    assert run_cli("clone", str(bare), "--agent", "demo", root=local).returncode == 0
    heads = bare / "refs" / "heads"
    git(bare, "update-ref", "refs/heads/tmp-name", "main")
    os.rename(heads / "tmp-name", os.fsencode(heads) + b"/bad\xff\xfe")
    assert b"bad\xff\xfe" in subprocess.run(["git", "--git-dir", str(bare), "for-each-ref"], capture_output=True).stdout
    fresh = tmp_path / "fresh"
    runs = {
        "clone": run_cli("clone", str(bare), "--agent", "demo", root=fresh),
        "pull": run_cli("pull", "--agent", "demo", str(bare), root=local),
        "site": run_cli("site", "--remote", f"demo={bare}", "--out", str(tmp_path / "site"), root=tmp_path / "siteroot"),
    }
    for name, r in runs.items():
        assert "Traceback" not in r.stderr and "Error:" not in r.stderr, (name, r.stderr)
        assert r.returncode in (0, 1, 2), (name, r.returncode)
    assert runs["clone"].returncode != 0 and "is not UTF-8 text" in runs["clone"].stderr
    assert "\\xff\\xfe" in runs["clone"].stderr and not (fresh / "demo.git").exists()
    assert runs["pull"].returncode == 0, runs["pull"].stderr


def test_an_import_line_nested_100000_deep_gives_one_message(root, tmp_path):
    for line in ("[" * 100_000 + "]" * 100_000, '{"kind": ' + "[" * 100_000 + "]" * 100_000 + "}",
                 '{"kind": ["observe"], "summary": "x"}'):
        f = tmp_path / "deep.jsonl"
        f.write_text(line + "\n", encoding="utf-8")
        r = run_cli("import", str(f), "--agent", "demo", root=root)
        assert r.returncode == 2 and r.stderr.startswith("halo-git: error: line 1: "), r.stderr[-300:]
        assert "Traceback" not in r.stderr and "nothing was imported" in r.stderr
    assert not (root / "demo.git").exists()


# -- remote URLs, branch names, clocks --------------------------------------------------------


def test_a_password_with_a_raw_at_sign_is_hidden_whole(root):
    """``http://alice:p@ss-w0rd@host/x.git``: errors, ``halo-push.json`` and ``agents`` show
    ``http://***@127.0.0.1:9/x.git`` (before: ``***@ss-w0rd@127.0.0.1``)."""
    assert run_cli("log", "observe", "--agent", "demo", "--summary", "hi", root=root).returncode == 0
    url = "http://alice:p@ss-w0rd@127.0.0.1:9/x.git"  # port 9: nothing listens, the push fails
    pushed = run_cli("push", "--agent", "demo", url, root=root)
    assert pushed.returncode == 1 and "Traceback" not in pushed.stderr
    agents = run_cli("agents", root=root)
    state = (root / "demo.git" / "halo-push.json").read_text(encoding="utf-8")
    for text in (pushed.stderr, agents.stdout + agents.stderr, state):
        assert "ss-w0rd" not in text and "alice" not in text, text
        assert "http://***@127.0.0.1:9/x.git" in text, text


@pytest.mark.parametrize("name", ["ev\u202eil", "a\u200bb", "main\ufe0f", "x\u2066y"])
def test_branch_names_with_invisible_or_bidi_characters_are_refused_escaped(root, name):
    assert run_cli("log", "observe", "--agent", "demo", "--summary", "hi", root=root).returncode == 0
    before = git(root / "demo.git", "for-each-ref").stdout
    for args in (("branch", "--agent", "demo", name), ("log", "observe", "--agent", "demo", "--summary", "x",
                                                        f"--branch={name}")):
        r = run_cli(*args, root=root)
        assert r.returncode == 2 and "invalid branch name" in r.stderr and "invisible or bidirectional" in r.stderr
        assert name not in r.stderr and ascii(name)[1:-1] in r.stderr, r.stderr
    assert git(root / "demo.git", "for-each-ref").stdout == before


def test_one_event_dated_9999_does_not_pin_later_clock_dated_events(root, tmp_path):
    """An imported event dated 9999-12-31: the next logged event is dated by the clock, not
    raised to 9999 (before: every later clock-dated event was pinned there); verify is green."""
    f = tmp_path / "future.jsonl"
    f.write_text('{"kind": "observe", "summary": "from the future", "time": "9999-12-31T00:00:00Z"}\n')
    assert run_cli("import", str(f), "--agent", "demo", root=root).returncode == 0
    before = time.time()
    r = run_cli("log", "observe", "--agent", "demo", "--summary", "now", root=root)
    assert r.returncode == 0 and "Dated" not in r.stdout, r.stdout
    stamps = git(root / "demo.git", "log", "--format=%ct %s").stdout.splitlines()
    latest = int(stamps[0].split()[0])
    assert stamps[0].endswith("e2 observe: now") and before - 5 <= latest <= time.time() + 5, stamps
    assert run_cli("verify", "--agent", "demo", root=root).returncode == 0


# -- verify sees what plain git shows ----------------------------------------------------------


def _three_events(root: Path) -> Path:
    for i in (1, 2, 3):
        assert run_cli("log", "observe", "--agent", "demo", "--summary", f"step {i}", root=root).returncode == 0
    assert run_cli("verify", "--agent", "demo", root=root).returncode == 0
    return root / "demo.git"


def test_verify_is_red_when_git_replace_changes_what_git_shows(root):
    repo = _three_events(root)
    e2 = git(repo, "rev-parse", "main~1").stdout.strip()
    raw = git(repo, "cat-file", "commit", e2).stdout.replace("e2 observe: step 2", "e2 observe: something else")
    forged = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
                            input=raw, capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "replace", e2, forged)
    assert "something else" in git(repo, "log", "--format=%s").stdout  # plain git shows the replacement
    r = run_cli("verify", "--agent", "demo", root=root)
    assert r.returncode == 1 and "replace ref" in r.stderr and "git replace -d" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_verify_is_red_when_info_grafts_changes_what_git_shows(root):
    repo = _three_events(root)
    e3 = git(repo, "rev-parse", "main").stdout.strip()
    (repo / "info").mkdir(exist_ok=True)
    (repo / "info" / "grafts").write_text(e3 + "\n")  # e3 shown without parents
    r = run_cli("verify", "--agent", "demo", root=root)
    assert r.returncode == 1 and "info/grafts" in r.stderr, r.stderr


def test_verify_names_a_commit_with_an_extra_header(root):
    repo = _three_events(root)
    e3 = git(repo, "rev-parse", "main").stdout.strip()
    raw = git(repo, "cat-file", "commit", e3).stdout
    head, _, body = raw.partition("\n\n")
    forged = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
                            input=head + "\nx-approved-by alice\n\n" + body, capture_output=True, text=True,
                            check=True).stdout.strip()
    git(repo, "update-ref", "refs/heads/main", forged, e3)
    assert git(repo, "fsck", "--full").returncode == 0
    r = run_cli("verify", "--agent", "demo", root=root)
    assert r.returncode == 1 and forged[:12] in r.stderr and "x-approved-by" in r.stderr, r.stderr


# -- site builds, broken repositories and paths --------------------------------------------------


def test_one_broken_repository_does_not_fail_agents_site_and_push_all(root, tmp_path):
    """``x.git`` holding only HEAD (not a repository for Git either) beside a real agent:
    agents, site and push --all serve the real one (before: all three failed for every agent)."""
    assert run_cli("log", "observe", "--agent", "demo", "--summary", "hi", root=root).returncode == 0
    (root / "x.git").mkdir()
    (root / "x.git" / "HEAD").write_text("ref: refs/heads/main\n")
    agents = run_cli("agents", root=root)
    assert agents.returncode == 0 and "demo" in agents.stdout, agents.stderr
    site = run_cli("site", "--out", str(tmp_path / "site"), root=root)
    assert site.returncode == 0 and (tmp_path / "site" / "agents" / "demo").is_dir(), site.stderr
    remotes = tmp_path / "remotes"
    remotes.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remotes / "demo.git")], check=True)
    pushed = run_cli("push", "--all", str(remotes / "{agent}.git"), root=root)
    assert pushed.returncode == 0, pushed.stderr
    assert git(remotes / "demo.git", "log", "--format=%s").stdout.strip() == "e1 observe: hi"


def test_out_tilde_is_refused_not_created(root, tmp_path):
    assert run_cli("log", "observe", "--agent", "demo", "--summary", "hi", root=root).returncode == 0
    for out in ("~", "~/site"):
        r = subprocess.run([PYTHON, "-m", "halo_git.cli", "site", "--root", str(root), "--out", out],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert r.returncode == 2 and "did not expand" in r.stderr, r.stderr
        assert not (tmp_path / "~").exists()


def test_a_site_build_killed_mid_write_does_not_block_the_next(root, tmp_path):
    """SIGKILL while MkDocs writes the site: the next build into the same --out succeeds
    (before: refused, the files of the killed build not being listed as halo-git's)."""
    import signal

    lines = "".join(json.dumps({"kind": "observe", "summary": f"step {i}", "session": f"s{i % 40}"}) + "\n"
                    for i in range(400))
    (tmp_path / "many.jsonl").write_text(lines)
    assert run_cli("import", str(tmp_path / "many.jsonl"), "--agent", "demo", root=root).returncode == 0
    out = tmp_path / "site"
    killed_mid_write = False
    for _ in range(5):  # the kill must land while files are being written
        proc = subprocess.Popen([PYTHON, "-m", "halo_git.cli", "site", "--root", str(root), "--out", str(out)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if (out / "agents").exists() and sum(1 for _ in out.rglob("*.html")) > 3:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
        proc.wait()
        if proc.returncode == -signal.SIGKILL:
            killed_mid_write = True
            break
    assert killed_mid_write
    r = run_cli("site", "--out", str(out), root=root)
    assert r.returncode == 0, r.stderr
    assert (out / ".halo-site").read_text(encoding="utf-8").startswith("Built by")
    (out / "notes.txt").write_text("mine")  # files placed later are still protected
    r = run_cli("site", "--out", str(out), root=root)
    assert r.returncode == 2 and "notes.txt" in r.stderr


# -- hostile cache refs -----------------------------------------------------------------------------


def _thousand_and_one(root: Path, tmp_path: Path) -> Path:
    """An agent with 1,001 events and its travelling cache ref (one full chunk)."""
    lines = "".join(json.dumps({"kind": "observe", "summary": f"step {i}"}) + "\n" for i in range(1001))
    (tmp_path / "events.jsonl").write_text(lines)
    assert run_cli("import", str(tmp_path / "events.jsonl"), "--agent", "demo", root=root).returncode == 0
    assert run_cli("report", "--agent", "demo", root=root).returncode == 0
    return root / "demo.git"


def test_a_symbolic_cache_ref_cannot_move_the_branch(root, tmp_path):
    """``refs/halo/cache/main`` made a symbolic ref to ``refs/heads/main``: the next read
    leaves the branch where it was (before: it wrote the cache commit into the branch)."""
    repo = _thousand_and_one(root, tmp_path)
    head = git(repo, "rev-parse", "refs/heads/main").stdout.strip()
    git(repo, "update-ref", "-d", "refs/halo/cache/main")
    git(repo, "symbolic-ref", "refs/halo/cache/main", "refs/heads/main")
    for halo_dir in (repo / "halo",):
        for f in halo_dir.glob("events-*"):
            f.unlink()
    assert run_cli("report", "--agent", "demo", root=root).returncode == 0
    assert git(repo, "rev-parse", "refs/heads/main").stdout.strip() == head
    assert git(repo, "log", "-1", "--format=%s", "main").stdout.strip() == "e1001 observe: step 1000"
    assert git(repo, "symbolic-ref", "-q", "refs/halo/cache/main", check=False).returncode != 0
    r = run_cli("verify", "--agent", "demo", root=root)
    assert r.returncode == 0, r.stderr


def test_a_remote_cache_ref_claiming_a_billion_events_is_replaced(root, tmp_path):
    """A remote whose cache ref claims 10**9 events: after clone, the first read replaces
    the ref and verify is green (before: adopted, never replaced, verify red for good)."""
    origin = tmp_path / "origin"
    origin.mkdir()
    repo = _thousand_and_one(origin, tmp_path)
    cache = git(repo, "rev-parse", "refs/halo/cache/main").stdout.strip()
    raw = git(repo, "cat-file", "commit", cache).stdout
    head, _, _ = raw.partition("\n\n")
    message = f"HALO parsed-event cache of branch main: e1..e1000000000, e1000000000 at commit {'ab' * 20}\n"
    forged = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
                            input=head + "\n\n" + message, capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "update-ref", "refs/halo/cache/main", forged)
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(repo), str(bare)], check=True)
    assert run_cli("clone", str(bare), "--agent", "demo", root=root).returncode == 0
    assert run_cli("report", "--agent", "demo", root=root).returncode == 0
    r = run_cli("verify", "--agent", "demo", root=root)
    assert r.returncode == 0, r.stderr
    assert "1000000000" not in git(root / "demo.git", "log", "-1", "--format=%s", "refs/halo/cache/main").stdout


def test_a_rewound_branch_is_named_as_rewound_not_as_a_changed_cache(root, tmp_path):
    """The branch moved back 50 events with ``git update-ref`` under a cache that recorded
    them: verify says the branch was moved back and names the last commit the cache saw
    (before: it said the cache was changed outside HALO)."""
    repo = _thousand_and_one(root, tmp_path)
    lost = git(repo, "rev-parse", "main").stdout.strip()
    git(repo, "update-ref", "refs/heads/main", "main~50")
    r = run_cli("verify", "--agent", "demo", root=root)
    assert r.returncode == 1, r.stderr
    assert "was moved back outside HALO" in r.stderr and "e952..e1001" in r.stderr and lost[:12] in r.stderr, r.stderr
    assert "changed outside HALO" not in r.stderr


from tests.test_defects import fill, mount  # noqa: E402,F401  (a fixture: a 2 MiB tmpfs, skipped where mounting is refused)


def test_a_full_disk_gives_one_message_and_leaves_no_lock(mount):
    """log and branch on a full disk: one message, no "Exception ignored" traceback after it
    (before: dulwich's lock file flushed again when collected), no lock file left behind."""
    root = mount / "root"
    assert run_cli("log", "observe", "--agent", "demo", "--summary", "before", root=root).returncode == 0
    filler = fill(mount)
    for args in (("log", "observe", "--agent", "demo", "--summary", "x" * 5000), ("branch", "--agent", "demo", "b2")):
        r = run_cli(*args, root=root)
        assert r.returncode == 1 and "no space left on the device" in r.stderr, r.stderr
        assert "Exception ignored" not in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1, r.stderr
    assert list(root.rglob("*.lock")) == []
    filler.unlink()
    r = run_cli("log", "observe", "--agent", "demo", "--summary", "after", root=root)
    assert r.returncode == 0 and json.loads(r.stdout)["id"] == "e2", r.stderr
