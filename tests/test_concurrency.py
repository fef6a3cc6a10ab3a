"""Concurrent writers: no event lost, no id duplicated or skipped.

Eight writers append to one agent at once, each through its own real MCP
server process over stdio, with ``halo-git log`` processes mixed in: 2,000
events. Then sixteen clients share one HTTP server process (its threads append
concurrently). Every acknowledged id must hold the summary that was sent, the
ids must run e1..eN without a gap, and plain ``git fsck --full`` and
``halo-git verify`` must pass.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import Counter
from pathlib import Path

import anyio
import pytest

from halo_git import Halo

from tests.conftest import PYTHON, git, run_cli, server_params

WRITERS = 8
PER_WRITER = 250
CLI_EVERY = 25  # every 25th event of a writer goes through `halo-git log` (80 in all)


def assert_history(root: Path, agent: str, acked: dict[str, str], total: int) -> None:
    events = Halo(root, session="check").events(agent)
    assert [e.id for e in events] == [f"e{i}" for i in range(1, total + 1)]
    counts = Counter(e.summary for e in events)
    assert set(counts) == set(acked) and max(counts.values()) == 1
    by_id = {e.id: e.summary for e in events}
    assert all(by_id[event_id] == summary for summary, event_id in acked.items())
    repo = root / f"{agent}.git"
    fsck = git(repo, "fsck", "--full", "--no-dangling", check=False)
    assert fsck.returncode == 0 and not (fsck.stdout + fsck.stderr).strip(), fsck.stdout + fsck.stderr
    verify = run_cli("verify", "--agent", agent, root=root)
    assert verify.returncode == 0 and f"ok: {total} events" in verify.stdout, verify.stderr


@pytest.mark.slow
def test_eight_processes_append_2000_events_to_one_agent(root):
    from mcp import Client

    agent = "busy"
    acked: dict[str, str] = {}
    cli_calls = 0

    async def writer(w: int) -> None:
        nonlocal cli_calls
        async with Client(server_params(root, "--agent", agent)) as client:
            previous: list[str] = []
            for i in range(PER_WRITER):
                summary = f"writer {w} event {i}"
                if i % CLI_EVERY == CLI_EVERY - 1:
                    cmd = [PYTHON, "-m", "halo_git.cli", "log", "observe", "--agent", agent, "--root", str(root), "--summary", summary]
                    done = await anyio.run_process(cmd, check=False)
                    assert done.returncode == 0, done.stderr.decode()
                    reply = json.loads(done.stdout)
                    cli_calls += 1
                else:
                    args = {"summary": summary}
                    if previous and i % 4 == 0:  # provenance between concurrent writers' own events
                        args["uses"] = previous[-3:]
                    result = await client.call_tool("halo_observe", args)
                    assert not result.is_error, result.content[0].text
                    reply = json.loads(result.content[0].text)
                acked[summary] = reply["id"]
                previous.append(reply["id"])

    started = time.monotonic()

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for w in range(WRITERS):
                tg.start_soon(writer, w)

    anyio.run(main)
    elapsed = time.monotonic() - started
    total = WRITERS * PER_WRITER
    assert cli_calls == WRITERS * (PER_WRITER // CLI_EVERY)
    assert len(acked) == total and len(set(acked.values())) == total
    assert_history(root, agent, acked, total)
    print(f"\nconcurrency: {total} events from {WRITERS} MCP server processes + {cli_calls} CLI processes in {elapsed:.1f}s, e1..e{total} contiguous")


def start_http_server(root: Path, *args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            return proc, m.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError("the HTTP server did not print its URL")


@pytest.mark.slow
def test_sixteen_clients_share_one_http_server(root):
    from mcp import Client

    agent = "web"
    clients, per_client = 16, 25
    proc, url = start_http_server(root, "--agent", agent)
    acked: dict[str, str] = {}
    traces = 0
    try:

        async def client_run(c: int) -> None:
            nonlocal traces
            async with Client(url) as client:
                for i in range(per_client):
                    summary = f"client {c} step {i}"
                    result = await client.call_tool("halo_remember", {"summary": summary})
                    assert not result.is_error, result.content[0].text
                    acked[summary] = json.loads(result.content[0].text)["id"]
                    if i % 5 == 0:  # readers run alongside the writers
                        trace = await client.call_tool("halo_trace", {"limit": 200})
                        assert not trace.is_error  # and a client reads its own write back:
                        assert f"{acked[summary]} [" in trace.content[0].text and f"remember: {summary}" in trace.content[0].text
                        traces += 1

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                for c in range(clients):
                    tg.start_soon(client_run, c)

        started = time.monotonic()
        anyio.run(main)
        elapsed = time.monotonic() - started
        assert proc.poll() is None  # still serving
    finally:
        proc.terminate()
        proc.wait(30)
    total = clients * per_client
    assert len(acked) == total
    assert_history(root, agent, acked, total)
    print(f"\nhttp: {total} events from {clients} concurrent clients of one server process in {elapsed:.1f}s ({traces} traces read alongside)")
