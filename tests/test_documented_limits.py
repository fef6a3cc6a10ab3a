"""Behaviour the docs promise, pinned through the real interfaces so a one-line
change to it fails here: the trace's default limit and session filter (MCP and
CLI) and the 100-character session limit."""

from __future__ import annotations

import json

import anyio
from mcp import Client

from halo_git import Halo
from tests.conftest import run_cli, server_params


def fill(root) -> None:
    """e1..e25, alternating sessions: odd ids in s-odd, even ids in s-even."""
    with Halo(root) as h:
        for i in range(1, 26):
            h.log("demo", "observe", f"step {i}", session="s-odd" if i % 2 else "s-even")


def ids(text: str) -> list[int]:
    return [int(line.split()[0][1:]) for line in text.splitlines()]


def test_halo_trace_defaults_to_the_last_20_and_filters_by_session(root):
    fill(root)

    async def main():
        async with Client(server_params(root, "--agent", "demo"), mode="legacy") as c:
            default = (await c.call_tool("halo_trace", {})).content[0].text
            odd = (await c.call_tool("halo_trace", {"session": "s-odd"})).content[0].text
            even3 = (await c.call_tool("halo_trace", {"session": "s-even", "limit": 3})).content[0].text
            none = (await c.call_tool("halo_trace", {"session": "s-none"})).content[0].text
            return default, odd, even3, none

    default, odd, even3, none = anyio.run(main)
    assert ids(default) == list(range(6, 26))  # 20, oldest first
    assert ids(odd) == list(range(1, 26, 2))  # all 13 of the session, nothing else
    assert all("[s-odd]" in line for line in odd.splitlines())
    assert ids(even3) == [20, 22, 24]
    assert none == "No events yet in session 's-none' for agent 'demo'; log the first with halo_observe."


def test_cli_trace_defaults_to_the_last_20_and_filters_by_session(root):
    fill(root)
    assert ids(run_cli("trace", "--agent", "demo", root=root).stdout) == list(range(6, 26))
    assert ids(run_cli("trace", "--agent", "demo", "--session", "s-even", root=root).stdout) == list(range(2, 26, 2))
    assert ids(run_cli("trace", "--agent", "demo", "--session", "s-odd", "--limit", "2", root=root).stdout) == [23, 25]


def test_a_session_label_may_have_100_characters_not_101(root):
    ok, long = "s" * 100, "s" * 101

    async def main():
        async with Client(server_params(root, "--agent", "demo"), mode="legacy") as c:
            accepted = await c.call_tool("halo_observe", {"summary": "fits", "session": ok})
            refused = await c.call_tool("halo_observe", {"summary": "too long", "session": long})
            trace = await c.call_tool("halo_trace", {"session": long})
            return accepted, refused, trace

    accepted, refused, trace = anyio.run(main)
    assert not accepted.is_error and json.loads(accepted.content[0].text)["session"] == ok
    assert refused.is_error
    assert json.loads(refused.content[0].text)["error"].startswith("'session' is 101 characters; the limit is 100")
    assert trace.is_error and "101 characters" in trace.content[0].text
    r = run_cli("log", "observe", "--agent", "demo", "--summary", "x", "--session", long, root=root)
    assert r.returncode == 2 and "the limit is 100" in r.stderr
    with Halo(root) as h:
        assert [e.id for e in h.events("demo")] == ["e1"]
