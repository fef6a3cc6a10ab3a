"""One agent's bare Git repository: append one event per commit, read the head.

Layout: ``events/<NN>/<MM>/e<N>.yaml`` with ``NN = N // 10000`` and
``MM = N // 100 % 100`` (two digits each), so no tree ever holds more than 100
entries below ``events/`` for the first million events and every append writes
six objects: one blob, four trees, one commit. The cost of an append therefore
does not grow with history.

Appends are compare-and-swap on the branch ref (``set_if_equals``): build the
commit on the head we read, swap only if the head is still that commit,
otherwise rebuild on the new head with the next id. A per-repository thread lock
serialises threads of one process; CAS serialises processes.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from dulwich.errors import NotGitRepository
from dulwich.file import FileLocked
from dulwich.objects import Blob, Commit, Tree
from dulwich.refs import check_ref_format
from dulwich.repo import Repo

from ..errors import Conflict, HaloError, InvalidCall, NotFound
from ..model import Event, commit_message, epoch_seconds, from_yaml, to_yaml

ZERO_SHA = b"0" * 40
DEFAULT_BRANCH = "main"
# A ref or object lock is held for well under a millisecond; one older than this
# was left by a killed process and is removed (see README "Crash safety").
STALE_LOCK_SECONDS = float(os.environ.get("HALO_STALE_LOCK_SECONDS", "10"))
CACHE_DIR = "halo"  # inside the bare repository; git ignores unknown folders there
SNAPSHOT_EVERY = 500  # persist the parsed-event cache when it is this far ahead


def event_path(number: int) -> str:
    """Path of event ``e<number>`` inside a commit's tree."""
    return f"events/{number // 10000:02d}/{number // 100 % 100:02d}/e{number}.yaml"


def _path_parts(number: int) -> list[bytes]:
    return [p.encode() for p in event_path(number).split("/")]


def branch_ref(branch: str) -> bytes:
    ref = f"refs/heads/{branch}".encode()
    if not branch or not check_ref_format(ref) or branch.startswith("-"):
        raise InvalidCall(f"invalid branch name {branch!r}: use letters, digits, '-', '_', '.' and '/' as Git allows, e.g. prompt-v2")
    return ref


def _read_ref(repo: Repo, ref: bytes) -> bytes | None:
    try:
        return repo.refs.follow(ref)[1]
    except KeyError:
        return None


def number_from_message(message: bytes) -> int | None:
    head = message.split(b" ", 1)[0]
    if head[:1] == b"e" and head[1:].isdigit():
        return int(head[1:])
    return None


@dataclass(frozen=True)
class Committed:
    """An appended event and the commit that holds it."""

    event: Event
    commit: str


@dataclass
class EventLog:
    """All events of a branch at one head commit, oldest first."""

    branch: str
    head: str | None  # commit id (hex), None for an empty branch
    events: list[Event]
    commits: list[str]  # commits[i] holds events[i]

    def commit_of(self, event_id: str) -> str:
        return self.commits[int(event_id[1:]) - 1]


class AgentRepo:
    """The bare repository ``<root>/<agent>.git``. Thread-safe."""

    def __init__(self, path: Path, agent: str, *, fsync: bool = False):
        self.path = path
        self.agent = agent
        self.fsync = fsync
        self._lock = threading.RLock()
        self._repo: Repo | None = None
        self._trees: dict[bytes, Tree] = {}
        self._logs: dict[str, EventLog] = {}
        self._snapshot_count: dict[str, int] = {}
        self._after_append: list[Callable[["AgentRepo", int], None]] = []

    # -- opening -------------------------------------------------------------

    @property
    def exists(self) -> bool:
        return (self.path / "HEAD").exists()

    def _open(self, create: bool) -> Repo:
        if self._repo is not None:
            return self._repo
        if not self.exists:
            if not create:
                raise NotFound(f"agent '{self.agent}' has no events yet (no repository at {self.path}); log an event first")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self.path.mkdir()
                Repo.init_bare(str(self.path))
                with open(self.path / "HEAD", "wb") as f:
                    f.write(b"ref: refs/heads/" + DEFAULT_BRANCH.encode() + b"\n")
                (self.path / "description").write_text(f"HALO event trace of agent {self.agent}\n")
            except FileExistsError:
                pass  # another process created it; wait for HEAD below
            for _ in range(200):
                if self.exists:
                    break
                time.sleep(0.005)
        try:
            repo = Repo(str(self.path))
        except NotGitRepository:
            raise HaloError(f"{self.path} is not a Git repository; move it out of the HALO root or pick another agent name") from None
        if self.fsync:
            repo.object_store.fsync_object_files = True
        self._repo = repo
        return repo

    def close(self) -> None:
        with self._lock:
            if self._repo is not None:
                self._repo.close()
                self._repo = None

    def __enter__(self) -> "AgentRepo":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- refs ------------------------------------------------------------------

    def head(self, branch: str) -> str | None:
        """The branch's commit id (hex), or None when the branch does not exist."""
        with self._lock:
            if not self.exists:
                return None
            sha = _read_ref(self._open(False), branch_ref(branch))
            return sha.decode() if sha else None

    def branches(self) -> list[str]:
        with self._lock:
            if not self.exists:
                return []
            keys = self._open(False).refs.keys(base=b"refs/heads/")
            return sorted(k.decode() for k in keys)

    def resolve(self, rev: str) -> str:
        """A branch name or (abbreviated) commit id → full commit id (hex)."""
        with self._lock:
            repo = self._open(False)
            try:
                sha = _read_ref(repo, branch_ref(rev))
            except InvalidCall:
                sha = None
            if sha:
                return sha.decode()
            if 4 <= len(rev) <= 40 and all(c in "0123456789abcdef" for c in rev):
                matches = [s for s in self._candidate_shas(rev)]
                if len(matches) == 1:
                    return matches[0]
                if len(matches) > 1:
                    raise InvalidCall(f"commit prefix {rev!r} is ambiguous for agent '{self.agent}'; give more digits")
            raise NotFound(f"no branch or commit {rev!r} for agent '{self.agent}'; branches: {', '.join(self.branches()) or 'none'}")

    def _candidate_shas(self, prefix: str) -> Iterator[str]:
        repo = self._open(False)
        if len(prefix) == 40:
            if prefix.encode() in repo.object_store:
                yield prefix
            return
        for sha in repo.object_store.iter_prefix(prefix.encode()):
            obj = repo.object_store[sha]
            if isinstance(obj, Commit):
                yield sha.decode()

    def create_branch(self, name: str, from_rev: str) -> str:
        """Create ``name`` at ``from_rev``; refuse if it exists."""
        with self._lock:
            ref = branch_ref(name)
            sha = self.resolve(from_rev)
            repo = self._open(False)
            if not repo.refs.set_if_equals(ref, ZERO_SHA, sha.encode()):
                raise Conflict(f"branch '{name}' already exists for agent '{self.agent}'; pick another name")
            return sha

    # -- appending ---------------------------------------------------------------

    def append(self, branch: str, build: Callable[[int, Callable[[int], str]], Event], *, retries: int = 1000) -> Committed:
        """Append the event ``build(number, kind_of)`` returns as one new commit.

        ``build`` is called again with a fresh number whenever another writer
        moved the branch first, so ids stay contiguous under contention. It may
        raise ``HaloError`` to refuse; nothing is written then.
        """
        ref = branch_ref(branch)
        with self._lock:
            repo = self._open(True)
            for attempt in range(retries):
                old = _read_ref(repo, ref)
                if old is None:
                    number, root = 1, None
                else:
                    parent = repo.object_store[old]
                    number = self._number_of(parent) + 1
                    root = parent.tree
                event = build(number, lambda n, old=old, root=root: self._kind_at(branch, old, root, n))
                commit = self._write_commit(repo, event, root, old)
                try:
                    if repo.refs.set_if_equals(ref, old or ZERO_SHA, commit.id):
                        break
                except FileLocked as e:
                    self._clear_if_stale(e.lockfilename)
                time.sleep(random.uniform(0, min(0.002 * (attempt + 1), 0.05)))
            else:
                raise Conflict(f"branch '{branch}' of agent '{self.agent}' stayed busy for {retries} attempts; try again")
            committed = Committed(event, commit.id.decode())
            self._note_append(branch, old, committed)
        for hook in self._after_append:
            hook(self, number)
        return committed

    def append_many(self, branch: str, build: Callable[[int, Callable[[int], str]], list[Event]], *, retries: int = 100) -> list[Committed]:
        """Append several events, one commit each, with a single ref swap.

        All or nothing: either every event lands contiguously or none does.
        ``build(first_number, kind_of)`` returns the events numbered from
        ``first_number``; it is called again if another writer moved the branch.
        """
        ref = branch_ref(branch)
        with self._lock:
            repo = self._open(True)
            for attempt in range(retries):
                old = _read_ref(repo, ref)
                if old is None:
                    first, root = 1, None
                else:
                    parent = repo.object_store[old]
                    first = self._number_of(parent) + 1
                    root = parent.tree
                events = build(first, lambda n, old=old, root=root: self._kind_at(branch, old, root, n))
                if not events:
                    return []
                done: list[Committed] = []
                tip, tree = old, root
                for event in events:
                    commit = self._write_commit(repo, event, tree, tip)
                    done.append(Committed(event, commit.id.decode()))
                    tip, tree = commit.id, commit.tree
                try:
                    if repo.refs.set_if_equals(ref, old or ZERO_SHA, tip):
                        break
                except FileLocked as e:
                    self._clear_if_stale(e.lockfilename)
                time.sleep(random.uniform(0, min(0.002 * (attempt + 1), 0.05)))
            else:
                raise Conflict(f"branch '{branch}' of agent '{self.agent}' stayed busy for {retries} attempts; try again")
            log = self._logs.get(branch)
            if log is not None and log.head == (old.decode() if old else None):
                self._logs[branch] = EventLog(branch, done[-1].commit, log.events + [c.event for c in done], log.commits + [c.commit for c in done])
        for hook in self._after_append:
            hook(self, done[-1].event.number)
        return done

    def _write_commit(self, repo: Repo, event: Event, root: bytes | None, parent: bytes | None) -> Commit:
        blob = Blob.from_string(to_yaml(event))
        objects: list = [blob]
        tree_id = self._put(root, _path_parts(event.number), blob.id, objects)
        c = Commit()
        c.tree = tree_id
        c.parents = [parent] if parent else []
        ident = f"{event.agent} <{event.agent}@halo>".encode()
        c.author = c.committer = ident
        c.author_time = c.commit_time = epoch_seconds(event.time)
        c.author_timezone = c.commit_timezone = 0
        c.encoding = b"UTF-8"
        c.message = commit_message(event).encode("utf-8")
        objects.append(c)
        for obj in objects:
            self._add_object(repo, obj)
        return c

    def _add_object(self, repo: Repo, obj) -> None:
        for _ in range(3):
            try:
                repo.object_store.add_object(obj)
                return
            except FileLocked as e:
                if not self._clear_if_stale(e.lockfilename):
                    time.sleep(0.01)
        repo.object_store.add_object(obj)

    def _clear_if_stale(self, lockfile: str | bytes) -> bool:
        """Remove a lock file older than STALE_LOCK_SECONDS; True if removed."""
        path = os.fsdecode(lockfile)
        try:
            age = time.time() - os.stat(path).st_mtime
            if age > STALE_LOCK_SECONDS:
                os.unlink(path)
                return True
        except FileNotFoundError:
            return True
        return False

    def clear_stale_locks(self) -> list[str]:
        """Remove every stale ``*.lock`` under refs/ and objects/; returns their paths."""
        removed = []
        for sub in ("refs", "objects"):
            for dirpath, _dirs, files in os.walk(self.path / sub):
                for name in files:
                    if name.endswith(".lock"):
                        p = os.path.join(dirpath, name)
                        if self._clear_if_stale(p):
                            removed.append(p)
        packed = self.path / "packed-refs.lock"
        if packed.exists() and self._clear_if_stale(str(packed)):
            removed.append(str(packed))
        return removed

    def _tree(self, repo: Repo, sha: bytes) -> Tree:
        tree = self._trees.get(sha)
        if tree is None:
            tree = repo.object_store[sha]
            if len(self._trees) > 4096:
                self._trees.clear()
            self._trees[sha] = tree
        return tree

    def _put(self, tree_id: bytes | None, parts: list[bytes], blob_id: bytes, out: list) -> bytes:
        """Return the id of ``tree_id`` with ``blob_id`` added at ``parts``."""
        repo = self._repo
        assert repo is not None
        name = parts[0]
        tree = Tree()
        if tree_id is not None:
            for entry in self._tree(repo, tree_id).iteritems():
                tree.add(entry.path, entry.mode, entry.sha)
        if len(parts) == 1:
            tree.add(name, 0o100644, blob_id)
        else:
            child = None
            if tree_id is not None and name in tree:
                child = tree[name][1]
            tree.add(name, 0o040000, self._put(child, parts[1:], blob_id, out))
        out.append(tree)
        self._trees[tree.id] = tree
        return tree.id

    def _number_of(self, commit: Commit) -> int:
        n = number_from_message(commit.message)
        if n is None:
            raise HaloError(f"commit {commit.id.decode()[:12]} of agent '{self.agent}' is not a HALO event commit; run halo-git verify")
        return n

    def _blob_at(self, root: bytes, number: int) -> bytes:
        repo = self._repo
        assert repo is not None
        sha = root
        for part in _path_parts(number):
            tree = self._tree(repo, sha)
            sha = tree[part][1]
        return repo.object_store[sha].data

    def _kind_at(self, branch: str, head: bytes | None, root: bytes | None, number: int) -> str:
        log = self._logs.get(branch)
        if log is not None and head is not None and log.head == head.decode():
            return log.events[number - 1].kind
        if root is None:
            raise KeyError(number)
        return from_yaml(self._blob_at(root, number)).kind

    # -- reading ---------------------------------------------------------------

    def event_at(self, commit: str, number: int) -> Event:
        with self._lock:
            repo = self._open(False)
            return from_yaml(self._blob_at(repo.object_store[commit.encode()].tree, number))

    def tail(self, branch: str, limit: int) -> list[Event]:
        """The last ``limit`` events of a branch, read by path (no history walk)."""
        with self._lock:
            head = self.head(branch)
            if head is None:
                return []
            log = self._logs.get(branch)
            if log is not None and log.head == head:
                return log.events[-limit:]
            repo = self._open(False)
            commit = repo.object_store[head.encode()]
            n = self._number_of(commit)
            return [from_yaml(self._blob_at(commit.tree, k)) for k in range(max(1, n - limit + 1), n + 1)]

    def log(self, branch: str) -> EventLog:
        """Every event of a branch at its head, cached by commit id.

        When the head moved since the cached read, only the new commits are
        read (each adds one known path); a persisted snapshot, keyed by the
        commit it was taken at, spares a cold process the full parse.
        """
        with self._lock:
            head = self.head(branch)
            if head is None:
                if not self.exists or branch not in self.branches():
                    if self.exists and branch != DEFAULT_BRANCH:
                        raise NotFound(f"agent '{self.agent}' has no branch '{branch}'; branches: {', '.join(self.branches()) or 'none'}")
                return EventLog(branch, None, [], [])
            log = self._logs.get(branch)
            if log is not None and log.head == head:
                return log
            base = log if log is not None else self._load_snapshot(branch)
            log = self._extend(branch, head, base)
            self._logs[branch] = log
            if len(log.events) - self._snapshot_count.get(branch, 0) >= SNAPSHOT_EVERY:
                self._save_snapshot(log)
            return log

    def log_at(self, commit: str) -> EventLog:
        """Every event at an arbitrary commit (not cached)."""
        with self._lock:
            return self._extend("", commit, None)

    def _extend(self, branch: str, head: str, base: EventLog | None) -> EventLog:
        repo = self._open(False)
        head_commit = repo.object_store[head.encode()]
        n_head = self._number_of(head_commit)
        stop = base.head.encode() if base is not None and base.head and len(base.events) <= n_head else None
        stop_n = len(base.events) if stop else 0
        new: list[tuple[Commit, int]] = []
        c = head_commit
        n = n_head
        while True:
            if stop is not None and n == stop_n:
                if c.id != stop:  # history was rewritten under the cache: full read
                    return self._extend(branch, head, None)
                break
            new.append((c, n))
            if not c.parents:
                break
            c = repo.object_store[c.parents[0]]
            n -= 1
        if n > 1 and not c.parents and stop is None:
            raise HaloError(f"branch '{branch}' of agent '{self.agent}' does not start at e1; run halo-git verify")
        root = head_commit.tree
        events = list(base.events) if stop else []
        commits = list(base.commits) if stop else []
        for commit, k in reversed(new):
            events.append(from_yaml(self._blob_at(root, k)))
            commits.append(commit.id.decode())
        return EventLog(branch, head, events, commits)

    def _note_append(self, branch: str, old: bytes | None, committed: Committed) -> None:
        """Advance the cached log in place when it was at the parent commit."""
        log = self._logs.get(branch)
        if log is not None and log.head == (old.decode() if old else None):
            self._logs[branch] = EventLog(branch, committed.commit, log.events + [committed.event], log.commits + [committed.commit])

    # -- snapshot of parsed events -------------------------------------------------

    def _snapshot_path(self, branch: str) -> Path:
        key = hashlib.sha1(branch.encode()).hexdigest()[:16]
        return self.path / CACHE_DIR / f"events-{key}.jsonl"

    def _load_snapshot(self, branch: str) -> EventLog | None:
        path = self._snapshot_path(branch)
        try:
            with open(path, encoding="utf-8") as f:
                header = json.loads(f.readline())
                if header.get("format") != 1 or header.get("branch") != branch:
                    return None
                events, commits = [], []
                for line in f:
                    commit, d = json.loads(line)
                    commits.append(commit)
                    events.append(Event.from_dict(d))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if len(events) != header.get("count") or not events or commits[-1] != header.get("head"):
            return None
        self._snapshot_count[branch] = len(events)
        return EventLog(branch, header["head"], events, commits)

    def _save_snapshot(self, log: EventLog) -> None:
        path = self._snapshot_path(log.branch)
        try:
            path.parent.mkdir(exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps({"format": 1, "branch": log.branch, "head": log.head, "count": len(log.events)}) + "\n")
                for commit, e in zip(log.commits, log.events):
                    f.write(json.dumps([commit, e.to_dict()], ensure_ascii=False) + "\n")
            os.replace(tmp, path)
            self._snapshot_count[log.branch] = len(log.events)
        except OSError:
            pass  # the snapshot is an optimisation; reading from Git stays correct
