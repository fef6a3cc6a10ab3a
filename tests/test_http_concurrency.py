"""Agents behind one HTTP server do not wait for each other, and one agent's
calls keep their order.

A real ``halo-git serve --transport http`` process and the SDK's client. Agent
A's branch is held by a Git lock file (as a ``git`` process updating the ref
would hold it), so A's appends wait; meanwhile agent B's calls are answered.
Once the lock is gone, A's waiting calls commit in the order they were sent.
More held agents than any pool of threads the server could share among them
(60) do not hold up a free agent either, nor its reads. And each agent's writer
thread ends once the agent has been idle a while.
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
from halo_git.server import AgentWriters
from tests.conftest import PYTHON


def start(root: Path) -> tuple[subprocess.Popen, str]:
    # a held lock counts as stale (its writer dead) after this long; longer than the test
    env = {**os.environ, "HALO_STALE_LOCK_SECONDS": "120"}
    proc = subprocess.Popen(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=os.environ.get("HALO_TEST_SOURCE"),
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


def test_sixty_held_agents_do_not_hold_up_a_free_one(root):
    """60 agents' branches are held by Git lock files, each with a call waiting, more
    than the 40 worker threads the event loop shares among blocking calls: a free
    agent's writes and reads are still answered at once (before each agent's writes
    had a thread of their own, the held agents took every worker thread, and the
    free agent's call waited for a lock to go). Once the locks are gone, every
    held call commits."""
    held = 60
    proc, url = start(root)
    answered: dict[str, dict] = {}
    try:

        async def call(client: Client, tool: str, args: dict, key: str) -> None:
            r = await client.call_tool(tool, args)
            assert not r.is_error, r.content[0].text
            answered[key] = r.structured_content or {}

        async def main() -> None:
            with anyio.fail_after(120):
                async with Client(url, mode="legacy") as free, Client(url, mode="legacy") as opener:
                    for k in range(held):  # the repositories exist before their locks are taken
                        await call(opener, "halo_observe", {"agent": f"held-{k:02d}", "summary": "started"}, f"held-{k:02d} e1")
                    await call(free, "halo_observe", {"agent": "free", "summary": "started"}, "free e1")
                    for k in range(held):
                        (root / f"held-{k:02d}.git" / "refs" / "heads" / "main.lock").write_bytes(b"")
                    async with anyio.create_task_group() as tg:
                        for k in range(held):
                            tg.start_soon(call, opener, "halo_observe", {"agent": f"held-{k:02d}", "summary": "waits"}, f"held-{k:02d} e2")
                        await anyio.sleep(2.0)  # every held call is in the server, waiting for its lock
                        assert not any(key.endswith("e2") for key in answered)
                        t0 = time.monotonic()
                        for i in range(3):
                            await call(free, "halo_observe", {"agent": "free", "summary": f"step {i}"}, f"free step {i}")
                        await call(free, "halo_trace", {"agent": "free", "limit": 5}, "free trace")
                        free_seconds = time.monotonic() - t0
                        assert not any(key.endswith("e2") for key in answered), "a held agent's call went through its lock"
                        assert free_seconds < 10, free_seconds
                        for k in range(held):
                            (root / f"held-{k:02d}.git" / "refs" / "heads" / "main.lock").unlink()

        anyio.run(main)
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
    assert [answered[f"free step {i}"]["id"] for i in range(3)] == ["e2", "e3", "e4"]
    assert [e["summary"] for e in answered["free trace"]["events"]] == ["started", "step 0", "step 1", "step 2"]
    assert all(answered[f"held-{k:02d} e2"]["id"] == "e2" for k in range(held))


def test_a_writer_thread_ends_when_its_agent_is_idle():
    """One thread per agent while it writes, gone after the idle time; calls handed to
    one agent run one after the other in the order handed, while another agent's run."""
    import asyncio
    import threading

    writers = AgentWriters(idle=0.3)
    order: list[str] = []
    gate = threading.Event()

    def step(name: str, wait: bool = False):
        def run() -> str:
            if wait:
                assert gate.wait(10)
            order.append(name)
            return name
        return run

    async def main() -> None:
        a = [writers.submit("a", step("a1", wait=True)), writers.submit("a", step("a2")), writers.submit("a", step("a3"))]
        b = writers.submit("b", step("b1"))
        assert await asyncio.wait_for(b, 5) == "b1"  # b is answered while a's first call waits
        assert writers.threads() == 2
        gate.set()
        assert await asyncio.gather(*a) == ["a1", "a2", "a3"]
        failing = writers.submit("a", lambda: 1 / 0)
        try:
            await failing
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("the error did not reach the caller")
        await asyncio.sleep(1.0)
        assert writers.threads() == 0
        assert await writers.submit("a", step("a4")) == "a4"  # a new thread for a returning agent
        writers.stop()
        assert writers.threads() == 0

    asyncio.run(main())
    assert order == ["b1", "a1", "a2", "a3", "a4"]
