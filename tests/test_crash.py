"""Crash safety: kill -9 writers while they append, and prove nothing is lost.

Two real MCP servers (stdio) append to one agent at once; one of them is
SIGKILLed at a random moment while it works, checked, and restarted, 60 times.
After every kill: the branch head is a complete event, every event whose reply
a client received is in the history under the id the reply gave, and the
surviving writer keeps appending (a lock file left by the dead one is removed
once stale). At the end ``git fsck --full`` and ``halo-git verify`` pass.

The writers run with ``HALO_STALE_LOCK_SECONDS=1`` so a left-over lock costs
the test one second, not ten; the policy is the same.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.errors import Conflict
from halo_git.model import from_yaml
from halo_git.store import event_path

from tests.conftest import git, run_cli
from tests.raw_mcp import RawServer, result_payload

AGENT = "crash"
STALE = 1.0
KILLS = 60


class Writer(threading.Thread):
    """One server process and the client loop feeding it, until the server dies."""

    def __init__(self, root: Path, name: str, acked: dict[str, str], lock: threading.Lock, fsync: bool, log: Path):
        super().__init__(daemon=True)
        self.name_ = name
        self.acked = acked
        self.guard = lock
        extra = ["--agent", AGENT] + (["--fsync"] if fsync else [])
        self.server = RawServer(root, *extra, env={"HALO_STALE_LOCK_SECONDS": str(STALE)}, stderr=log)
        self.last_ack = 0.0
        self.acks = 0
        self.errors: list[str] = []
        self.go = threading.Event()  # started as a standby: connected, waiting to write

    def run(self) -> None:
        if self.server.initialize() is None:
            return
        self.go.wait()
        mine: list[str] = []
        i = 0
        while True:
            summary = f"{self.name_} n{i}"
            if mine and i % 3 == 0:
                args = {"summary": summary, "trigger": "self", "uses": mine[-2:]}
                message = self.server.call("halo_act", args)
            else:
                message = self.server.call("halo_observe", {"summary": summary})
            if message is None:
                return  # killed: the reply never came, so nothing was acknowledged
            is_error, payload = result_payload(message)
            if is_error:
                self.errors.append(payload["error"])
                return
            with self.guard:
                self.acked[summary] = payload["id"]
            mine.append(payload["id"])
            self.last_ack = time.monotonic()
            self.acks += 1
            i += 1


def history(repo: Path) -> dict[str, str]:
    """id -> commit subject for every commit on main."""
    out = {}
    for line in git(repo, "log", "--format=%s", "main").stdout.splitlines():
        event_id, _, rest = line.partition(" ")
        assert event_id not in out, f"duplicate id {event_id}"
        out[event_id] = rest
    return out


def assert_head_is_complete(repo: Path) -> int:
    """The head commit's own event file exists, parses, and matches its message."""
    head = git(repo, "rev-parse", "main").stdout.strip()
    subject = git(repo, "log", "-1", "--format=%s", head).stdout.strip()
    number = int(subject.split(" ", 1)[0][1:])
    event = from_yaml(git(repo, "cat-file", "blob", f"{head}:{event_path(number)}").stdout)
    assert event.id == f"e{number}" and subject == f"e{number} {event.kind}: {event.summary}"
    return number


def assert_acked_present(repo: Path, acked: dict[str, str]) -> None:
    subjects = history(repo)
    for summary, event_id in acked.items():
        assert subjects.get(event_id, "").endswith(f": {summary}"), (event_id, summary, subjects.get(event_id))


def lock_files(repo: Path) -> list[Path]:
    return list(repo.glob("refs/heads/*.lock")) + list(repo.glob("objects/*/*.lock"))


@pytest.mark.slow
def test_kill_9_writers_while_appending(root, tmp_path, monkeypatch):
    from halo_git.store import repo as repo_module

    repo = root / f"{AGENT}.git"
    with Halo(root, session="seed") as h:  # repository creation stays outside the kill window
        h.log(AGENT, "observe", "seed")
    acked: dict[str, str] = {"seed": "e1"}
    guard = threading.Lock()
    logs = tmp_path / "server-stderr.log"
    rng = random.Random(7)
    generation = 0

    def spawn() -> Writer:
        nonlocal generation
        generation += 1
        w = Writer(root, f"g{generation}", acked, guard, fsync=generation % 4 == 0, log=logs)
        w.start()
        return w

    writers = [spawn(), spawn()]
    for w in writers:
        w.go.set()
    standby = spawn()  # the next writer starts up while the others work
    locks_left = 0
    lock_kinds: set[str] = set()
    seen_locks: set[Path] = set()
    waits = []
    for kill in range(KILLS):
        victim_slot = kill % 2
        victim, survivor = writers[victim_slot], writers[1 - victim_slot]
        deadline = time.monotonic() + 60
        while victim.acks == 0 and victim.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        assert victim.acks > 0, f"writer {victim.name_} never appended: {victim.errors}"
        time.sleep(rng.uniform(0, 0.2))  # land anywhere in an append: validate, objects, ref swap, reply
        os.kill(victim.server.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        victim.join(30)
        victim.server.kill()
        assert not victim.errors, victim.errors

        left = set(lock_files(repo)) - seen_locks  # what this kill left behind
        seen_locks |= left
        if left:
            locks_left += 1
            lock_kinds.update("ref" if "refs" in p.parts else "object" for p in left)
        assert_head_is_complete(repo)
        with guard:
            snapshot = dict(acked)
        assert_acked_present(repo, snapshot)

        # The survivor is never blocked for good: it appends again within the stale age.
        while survivor.last_ack <= killed_at and survivor.is_alive() and time.monotonic() - killed_at < STALE + 20:
            time.sleep(0.005)
        assert survivor.last_ack > killed_at, f"survivor stuck after kill {kill}: {survivor.errors}"
        waits.append(survivor.last_ack - killed_at)
        writers[victim_slot], standby = standby, spawn()
        writers[victim_slot].go.set()

    standby.server.kill()
    for w in writers:  # the last two die too, mid-append
        os.kill(w.server.pid, signal.SIGKILL)
        w.join(30)
        w.server.kill()
    kills = KILLS + 2

    # A fresh writer appends at once or after at most the stale age, and shuts down cleanly.
    last = RawServer(root, "--agent", AGENT, env={"HALO_STALE_LOCK_SECONDS": str(STALE)})
    assert last.initialize() is not None
    started = time.monotonic()
    is_error, payload = result_payload(last.call("halo_observe", {"summary": "after the storm"}))
    assert not is_error, payload
    assert time.monotonic() - started < STALE + 5
    assert last.close() == 0
    acked["after the storm"] = payload["id"]

    subjects = history(repo)
    assert_acked_present(repo, acked)
    assert sorted(int(k[1:]) for k in subjects) == list(range(1, len(subjects) + 1))
    assert assert_head_is_complete(repo) == len(subjects)
    # Lock files of killed object writes are garbage git names but does not fail on;
    # clear_stale_locks removes them (every HALO writer removes those it meets).
    fsck = git(repo, "fsck", "--full", "--no-dangling", check=False)
    assert fsck.returncode == 0 and not fsck.stdout.strip(), fsck.stdout + fsck.stderr
    garbage = [line for line in fsck.stderr.splitlines() if line.strip()]
    assert all(line.startswith("bad sha1 file: ") and line.endswith(".lock") for line in garbage), garbage
    monkeypatch.setattr(repo_module, "STALE_LOCK_SECONDS", 0.0)  # every writer is gone now
    with Halo(root) as h:
        removed = h.store.repo(AGENT).clear_stale_locks()
    assert len(removed) >= len(garbage) and not lock_files(repo)
    fsck = git(repo, "fsck", "--full", "--no-dangling", check=False)
    assert fsck.returncode == 0 and not fsck.stderr.strip() and not fsck.stdout.strip(), fsck.stdout + fsck.stderr
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 0, verify.stderr
    unacked = len(subjects) - len(acked)
    print(
        f"\ncrash: {kills} kill -9s, {len(acked)} acknowledged events all present, {unacked} committed but "
        f"unacknowledged (killed before the reply), {locks_left} kills left lock files, {len(garbage)} orphaned object locks at the end ({', '.join(sorted(lock_kinds)) or 'none'}), "
        f"survivor resumed after max {max(waits):.2f}s, {len(subjects)} events, fsck and verify clean"
    )
    assert len(acked) > KILLS


# --- stale lock policy, deterministic --------------------------------------------------------


def _aged(path: Path, seconds: float) -> None:
    path.write_bytes(b"")
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_stale_ref_lock_is_removed_and_a_fresh_one_is_waited_for(root, monkeypatch):
    """A ref lock older than the stale age is removed at once; a young one is
    respected until it ages (it may belong to a live writer), then removed."""
    from halo_git.store import repo as repo_module

    monkeypatch.setattr(repo_module, "STALE_LOCK_SECONDS", 1.0)
    with Halo(root, session="s") as h:
        h.log(AGENT, "observe", "first")
        lock = root / f"{AGENT}.git" / "refs" / "heads" / "main.lock"
        _aged(lock, 30)
        started = time.monotonic()
        assert h.log(AGENT, "observe", "second")["id"] == "e2"
        assert time.monotonic() - started < 0.5 and not lock.exists()

        lock.write_bytes(b"")  # fresh: a live writer might hold it
        started = time.monotonic()
        assert h.log(AGENT, "observe", "third")["id"] == "e3"
        waited = time.monotonic() - started
        assert 0.9 <= waited < 6, waited
    assert git(root / f"{AGENT}.git", "fsck", "--full").returncode == 0


def test_stale_object_lock_is_waited_out_not_failed(root, monkeypatch):
    """A killed writer can leave the lock of an object a retry writes again (same
    event, same second): the retry waits until the lock is stale instead of failing."""
    from halo_git.store import repo as repo_module

    monkeypatch.setattr(repo_module, "STALE_LOCK_SECONDS", 1.0)
    with Halo(root, session="s") as h:
        h.log(AGENT, "observe", "first", time="2026-11-30T09:00:00Z")
        repo = root / f"{AGENT}.git"
        # The object the next call will write: its blob, found by writing it once elsewhere.
        other = root.parent / "other"
        with Halo(other, session="s") as o:
            o.log(AGENT, "observe", "first", time="2026-11-30T09:00:00Z")
            o.log(AGENT, "observe", "again", time="2026-11-30T09:00:01Z")
            blob = git(other / f"{AGENT}.git", "rev-parse", "main:" + event_path(2)).stdout.strip()
        lock = repo / "objects" / blob[:2] / (blob[2:] + ".lock")
        lock.parent.mkdir(exist_ok=True)
        lock.write_bytes(b"")
        started = time.monotonic()
        assert h.log(AGENT, "observe", "again", time="2026-11-30T09:00:01Z")["id"] == "e2"
        assert 0.9 <= time.monotonic() - started < 6
        assert not lock.exists()
    assert git(repo, "fsck", "--full").returncode == 0


def test_a_lock_that_never_ages_ends_in_a_clear_refusal(root, monkeypatch):
    """If a lock stays young (a clock far off, a writer stuck), the append gives up
    with a Conflict that says to try again; it never hangs."""
    from halo_git.store import repo as repo_module

    monkeypatch.setattr(repo_module, "STALE_LOCK_SECONDS", 3600.0)
    with Halo(root, session="s") as h:
        h.log(AGENT, "observe", "first")
        first = h.events(AGENT)[0]
        (root / f"{AGENT}.git" / "refs" / "heads" / "main.lock").write_bytes(b"")
        started = time.monotonic()
        with pytest.raises(Conflict, match="try again"):
            h.store.repo(AGENT).append("main", lambda n, kind_of: replace(first, id=f"e{n}"), retries=20)
        assert time.monotonic() - started < 5
        assert h.store.repo(AGENT).head("main") == h.event_log(AGENT).head


# --- the durability promise -----------------------------------------------------------------------


def test_durability_promise_fsyncs_and_its_cost(tmp_path, monkeypatch):
    """Default: the ref is fsynced (dulwich), objects are not: an acknowledged event
    survives any process crash, not a power loss. ``fsync=True`` (``serve --fsync``)
    also fsyncs every object before the ref moves. Counted at the OS call, timed
    in alternating blocks so both modes share the machine's noise."""
    real_fsync = os.fsync
    calls = [0]

    def counting_fsync(fd: int) -> None:
        calls[0] += 1
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    halos = {mode: Halo(tmp_path / str(mode), session="s", fsync=mode) for mode in (False, True)}
    times: dict[bool, list[float]] = {False: [], True: []}
    fsyncs: dict[bool, int] = {False: 0, True: 0}
    for h in halos.values():
        h.log(AGENT, "observe", "warm up")
    for block in range(4):
        for mode, h in halos.items():
            calls[0] = 0
            for i in range(50):
                started = time.perf_counter()
                h.log(AGENT, "observe", f"event {block}.{i}")
                times[mode].append(time.perf_counter() - started)
            fsyncs[mode] += calls[0]
    for h in halos.values():
        h.close()
    assert fsyncs[False] == 200  # one per append: the branch ref
    assert fsyncs[True] == 200 * 7  # blob, four trees, commit, then the ref
    p50 = {mode: sorted(t)[len(t) // 2] * 1000 for mode, t in times.items()}
    print(f"\nappend p50: {p50[False]:.2f} ms without object fsync, {p50[True]:.2f} ms with (+{p50[True] - p50[False]:.2f} ms)")


# --- a kill while the first event creates the repository ----------------------------------------


@pytest.mark.parametrize("leftover", ["empty folder", "HEAD on master"])
def test_a_kill_during_repository_creation_does_not_break_the_agent(root, leftover):
    """What a writer killed inside ``Repo.init_bare`` leaves behind (measured: 24 of
    40 kills timed into the first append left one of these), then the next writer."""
    path = root / f"{AGENT}.git"
    if leftover == "empty folder":
        path.mkdir()
    else:
        subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=master", str(path)], check=True)
    with Halo(root, session="s") as h:
        assert h.log(AGENT, "observe", "first after the crash")["id"] == "e1"
    assert git(path, "log", "--format=%s").stdout == "e1 observe: first after the crash\n"
    assert git(path, "fsck", "--full").returncode == 0
