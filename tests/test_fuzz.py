"""Hostile input through the real MCP client against one real stdio server.

Hypothesis drives every tool and parameter with wrong types, 1 MB strings,
control characters and NUL, deeply nested JSON, unknown fields, odd ids
(``e0``, ``e-1``, ``e01``, ``E5``, ``e99999999999999999999``), agent names that
try to leave the root (``../x``, ``/etc``, ``a/b``, ``.git``, ``con``, empty,
10,000 characters) and session labels with newlines and brackets. One server
process serves every example (started once per module, for speed).

Every call must get a reply: a result, or ``{"error": ...}`` with isError set
and a handled message (never "internal error"); an accepted event must get the
next id of its agent, so a refusal can never have committed anything. Afterwards
the server is still alive, nothing exists outside the root, and every
repository passes ``git fsck --full`` and ``halo-git verify``.

Two things cannot travel through the SDK client and are sent on the raw wire
instead (``tests/raw_mcp.py``): lone surrogates (the client refuses to encode
them) and arguments nested beyond the JSON parser's depth limit.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from halo_git.model import ENUMS, KINDS, MAX_SUMMARY, check_agent_name
from halo_git.server import GUIDE

from tests.conftest import PYTHON, git, run_cli
from tests.raw_mcp import RawServer, result_payload

DEFAULT_AGENT = "fuzz"
LOGGING_TOOLS = {k.tool: k for k in KINDS.values()}
READ_PARAMS = {"halo_trace": ("limit", "session", "agent"), "halo_report": ("session", "agent"), "halo_guide": ()}
FUZZ = settings(max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck))


class Fuzz:
    """The shared server, its client (driven from sync code through a portal) and the tally."""

    def __init__(self, base: Path):
        self.base = base
        self.root = base / "root"
        self.cwd = base / "cwd"
        self.root.mkdir()
        self.cwd.mkdir()
        self.accepted: dict[str, int] = {}  # agent -> events acknowledged
        self.calls = 0
        self.refusals = 0
        self.reasons: dict[str, int] = {}

    def call(self, tool: str, args):
        self.calls += 1
        return self.portal.call(self.client.call_tool, tool, args)


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    from anyio.from_thread import start_blocking_portal
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    f = Fuzz(tmp_path_factory.mktemp("fuzz"))
    f.outside_before = set(os.listdir(f.base.parent)) | set(os.listdir("/"))
    params = StdioServerParameters(
        command=PYTHON, args=["-m", "halo_git.cli", "serve", "--root", str(f.root), "--agent", DEFAULT_AGENT], cwd=str(f.cwd)
    )
    with start_blocking_portal() as portal:
        context = portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120))
        f.client = context.__enter__()
        f.portal = portal
        for summary in ("seed observation", "seed memory"):  # ids the fuzzed calls can name
            check_reply(f, "halo_observe", {"summary": summary}, f.call("halo_observe", {"summary": summary}))
        check_reply(f, "halo_act", {"summary": "seed act", "trigger": "self"}, f.call("halo_act", {"summary": "seed act", "trigger": "self"}))
        try:
            yield f
        finally:
            context.__exit__(None, None, None)


def check_reply(f: Fuzz, tool: str, args, result) -> None:
    """The invariants every reply must satisfy."""
    assert result.content and result.content[0].type == "text"
    text = result.content[0].text
    if result.is_error:
        payload = json.loads(text)
        assert isinstance(payload, dict) and list(payload) == ["error"], text[:300]
        message = payload["error"]
        assert isinstance(message, str) and message.strip()
        assert "internal error" not in message, (tool, repr(args)[:300], message)
        assert len(message) < 3000  # a refusal never echoes a huge input
        f.refusals += 1
        f.reasons[message[:25]] = f.reasons.get(message[:25], 0) + 1
        return
    if tool in LOGGING_TOOLS:
        reply = json.loads(text)
        assert list(reply) == ["id", "agent", "session", "note"], text
        agent = reply["agent"]
        expected = f"e{f.accepted.get(agent, 0) + 1}"
        f.accepted[agent] = int(reply["id"][1:])  # track what was written even if a check below fails
        assert reply["id"] == expected, (reply, expected)  # so no refusal committed anything
        check_agent_name(agent)
        # null means "not given": the defaults apply (server --agent, this connection's session)
        assert agent == (args.get("agent") or DEFAULT_AGENT)
        if args.get("session") is not None:
            assert reply["session"] == args["session"]
    elif tool == "halo_trace":
        for line in text.split("\n"):
            assert re.match(r"e[1-9][0-9]* \[[^\[\]\n]+\] [a-z]+: ", line) or line.startswith("No events yet"), line[:200]
    elif tool == "halo_guide":
        assert text == GUIDE
    else:
        assert tool == "halo_report" and text.strip()


# --- strategies -------------------------------------------------------------------------------


def nested(depth: int):
    value: object = "e1"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


BIG = st.sampled_from(
    ["a" * 1_000_000, "é🎉" * 200_000, "\x00" * 1000, "x" * MAX_SUMMARY, "x" * (MAX_SUMMARY + 1), "\n" * 5000, "[" * 100_000]
)
CONTROL = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x1F) | st.sampled_from("\x7f\x85\u2028\u2029"), min_size=1, max_size=12)
# Lone surrogates (category Cs) are excluded: the SDK client cannot encode them (see the raw-wire test).
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120)
MIXED = st.builds(lambda a, b, c: a + b + c, TEXT, CONTROL, TEXT)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
    max_leaves=20,
)
DEEP = st.integers(20, 150).map(nested)  # the server's JSON parser stops near 200 levels
JUNK = (
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False) | JSONISH | DEEP
)
IDS = st.sampled_from(
    ["e0", "e-1", "e01", "E5", "e99999999999999999999", "e1", "e2", "e3", "e", "", " e1", "e1 ", "e1\n", "e１", "e٣",
     "e1.0", "e+1", "ee1", "e10000000000000", "e999999999999", "e4"]
)
AGENTS = st.sampled_from(
    ["../x", "/etc", "a/b", ".git", "con", "", "a" * 10_000, DEFAULT_AGENT, "other", "a.git", "-x", "x\x00y", "..", ".",
     "nul", "COM1", "fuzz/../../x", "\\x", "x" * 64, "x" * 65, "ok.name_1", "ümlaut", "a b", "a\nb", "~", "$HOME", "*", "e1"]
)
SESSIONS = st.sampled_from(
    ["a\nb", "[x]", "day]2", "a\r\nb", "x\u2028y", " ", "", "x" * 100, "x" * 101, "day2", "tab\there", "\x00", "[", "]", "a\x85b"]
)
SECRETS = st.sampled_from(["password=hunter2", "mail jane@example.com", "AKIA" "IOSFODNN7EXAMPLE", "card 4111 1111 1111 1111"])


# Plausible values: most examples should be accepted calls with unusual but
# legal content, so acceptance is fuzzed as hard as refusal.
GOOD_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\t\r"), min_size=1, max_size=150).filter(str.strip)
GOOD_LABEL = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="[]\x85"), min_size=1, max_size=100).filter(str.strip)
GOOD_AGENTS = st.sampled_from([DEFAULT_AGENT, "other", "x" * 64, "ok.name_1", "A-1", "9lives"])


def values(param: str):
    """(plausible, hostile) strategies for one parameter."""
    if param == "summary":
        return GOOD_TEXT, TEXT | MIXED | CONTROL | BIG | SECRETS | JUNK
    if param == "uses":
        return st.lists(st.sampled_from(["e1", "e2", "e3"]), max_size=4), st.lists(IDS | JUNK, max_size=60) | JUNK
    if param == "about":
        return st.just("e3"), IDS | JUNK | TEXT
    if param == "session":
        return GOOD_LABEL | SESSIONS, TEXT | MIXED | BIG | JUNK
    if param == "agent":
        return GOOD_AGENTS, AGENTS | TEXT | JUNK
    if param == "limit":
        return st.integers(1, 200), st.integers(-5, 300) | JUNK | st.sampled_from([0, 201, -1, 2**63])
    if param in ENUMS:
        return st.sampled_from(ENUMS[param]), st.sampled_from([p.upper() for p in ENUMS[param]]) | TEXT | JUNK
    return GOOD_TEXT.filter(lambda t: len(t) <= 200 and "\n" not in t and "\r" not in t), TEXT | MIXED | BIG | JUNK  # target


UNKNOWN_KEYS = st.sampled_from(["use", "Uses", "summary ", "__proto__", "", "id", "kind", "channels", "time", "x" * 500]) | TEXT


@st.composite
def arguments(draw, params: tuple[str, ...], required: tuple[str, ...] = ()):
    """Shape chosen with fixed odds (hypothesis alone would favour the edges):
    a required parameter is present 9 times in 10, another one half the time;
    a value is plausible 3 times in 4; an unknown parameter rides along 1 time in 10."""
    odds = draw(st.randoms(use_true_random=False))
    args = {}
    for p in params:
        if odds.random() < (0.9 if p in required else 0.5):
            good, bad = values(p)
            args[p] = draw(good if odds.random() < 0.75 else bad)
    if odds.random() < 0.1:
        args.update(draw(st.dictionaries(UNKNOWN_KEYS.filter(lambda k: k not in params), JUNK | TEXT, min_size=1, max_size=2)))
    return args


def logging_call():
    return st.sampled_from(sorted(LOGGING_TOOLS)).flatmap(
        lambda tool: st.tuples(
            st.just(tool),
            arguments(("summary", "uses", "session", "agent") + LOGGING_TOOLS[tool].fields, ("summary",) + tuple(f for f in LOGGING_TOOLS[tool].fields if f != "form")),
        )
    )


def reading_call():
    return st.sampled_from(sorted(READ_PARAMS)).flatmap(lambda tool: st.tuples(st.just(tool), arguments(READ_PARAMS[tool])))


# --- the fuzz tests ----------------------------------------------------------------------------


@FUZZ
@given(call=logging_call())
def test_logging_tools_answer_everything(fuzz, call):
    tool, args = call
    check_reply(fuzz, tool, args, fuzz.call(tool, args))


@settings(FUZZ, max_examples=150)
@given(call=reading_call())
def test_reading_tools_answer_everything(fuzz, call):
    tool, args = call
    check_reply(fuzz, tool, args, fuzz.call(tool, args))


@settings(FUZZ, max_examples=40)
@given(name=st.sampled_from(["", "halo", "halo_observe ", "HALO_OBSERVE", "../halo_trace", "x" * 10_000]) | TEXT, args=JSONISH.filter(lambda v: isinstance(v, dict)))
def test_unknown_tools_are_refused(fuzz, name, args):
    if name in LOGGING_TOOLS or name in READ_PARAMS:
        return
    result = fuzz.call(name, args)
    assert result.is_error
    message = json.loads(result.content[0].text)["error"]
    assert message.startswith("unknown tool") and len(message) < 3000


def test_after_the_fuzz_nothing_escaped_and_every_repository_is_valid(fuzz):
    """Runs last in this module: the same server still answers, and what it wrote is sound."""
    result = fuzz.call("halo_observe", {"summary": "still here"})
    check_reply(fuzz, "halo_observe", {"summary": "still here"}, result)
    assert sorted(os.listdir(fuzz.base)) == ["cwd", "root"]
    assert os.listdir(fuzz.cwd) == []
    outside_now = set(os.listdir(fuzz.base.parent)) | set(os.listdir("/"))
    assert outside_now - fuzz.outside_before == set()
    repos = sorted(os.listdir(fuzz.root))
    for name in repos:
        assert name.endswith(".git")
        check_agent_name(name[: -len(".git")])
    assert set(fuzz.accepted) <= {name[: -len(".git")] for name in repos}
    for name in repos:
        agent = name[: -len(".git")]
        fsck = git(fuzz.root / name, "fsck", "--full", "--no-dangling", check=False)
        assert fsck.returncode == 0 and not (fsck.stdout + fsck.stderr).strip(), fsck.stdout + fsck.stderr
        verify = run_cli("verify", "--agent", agent, "--root", str(fuzz.root))
        assert verify.returncode == 0, verify.stderr
        count = fuzz.accepted.get(agent, 0)
        assert (f"ok: {count} events" if count else "has no events yet") in verify.stdout
    print(
        f"\nfuzz: {fuzz.calls} calls through the MCP client ({fuzz.refusals} refused with an error, "
        f"{sum(fuzz.accepted.values())} events accepted over {len(fuzz.accepted)} agents); server alive; "
        f"{len(repos)} repositories pass fsck and verify"
    )
    print("most frequent refusals:", sorted(fuzz.reasons.items(), key=lambda kv: -kv[1])[:10])


# --- the raw wire: what the SDK client cannot send -------------------------------------------


def _tool_line(arguments_json: str):
    return lambda rid: ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"halo_observe","arguments":%s}}' % (rid, arguments_json)).encode()


def test_lone_surrogates_cannot_be_sent_by_the_client(tmp_path):
    """The SDK client cannot encode a lone surrogate: its writer task fails and
    the connection closes (an SDK client limitation); nothing reaches the server."""
    import anyio
    from mcp import Client

    from tests.conftest import server_params

    async def main() -> None:
        async with Client(server_params(tmp_path, "--agent", "raw"), read_timeout_seconds=30) as client:
            await client.call_tool("halo_observe", {"summary": "x\ud800"})

    with pytest.raises(BaseException) as e:
        anyio.run(main)
    assert "surrogate" in repr(e.value.exceptions if hasattr(e.value, "exceptions") else e.value) or "Connection closed" in str(e.value)
    assert not (tmp_path / "raw.git").exists()


@pytest.mark.parametrize(
    "line, reply",
    [
        (_tool_line('{"summary": "NaN", "uses": NaN}'), "error"),
        (_tool_line('{"summary": "dup", "summary": "last wins"}'), "logged"),
        (lambda rid: b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"halo_observe","arguments":{"summary":"bad \xff bytes"}}}' % rid, "logged"),
        (_tool_line("[1, 2]"), "rpc-error"),
        (_tool_line('"text"'), "rpc-error"),
        (_tool_line('{"summary": "%s"}' % ("a" * 1_000_000)), "error"),
        (_tool_line('{"summary": "x", "uses": %s}' % ("[" * 150 + "]" * 150)), "error"),
    ],
)
def test_raw_wire_oddities_get_a_reply(tmp_path, line, reply):
    server = RawServer(tmp_path, "--agent", "raw", cwd=tmp_path)
    try:
        assert server.initialize() is not None
        assert server.call("halo_observe", {"summary": "first"}) is not None  # e1, then the odd line
        message = server.request("", None, raw=line, timeout=30)
        assert message is not None, "no reply"
        if reply == "rpc-error":
            assert message["error"]["code"] == -32602
        else:
            is_error, payload = result_payload(message)
            if reply == "error":
                assert is_error and "internal error" not in payload["error"]
            else:
                assert not is_error and payload["id"] == "e2"
        assert server.call("halo_observe", {"summary": "still serving"}) is not None
    finally:
        assert server.close() == 0
    assert git(tmp_path / "raw.git", "fsck", "--full").returncode == 0


@pytest.mark.parametrize("arguments_json", ['{"summary": "x\\ud800"}', '{"summary": "x", "uses": %s}' % ("[" * 300 + "]" * 300)])
def test_unparseable_lines_get_a_parse_error_reply(tmp_path, arguments_json):
    server = RawServer(tmp_path, "--agent", "raw", cwd=tmp_path)
    try:
        assert server.initialize() is not None
        message = server.request("", None, raw=_tool_line(arguments_json), timeout=5)
        # Whatever the reply, the server survives and commits nothing:
        assert server.call("halo_observe", {"summary": "still serving"})["result"]["isError"] is False
        assert git(tmp_path / "raw.git", "log", "--format=%s").stdout == "e1 observe: still serving\n"
        assert message is not None and message["error"]["code"] == -32700
    finally:
        server.close()
