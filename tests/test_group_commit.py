"""Group commit: writes of one agent that arrive together share one ref swap and one sync.

Through the library (``Halo.log_calls``), through the server's per-agent writer
(``AgentWriters``), through a real MCP server over stdio taking a burst of
concurrent calls, and with ``kill -9`` landing inside bursts. Each call keeps
what it had alone: its own id in arrival order, its own refusal, and an
acknowledgement only once its event is durable.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import threading
import time
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.errors import HaloError, InvalidCall
from halo_git.server import AgentWriters

from tests.conftest import git, run_cli, server_params
from tests.raw_mcp import RawServer, result_payload


def _counting_fsync(monkeypatch) -> list[int]:
    calls = [0]
    real = os.fsync

    def counting(fd: int) -> None:
        calls[0] += 1
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_a_group_lands_in_order_with_one_sync_and_refusals_stay_apart(root, monkeypatch):
    with Halo(root, session="s") as h:
        h.log("g", "observe", "before the group")
        syncs = _counting_fsync(monkeypatch)
        results = h.log_calls([
            ("observe", {"agent": "g", "summary": "inbox: 3 new messages"}),
            ("act", {"agent": "g", "summary": "archive", "trigger": "request", "form": "execution", "uses": ["e99"]}),
            ("remember", {"agent": "g", "summary": "three messages waiting", "uses": ["e2"]}),
            ("recall", {"agent": "g", "summary": "what was waiting", "uses": ["e3"]}),  # e3: made earlier in this group
            ("outcome", {"agent": "g", "summary": "done", "about": "e4"}),  # e4 is a recall: refused, as alone
            ("observe", {"summary": "no agent name"}, None, "s"),
            ("act", {"agent": "g", "summary": "replied", "trigger": "request", "form": "communication", "uses": ["e4"]}),
        ])
        assert syncs[0] == 1  # five events, one ref swap
        ids = [r["id"] if isinstance(r, dict) else None for r in results]
        assert ids == ["e2", None, "e3", "e4", None, None, "e5"]
        refused = [results[i] for i in (1, 4, 5)]
        assert all(isinstance(r, HaloError) for r in refused)
        assert "e99" in str(refused[0]) and "halo_trace" in str(refused[0])
        assert "about" in str(refused[1])
        assert isinstance(refused[2], InvalidCall) and "--agent" in str(refused[2])
        events = h.events("g")
    assert [e.summary for e in events] == ["before the group", "inbox: 3 new messages", "three messages waiting",
                                           "what was waiting", "replied"]
    assert [e.time for e in events] == sorted(e.time for e in events)
    repo = root / "g.git"
    assert git(repo, "log", "--format=%s", "main").stdout.splitlines()[0] == "e5 act: replied"
    fsck = git(repo, "fsck", "--full", "--no-dangling", check=False)
    assert fsck.returncode == 0 and not fsck.stdout.strip(), fsck.stdout + fsck.stderr


def test_alone_each_call_syncs_once(root, monkeypatch):
    """The anchor of the test above: the same calls one at a time make one sync each."""
    with Halo(root, session="s") as h:
        h.log("g", "observe", "before")
        syncs = _counting_fsync(monkeypatch)
        for i in range(5):
            h.log_call("observe", {"agent": "g", "summary": f"o{i}"})
        assert syncs[0] == 5


def test_a_group_that_loses_the_race_is_built_again_on_the_new_head(root):
    with Halo(root, session="s") as h, Halo(root, session="other") as other:
        h.log("g", "observe", "first")
        repo = h.store.repo("g")
        calls = []

        def racing(number, kind_of):
            calls.append(number)
            if len(calls) == 1:  # another writer moves the branch while the group is being written
                other.log("g", "observe", "the other writer")
            return _event(h, number, "grouped")

        results = repo.append_group("main", [racing, lambda n, k: _event(h, n, "second of the group")])
        assert [r.event.id for r in results] == ["e3", "e4"] and calls == [2, 3]
        assert [e.summary for e in h.events("g")] == ["first", "the other writer", "grouped", "second of the group"]
    fsck = git(root / "g.git", "fsck", "--full", "--no-dangling", check=False)
    assert fsck.returncode == 0 and not fsck.stdout.strip()


def _event(h: Halo, number: int, summary: str):
    from halo_git.model import check_call, resolve

    draft = check_call("observe", {"summary": summary}, h.screen)
    return resolve(draft, number, "g", "s", "2026-01-01T00:00:00Z", lambda n: "observe")


def test_the_writer_groups_what_waits_and_keeps_arrival_order():
    """While an agent's writer thread is busy, the writes that queue up behind it are
    committed as one group; a write that cannot be grouped keeps its place."""
    ran: list[str] = []
    groups: list[list[str]] = []
    gate = threading.Event()

    def group(calls):
        groups.append(list(calls))
        ran.extend(calls)
        return [(f"ok {c}", None) if c != "bad" else (None, InvalidCall("refused bad")) for c in calls]

    writers = AgentWriters(group=group)

    async def main():
        def first():
            gate.wait(10)
            ran.append("first")
            return "ok first"

        futures = [writers.submit("a", first, "first")]
        await asyncio.sleep(0.05)  # the thread is now inside first(), the rest queue up
        for name in ("w1", "bad", "w2"):
            futures.append(writers.submit("a", lambda name=name: (ran.append(name), f"alone {name}")[1], name))
        futures.append(writers.submit("a", lambda: (ran.append("plain"), "ok plain")[1]))  # no call: not groupable
        futures.append(writers.submit("a", lambda: (ran.append("w3"), "alone w3")[1], "w3"))
        gate.set()
        return await asyncio.gather(*futures, return_exceptions=True)

    answers = asyncio.run(main())
    writers.stop()
    assert ran == ["first", "w1", "bad", "w2", "plain", "w3"]
    assert groups == [["w1", "bad", "w2"]]  # w3 waited alone behind the plain write: its own fn ran
    assert answers[:4] == ["ok first", "ok w1", answers[2], "ok w2"] and isinstance(answers[2], InvalidCall)
    assert answers[4:] == ["ok plain", "alone w3"]


def test_concurrent_calls_over_stdio_get_their_own_ids(root):
    """A client with 40 calls in flight at once: the server groups them, and every reply
    names the event that holds that call's summary, ids e1..e40 without a gap."""
    import anyio
    from mcp import Client

    replies: dict[str, str] = {}

    async def main() -> None:
        async with Client(server_params(root, "--agent", "burst")) as client:
            async def one(i: int) -> None:
                r = await client.call_tool("halo_observe", {"summary": f"reading {i}"})
                assert not r.is_error, r.content[0].text
                replies[f"reading {i}"] = json.loads(r.content[0].text)["id"]

            async with anyio.create_task_group() as tg:
                for i in range(40):
                    tg.start_soon(one, i)

    anyio.run(main)
    events = Halo(root, session="check").events("burst")
    assert [e.id for e in events] == [f"e{i}" for i in range(1, 41)]
    assert {e.summary: e.id for e in events} == replies
    verify = run_cli("verify", "--agent", "burst", root=root)
    assert verify.returncode == 0, verify.stderr


def _burst(server: RawServer, start: int, size: int, timeout: float = 30) -> dict[str, str] | None:
    """Send ``size`` halo_observe calls without waiting, then collect the replies by request id.
    Returns summary -> acknowledged id for the replies that came, None once the server is dead."""
    sent: dict[int, str] = {}
    for i in range(start, start + size):
        server._next += 1
        summary = f"burst n{i}"
        if not server.send({"jsonrpc": "2.0", "id": server._next, "method": "tools/call",
                            "params": {"name": "halo_observe", "arguments": {"summary": summary}}}):
            return None
        sent[server._next] = summary
    acked: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    while sent and time.monotonic() < deadline:
        try:
            line = server._lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except Exception:
            break
        if line is None:
            server._lines.put(None)
            return acked or None
        message = json.loads(line)
        summary = sent.pop(message.get("id"), None)
        if summary is not None:
            is_error, payload = result_payload(message)
            assert not is_error, payload
            acked[summary] = payload["id"]
    return acked


@pytest.mark.slow
def test_kill_9_inside_groups_loses_no_acknowledged_event(root, tmp_path):
    """A server taking bursts of 16 concurrent calls is SIGKILLed at a random moment,
    20 times: every acknowledged event is present under its id, the head is always
    a complete event, and at the end ``git fsck`` and ``halo-git verify`` pass."""
    agent = "groups"
    with Halo(root, session="seed") as h:
        h.log(agent, "observe", "seed")
    repo = root / f"{agent}.git"
    acked: dict[str, str] = {"seed": "e1"}
    rng = random.Random(11)
    n = 0
    for kill in range(20):
        server = RawServer(root, "--agent", agent, *(["--fsync"] if kill % 4 == 3 else []),
                           env={"HALO_STALE_LOCK_SECONDS": "1"}, stderr=tmp_path / "stderr.log")
        assert server.initialize() is not None
        results: list[dict[str, str] | None] = []

        def feed() -> None:
            nonlocal n
            while True:
                got = _burst(server, n, 16)
                n += 16
                if got is None:
                    return
                results.append(got)

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        time.sleep(0.3 + rng.uniform(0, 0.4))
        os.kill(server.pid, signal.SIGKILL)
        feeder.join(30)
        server.kill()
        for got in results:
            acked.update(got)
        subjects = {}
        for line in git(repo, "log", "--format=%s", "main").stdout.splitlines():
            event_id, _, rest = line.partition(" ")
            assert event_id not in subjects
            subjects[event_id] = rest
        head = max(int(k[1:]) for k in subjects)
        assert sorted(int(k[1:]) for k in subjects) == list(range(1, head + 1))
        for summary, event_id in acked.items():
            assert subjects.get(event_id, "").endswith(f": {summary}"), (kill, event_id, summary)
    assert len(acked) > 100
    time.sleep(1.1)  # the last kill's lock files are stale now
    with Halo(root) as h:
        h.store.repo(agent).clear_stale_locks()
    fsck = git(repo, "fsck", "--full", "--no-dangling", check=False)
    assert fsck.returncode == 0 and not fsck.stdout.strip(), fsck.stdout + fsck.stderr
    verify = run_cli("verify", "--agent", agent, root=root)
    assert verify.returncode == 0, verify.stderr
