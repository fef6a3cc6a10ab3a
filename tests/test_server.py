"""The MCP server end to end: a real SDK client against ``halo-git serve`` over
stdio and streamable HTTP, in the handshake (legacy) and 2026-07-28 (auto) modes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import Implementation

from halo_git.server import GUIDE
from tests.conftest import PYTHON, git, server_params

MODES = ["legacy", "auto"]


@asynccontextmanager
async def http_server(root: Path, *extra: str):
    """``halo-git serve --transport http --port 0``; yields the URL it prints."""
    proc = subprocess.Popen(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0", *extra],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        with anyio.fail_after(30):
            while url is None:
                line = await anyio.to_thread.run_sync(proc.stderr.readline)
                if not line:
                    raise RuntimeError("server exited before announcing its URL")
                m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
                if m:
                    url = m.group(1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def text(result) -> str:
    assert len(result.content) == 1
    return result.content[0].text


async def call(client, tool: str, **args):
    r = await client.call_tool(tool, args)
    return r.is_error, text(r)


async def tools_page_flow(client) -> list[str]:
    """The tools page's example: an act using an observation and a recall."""
    replies = []
    for tool, args in [
        ("halo_observe", {"summary": "user asked to be reminded at 9:30", "session": "day1"}),
        ("halo_remember", {"summary": "reminder at 9:30", "uses": ["e1"], "session": "day1"}),
        ("halo_recall", {"summary": "looked up the 9:30 reminder", "uses": ["e2"], "session": "day2"}),
        ("halo_act", {"summary": "reminded at 9:30", "uses": ["e3"], "trigger": "self", "session": "day2"}),
        ("halo_act", {"summary": "confirmed the next reminder", "uses": ["e1", "e3"], "trigger": "request", "session": "day2"}),
    ]:
        is_error, body = await call(client, tool, agent="demo", **args)
        assert not is_error, body
        replies.append(body)
    return replies


def check_flow(replies: list[str], trace: str) -> None:
    assert replies[0] == '{"id": "e1", "agent": "demo", "session": "day1", "note": "Logged e1 (Sensing, observe)."}'
    assert replies[4] == (
        '{"id": "e5", "agent": "demo", "session": "day2", "note": "Logged e5 (Action, act). Channels: S→A, M→A."}'
    )
    assert "e4 [day2] act: reminded at 9:30 (uses e3) {trigger=self, form=communication}" in trace.splitlines()


@pytest.mark.parametrize("mode", MODES)
def test_stdio_tools_page_flow_byte_for_byte(root, mode):
    async def main():
        async with Client(server_params(root), mode=mode) as c:
            replies = await tools_page_flow(c)
            is_error, err = await call(c, "halo_act", agent="demo", summary="x", uses=["e42"], trigger="self")
            assert is_error
            assert err == (
                '{"error": "unknown event id(s) e42 for agent \'demo\'; call halo_trace to see the ids of your earlier events"}'
            )
            _, trace = await call(c, "halo_trace", agent="demo")
            check_flow(replies, trace)
            assert len(trace.splitlines()) == 5
            _, guide = await call(c, "halo_guide")
            assert guide == c.instructions == GUIDE

    anyio.run(main)
    log = git(root / "demo.git", "log", "--format=%s").stdout.splitlines()
    assert log[0] == "e5 act: confirmed the next reminder"
    assert len(log) == 5


@pytest.mark.parametrize("mode", MODES)
def test_http_tools_page_flow_and_sessions(root, mode):
    async def main():
        async with http_server(root) as url:
            async with Client(url, mode=mode) as c:
                replies = await tools_page_flow(c)
                _, trace = await call(c, "halo_trace", agent="demo")
                check_flow(replies, trace)
                _, a = await call(c, "halo_observe", agent="demo", summary="first default session")
                _, b = await call(c, "halo_observe", agent="demo", summary="second default session")
                assert json.loads(a)["session"] == json.loads(b)["session"]
            other = Implementation(name="other-client", version="1")
            async with Client(url, mode=mode, client_info=other) as c2:
                _, d = await call(c2, "halo_observe", agent="demo", summary="another connection")
                assert json.loads(d)["session"] != json.loads(a)["session"]

    anyio.run(main)


def test_annotations_schemas_and_instructions(root):
    async def main():
        async with Client(server_params(root), mode="legacy") as c:
            assert c.instructions == GUIDE
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert set(tools) == {
                "halo_observe", "halo_remember", "halo_recall", "halo_act", "halo_outcome", "halo_revise",
                "halo_trace", "halo_report", "halo_guide",
            }
            for name in ("halo_observe", "halo_remember", "halo_recall", "halo_act", "halo_outcome", "halo_revise"):
                a = tools[name].annotations
                assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint) == (False, False, False, False)
                assert tools[name].input_schema["required"][0] == "summary"
                assert set(tools[name].input_schema["properties"]) >= {"summary", "uses", "session", "agent"}
                assert tools[name].description
            for name in ("halo_trace", "halo_report", "halo_guide"):
                a = tools[name].annotations
                assert (a.read_only_hint, a.idempotent_hint, a.open_world_hint) == (True, True, False)
            act = tools["halo_act"].input_schema
            assert act["properties"]["trigger"]["enum"] == ["request", "self"]
            assert act["properties"]["form"]["enum"] == ["silence", "communication", "preparation", "execution"]
            assert act["required"] == ["summary", "trigger"]
            assert tools["halo_revise"].input_schema["required"] == ["summary", "target", "made_by", "governance"]
            assert tools["halo_outcome"].input_schema["required"] == ["summary", "about"]
            trace = tools["halo_trace"].input_schema["properties"]["limit"]
            assert (trace["minimum"], trace["maximum"], trace["default"]) == (1, 200, 20)

    anyio.run(main)


REFUSALS = [
    ("halo_observe", {}, "'summary' is required"),
    ("halo_observe", {"summary": "   "}, "'summary' is empty"),
    ("halo_observe", {"summary": 42}, "'summary' must be a string"),
    ("halo_observe", {"summary": "x", "use": ["e1"]}, "unknown parameter(s) 'use'"),
    ("halo_observe", {"summary": "x", "uses": "e1"}, "'uses' must be an array"),
    ("halo_observe", {"summary": "x", "uses": ["e0"]}, "invalid event id 'e0'"),
    ("halo_observe", {"summary": "x", "uses": ["E1"]}, "invalid event id 'E1'"),
    ("halo_observe", {"summary": "x", "uses": ["e9"]}, "unknown event id(s) e9 for agent 'demo'"),
    ("halo_act", {"summary": "x"}, "'trigger' is required"),
    ("halo_act", {"summary": "x", "trigger": "maybe"}, "'trigger' must be one of request, self"),
    ("halo_act", {"summary": "x", "trigger": "self", "form": "shout"}, "'form' must be one of silence, communication, preparation, execution"),
    ("halo_outcome", {"summary": "x"}, "'about' is required"),
    ("halo_outcome", {"summary": "x", "about": "e1"}, "'about' must name an earlier act event, but e1 is an observe event"),
    ("halo_outcome", {"summary": "x", "about": "e3"}, "unknown event id(s) e3 for agent 'demo'"),
    ("halo_revise", {"summary": "x", "target": "rule", "made_by": "robot", "governance": "none"}, "'made_by' must be one of agent, user"),
    ("halo_revise", {"summary": "x", "target": "rule", "made_by": "agent", "governance": "maybe"}, "'governance' must be one of approved, bounded, none"),
    ("halo_revise", {"summary": "x", "made_by": "agent", "governance": "none"}, "'target' is required"),
    ("halo_trace", {"limit": 0}, "'limit' must be from 1 to 200, got 0"),
    ("halo_trace", {"limit": 201}, "'limit' must be from 1 to 200, got 201"),
    ("halo_trace", {"limit": "5"}, "'limit' must be an integer from 1 to 200"),
    ("halo_trace", {"lmit": 5}, "unknown parameter(s) 'lmit' for halo_trace"),
    ("halo_guide", {"x": 1}, "unknown parameter(s) 'x' for halo_guide"),
    ("halo_observe", {"summary": "x", "agent": "../etc"}, "invalid agent name '../etc'"),
    ("halo_report", {"session": "nope"}, "agent 'demo' has no session 'nope'"),
]


@pytest.mark.parametrize("mode", MODES)
def test_every_refusal_is_an_error_result_and_commits_nothing(root, mode):
    async def main():
        async with Client(server_params(root, "--agent", "demo"), mode=mode) as c:
            is_error, body = await call(c, "halo_observe", summary="the only event")
            assert not is_error
            for tool, args, expected in REFUSALS:
                r = await c.call_tool(tool, args)
                assert r.is_error, (tool, args, text(r))
                payload = json.loads(text(r))
                assert list(payload) == ["error"]
                assert expected in payload["error"], (tool, args, payload)
            unknown = await c.call_tool("halo_nope", {})
            assert unknown.is_error and "unknown tool" in json.loads(text(unknown))["error"]

    anyio.run(main)
    assert git(root / "demo.git", "rev-list", "--count", "main").stdout.strip() == "1"
    assert git(root / "demo.git", "fsck", "--full").returncode == 0


def test_agent_default_from_client_name_and_refusal_without_one(root):
    async def main():
        info = Implementation(name="Claude Desktop/2.0", version="2.0")
        async with Client(server_params(root), mode="legacy", client_info=info) as c:
            _, body = await call(c, "halo_observe", summary="named by the client")
            assert json.loads(body)["agent"] == "Claude-Desktop-2.0"
        async with Client(server_params(root, "--agent", "fixed"), mode="legacy", client_info=info) as c:
            _, body = await call(c, "halo_observe", summary="named by --agent")
            assert json.loads(body)["agent"] == "fixed"
            _, body = await call(c, "halo_observe", summary="named by the call", agent="explicit")
            assert json.loads(body)["agent"] == "explicit"
        nameless = Implementation(name="???", version="1")
        async with Client(server_params(root), mode="legacy", client_info=nameless) as c:
            is_error, body = await call(c, "halo_observe", summary="no name anywhere")
            assert is_error
            assert "pass 'agent'" in body and "--agent" in body

    anyio.run(main)
    assert sorted(p.name for p in root.iterdir()) == ["Claude-Desktop-2.0.git", "explicit.git", "fixed.git"]


def test_session_default_is_stable_per_connection_and_distinct_between(root):
    async def one_connection() -> set[str]:
        async with Client(server_params(root, "--agent", "demo"), mode="legacy") as c:
            labels = set()
            for i in range(3):
                _, body = await call(c, "halo_observe", summary=f"step {i}")
                labels.add(json.loads(body)["session"])
            return labels

    async def main():
        first = await one_connection()
        second = await one_connection()
        assert len(first) == 1 and len(second) == 1 and first != second

    anyio.run(main)


def test_empty_trace_says_which_tool_logs_first(root):
    async def main():
        async with Client(server_params(root, "--agent", "fresh"), mode="legacy") as c:
            is_error, body = await call(c, "halo_trace")
            assert not is_error
            assert body == "No events yet for agent 'fresh'; log the first with halo_observe."
            assert not (root / "fresh.git").exists()

    anyio.run(main)


def test_trace_line_escapes_newlines_and_report_has_boundary(root):
    async def main():
        async with Client(server_params(root, "--agent", "demo"), mode="legacy") as c:
            await call(c, "halo_observe", summary="line one\nline two", session="s1")
            await call(c, "halo_revise", summary="tightened the rule", target="reminder rule", made_by="agent", governance="none", uses=["e1"], session="s1")
            _, trace = await call(c, "halo_trace")
            assert trace.splitlines() == [
                "e1 [s1] observe: line one\\nline two",
                "e2 [s1] revise: tightened the rule (uses e1) {target=reminder rule, made_by=agent, governance=none}",
            ]
            is_error, report = await call(c, "halo_report")
            assert not is_error
            assert "Boundary and evidence" in report and "Channels" in report
            head = git(root / "demo.git", "rev-parse", "--short=12", "main").stdout.strip()
            assert head in report

    anyio.run(main)


def test_server_survives_a_bad_request_stream(root):
    """Garbage on stdin gets JSON-RPC errors, and the server keeps serving."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "halo_git.cli", "serve", "--root", str(root), "--agent", "demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        proc.stdin.write('not json\n{"jsonrpc": "2.0", "id": 1, "method": "nope"}\n')
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(2)]  # answered before stdin closes
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700
    assert replies[1]["id"] == 1 and "error" in replies[1]
