"""Agents behind one HTTP server do not wait for each other, and one agent's
calls keep their order.

A real ``halo-git serve --transport http`` process and the SDK's client. Agent
A's branch is held by a Git lock file (as a ``git`` process updating the ref
would hold it), so A's appends wait; meanwhile agent B's calls are answered.
Once the lock is gone, A's waiting calls commit in the order they were sent.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import anyio
from mcp import Client

from halo_git import Halo
from tests.conftest import PYTHON


def start(root: Path) -> tuple[subprocess.Popen, str]:
    # a held lock counts as stale (its writer dead) after this long; longer than the test
    env = {**os.environ, "HALO_STALE_LOCK_SECONDS": "120"}
    proc = subprocess.Popen(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", proc.stderr.readline())
        if m:
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("the HTTP server did not print its URL")


def test_a_held_agent_does_not_hold_another_and_keeps_its_order(root):
    proc, url = start(root)
    lock = root / "agent-a.git" / "refs" / "heads" / "main.lock"
    replies: dict[str, dict] = {}
    finished: dict[str, float] = {}
    try:

        async def call(client: Client, agent: str, summary: str) -> None:
            r = await client.call_tool("halo_observe", {"agent": agent, "summary": summary})
            assert not r.is_error, r.content[0].text
            replies[summary] = json.loads(r.content[0].text)
            finished[summary] = time.monotonic()

        async def main() -> None:
            with anyio.fail_after(90):
                await clients()

        async def clients() -> None:
            async with Client(url, mode="legacy") as a1, Client(url, mode="legacy") as a2, Client(url, mode="legacy") as a3, Client(url, mode="legacy") as b:
                await call(a1, "agent-a", "a first")  # both repositories exist before the lock is taken
                await call(b, "agent-b", "b first")
                lock.write_bytes(b"")  # agent A's branch is now held by another writer
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call, a1, "agent-a", "a second")
                    await anyio.sleep(0.5)  # in flight, waiting for the lock
                    tg.start_soon(call, a2, "agent-a", "a third")
                    await anyio.sleep(0.3)
                    tg.start_soon(call, a3, "agent-a", "a fourth")
                    await anyio.sleep(0.3)
                    t0 = time.monotonic()
                    for i in range(5):  # agent B is answered while A waits
                        await call(b, "agent-b", f"b {i}")
                    b_seconds = time.monotonic() - t0
                    assert not {"a second", "a third", "a fourth"} & set(finished), "A's calls went through a held lock"
                    assert b_seconds < 10, b_seconds
                    await anyio.sleep(0.5)
                    released = time.monotonic()
                    lock.unlink()  # the other writer is done
                assert all(finished[s] >= released for s in ("a second", "a third", "a fourth"))

        anyio.run(main)
        assert proc.poll() is None  # still serving
    finally:
        proc.terminate()
        proc.wait(30)
    assert [replies[s]["id"] for s in ("a first", "a second", "a third", "a fourth")] == ["e1", "e2", "e3", "e4"]
    assert [replies[s]["id"] for s in ("b first", "b 0", "b 1", "b 2", "b 3", "b 4")] == [f"e{i}" for i in range(1, 7)]
    events = Halo(root, session="check").events("agent-a")
    assert [(e.id, e.summary) for e in events] == [("e1", "a first"), ("e2", "a second"), ("e3", "a third"), ("e4", "a fourth")]



def test_many_sessions_opened_and_closed(root):
    """200 sessions, 25 open at a time, each one call: the server forgets what it
    noted about sessions that ended, and that bookkeeping (past 64 of them) once
    raised NameError, so newcomers got an internal error instead of a session."""
    proc, url = start(root)
    try:

        async def one(i: int, limit: anyio.Semaphore) -> None:
            async with limit, Client(url, mode="legacy") as c:
                r = await c.call_tool("halo_observe", {"agent": "agent-s", "summary": f"session {i}"})
                assert not r.is_error, r.content[0].text

        async def main() -> None:
            limit = anyio.Semaphore(25)
            with anyio.fail_after(150):
                async with anyio.create_task_group() as tg:
                    for i in range(200):
                        tg.start_soon(one, i, limit)

        anyio.run(main)
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
    assert len(Halo(root, session="check").events("agent-s")) == 200
