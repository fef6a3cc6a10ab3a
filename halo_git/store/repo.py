"""One agent's bare Git repository: append one event per commit, read the head.

Layout: ``events/<NN>/<MM>/e<N>.yaml`` with ``NN = N // 10000`` and
``MM = N // 100 % 100`` (two digits each), so no tree ever holds more than 100
entries below ``events/`` for the first million events and every append writes
six objects: one blob, four trees, one commit. The cost of an append therefore
does not grow with history.

Appends are compare-and-swap on the branch ref (``_swap_ref``: git's lock
protocol, dulwich's ``set_if_equals`` for a ref that is not a plain loose
file): build the commit on the head we read, swap only if the head is still
that commit, otherwise rebuild on the new head with the next id. A per-repository thread lock
serialises threads of one process; CAS serialises processes.

A single append writes loose objects, which a background pass packs every
``maintenance.PACK_EVERY`` events; a batch of ``PACK_BATCH_MIN`` events or more
(an import) is written straight into one pack. Reads keep a branch's parsed
events cached by head commit and extend them by the new commits only; a
snapshot in ``halo/`` does the same for a new process (see ``log``), each of
its entries checked against the blob it claims to be (``snapshot``).
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import threading
import time
import zlib
from bisect import bisect_left
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Sequence

from dulwich.errors import NotGitRepository
from dulwich.file import FileLocked
from dulwich.objects import Blob, Commit, ShaFile, Tree, parse_tree
from dulwich.refs import check_ref_format
from dulwich.repo import Repo

from ..errors import Conflict, HaloError, IntegrityError, InvalidCall, NotFound
from ..model import EARLIEST, Event, commit_message, epoch_seconds, from_yaml, not_before, time_before, to_yaml
from ..screening import first_invisible
from . import limits, locking, maintenance, packread, snapshot
from .maintenance import OBJ_BLOB, OBJ_COMMIT, OBJ_TREE, Item, PackWriter, object_id
from .snapshot import CACHE_DIR

ZERO_SHA = b"0" * 40
DEFAULT_BRANCH = "main"
# A ref or object lock is held for well under a millisecond; one older than this
# was left by a killed process and is removed by the next writer that meets it
# (docs/security.md, "Crash safety"). Keep it well below the ~25 s an append
# keeps retrying a busy ref, or appends give up ("try again") before recovering.
STALE_LOCK_SECONDS = float(os.environ.get("HALO_STALE_LOCK_SECONDS", "10"))
SNAPSHOT_EVERY = 500  # persist the parsed-event cache when it is this far ahead
# A batch of at least this many events is written straight into one pack (fast,
# compact); smaller batches write loose objects like single appends.
PACK_BATCH_MIN = 100
# A read of at least this many new events takes the bulk path (``packread``).
BULK_READ = 64


def event_path(number: int) -> str:
    """Path of event ``e<number>`` inside a commit's tree."""
    return f"events/{number // 10000:02d}/{number // 100 % 100:02d}/e{number}.yaml"


def _path_parts(number: int) -> list[bytes]:
    return [p.encode() for p in event_path(number).split("/")]


MAX_BRANCH = 200  # characters; every part of a ref is a file name (255 bytes at most, ".lock" included)
BRANCH_RULE = (
    f"a branch name is 1-{MAX_BRANCH} characters that Git accepts for a branch (git check-ref-format --branch): "
    "no spaces, control characters or any of ~ ^ : ? * [ \\, no '..', '@{' or '//', no part starting with '.' "
    "or ending in '.lock', not starting with '-' nor ending in '/' or '.', and not HEAD or @; no invisible or "
    "bidirectional characters (U+200B, U+202E, …), which would print a name other than the one stored; e.g. prompt-v2"
)


def branch_ref(branch: str) -> bytes:
    """``refs/heads/<branch>``, or ``InvalidCall`` stating the rule."""
    return _branch_ref(branch) if isinstance(branch, str) else _check_branch(branch)


@lru_cache(maxsize=1024)
def _branch_ref(branch: str) -> bytes:
    return _check_branch(branch)  # remembered: every append and read checks its branch name


def _check_branch(branch: str) -> bytes:
    if isinstance(branch, str) and 0 < len(branch) <= MAX_BRANCH and branch not in ("HEAD", "@") and not branch.startswith("-"):
        try:
            ref = f"refs/heads/{branch}".encode()
        except UnicodeEncodeError:
            ref = b""
        if ref and check_ref_format(ref) and all(len(part) <= MAX_BRANCH for part in ref.split(b"/")) \
                and first_invisible(branch) is None:
            return ref
    shown = repr(branch) if not isinstance(branch, str) or len(branch) <= 80 else repr(branch[:80]) + f"… ({len(branch)} characters)"
    if isinstance(branch, str) and first_invisible(branch) is not None:
        shown = ascii(branch[:80])  # escaped, so the message shows what is there
    raise InvalidCall(f"invalid branch name {shown}: {BRANCH_RULE}")


def _is_symbolic(repo: Repo, ref: bytes) -> bool:
    """Whether ``ref`` is a symbolic ref (``ref: refs/heads/…``) rather than a commit id."""
    try:
        raw = repo.refs.read_ref(ref)
    except (KeyError, OSError, ValueError):
        return False
    return raw is not None and raw.startswith(b"ref: ")


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


def _commit_raw(event: Event, tree: bytes, parent: bytes | None) -> bytes:
    """The commit holding ``event`` (hex ``tree`` and ``parent`` ids), byte for
    byte as dulwich writes it: author = committer = the agent, at the event's
    time, in UTC."""
    ident = f"{event.agent} <{event.agent}@halo>".encode()
    stamp = b"%s %d +0000" % (ident, epoch_seconds(event.time))
    head = b"tree " + tree + b"\n"
    if parent is not None:
        head += b"parent " + parent + b"\n"
    head += b"author " + stamp + b"\ncommitter " + stamp + b"\nencoding UTF-8\n\n"
    return head + commit_message(event).encode("utf-8")


def tree_entries(raw: bytes) -> tuple[list[bytes], list[bytes]]:
    """A raw tree as (sort keys, serialised entries): the key of a subtree ends with "/", as Git
    sorts it, so a changed entry can be placed with bisect and the tree re-serialised by joining."""
    keys: list[bytes] = []
    entries: list[bytes] = []
    for name, mode, sha in parse_tree(raw, 20):
        keys.append(name + b"/" if mode & 0o170000 == 0o040000 else name)
        entries.append(b"%o %s\0" % (mode, name) + bytes.fromhex(sha.decode()))
    return keys, entries


class _Spine:
    """The trees on the path to the newest event, as sorted entry lists.

    Adding an event replaces or inserts one entry per level and serialises
    only those trees: no tree is parsed or re-sorted per append. ``root`` is
    the (hex) root tree the spine stands on; a writer whose parent commit has
    another root tree calls ``reset`` (it re-reads at most one tree per level).
    """

    def __init__(self, read_tree: Callable[[bytes], bytes]):
        self._read = read_tree  # hex id -> raw tree
        self.root: bytes | None = b""  # stands on nothing yet
        self._dirs: list[bytes] = []  # names of the directories on the current path
        self._levels: list[tuple[list[bytes], list[bytes]]] = []  # (sort keys, entries) per level

    def reset(self, root: bytes | None) -> None:
        self.root = root
        self._dirs = []
        self._levels = [self._load(root)]

    def _load(self, tree: bytes | None) -> tuple[list[bytes], list[bytes]]:
        return tree_entries(self._read(tree)) if tree is not None else ([], [])

    def _entry(self, level: int, name: bytes) -> bytes | None:
        """Hex id of the subtree ``name`` at ``level``, if there is one."""
        keys, entries = self._levels[level]
        i = bisect_left(keys, name + b"/")
        if i < len(keys) and keys[i] == name + b"/":
            return entries[i][-20:].hex().encode()
        return None

    def add(self, parts: list[bytes], blob: bytes) -> list[tuple[bytes, bytes, bytes]]:
        """Put ``blob`` (binary id) at ``parts``; returns the new trees as
        ``(id, raw, path)``, deepest first (the root last)."""
        self.root = b""  # stands on nothing until done, so a failure cannot leave it half-moved
        dirs = parts[:-1]
        keep = 0
        while keep < min(len(dirs), len(self._dirs)) and dirs[keep] == self._dirs[keep]:
            keep += 1
        del self._levels[keep + 1 :]
        for level in range(keep, len(dirs)):
            self._levels.append(self._load(self._entry(level, dirs[level])))
        self._dirs = list(dirs)
        out = []
        sha, mode, suffix = blob, b"100644", b""
        for level in range(len(parts) - 1, -1, -1):
            keys, entries = self._levels[level]
            name = parts[level]
            key = name + suffix
            entry = b"%s %s\0" % (mode, name) + sha
            i = bisect_left(keys, key)
            if i < len(keys) and keys[i] == key:
                entries[i] = entry
            else:
                keys.insert(i, key)
                entries.insert(i, entry)
            raw = b"".join(entries)
            sha = object_id(OBJ_TREE, raw)
            out.append((sha, raw, b"/".join(parts[:level])))
            mode, suffix = b"40000", b"/"
        self.root = sha.hex().encode()
        return out


@dataclass(frozen=True)
class Committed:
    """An appended event and the commit that holds it."""

    event: Event
    commit: str
    blob: str | None = None  # hex id of the event's file


class EventLog:
    """All events of a branch at one head commit, oldest first.

    ``commits[i]`` holds ``events[i]``. When the events came from the parsed-
    event cache, the commit ids it holds are only hints: the first access to
    ``commits`` reads them from Git (one walk down the branch), so a cache
    can never change a commit id an answer shows.
    """

    def __init__(
        self,
        branch: str,
        head: str | None,
        events: list[Event],
        commits: list[str],
        *,
        blobs: list[str] | None = None,
        from_git: Callable[[str], list[str]] | None = None,
    ):
        self.branch = branch
        self.head = head  # commit id (hex), None for an empty branch
        self.events = events
        self.blobs = blobs  # hex blob id per event, when known (what the cache binds each event to)
        self._commits = commits
        self._from_git = from_git  # head -> commit ids read from Git; set while some ids are cache hints

    @property
    def commits(self) -> list[str]:
        if self._from_git is not None:
            commits = self._from_git(self.head)
            if len(commits) != len(self.events):
                raise IntegrityError(f"branch '{self.branch}' holds {len(commits)} commits for {len(self.events)} events; run halo-git verify")
            self._commits, self._from_git = commits, None
        return self._commits

    @property
    def commit_hints(self) -> list[str]:
        """The commit ids as far as known without reading Git (for the cache only)."""
        return self._commits

    def extended(self, head: str, committed: list[Committed]) -> "EventLog":
        """This log plus newly appended events (hints stay hints)."""
        blobs = self.blobs + [c.blob for c in committed] if self.blobs is not None and all(c.blob for c in committed) else None
        commits = self._commits + [c.commit for c in committed]
        return EventLog(self.branch, head, self.events + [c.event for c in committed], commits, blobs=blobs, from_git=self._from_git)

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
        self._cache_rejected: dict[str, str] = {}  # branch -> why its cache file was not used (rewritten on save)
        self._travel_rejected: dict[str, str] = {}  # branch -> why its cache ref was not used (rewritten on the next publish)
        self._published: dict[str, tuple[int, str]] = {}  # branch -> (events, last commit hint) its cache ref holds
        self._chunk_ids: dict[str, dict[tuple[int, str], bytes]] = {}  # branch -> (chunk, last hint) -> blob id
        self._spine = _Spine(lambda sha: self._tree(self._open(False), sha).as_raw_string())
        self._tip: tuple[bytes, int, bytes | None, str] | None = None  # (commit, number, root tree, event time) written last
        self._packer = maintenance.Background(path, fsync=fsync)

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
            self._create()
        try:
            repo = Repo(str(self.path))
        except NotGitRepository:
            raise HaloError(f"{self.path} is not a Git repository; move it out of the HALO root or pick another agent name") from None
        if self.fsync:
            repo.object_store.fsync_object_files = True
        # A loose object lives only until the next packing pass, which compresses
        # it anew, and takes a 4 KiB block whatever its size: compressing it is
        # wasted time (a tenth of an append's).
        repo.object_store.loose_compression_level = 0
        self._repo = repo
        return repo

    def _create(self) -> None:
        """Create the repository in a hidden sibling folder and rename it into
        place, so a writer killed midway never leaves a half-made repository at
        the agent's path; an empty folder left there is replaced."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{random.getrandbits(32):08x}")
        tmp.mkdir()  # with the usual permissions, unlike mkdtemp's private ones
        try:
            Repo.init_bare(str(tmp)).close()
            (tmp / "HEAD").write_bytes(b"ref: refs/heads/" + DEFAULT_BRANCH.encode() + b"\n")
            (tmp / "description").write_text(f"HALO event trace of agent {self.agent}\n")
            try:
                os.rename(tmp, self.path)
            except OSError:
                pass  # another writer created it first (or something is in the way: reported when opening)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # nothing left to remove after the rename

    def close(self) -> None:
        self._packer.wait()
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
            sha = self._branch_sha(self._open(False), branch)
            return sha.decode() if sha else None

    def _branch_sha(self, repo: Repo, branch: str) -> bytes | None:
        """The branch's commit id, None for a branch that never existed, or
        ``IntegrityError`` when its caches outlive it (see below)."""
        ref = branch_ref(branch)
        sha = self._loose_ref(ref)
        if sha is None:
            sha = _read_ref(repo, ref)
        if sha is None and (_read_ref(repo, snapshot.cache_ref(branch)) is not None
                            or snapshot.path_for(self.path, branch).is_file()):
            # HALO never deletes a branch: its cache outliving it means the ref was removed or bent outside HALO
            raise IntegrityError(
                f"branch '{branch}' of agent '{self.agent}' is gone or does not resolve to a commit, but HALO's caches "
                f"of it say it held events: its ref was deleted or changed outside HALO. Restore it (git --git-dir "
                f"{self.path} update-ref refs/heads/{branch} <commit>, e.g. from a clone); if removing the branch was "
                f"meant, remove its caches too (git --git-dir {self.path} update-ref -d "
                f"{snapshot.cache_ref(branch).decode()}, and {snapshot.path_for(self.path, branch)})"
            )
        return sha

    def _loose_ref(self, ref: bytes) -> bytes | None:
        """The commit id a loose ref file holds, read with one open and one read;
        None when there is no such file or it holds anything else (a symbolic
        ref, say): ``_read_ref`` then reads it the way dulwich does (packed
        refs too). A loose ref file takes precedence over packed-refs in git."""
        try:
            current = _ref_file_content(os.path.join(os.fsencode(self.path), ref))
        except OSError:
            return None
        return current if _is_hex_id(current) else None

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
            obj = self._get(repo, sha)
            if isinstance(obj, Commit):
                yield sha.decode()

    def create_branch(self, name: str, from_rev: str) -> str:
        """Create ``name`` at ``from_rev``; refuse if it exists."""
        with self._lock:
            ref = branch_ref(name)
            sha = self.resolve(from_rev)
            repo = self._open(False)
            with self._writing(f"branch '{name}' was not created"):
                if not repo.refs.set_if_equals(ref, ZERO_SHA, sha.encode()):
                    raise Conflict(f"branch '{name}' already exists for agent '{self.agent}'; pick another name")
            return sha

    @contextmanager
    def _writing(self, outcome: str) -> Iterator[None]:
        """Turn a failed write (read-only root, full disk, permissions) into a
        ``HaloError`` saying what failed and what to do, never a traceback or
        "internal error (OSError)"."""
        try:
            yield
        except OSError as e:
            _abandon_lock_files(e)
            raise storage_error(e, self.path.parent, outcome) from None

    # -- appending ---------------------------------------------------------------

    def append(self, branch: str, build: Callable[[int, Callable[[int], str]], Event], *, retries: int = 1000, author=None, clock: bool = False) -> Committed:
        """Append the event ``build(number, kind_of)`` returns as one new commit.

        ``build`` is called again with a fresh number whenever another writer
        moved the branch first, so ids stay contiguous under contention. It may
        raise ``HaloError`` to refuse; nothing is written then. ``author`` (a
        ``signing.Approver``) makes the commit the user's approval instead of the agent's.
        ``clock``: the event was dated by reading a clock, so a reading earlier
        than the parent's time dates it at the parent's time instead (``in_order``).
        """
        ref = branch_ref(branch)
        with self._lock, self._writing("nothing was logged"):
            repo = self._open(True)
            for attempt in range(retries):
                old = self._branch_sha(repo, branch)
                number, root = self._next_on(repo, old)
                event = build(number, lambda n, old=old, root=root: self._kind_at(branch, old, root, n))
                if clock:
                    event = in_order([event], self._time_at(branch, old, root, number - 1))[0]
                items = self._event_objects(event, root, old, author)
                self._write_loose(repo, items)
                commit = items[-1].sha.hex().encode()
                if self._try_swap(repo, ref, old, commit, attempt):
                    break
            else:
                raise Conflict(f"branch '{branch}' of agent '{self.agent}' stayed busy for {retries} attempts; try again")
            committed = Committed(event, commit.decode(), items[0].sha.hex())
            self._after_swap(repo, branch, old, commit, [committed])
        if number % maintenance.PACK_EVERY == 0:
            self._packer.request()
        return committed

    def append_group(self, branch: str, builds: Sequence[Callable[[int, Callable[[int], str]], Event]], *,
                     retries: int = 1000, clock: bool = False) -> list[Committed | HaloError]:
        """Group commit: the events several calls ``builds`` return, one commit
        each, chained in the calls' order and published by one ref swap (one
        sync of the ref, where ``append`` makes one per event).

        Each build is independent, as if each were its own ``append``: one that
        raises ``HaloError`` is refused (its error takes its place in the
        result) and takes no number, and the others still land; a later build
        sees the events of the earlier ones (``kind_of``). Nothing is published
        until every object is written, so a caller acknowledges each event only
        once the swap that makes all of them durable has happened; a failed swap
        (another writer moved the branch) builds the whole group again on the
        new head. ``clock``: as for ``append``, for every event."""
        ref = branch_ref(branch)
        with self._lock, self._writing("nothing was logged"):
            repo = self._open(True)
            for attempt in range(retries):
                old = self._branch_sha(repo, branch)
                first, root = self._next_on(repo, old)
                done: list[Committed] = []
                results: list[Committed | HaloError] = []
                tip, before = old, self._time_at(branch, old, root, first - 1)

                def kind_of(n: int, old=old, root=root, first=first, done=done) -> str:
                    return done[n - first].event.kind if n >= first else self._kind_at(branch, old, root, n)

                for build in builds:
                    number = first + len(done)
                    try:
                        event = build(number, kind_of)
                    except HaloError as e:
                        results.append(e)
                        continue
                    if clock:
                        event = in_order([event], before)[0]
                    items = self._event_objects(event, self._spine.root if done else root, tip)
                    self._write_loose(repo, items)
                    tip, before = items[-1].sha.hex().encode(), event.time
                    done.append(Committed(event, tip.decode(), items[0].sha.hex()))
                    results.append(done[-1])
                if not done:
                    return results
                if self._try_swap(repo, ref, old, tip, attempt):
                    break
            else:
                raise Conflict(f"branch '{branch}' of agent '{self.agent}' stayed busy for {retries} attempts; try again")
            last = self._after_swap(repo, branch, old, tip, done)
        if last // maintenance.PACK_EVERY > (first - 1) // maintenance.PACK_EVERY:
            self._packer.request()
        return results

    def append_many(self, branch: str, build: Callable[[int, Callable[[int], str]], list[Event]], *, retries: int = 100) -> list[Committed]:
        """Append several events, one commit each, with a single ref swap.

        All or nothing: either every event lands contiguously or none does.
        ``build(first_number, kind_of)`` returns the events numbered from
        ``first_number``; it is called again if another writer moved the branch.
        A batch of ``PACK_BATCH_MIN`` events or more is written as one pack
        (removed again if the swap fails), which is what makes imports fast.
        """
        ref = branch_ref(branch)
        pack_dir = self.path / "objects" / "pack"
        with self._lock, self._writing("nothing was imported"):
            repo = self._open(True)
            for attempt in range(retries):
                old = self._branch_sha(repo, branch)
                first, root = self._next_on(repo, old)
                events = build(first, lambda n, old=old, root=root: self._kind_at(branch, old, root, n))
                if not events:
                    return []
                done, tip, pack = self._write_batch(repo, events, root, old)
                try:
                    if repo.refs.set_if_equals(ref, old or ZERO_SHA, tip):
                        break
                except FileLocked as e:
                    self._clear_if_stale(e.lockfilename)
                if pack is not None:
                    maintenance.remove_pack(pack_dir, pack)  # nothing refers to it
                time.sleep(random.uniform(0, min(0.002 * (attempt + 1), 0.05)))
            else:
                raise Conflict(f"branch '{branch}' of agent '{self.agent}' stayed busy for {retries} attempts; try again")
            last = self._after_swap(repo, branch, old, tip, done)
        if pack is not None or last // maintenance.PACK_EVERY > (first - 1) // maintenance.PACK_EVERY:
            self._packer.request()
        return done

    def _try_swap(self, repo: Repo, ref: bytes, old: bytes | None, new: bytes, attempt: int) -> bool:
        """One compare-and-swap attempt; on a lost race or a held lock (cleared when stale), a short random
        wait that grows with ``attempt`` before the caller builds again on the new head."""
        try:
            if self._swap_ref(repo, ref, old, new):
                return True
        except FileLocked as e:
            self._clear_if_stale(e.lockfilename)
        time.sleep(random.uniform(0, min(0.002 * (attempt + 1), 0.05)))
        return False

    def _after_swap(self, repo: Repo, branch: str, old: bytes | None, tip: bytes, done: list[Committed]) -> int:
        """After one swap moved ``branch`` from ``old`` to ``tip``, the last of ``done``: keep the tip as
        written, point HEAD at a first branch, extend the cached log in place. Returns the last number."""
        last = done[-1].event.number
        self._tip = (tip, last, self._spine.root, done[-1].event.time)
        if old is None:
            self._adopt_head(repo)
        log = self._logs.get(branch)
        if log is not None and log.head == (old.decode() if old else None):
            self._logs[branch] = log.extended(done[-1].commit, done)
        return last

    def _adopt_head(self, repo: Repo) -> None:
        """After a branch's first commit: if it is the only branch and HEAD names
        another, missing one (an empty repository made by ``git init``, whose
        HEAD says master), point HEAD at it, so ``git log`` shows the events."""
        branches = repo.refs.keys(base=b"refs/heads/")
        if branches == {DEFAULT_BRANCH.encode()} and repo.refs.read_ref(b"HEAD") != b"ref: refs/heads/" + DEFAULT_BRANCH.encode():
            try:
                repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/" + DEFAULT_BRANCH.encode())
            except OSError:
                pass  # the event is committed; HEAD is only what plain git shows first

    def _next_on(self, repo: Repo, head: bytes | None) -> tuple[int, bytes | None]:
        """(number of the next event, root tree) on the commit ``head``; the
        commit this object wrote last is known without reading it back."""
        if head is None:
            return 1, None
        if self._tip is not None and self._tip[0] == head:
            return self._tip[1] + 1, self._tip[2]
        parent = self._get(repo, head)
        return self._number_of(parent) + 1, parent.tree

    def _event_objects(self, event: Event, root: bytes | None, parent: bytes | None, author=None) -> list[Item]:
        """The objects of the commit adding ``event`` on ``parent`` (whose root
        tree is ``root``): the blob, the trees deepest first, the commit."""
        spine = self._spine
        if spine.root != root:
            spine.reset(root)
        data = to_yaml(event)
        blob = object_id(OBJ_BLOB, data)
        items = [Item(blob, OBJ_BLOB, data, None)]
        for sha, raw, path in spine.add(_path_parts(event.number), blob):
            items.append(Item(sha, OBJ_TREE, raw, path))
        commit = author.commit_raw(event, spine.root, parent) if author is not None else _commit_raw(event, spine.root, parent)
        items.append(Item(object_id(OBJ_COMMIT, commit), OBJ_COMMIT, commit, None))
        return items

    def _write_loose(self, repo: Repo, items: list[Item]) -> None:
        if not _POSIX:  # Windows: dulwich's way (binary mode, renames over read-only files)
            for item in items:
                self._add_object(repo, ShaFile.from_raw_string(item.type_num, item.raw, sha=item.sha.hex()))
            return
        objects = os.path.join(os.fspath(self.path), "objects")
        for item in items:
            self._write_object_file(objects, item)

    def _write_object_file(self, objects: str, item: Item) -> None:
        """Write one loose object as git and dulwich do (its ``<id>.lock`` created
        exclusively, written, fsynced in fsync mode, renamed into place), with
        one system call per step: no folder is created unless the object's
        fan-out folder is missing (only the first object of each of the 256
        ever meets that), no existence probe before the write. Objects are named
        by their content, so a lock already there belongs to a live writer of
        the same bytes (gone within milliseconds, the object then there) or to
        a killed writer (removed once stale): either way the wait ends."""
        hexsha = item.sha.hex()
        folder = os.path.join(objects, hexsha[:2])
        path = os.path.join(folder, hexsha[2:])
        lock = path + ".lock"
        data = zlib.compress(b"%s %d\0" % (_TYPE_NAMES[item.type_num], len(item.raw)) + item.raw, 0)
        deadline = None
        while True:
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
            except FileNotFoundError:
                os.makedirs(folder, exist_ok=True)
                continue
            except FileExistsError:
                if os.path.exists(path) or self._clear_if_stale(lock):
                    if os.path.exists(path):
                        return
                    continue
                deadline = deadline if deadline is not None else time.monotonic() + STALE_LOCK_SECONDS + 5
                if time.monotonic() > deadline:
                    raise Conflict(f"an object of agent '{self.agent}' stayed locked by {lock}; try again") from None
                time.sleep(0.01)
                continue
            _install_lock(fd, lock, path, data, sync=self.fsync)
            return

    def _swap_ref(self, repo: Repo, ref: bytes, old: bytes | None, new: bytes) -> bool:
        """Move ``ref`` from ``old`` to ``new`` if it still points at ``old``:
        git's protocol (``<ref>.lock`` created exclusively, the ref read again
        under it, the new id written and fsynced, the lock renamed over the
        ref), with one system call per step. A ref that is not a plain loose
        file holding a commit id (new, packed, symbolic, anything odd) goes
        through dulwich's ``set_if_equals``, which does the same with more
        checks. Raises ``FileLocked`` like it when the lock is taken."""
        if old is None or not _POSIX:
            return repo.refs.set_if_equals(ref, old or ZERO_SHA, new)
        path = os.path.join(os.fsencode(self.path), ref)
        lock = path + b".lock"
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            raise FileLocked(path, lock) from None
        except FileNotFoundError:
            return repo.refs.set_if_equals(ref, old, new)
        try:
            try:
                current = _ref_file_content(path)
            except FileNotFoundError:
                current = b""
        except BaseException:
            os.close(fd)
            _unlink_quietly(lock)
            raise
        if current != old or not _is_hex_id(current):
            os.close(fd)
            _unlink_quietly(lock)
            return False if _is_hex_id(current) else repo.refs.set_if_equals(ref, old, new)
        _install_lock(fd, lock, path, new + b"\n", sync=True)
        return True

    def _write_batch(self, repo: Repo, events: list[Event], root: bytes | None, parent: bytes | None) -> tuple[list[Committed], bytes, str | None]:
        """Write one commit per event, chained on ``parent``; returns the
        commits, the tip and the new pack's name (None: loose objects).

        In a pack, the versions of each tree written while the deepest
        directory stays the same are stored as deltas against the last one.
        """
        done: list[Committed] = []
        tip = parent
        writer = PackWriter(self.path / "objects" / "pack", fsync=self.fsync) if len(events) >= PACK_BATCH_MIN else None
        try:
            chunk: list[Item] = []
            for event in events:
                items = self._event_objects(event, root, tip)
                if writer is None:
                    self._write_loose(repo, items)
                else:
                    if chunk and items[1].group != chunk[1].group:
                        writer.add_grouped(chunk)
                        chunk = []
                    chunk += items
                tip, root = items[-1].sha.hex().encode(), self._spine.root
                done.append(Committed(event, tip.decode(), items[0].sha.hex()))
            if writer is None:
                return done, tip, None
            writer.add_grouped(chunk)
            return done, tip, writer.install()
        except BaseException:
            if writer is not None:
                writer.abort()
            raise

    def _add_object(self, repo: Repo, obj) -> None:
        """Write one object, waiting out a lock on it.

        Objects are named by their content, so a lock on one belongs either to
        a live writer of the very same bytes (gone within milliseconds, after
        which ``add_object`` finds the object and returns) or to a killed
        writer (removed once stale). Either way the wait ends.
        """
        deadline = time.monotonic() + STALE_LOCK_SECONDS + 5
        while True:
            try:
                repo.object_store.add_object(obj)
                return
            except FileLocked as e:
                if self._clear_if_stale(e.lockfilename):
                    continue
                if time.monotonic() > deadline:
                    raise Conflict(f"an object of agent '{self.agent}' stayed locked by {os.fsdecode(e.lockfilename)}; try again") from None
                time.sleep(0.01)

    def _clear_if_stale(self, lockfile: str | bytes) -> bool:
        """Remove a lock file older than STALE_LOCK_SECONDS; True if it is gone.

        A Git lock file names no owner, so its age is the only evidence that
        its writer died: HALO holds a ref or object lock for well under a
        millisecond. Removers serialise on an ``flock`` (released by the kernel
        even when a remover is killed) and re-check the age under it, so two
        processes that found the same stale lock cannot remove the fresh lock a
        third writer took in between. A writer paused for longer than
        STALE_LOCK_SECONDS while holding a lock could still lose it: that is
        the documented limit of the policy (docs/security.md).
        """
        path = os.fsdecode(lockfile)
        try:
            if time.time() - os.stat(path).st_mtime <= STALE_LOCK_SECONDS:
                return False
            guard_dir = self.path / CACHE_DIR
            guard_dir.mkdir(exist_ok=True)
            with open(guard_dir / "stale-locks.flock", "a") as guard:
                locking.lock(guard)
                if time.time() - os.stat(path).st_mtime <= STALE_LOCK_SECONDS:
                    return False
                os.unlink(path)
        except FileNotFoundError:
            pass
        return True

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
            tree = self._get(repo, sha)
            if len(self._trees) > 4096:
                self._trees.clear()
            self._trees[sha] = tree
        return tree

    def _get(self, repo: Repo, sha: bytes):
        """``repo.object_store[sha]``, looked up twice if need be: dulwich looks
        in packs, then in loose files, and a background pass can move an object
        from a loose file into a new pack in between. The second look finds it."""
        try:
            return repo.object_store[sha]
        except KeyError:
            return repo.object_store[sha]

    def _number_of(self, commit: Commit) -> int:
        if not isinstance(commit, Commit):  # a ref edited outside HALO to point at a tree or blob
            raise IntegrityError(f"a branch of agent '{self.agent}' points at a {commit.type_name.decode()} "
                                 f"({commit.id.decode()[:12]}), not a commit; run halo-git verify, or restore the ref")
        n = number_from_message(commit.message)
        if n is None:
            raise HaloError(f"commit {commit.id.decode()[:12]} of agent '{self.agent}' is not a HALO event commit; run halo-git verify")
        return n

    def _blob_id_at(self, root: bytes, number: int) -> bytes:
        repo = self._repo
        assert repo is not None
        sha = root
        for part in _path_parts(number):
            tree = self._tree(repo, sha)
            sha = tree[part][1]
        return sha

    def _blob_at(self, root: bytes, number: int) -> bytes:
        return self._event_data(self._repo, self._blob_id_at(root, number), number)

    def _event_data(self, repo: Repo, blob: bytes, number: int, commit: Commit | None = None) -> bytes:
        """The bytes of event ``number``'s file, refused (``IntegrityError``)
        before inflating it when its header says it is larger than any event
        file (a repository filled by plain ``git`` from a hostile remote)."""
        size = limits.object_size(repo.object_store, blob)
        if size is not None and size > limits.MAX_EVENT_FILE:
            where = f"commit {commit.id.decode()[:12]} of agent '{self.agent}' holds" if commit is not None else f"agent '{self.agent}' holds"
            raise IntegrityError(
                f"{where} {event_path(number)} (blob {blob.decode()[:12]}), which is {size:,} bytes, larger than any event file "
                f"({limits.MAX_EVENT_FILE:,}): HALO did not write it; run halo-git verify --agent {self.agent} to see what changed",
                commit.id.decode() if commit is not None else None,
            )
        return self._get(repo, blob).data

    def _blob_ids(self, root: bytes, count: int) -> list[bytes | None]:
        """Hex blob ids of e1..e<count> in the tree ``root`` (None where missing),
        reading one tree per hundred events."""
        store = self._open(False).object_store
        return event_blob_ids(lambda sha: _raw(store, sha), root, count)

    def _time_at(self, branch: str, head: bytes | None, root: bytes | None, number: int) -> str | None:
        """The time of event ``number`` on the commit ``head`` (None for 0),
        known without a read when this object wrote it or holds the log."""
        if number < 1 or head is None:
            return None
        if self._tip is not None and self._tip[0] == head and self._tip[1] == number:
            return self._tip[3]
        log = self._logs.get(branch)
        if log is not None and log.head == head.decode():
            return log.events[number - 1].time
        return self._parse(self._blob_at(root, number), self._get(self._open(False), head), number).time

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
            return from_yaml(self._blob_at(self._get(repo, commit.encode()).tree, number))

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
            commit = self._get(repo, head.encode())
            n = self._number_of(commit)
            return [self._parse(self._blob_at(commit.tree, k), commit, k) for k in range(max(1, n - limit + 1), n + 1)]

    def log(self, branch: str) -> EventLog:
        """Every event of a branch at its head, cached by commit id.

        When the head moved since the cached read, only the new commits are
        read (each adds one known path); a persisted snapshot, each entry
        checked against the blob the head's tree holds for it, spares a cold
        process the full parse. A snapshot that fails the check is ignored
        (the branch is read from Git) and rewritten.
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
                if branch in self._published and self._publish_due(log):  # the log grew in place (appends, an import)
                    self._publish(log)
                return log
            base = log if log is not None else self._load_snapshot(branch, head)
            log = self._extend(branch, head, base)
            self._logs[branch] = log
            if base is not None and log.commit_hints[len(base.events) - 1 : len(base.events)] != [base.head]:
                self._snapshot_count[branch] = 0  # it held another history: save over it below
            if branch in self._cache_rejected or len(log.events) - self._snapshot_count.get(branch, 0) >= SNAPSHOT_EVERY:
                self._save_snapshot(log)
            if branch in self._travel_rejected or self._publish_due(log):
                self._publish(log)
                self._travel_rejected.pop(branch, None)
            return log

    def log_at(self, commit: str) -> EventLog:
        """Every event at an arbitrary commit (not cached)."""
        with self._lock:
            return self._extend("", commit, None)

    def _extend(self, branch: str, head: str, base: EventLog | None) -> EventLog:
        repo = self._open(False)
        head_commit = self._get(repo, head.encode())
        n_head = self._number_of(head_commit)
        stop = base.head.encode() if base is not None and base.head and len(base.events) <= n_head else None
        stop_n = len(base.events) if stop else 0
        if n_head - stop_n >= BULK_READ:
            return self._extend_bulk(branch, head, head_commit, n_head, base, stop, stop_n)
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
            c = self._get(repo, c.parents[0])
            n -= 1
        if n > 1 and not c.parents and stop is None:
            raise HaloError(f"branch '{branch}' of agent '{self.agent}' does not start at e1; run halo-git verify")
        root = head_commit.tree
        committed = []
        for commit, k in reversed(new):
            blob = self._blob_id_at(root, k)
            committed.append(Committed(self._parse(self._event_data(repo, blob, k, commit), commit, k), commit.id.decode(), blob.decode()))
        if stop:
            return base.extended(head, committed)
        return EventLog(branch, head, [c.event for c in committed], [c.commit for c in committed], blobs=[c.blob for c in committed])

    def _extend_bulk(self, branch: str, head: str, head_commit: Commit, n_head: int, base: EventLog | None,
                     stop: bytes | None, stop_n: int) -> EventLog:
        """``_extend`` for a long run of new events (a cold read without any
        cache, a pull of many): commits walked and files read straight from the
        packs (``packread``), each file's size checked from its header first."""
        repo = self._open(False)
        reader = packread.PackReader(repo.object_store)
        shas: list[bytes] = []
        sha: bytes | None = head.encode()
        n = n_head
        while sha is not None:
            if stop is not None and n == stop_n:
                if sha != stop:  # history was rewritten under the cache: full read
                    return self._extend(branch, head, None)
                break
            shas.append(sha)
            try:
                type_num, raw = reader.raw(sha, limits.MAX_COMMIT)
            except limits.TooLarge as e:
                raise IntegrityError(f"commit {sha.decode()[:12]} of agent '{self.agent}' is {e}: HALO did not write it; "
                                     f"run halo-git verify --agent {self.agent}", sha.decode()) from None
            if type_num != OBJ_COMMIT:
                raise IntegrityError(f"a branch of agent '{self.agent}' reaches {sha.decode()[:12]}, which is not a commit; "
                                     f"run halo-git verify --agent {self.agent}", sha.decode())
            sha = raw[53:93] if raw[46:53] == b"parent " else None
            if sha is not None:
                n -= 1
        if n > 1 and sha is None and stop is None:
            raise HaloError(f"branch '{branch}' of agent '{self.agent}' does not start at e1; run halo-git verify")
        first = n_head - len(shas) + 1
        blobs = event_blob_ids(lambda t: reader.raw(t, limits.MAX_TREE)[1], head_commit.tree, n_head)
        committed = []
        for k, commit in zip(range(first, n_head + 1), reversed(shas)):
            blob = blobs[k - 1]
            if blob is None:
                raise IntegrityError(f"commit {commit.decode()[:12]} of agent '{self.agent}' has no file {event_path(k)}; "
                                     f"run halo-git verify --agent {self.agent}", commit.decode())
            try:
                type_num, data = reader.raw(blob, limits.MAX_EVENT_FILE)
            except limits.TooLarge as e:
                raise IntegrityError(
                    f"commit {commit.decode()[:12]} of agent '{self.agent}' holds {event_path(k)} (blob {blob.decode()[:12]}), "
                    f"which is {e.size:,} bytes, larger than any event file ({limits.MAX_EVENT_FILE:,}): HALO did not write "
                    f"it; run halo-git verify --agent {self.agent} to see what changed", commit.decode()) from None
            committed.append(Committed(self._parse(data if type_num == OBJ_BLOB else b"", commit, k), commit.decode(), blob.decode()))
        if stop:
            return base.extended(head, committed)
        return EventLog(branch, head, [c.event for c in committed], [c.commit for c in committed], blobs=[c.blob for c in committed])

    def _parse(self, data: bytes, commit: Commit | bytes, number: int) -> Event:
        """The event in a blob; a file HALO could not have written is an
        ``IntegrityError`` naming its commit (or hex commit id), never a parser's traceback."""
        try:
            return from_yaml(data)
        except Exception as e:
            cid = (commit.id if isinstance(commit, Commit) else commit).decode()
            raise IntegrityError(
                f"commit {cid[:12]} of agent '{self.agent}' holds {event_path(number)}, which is not a HALO "
                f"event ({type(e).__name__}); run halo-git verify --agent {self.agent} to see what changed",
                cid,
            ) from None

    def _walk_commits(self, head: str) -> list[str]:
        """Commit ids from the branch's first commit to ``head`` (raw reads, no parsing)."""
        with self._lock:
            repo = self._open(False)
            out = []
            sha: bytes | None = head.encode()
            while sha is not None:
                out.append(sha.decode())
                _type, raw = repo.object_store.get_raw(sha)
                sha = raw[53:93] if raw[46:53] == b"parent " else None
            out.reverse()
            return out

    # -- snapshot of parsed events -------------------------------------------------

    def _snapshot_path(self, branch: str) -> Path:
        return snapshot.path_for(self.path, branch)

    def _load_snapshot(self, branch: str, head: str) -> EventLog | None:
        """The snapshot's events ``e1..eK``, each proven to be the blob the
        head's tree holds at its path (``snapshot.mismatch``), or None.

        The snapshot is the cache file in ``halo/``, or when there is none (a
        fresh clone) or it fails, the travelling cache under
        ``refs/halo/cache/<branch>``, which passes the same check and, once
        it has, becomes the cache file.
        ``_extend`` then confirms the commit it ends at is the branch's commit
        for ``eK``; the other commit ids are read from Git when asked for.
        A snapshot that fails is remembered in ``cache_problem`` and rewritten.
        """
        repo = self._open(False)
        commit = self._get(repo, head.encode())
        count = self._number_of(commit)
        snap = snapshot.load(self._snapshot_path(branch), branch)
        local: EventLog | None = None
        if snap is not None:
            self._snapshot_count[branch] = len(snap.events)
            local = self._proven(branch, snap, commit.tree, count)
            if local is not None:
                self._cache_rejected.pop(branch, None)
                if count - len(local.events) < SNAPSHOT_EVERY or self._travel_claim(branch) <= len(local.events) + SNAPSHOT_EVERY:
                    return local  # (the ref is tried first only when it holds far more, e.g. after a pull)
            else:
                self._snapshot_count[branch] = 0
        body: list[bytes] = []
        snap = self._load_travelling(branch, count, body)
        if snap is None:
            return local
        problem = self._cache_rejected.get(branch)
        log = self._proven(branch, snap, commit.tree, count)
        if log is None:
            self._travel_rejected[branch] = self._cache_rejected.pop(branch)
            if problem is not None:
                self._cache_rejected[branch] = problem
            return local
        self._travel_rejected.pop(branch, None)
        if problem is not None:
            self._cache_rejected[branch] = problem  # the file still needs rewriting: saved below
        elif len(body) * snapshot.CHUNK == len(log.events) and snapshot.install(self._snapshot_path(branch), branch, b"".join(body)):
            self._snapshot_count[branch] = len(log.events)
        return log

    def _proven(self, branch: str, snap: snapshot.Snapshot, tree: bytes, count: int) -> EventLog | None:
        # up to the head we read (another process may have saved past it), and back to
        # the last entry naming its commit (compact lines name few), which _extend checks
        cut = snap.upto(count)
        if cut is None:
            self._cache_rejected[branch] = "no entry names its commit"
            return None
        snap = cut
        held = self._blob_ids(tree, len(snap.events))
        problem = snapshot.mismatch(snap, held)
        if problem is not None:
            self._cache_rejected[branch] = problem
            return None
        blobs = [b.decode() for b in held[: len(snap.events)]]  # each proven to hold its entry's event
        return EventLog(branch, snap.head, snap.events, snap.commits, blobs=blobs, from_git=self._walk_commits)

    # -- the travelling cache (refs/halo/cache/<branch>) ------------------------

    def _travel_claim(self, branch: str) -> int:
        """How many events the branch's cache ref claims to hold (0: none)."""
        repo = self._open(False)
        sha = _read_ref(repo, snapshot.cache_ref(branch))
        try:
            claim = snapshot.travel_claim(self._get(repo, sha).message) if sha is not None else None
        except (KeyError, AttributeError):
            claim = None
        return claim[0] if claim else 0

    def _load_travelling(self, branch: str, count: int, body: list[bytes]) -> snapshot.Snapshot | None:
        """The entries the branch's cache ref claims (unchecked: see
        ``_proven``), at most ``count``; ``body`` receives the chunks read."""
        repo = self._open(False)
        sha = _read_ref(repo, snapshot.cache_ref(branch))
        return read_travelling(lambda x: self._get(repo, x), sha, count, body, store=repo.object_store) if sha is not None else None

    def _publish_due(self, log: EventLog) -> bool:
        """Whether the cache ref lacks a full chunk of ``log`` (one ref and one
        commit read per branch and process, then a comparison)."""
        if log.blobs is None or len(log.events) < snapshot.CHUNK:
            return False
        known = self._published.get(log.branch)
        if known is None:
            known = (0, "")
            repo = self._open(False)
            sha = _read_ref(repo, snapshot.cache_ref(log.branch))
            if sha is not None:
                try:
                    commit = self._get(repo, sha)
                    known = snapshot.travel_claim(commit.message) or known
                    fmt = self._tree(repo, commit.tree)[b"format"][1]
                    if fmt != _TRAVEL_FORMAT_ID:  # an earlier version's chunks (every id on every line): rewrite them compact
                        known = (0, "")
                except (KeyError, AttributeError, TypeError, ValueError):
                    known = (0, "")
            self._published[log.branch] = known
        count, last = known
        full = len(log.events) // snapshot.CHUNK * snapshot.CHUNK
        if count > len(log.events):
            # written from a head this process has not read yet, if a commit here backs
            # the claim; a count nothing backs (a remote's ref claiming 10**9 events) is replaced
            return not self._claim_backed(count, last)
        return count < full or log.commit_hints[count - 1] != last

    def _claim_backed(self, count: int, last: str) -> bool:
        """Whether the commit a cache ref names as its last entry's is here and is e<count>."""
        repo = self._open(False)
        try:
            commit = self._get(repo, last.encode("ascii"))
            return number_from_message(commit.message) == count
        except (KeyError, AttributeError, ValueError, UnicodeEncodeError, AssertionError):
            return False

    def _publish(self, log: EventLog) -> None:
        """Write the full chunks of ``log`` under the branch's cache ref: one
        small pack (only chunks not already stored), then a compare-and-swap
        of the ref. Called on reads, never by an append; failures are ignored
        (it is an optimisation, and a reader checks it anyway)."""
        repo = self._open(False)
        ref = snapshot.cache_ref(log.branch)
        full = len(log.events) // snapshot.CHUNK
        hints = log.commit_hints
        if not full or log.blobs is None:
            return
        if not all(hints[(i + 1) * snapshot.CHUNK - 1] for i in range(full)):
            hints = log.commits  # a chunk's last commit is not known here: read them from Git (rare)
        memo = self._chunk_ids.setdefault(log.branch, {})
        tree = Tree()
        fmt = Blob.from_string(snapshot.TRAVEL_FORMAT)
        tree.add(b"format", 0o100644, fmt.id)
        new: list = [fmt]
        for i in range(full):
            lo, hi = i * snapshot.CHUNK, (i + 1) * snapshot.CHUNK
            blob_id = memo.get((i, hints[hi - 1]))
            if blob_id is None:
                blob = Blob.from_string(snapshot.lines(log.events[lo:hi], log.blobs[lo:hi], hints[lo:hi]))
                memo[(i, hints[hi - 1])] = blob_id = blob.id
                new.append(blob)
            tree.add(snapshot.chunk_name(i), 0o100644, blob_id)
        commit = Commit()
        commit.tree = tree.id
        commit.author = commit.committer = b"HALO <halo@localhost>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = snapshot.travel_message(log.branch, full * snapshot.CHUNK, hints[full * snapshot.CHUNK - 1])
        if _is_symbolic(repo, ref):  # written through, it would move the branch it points at
            try:
                os.unlink(self.path / ref.decode())
            except OSError:
                return
        old = _read_ref(repo, ref)
        if old == commit.id:
            self._published[log.branch] = (full * snapshot.CHUNK, hints[full * snapshot.CHUNK - 1])
            return
        writer = PackWriter(self.path / "objects" / "pack", fsync=self.fsync)
        try:
            for obj in new + [tree, commit]:
                if obj.id not in repo.object_store:
                    writer.add(bytes.fromhex(obj.id.decode()), obj.type_num, obj.as_raw_string())
            writer.install()
            if repo.refs.set_if_equals(ref, old if old is not None else ZERO_SHA, commit.id):
                self._published[log.branch] = (full * snapshot.CHUNK, hints[full * snapshot.CHUNK - 1])
        except (OSError, FileLocked):
            writer.abort()

    def travel_problem(self, branch: str) -> str | None:
        """Why this process did not use the branch's cache ref, if it failed its check."""
        return self._travel_rejected.get(branch)

    def cache_problem(self, branch: str) -> str | None:
        """Why this process did not use the branch's snapshot, if it found it changed."""
        return self._cache_rejected.get(branch)

    def _save_snapshot(self, log: EventLog) -> None:
        """Bring the snapshot up to ``log``: append the events it lacks (so a
        save costs what is new, not the whole history), or rewrite it when it
        holds another history or failed its check."""
        if log.blobs is None:
            return
        rewrite = log.branch in self._cache_rejected
        commits = log.commits if rewrite else log.commit_hints
        if snapshot.save(self._snapshot_path(log.branch), log.branch, log.events, log.blobs, commits, rewrite=rewrite, newer_than=lambda: self._head_number(log.branch)):
            self._snapshot_count[log.branch] = len(log.events)
            self._cache_rejected.pop(log.branch, None)

    def _head_number(self, branch: str) -> int:
        head = self.head(branch)
        return self._number_of(self._get(self._open(False), head.encode())) if head else 0


_TRAVEL_FORMAT_ID = Blob.from_string(snapshot.TRAVEL_FORMAT).id


def _raw(store, sha: bytes) -> bytes:
    """An object's raw bytes, looked up twice like ``AgentRepo._get`` (a
    background pass can move it from a loose file into a pack in between)."""
    try:
        return store.get_raw(sha)[1]
    except KeyError:
        return store.get_raw(sha)[1]


def read_travelling(get: Callable[[bytes], ShaFile], sha: bytes, count: int, body: list[bytes] | None = None, *, store=None) -> snapshot.Snapshot | None:
    """The entries of the cache commit ``sha`` (``refs/halo/cache/<branch>``),
    at most ``count``, up to the first chunk that is missing or does not
    continue the entries; None when it is no cache commit. Nothing here is
    checked against the branch: that is ``snapshot.mismatch``'s job.
    ``get(hex id)`` returns an object; ``body`` receives the chunks read.
    With the object ``store``, an object whose header says it is larger than
    HALO writes (a ref forged by a remote) is not read: None."""

    def read(x: bytes) -> ShaFile:
        if store is not None:
            size = limits.object_size(store, x)
            if size is not None and size > limits.MAX_OBJECT:
                raise ValueError(f"object {x.decode()[:12]} is {size} bytes")
        return get(x)

    body = body if body is not None else []
    try:
        commit = read(sha)
        tree = read(commit.tree) if isinstance(commit, Commit) else None
        if not isinstance(tree, Tree) or b"format" not in tree or read(tree[b"format"][1]).data not in snapshot.TRAVEL_FORMATS:
            return None
        snap = snapshot.Snapshot([], [], [])
        for i in range(-(-count // snapshot.CHUNK)):
            name = snapshot.chunk_name(i)
            if name not in tree:
                break
            data = read(tree[name][1]).data
            body.append(data)
            lines = data.decode("utf-8").split("\n")  # not splitlines: a summary may hold U+2028 or NEL, raw in JSON
            if lines[-1] == "":
                lines.pop()
            if not snapshot.entries(lines, snap, limit=count) or len(snap.events) != (i + 1) * snapshot.CHUNK:
                break
    except (KeyError, ValueError, AttributeError, UnicodeDecodeError):
        return None
    return snap if snap.events else None


_TYPE_NAMES = {OBJ_COMMIT: b"commit", OBJ_TREE: b"tree", OBJ_BLOB: b"blob"}
_POSIX = os.name == "posix"  # the append's own writes (rename over a file, no O_BINARY); elsewhere dulwich's


_HEX = frozenset(b"0123456789abcdef")


def _is_hex_id(value: bytes) -> bool:
    return len(value) == 40 and _HEX.issuperset(value)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _ref_file_content(path: str | bytes) -> bytes:
    """What a loose ref file holds, with one open and one read (a commit id is 40 bytes and a newline)."""
    with open(path, "rb", buffering=0) as f:
        return f.read(128).strip()


def _install_lock(fd: int, lock: str | bytes, path: str | bytes, data: bytes, *, sync: bool) -> None:
    """Git's last steps for a file written under its ``.lock`` (created exclusively as ``fd``): write
    ``data``, fsync if asked, close, rename the lock over ``path``; on any failure the lock is removed,
    so nothing half-written ever takes the file's name."""
    try:
        _write_all(fd, data)
        if sync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(lock)
        raise
    os.close(fd)
    try:
        os.rename(lock, path)
    except BaseException:
        _unlink_quietly(lock)
        raise


def _unlink_quietly(path: str | bytes) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def storage_error(e: OSError, root: Path, outcome: str) -> HaloError:
    """A ``HaloError`` for a failed write under the HALO root ``root``."""
    where = os.fsdecode(e.filename) if e.filename else str(root)
    if e.errno == errno.EROFS:
        why = (f"the HALO root {root} is on a read-only file system; point --root (or HALO_ROOT) at a writable folder, "
               "or remount it read-write")
    elif e.errno in (errno.ENOSPC, errno.EDQUOT):
        why = f"no space left on the device that holds the HALO root {root} (or the disk quota is used up); free some space and try again"
    elif e.errno in (errno.EACCES, errno.EPERM):
        why = f"permission denied; check the owner and permissions of the HALO root {root}"
    elif e.errno == errno.ENAMETOOLONG:
        why = "a file name is too long for the file system; use shorter branch names"
    else:
        why = f"{e.strerror or type(e).__name__} ({errno.errorcode.get(e.errno or 0, 'no errno')}); check the disk and the HALO root {root}"
    return HaloError(f"could not write {where}: {why}. {outcome[:1].upper()}{outcome[1:]}")


# A parent dated further ahead of a working clock (one reading after 1971) than this is
# no clock skew but an explicit far-future time (an import dated 9999-12-31): raising
# every later reading to it would pin the rest of the branch to that time, so such a
# floor is not applied. A clock at 1970 (an unset real-time clock) still takes the floor.
CLOCK_AHEAD_LIMIT = 86400  # seconds


def _abandon_lock_files(error: BaseException) -> None:
    """Close and remove the lock files a failed write left open in the frames ``error``
    passed through. dulwich would close them when they are collected, flushing again
    into the full disk, and Python would print that second failure as "Exception
    ignored" after the clean message; a lock left behind would also stall writers."""
    from dulwich.file import _GitFile

    tb = error.__traceback__
    while tb is not None:
        for value in list(tb.tb_frame.f_locals.values()):
            if isinstance(value, _GitFile) and not getattr(value, "_closed", True):
                try:
                    value._file.close()
                except OSError:
                    pass
                try:
                    os.remove(value._lockfilename)
                except OSError:
                    pass
                value._closed = True
        tb = tb.tb_next


def in_order(events: list[Event], floor: str | None) -> list[Event]:
    """The clock policy (docs/storage.md, "Time"): an event dated by a clock is
    never dated earlier than the one before it on its branch; an earlier
    reading (a clock set back or behind another writer's) becomes that event's
    time, unless the parent is more than ``CLOCK_AHEAD_LIMIT`` ahead of it.
    ``floor`` is the parent's time (None: the branch's first event)."""
    out = []
    for event in events:
        far = (floor is not None and time_before(EARLIEST, event.time)
               and epoch_seconds(floor) - epoch_seconds(event.time) > CLOCK_AHEAD_LIMIT)
        when = event.time if far else not_before(event.time, floor)
        out.append(event if when == event.time else replace(event, time=when))
        floor = when
    return out


def event_blob_ids(raw_tree: Callable[[bytes], bytes], root: bytes, count: int) -> list[bytes | None]:
    """Hex blob ids of e1..e<count> in the tree ``root`` (None where missing or
    not a regular file); ``raw_tree(hex id)`` returns a tree's raw bytes. One
    tree read per hundred events."""

    def entries(sha: bytes) -> dict[bytes, tuple[int, bytes]]:
        return {name: (mode, hexsha) for name, mode, hexsha in parse_tree(raw_tree(sha), 20)}

    out: list[bytes | None] = []
    where: tuple[int, int] | None = None
    leaf: dict[bytes, tuple[int, bytes]] = {}
    for k in range(1, count + 1):
        here = (k // 10000, k // 100 % 100)
        if here != where:
            where, leaf = here, {}
            sha = root
            try:
                for part in _path_parts(k)[:-1]:
                    mode, sha = entries(sha)[part]
                    if mode != 0o040000:
                        raise KeyError(part)
                leaf = entries(sha)
            except (KeyError, ValueError):
                leaf = {}
        entry = leaf.get(b"e%d.yaml" % k)
        out.append(entry[1] if entry is not None and entry[0] == 0o100644 else None)
    return out
