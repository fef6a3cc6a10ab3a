"""Verifiable erasure: replace events' text with a tombstone, rewrite what follows, forget the old objects.

Room: the store. ``Halo.redact`` (``halo-git redact``, also ``--policy``) calls
``redact``; ``remote`` calls ``lease_base`` (push of an erased branch) and
``accepts_replacement`` (pull of one); ``prune`` is run after either.

A redaction of ``eN …`` on a branch, in named steps (each one safe to be killed
after; ``redact`` run again finishes the work, see "Crash safety"):

1. **plan** -- the summary of each named event becomes the tombstone
   ``[redacted <date> by <name>: <reason>]`` (id, kind, session, time, uses
   and the kind's fields stay); every commit from the first named event on is
   re-created with the same author, committer, time and message (the message
   follows the new summary for a named event), on a tree byte-identical to
   the old one except the redacted files: the old and the new tree of each
   commit are rebuilt side by side as the write path builds them
   (``_TwoTrees``), the old one must be the old commit's tree (else nothing
   is written: the history is not as HALO writes it), and only the trees on
   the paths to the redacted files are new -- every other subtree is the old
   commit's own, already stored. The last new tree is also compared with the
   old head's, file by file. A signature over an old commit
   cannot survive (it covers the tree): the approval commit is re-created
   unsigned, and the record keeps what checking it found before the rewrite.
   The new objects (a commit and a few small trees per rewritten commit) go
   into one pack; commits are read from the packs in one pass
   (``maintenance.commits_in_packs``) and re-created by editing their header.
2. **record** -- the erasure record (``evidence``): a commit without parent,
   authored and optionally signed by the eraser, holding the old and new
   heads, the map old commit -> new commit, the redacted ids, the tombstone
   and the approvals; created under ``refs/halo/erasures/<branch>/``. From here
   a rerun completes the erasure.
3. **swap** -- the branch moves from the old head to the new by compare-and-swap
   (an event logged meanwhile makes the swap fail: the record is removed again
   and nothing changed).
4. **caches** -- the cache file and the travelling cache ref of the branch are
   removed and rebuilt from the new history: from the old cache file with the
   redacted entries replaced, when it names for every event the blob the
   head's tree holds (its entries are not re-proven here: every reader proves
   them, this process included), else from the branch as ``log`` reads it.
5. **prune** -- the objects the erasure made unreachable that hold text or
   name it (old commits and their root trees, the old event files, every
   stale travelling-cache commit with its tree and chunks) are removed:
   packs holding one are rewritten without it (``maintenance.remove_objects``,
   the packing pass's own copy: other entries copied as they are, in runs),
   loose files deleted, reflog lines naming one dropped. The old subtrees on
   the paths to the redacted files (names and ids only, no text) and other
   unreachable objects are left to ``git gc``.

**Crash safety.** A marker file (``halo/erasure-<key>.pending``) names the
record from step 2 until step 5 is done. Killed before the record ref exists:
the old history, and a pack of new objects nothing refers to (no text in it;
the next prune removes it). Killed after: ``redact`` (any arguments, or
``--resume``) sees the marker and finishes steps 3-5 from the record.

The environment variable ``HALO_ERASURE_STOP_AT=<step>`` kills the process
(SIGKILL) right after that step: it exists for the crash tests.
"""

from __future__ import annotations

import hashlib
import os
import signal
import time
import zlib
from bisect import bisect_left
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from dulwich.objects import Commit, parse_tree

from ..errors import Conflict, IntegrityError, InvalidCall, NotFound
from ..model import commit_message, from_yaml, one_line, to_yaml
from . import evidence, locking, maintenance, signing, snapshot
from .maintenance import OBJ_BLOB, OBJ_COMMIT, OBJ_TREE, OFS_DELTA, PackWriter, _entry_header, _ofs, make_delta, object_id
from .repo import (ZERO_SHA, AgentRepo, EventLog, _path_parts, _read_ref, branch_ref, event_blob_ids,
                   number_from_message, tree_entries)

STEPS = ("plan", "record", "swap", "caches", "prune")
TOMBSTONE_START = "[redacted "


@dataclass(frozen=True)
class Erased:
    """What one redaction did."""

    agent: str
    branch: str
    events: tuple[str, ...]
    record: str  # the record's ref
    old_head: str
    new_head: str
    rewritten: int  # commits re-created
    removed: int  # objects removed from the repository
    signed: bool
    resumed: bool = False

    def describe(self) -> str:
        what = "completed the pending erasure of" if self.resumed else "redacted"
        return (f"{what} {', '.join(self.events)} on branch '{self.branch}' of agent '{self.agent}': {self.rewritten} commit(s) "
                f"re-created ({self.old_head[:12]}..{self.new_head[:12]}), {self.removed} object(s) removed, record {self.record} "
                f"({'signed' if self.signed else 'UNSIGNED: verify will not accept it as covering a seal'})")


def tombstone(date: str, name: str, reason: str) -> str:
    """``[redacted <date> by <name>: <reason>]``, on one line."""
    return f"{TOMBSTONE_START}{date} by {one_line(name.strip())}: {one_line(reason.strip())}]"


def _stop(step: str) -> None:
    if os.environ.get("HALO_ERASURE_STOP_AT") == step:
        os.kill(os.getpid(), signal.SIGKILL)


def _marker(repo: AgentRepo, branch: str) -> Path:
    key = hashlib.sha1(branch.encode()).hexdigest()[:16]
    return repo.path / snapshot.CACHE_DIR / f"erasure-{key}.pending"


# -- commits as raw bytes ------------------------------------------------------------------


def _split_commit(raw: bytes) -> tuple[list[bytes], bytes]:
    head, _, message = raw.partition(b"\n\n")
    return head.split(b"\n"), message


def _rebuild_commit(raw: bytes, tree: bytes, parent: bytes | None, message: bytes | None) -> bytes:
    """``raw`` with another tree and parent, without its signature (and with ``message`` if given)."""
    lines, body = _split_commit(raw)
    out = []
    skipping = False
    for line in lines:
        if skipping and line.startswith(b" "):
            continue
        skipping = False
        if line.startswith(b"gpgsig ") or line.startswith(b"gpgsig-sha256 "):
            skipping = True
            continue
        if line.startswith(b"tree "):
            out.append(b"tree " + tree)
        elif line.startswith(b"parent "):
            if parent is not None:
                out.append(b"parent " + parent)
        else:
            out.append(line)
    return b"\n".join(out) + b"\n\n" + (message if message is not None else body)


def _walk(store, head: bytes, raws: dict[bytes, bytes] | None = None, known: dict[bytes, bytes] | None = None) -> list[bytes]:
    """Commit ids from the root to ``head`` along first parents (raw reads,
    kept in ``raws`` when given; ``known``: raw commits already read, e.g.
    ``maintenance.commits_in_packs``, the others are read through dulwich)."""
    out = []
    sha: bytes | None = head
    while sha is not None:
        out.append(sha)
        raw = known.get(sha) if known is not None else None
        if raw is None:
            _t, raw = store.get_raw(sha)
        if raws is not None:
            raws[sha] = raw
        sha = raw[53:93] if raw[46:53] == b"parent " else None
    out.reverse()
    return out


def _tree_id(raw: bytes) -> bytes:
    h = hashlib.sha1(b"tree %d\0" % len(raw))
    h.update(raw)
    return h.digest()


class _TwoTrees:
    """The old and the new tree of each rewritten commit, built as HALO's
    write path builds them (``repo._Spine``: one file added per commit, the
    trees on its path re-serialised), from the old and the new event files.

    A directory holding no redacted file is the same in both and serialised
    once; only the trees on the paths to the redacted files differ, and only
    those are returned for writing (the others are the old commit's own
    trees, already stored). The old root is returned too: the caller checks
    it is the old commit's tree, which proves every tree shared with the new
    commit is stored and that the two differ in the redacted files alone.

    Each level holds ``[sort keys, old entries, new entries or None]`` (None:
    as old); entries are raw tree lines, kept sorted as Git sorts them.
    """

    def __init__(self, read_tree: Callable[[bytes], bytes], root: bytes | None):
        self._read = read_tree  # hex id -> raw tree
        self._dirs: list[bytes] = []
        self._levels = [self._load(root)]

    def _load(self, tree: bytes | None) -> list:
        keys, entries = tree_entries(self._read(tree)) if tree is not None else ([], [])
        return [keys, entries, None]

    def _enter(self, parent: list, name: bytes) -> list:
        keys, old, new = parent
        i = bisect_left(keys, name + b"/")
        if i == len(keys) or keys[i] != name + b"/":
            return [[], [], None]  # a new directory
        if new is not None and new[i] != old[i]:
            raise IntegrityError("a directory holding a redacted event file is entered again: the history is not as HALO "
                                 "writes it (one event file added per commit, in order); nothing was changed")
        return self._load(old[i][-20:].hex().encode())

    def add(self, parts: list[bytes], old_blob: bytes, new_blob: bytes) -> tuple[bytes, bytes, list[tuple[int, bytes, bytes]]]:
        """Put the event file at ``parts``: ``old_blob`` in the old tree,
        ``new_blob`` in the new (binary ids). Returns the old and new root
        (binary ids) and the new trees that differ from the old, ``(depth,
        id, raw)`` (depth 0: the root), deepest first."""
        dirs = parts[:-1]
        keep = 0
        while keep < min(len(dirs), len(self._dirs)) and dirs[keep] == self._dirs[keep]:
            keep += 1
        levels = self._levels
        del levels[keep + 1 :]
        for level in range(keep, len(dirs)):
            levels.append(self._enter(levels[level], dirs[level]))
        self._dirs = list(dirs)
        made = []
        old_sha, new_sha = old_blob, new_blob
        name, mode, key = parts[-1], b"100644", parts[-1]
        for level in range(len(dirs), -1, -1):
            lv = levels[level]
            keys, old, new = lv
            line = b"%s %s\0" % (mode, name)
            i = bisect_left(keys, key)
            if i < len(keys) and keys[i] == key:
                old[i] = line + old_sha
            else:
                keys.insert(i, key)
                old.insert(i, line + old_sha)
                if new is not None:
                    new.insert(i, line + old_sha)
            if new is None and new_sha != old_sha:
                new = lv[2] = list(old)
            raw = b"".join(old)
            old_sha = _tree_id(raw)
            if new is not None:
                new[i] = line + new_sha
                raw = b"".join(new)
                new_sha = _tree_id(raw)
                made.append((level, new_sha, raw))
            else:
                new_sha = old_sha
            if level:
                name, mode, key = parts[level - 1], b"40000", parts[level - 1] + b"/"
        return old_sha, new_sha, made


def _changed_events(store, old_tree: bytes, new_tree: bytes) -> set[int]:
    """Event numbers whose files differ between two root trees (-1: a file that is no event file)."""
    from .witness import _TreeDiff

    return _TreeDiff(store)(old_tree, new_tree)


def _add_fast(writer: PackWriter, sha: bytes, type_num: int, raw: bytes) -> None:
    """``writer.add`` with the fastest compression: a rewrite writes a commit
    and a few small trees per rewritten commit."""
    if sha not in writer.entries:
        # a small window and state: zlib.compress's default state costs more to set up than these objects take to
        # compress; a root tree (one entry, mostly an id) is stored as it is
        c = zlib.compressobj(1 if len(raw) > 64 else 0, zlib.DEFLATED, 10, 2)
        writer._write(sha, bytes(_entry_header(type_num, len(raw))), c.compress(raw) + c.flush())


DELTA_RUN = 64  # versions of a tree path written as deltas against one written whole


def _add_tree(writer: PackWriter, bases: dict, path: tuple[bytes, ...], sha: bytes, raw: bytes) -> None:
    """Write a new tree: as a delta (depth 1) against the last version of its
    path written whole when that is less than half its size (each version
    differs from the next in an entry or two; ``maintenance.make_delta``),
    else whole, starting a new run of deltas every ``DELTA_RUN`` versions."""
    if sha in writer.entries:
        return
    base = bases.get(path)
    if base is not None and base[2] < DELTA_RUN and len(raw) > 64:
        delta = make_delta(base[1], raw)
        if len(delta) * 2 < len(raw):
            base[2] += 1
            head = _entry_header(OFS_DELTA, len(delta)) + _ofs(writer._offset - writer.entries[base[0]][0])
            c = zlib.compressobj(1, zlib.DEFLATED, 10, 2)
            writer._write(sha, bytes(head), c.compress(delta) + c.flush())
            return
    _add_fast(writer, sha, OBJ_TREE, raw)
    bases[path] = [sha, raw, 0]


def _blob_list(store, tree: bytes, count: int) -> list[bytes]:
    ids = event_blob_ids(lambda sha: store.get_raw(sha)[1], tree, count)
    if any(i is None for i in ids):
        raise IntegrityError("a branch's tree lacks an event file; run halo-git verify before redacting")
    return ids


# -- the redaction -----------------------------------------------------------------------------


def redact(
    repo: AgentRepo,
    branch: str,
    numbers: list[int],
    identity: signing.Identity,
    reason: str,
    *,
    sign: Callable[[bytes], bytes] | None = None,
    allowed_signers: str | None = None,
    gpg_keyring: str | None = None,
    now: int | None = None,
) -> Erased:
    """Redact events ``numbers`` of ``branch`` (see the module docstring); a
    pending erasure of the branch is completed first.

    Raises:
        NotFound: no such agent, branch or event.
        InvalidCall: an empty reason, or an event another branch shares.
        Conflict: an event was logged while redacting (nothing changed; run it again).
    """
    if not reason or not reason.strip():
        raise InvalidCall("--reason is empty; say why the text is erased (e.g. 'erasure request of 2026-12-01'), it is kept in the tombstone and the record")
    ref = branch_ref(branch)
    with repo._lock:
        resumed = resume(repo, branch)
        git = repo._open(False)
        head = _read_ref(git, ref)
        if head is None:
            raise NotFound(f"agent '{repo.agent}' has no branch '{branch}'; branches: {', '.join(repo.branches()) or 'none'}")
        store = git.object_store
        raws: dict[bytes, bytes] = {}
        chain = _walk(store, head, raws, maintenance.commits_in_packs(repo.path / "objects" / "pack"))
        count = len(chain)
        wanted = sorted(set(numbers))
        missing = [n for n in wanted if not 1 <= n <= count]
        if missing:
            raise NotFound(f"branch '{branch}' of agent '{repo.agent}' holds e1..e{count}; it has no {', '.join(f'e{n}' for n in missing)}")
        head_tree = store[head].tree
        date = time.strftime("%Y-%m-%d", time.gmtime(now if now is not None else time.time()))
        text = tombstone(date, identity.name, reason)
        todo = []
        for n in wanted:
            event = from_yaml(_blob_at(store, head_tree, n))
            if not event.summary.startswith(TOMBSTONE_START):
                todo.append((n, event))
        if not todo:
            if resumed is not None:
                return resumed
            raise InvalidCall(f"{', '.join(f'e{n}' for n in wanted)} of branch '{branch}' already hold a tombstone; nothing to redact")
        first = todo[0][0]
        _refuse_shared(repo, git, branch, chain[first - 1], first)
        for sha in chain[: todo[0][0] - 1]:
            raws.pop(sha, None)  # only the rewritten commits are needed again
        merges = [n for n in range(todo[0][0], count + 1) if raws[chain[n - 1]].count(b"\nparent ") > 1]
        if merges:
            raise InvalidCall(
                f"e{merges[0]} of branch '{branch}' is a merge (halo-git merge): its second parent keeps the merged copy's "
                f"original commits, which this version does not rewrite; nothing was changed. Redact {', '.join(f'e{n}' for n, _ in todo)} "
                "in the copy before merging it, or an event after the last merge")
        return _erase(repo, git, branch, chain, raws, todo, text, identity, reason, sign, allowed_signers, gpg_keyring, now)


def _cached_log(repo: AgentRepo, branch: str, head: bytes, tree_blobs: list[bytes]) -> EventLog | None:
    """The branch's cache file as it stands, when it holds every event and
    names for each the blob the head's tree holds (``tree_blobs``), else None.

    Its events are not proven here (that re-serialises every event): the
    caches rebuilt from them carry the tree's blob ids, and every reader
    proves an entry against its blob before using it (``snapshot``), so an
    entry edited outside HALO makes the next reader reject the rebuilt cache
    and read Git, never use it."""
    snap = snapshot.load(snapshot.path_for(repo.path, branch), branch)
    if snap is None or len(snap.events) != len(tree_blobs):
        return None
    if any(t is None or (b and b.encode() != t) for b, t in zip(snap.blobs, tree_blobs)):
        return None  # (compact lines store no blob id: the tree's is taken, and proven by every later reader)
    return EventLog(branch, head.decode(), snap.events, snap.commits, blobs=[t.decode() for t in tree_blobs])


def _blob_at(store, tree: bytes, number: int) -> bytes:
    sha = tree
    for part in _path_parts(number):
        _t, raw = store.get_raw(sha)
        sha = next(s for name, _m, s in parse_tree(raw, 20) if name == part)
    return store.get_raw(sha)[1]


def _refuse_shared(repo: AgentRepo, git, branch: str, commit: bytes, number: int) -> None:
    """Refuse when another branch holds the commit of e<number> (its history would keep the text)."""
    for other in repo.branches():
        if other == branch:
            continue
        sha = _read_ref(git, branch_ref(other))
        while sha is not None:
            c = git.object_store[sha]
            n = number_from_message(c.message) or 0
            if n <= number:
                if sha == commit:
                    raise InvalidCall(
                        f"branch '{other}' of agent '{repo.agent}' also holds e{number} of '{branch}' (it was branched after it); "
                        "a history two branches share is not rewritten, nothing was changed. Redact an event after the fork "
                        "point, or move the other branch's events elsewhere first (docs/auditing.md, 'Erasure')")
                break
            sha = c.parents[0] if c.parents else None


def _erase(repo, git, branch, chain, raws, todo, text, identity, reason, sign, allowed, keyring, now) -> Erased:
    store = git.object_store
    first = todo[0][0]
    old_head = chain[-1]
    blobs: dict[bytes, bytes] = {}
    replacements: dict[tuple[bytes, ...], bytes] = {}
    new_events = {}
    for n, event in todo:
        new_event = replace(event, summary=text)
        data = to_yaml(new_event)
        sha = object_id(OBJ_BLOB, data)
        blobs[sha] = data
        replacements[tuple(_path_parts(n))] = sha
        new_events[n] = new_event
    head_tree = raws[chain[-1]][5:45]
    old_blobs = _blob_list(store, head_tree, len(chain))
    old_log = _cached_log(repo, branch, old_head, old_blobs)
    proven = old_log is None
    if old_log is None:
        old_log = repo.log(branch)  # from the travelling cache when it holds (each entry proven against Git), else read
    new_blobs = list(old_blobs)
    removed = []
    for n in new_events:
        removed.append(old_blobs[n - 1])
        new_blobs[n - 1] = replacements[tuple(_path_parts(n))].hex().encode()
    base_tree = store.get_raw(chain[first - 2])[1][5:45] if first > 1 else None
    writer = PackWriter(repo.path / "objects" / "pack", fsync=repo.fsync)
    try:
        for sha, data in blobs.items():
            writer.add(sha, OBJ_BLOB, data)
        mapping: dict[str, str] = {}
        approvals = []
        parent = chain[first - 2] if first > 1 else None
        trees = _TwoTrees(lambda sha: store.get_raw(sha)[1], base_tree)
        bases: dict[tuple[bytes, ...], list] = {}  # tree path -> [id, raw, deltas] of the last one written whole there
        old_roots = set()
        for n in range(first, len(chain) + 1):
            old = chain[n - 1]
            raw = raws.pop(old)
            old_roots.add(raw[5:45])
            old_root, new_root, made = trees.add(_path_parts(n), bytes.fromhex(old_blobs[n - 1].decode()),
                                                 bytes.fromhex(new_blobs[n - 1].decode()))
            if old_root.hex().encode() != raw[5:45]:
                raise IntegrityError(f"the tree of e{n} (commit {old.decode()[:12]}) is not the one HALO's write path builds "
                                     "from its event files: the history is not as HALO writes it; run halo-git verify before "
                                     "redacting. Nothing was changed")
            for depth, sha, tree_raw in made:
                _add_tree(writer, bases, tuple(_path_parts(n)[:depth]), sha, tree_raw)
            new_tree = new_root.hex().encode()
            message = None
            if n in new_events:
                trailer = signing.approval_trailer(_split_commit(raw)[1])
                message = (signing.approval_message(new_events[n], trailer) if trailer
                           else commit_message(new_events[n]).encode("utf-8"))
            signed = raw.find(b"\ngpgsig", 0, raw.find(b"\n\n")) >= 0
            if message is None and not signed and parent is not None and raw[45:53] == b"\nparent " and raw[93:94] == b"\n":
                new_raw = b"tree " + new_tree + b"\nparent " + parent + raw[93:]  # the usual commit: only its header edited
            else:
                new_raw = _rebuild_commit(raw, new_tree, parent, message)
            if signed and b"\ngpgsig " in raw.split(b"\n\n", 1)[0]:
                check = signing.check_commit_signature(Commit.from_raw_string(1, raw, sha=old), allowed, keyring)
                approvals.append({"event": f"e{n}", "old": old.decode(), "status": check.status, "principal": check.principal,
                                  "signer": _author(raw), "format": check.format,
                                  # the signed commit itself, so verify can check the signature again later (not for a
                                  # redacted event: its message quotes the erased text)
                                  "commit": None if n in new_events else raw.decode("utf-8")})
            new_id = object_id(OBJ_COMMIT, new_raw)
            _add_fast(writer, new_id, OBJ_COMMIT, new_raw)
            parent = new_id.hex().encode()
            mapping[old.decode()] = parent.decode()
            if approvals and approvals[-1]["old"] == old.decode():
                approvals[-1]["new"] = parent.decode()
        old_trees = old_roots
        new_head = parent
        when = int(now if now is not None else time.time())
        data = {
            "format": evidence.RECORD_FORMAT, "agent": repo.agent, "branch": branch,
            "old_head": old_head.decode(), "new_head": new_head.decode(), "first": first,
            "events": [f"e{n}" for n, _ in todo], "tombstone": text, "reason": reason.strip(), "by": str(identity),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)), "map": mapping, "approvals": approvals,
            "removed_blobs": [b.decode() for b in removed],
            "cache": (_read_ref(git, snapshot.cache_ref(branch)) or b"").decode() or None,
        }
        record_blob = evidence.dump_record(data)
        blob_id = object_id(OBJ_BLOB, record_blob)
        tree_raw = b"100644 " + evidence.RECORD_FILE + b"\0" + blob_id
        tree_id = object_id(OBJ_TREE, tree_raw)
        stamp = b"%s %d +0000" % (identity.raw, when)
        head_part = b"tree " + tree_id.hex().encode() + b"\nauthor " + stamp + b"\ncommitter " + stamp + b"\nencoding UTF-8\n"
        msg = (f"Erasure of {', '.join(data['events'])} on branch '{branch}' of agent '{repo.agent}'\n\n{one_line(reason.strip())}\n\n"
               f"Old head: {old_head.decode()}\nNew head: {new_head.decode()}\n").encode("utf-8")
        record_raw = head_part + b"\n" + msg
        if sign is not None:
            record_raw = head_part + signing.gpgsig_header(sign(record_raw)) + b"\n" + msg
        writer.add(blob_id, OBJ_BLOB, record_blob)
        writer.add(tree_id, OBJ_TREE, tree_raw)
        record_id = object_id(OBJ_COMMIT, record_raw)
        writer.add(record_id, OBJ_COMMIT, record_raw)
        pack = writer.install()
    except BaseException:
        writer.abort()
        raise
    # the last tree must differ from the old head's in the redacted files only (the ones before it are built the same way)
    changed = _changed_events(store, head_tree, new_tree)
    if changed != set(new_events):
        if pack is not None:
            maintenance.remove_pack(repo.path / "objects" / "pack", pack)
        raise IntegrityError(f"the rebuilt tree of e{len(chain)} differs from the old one in more than the redacted files "
                             f"({', '.join(f'e{n}' for n in sorted(changed - set(new_events)) if n > 0) or 'a file that is no event file'}); "
                             "the history is not as HALO writes it: run halo-git verify before redacting. Nothing was changed")
    _stop("plan")
    name = evidence.erasure_prefix(branch) + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(when)).encode() + b"-" + new_head[:12]
    marker = _marker(repo, branch)
    marker.parent.mkdir(exist_ok=True)
    _write_atomic(marker, name + b"\n")
    if not git.refs.set_if_equals(name, ZERO_SHA, record_id.hex().encode()):
        raise Conflict(f"an erasure record {name.decode()} already exists; run the redaction again")
    _stop("record")
    record = evidence.read_record(store, name, record_id.hex().encode(), allowed, keyring)
    new_log = None
    if old_log is not None and old_log.head == old_head.decode() and len(old_log.events) == len(chain) and old_log.blobs is not None:
        events, blob_ids = list(old_log.events), list(old_log.blobs)
        for n, event in new_events.items():
            events[n - 1] = event
            blob_ids[n - 1] = new_blobs[n - 1].decode()  # the file written above (the others: as the tree holds them)
        commits = [c.decode() for c in chain[: first - 1]] + [mapping[c.decode()] for c in chain[first - 1:]]
        new_log = EventLog(branch, new_head.decode(), events, commits, blobs=blob_ids)
    return _finish(repo, git, branch, record, resumed=False, doomed=doomed_by(store, record, old_trees), new_log=new_log,
                   proven=proven)


def _author(raw: bytes) -> str:
    for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
        if line.startswith(b"author "):
            return line[7:].rsplit(b" ", 2)[0].decode("utf-8", "replace")
    return ""


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _finish(repo: AgentRepo, git, branch: str, record: evidence.Record, *, resumed: bool, doomed: set[bytes] | None = None,
            new_log: EventLog | None = None, proven: bool = True) -> Erased:
    """Steps 3-5 for ``record`` (whose ref exists): swap, caches, prune."""
    ref = branch_ref(branch)
    head = _read_ref(git, ref)
    old, new = record.old_head.encode(), record.new_head.encode()
    if head == old:
        if not git.refs.set_if_equals(ref, old, new):
            git.refs.remove_if_equals(record.ref.encode(), record.commit.encode())
            _marker(repo, branch).unlink(missing_ok=True)
            raise Conflict(f"branch '{branch}' of agent '{repo.agent}' moved while redacting (an event was logged); nothing "
                           "was changed: run the redaction again")
        head = new
    elif head != new and not _descends(git, new, head):
        # the record was never applied and the branch moved on: it describes nothing; drop it
        git.refs.remove_if_equals(record.ref.encode(), record.commit.encode())
        _marker(repo, branch).unlink(missing_ok=True)
        raise Conflict(f"branch '{branch}' of agent '{repo.agent}' moved before an interrupted redaction was applied; its "
                       "record was removed and nothing changed: run the redaction again")
    _stop("swap")
    _rebuild_caches(repo, git, branch, new_log, proven)
    _stop("caches")
    removed = prune(repo.path, doomed if doomed is not None else doomed_by(git.object_store, record))
    _marker(repo, branch).unlink(missing_ok=True)
    _stop("prune")
    return Erased(repo.agent, branch, tuple(record.events), record.ref, record.old_head, record.new_head, len(record.map), removed,
                  record.signature.status != signing.UNSIGNED, resumed)


def _descends(git, ancestor: bytes, head: bytes | None) -> bool:
    if head is None:
        return False
    target = number_from_message(git.object_store[ancestor].message) if ancestor in git.object_store else None
    sha: bytes | None = head
    while sha is not None and target is not None:
        if sha == ancestor:
            return True
        c = git.object_store[sha]
        if (number_from_message(c.message) or 0) <= target:
            return False
        sha = c.parents[0] if c.parents else None
    return False


def resume(repo: AgentRepo, branch: str) -> Erased | None:
    """Finish an erasure of ``branch`` a killed process left pending; None when there is none."""
    marker = _marker(repo, branch)
    if not marker.is_file():
        return None
    git = repo._open(False)
    name = marker.read_bytes().strip()
    sha = _read_ref(git, name)
    if sha is None:  # killed before the record existed: the old history stands
        marker.unlink(missing_ok=True)
        return None
    record = evidence.read_record(git.object_store, name, sha, None, None)
    return _finish(repo, git, branch, record, resumed=True)


def _rebuild_caches(repo: AgentRepo, git, branch: str, new_log: EventLog | None = None, proven: bool = True) -> None:
    """Remove the branch's cache file and cache ref, then rebuild them: from
    ``new_log`` (the old log with the redacted events and new commit ids,
    when the rewrite made one) or by reading the new history."""
    cache = snapshot.cache_ref(branch)
    old = _read_ref(git, cache)
    if old is not None:
        git.refs.remove_if_equals(cache, old)
    snapshot.path_for(repo.path, branch).unlink(missing_ok=True)
    for memo in (repo._logs, repo._published, repo._chunk_ids, repo._snapshot_count, repo._cache_rejected, repo._travel_rejected):
        memo.pop(branch, None)
    repo._tip = None
    repo._trees.clear()
    if new_log is not None and _read_ref(git, branch_ref(branch)) == new_log.head.encode():
        repo._logs[branch] = new_log
        repo._cache_rejected[branch] = "rewritten by an erasure"  # the save below rewrites the file whole
        repo._save_snapshot(new_log)
        repo._publish(new_log)
        if not proven:  # built from the cache file unproven: this process proves it too before using it
            repo._logs.pop(branch, None)
        return
    repo.log(branch)


# -- removing the old objects -------------------------------------------------------------------


def doomed_by(store, record: evidence.Record, replaced: set[bytes] | None = None) -> set[bytes]:
    """The objects an applied erasure made unreachable (hex ids): the old
    commits, the old trees on the paths to the redacted files (``replaced``
    when the rewrite just computed them, else found again by walking the old
    commits still present), the old event files, the old travelling cache's
    commit, tree and the chunks the new cache does not share."""
    out = {c.encode() for c in record.map} | {b.encode() for b in record.data.get("removed_blobs", [])}
    if replaced is None:  # the old commits' root trees (deeper old trees hold no text: left to git gc)
        replaced = set()
        for old in record.map:
            try:
                replaced.add(store.get_raw(old.encode())[1][5:45])
            except KeyError:
                continue  # removed already (a rerun after an interrupted prune)
    out |= replaced
    cache = record.data.get("cache")
    if cache:
        out |= _old_cache_objects(store, cache.encode())
    return out


def _walk_back(store, head: bytes, steps: int) -> bytes:
    """The commit ``steps`` first parents below ``head``."""
    sha = head
    for _ in range(steps):
        raw = store.get_raw(sha)[1]
        sha = raw[53:93]
    return sha


def _old_cache_objects(store, sha: bytes) -> set[bytes]:
    try:
        _t, raw = store.get_raw(sha)
        tree = raw[5:45]
        out = {sha, tree}
        out |= {s for name, _m, s in parse_tree(store.get_raw(tree)[1], 20) if name != b"format"}
        return out
    except KeyError:
        return {sha}


_CACHE_AUTHOR = b"\nauthor HALO <halo@localhost> 0 +0000\n"


def _stale_caches(path: Path, store, commits: dict[bytes, bytes] | None = None) -> set[bytes]:
    """Every travelling-cache commit in the repository with its tree and chunks
    (hex ids), reachable or not: earlier versions of a cache, which no ref
    names any more, quote the events they held. ``_still_used`` keeps those
    a cache ref still reaches. Commits are found by reading only the commit
    entries of each pack (stored whole; ``commits`` when already read) and
    the loose objects."""
    found: set[bytes] = set()
    objects = path / "objects"
    if commits is None:
        commits = maintenance.commits_in_packs(objects / "pack")
    candidates = [(sha, raw) for sha, raw in commits.items() if _CACHE_AUTHOR in raw]  # (hex id, raw)
    for sha in maintenance.loose_objects(objects):
        try:
            with open(objects / sha[:2].decode() / sha[2:].decode(), "rb") as f:
                head, _, raw = zlib.decompressobj().decompress(f.read(8192), 8192).partition(b"\0")
        except (OSError, zlib.error):
            continue
        if head.startswith(b"commit ") and _CACHE_AUTHOR in raw:
            candidates.append((sha, raw))
    for sha, raw in candidates:
        if raw.startswith(b"tree ") and b"\n\nHALO parsed-event cache" in raw:
            found |= _old_cache_objects(store, sha)
    return found


def _still_used(git, doomed: set[bytes]) -> set[bytes]:
    """Doomed ids a ref still reaches cheaply checked: a branch head or
    evidence ref naming one, an event file or cache chunk another branch
    (or the new cache) shares."""
    used = set()
    for ref in git.refs.allkeys():
        if ref == b"HEAD":
            continue
        try:
            sha = git.refs[ref]
        except KeyError:
            continue
        if sha in doomed:
            used.add(sha)
        if ref.startswith(b"refs/halo/cache/"):
            used |= _old_cache_objects(git.object_store, sha) & doomed
    blobs = {d for d in doomed if d not in used}
    for branch in git.refs.keys(base=b"refs/heads/"):
        try:
            head = git.refs[b"refs/heads/" + branch]
            tree = git.object_store[head].tree
        except KeyError:
            continue
        used |= _blobs_in(git.object_store, tree, blobs)
    return used


def _blobs_in(store, tree: bytes, wanted: set[bytes]) -> set[bytes]:
    """Which of ``wanted`` a branch's head tree holds as event files (walks
    only the leaf trees, one per hundred events)."""
    found = set()
    try:
        for _n, _m, nn in parse_tree(store.get_raw(tree)[1], 20):
            for _n2, _m2, mm_root in parse_tree(store.get_raw(nn)[1], 20):
                for _n3, _m3, leaf in parse_tree(store.get_raw(mm_root)[1], 20):
                    for _n4, _m4, blob in parse_tree(store.get_raw(leaf)[1], 20):
                        if blob in wanted:
                            found.add(blob)
    except KeyError:
        pass
    return found


def prune(path: Path, doomed: set[bytes]) -> int:
    """Remove the objects ``doomed`` (hex ids) from the bare repository at
    ``path``, unless a ref still reaches them: loose files deleted, every pack
    holding one rewritten without it (``maintenance.remove_objects``: entries
    copied as they are, in runs; a delta whose base goes is stored whole),
    reflog lines naming one dropped.
    Returns how many were removed. Holds the maintenance lock, so no packing
    pass copies an object while it goes."""
    from dulwich.repo import Repo

    lock = path / maintenance.LOCK_FILE
    lock.parent.mkdir(exist_ok=True)
    removed = 0
    with open(lock, "a") as guard:
        locking.lock(guard)
        with Repo(str(path)) as git:
            doomed = doomed | _stale_caches(path, git.object_store)
            doomed = doomed - _still_used(git, doomed)
            objects = path / "objects"
            for sha in maintenance.loose_objects(objects) & doomed:
                try:
                    os.unlink(os.path.join(objects, sha[:2].decode(), sha[2:].decode()))
                    removed += 1
                except FileNotFoundError:
                    continue
            binary = {bytes.fromhex(d.decode()) for d in doomed}
            # a delta whose base goes is stored whole, read through dulwich
            removed += maintenance.remove_objects(objects / "pack", binary, lambda sha: git.object_store.get_raw(sha.hex().encode()))
            if removed:
                maintenance.forget_commit_graph(objects)  # it names the old commits
        _prune_reflogs(path, doomed)
    return removed


def _prune_reflogs(path: Path, doomed: set[bytes]) -> None:
    logs = path / "logs"
    if not logs.is_dir():
        return
    for dirpath, _dirs, files in os.walk(logs):
        for f in files:
            p = Path(dirpath) / f
            try:
                lines = p.read_bytes().splitlines(keepends=True)
            except OSError:
                continue
            kept = [ln for ln in lines if not any(s in doomed for s in ln.split(b" ", 2)[:2])]
            if len(kept) != len(lines):
                _write_atomic(p, b"".join(kept))


# -- transfers of an erased branch ---------------------------------------------------------------


def _maps(r: evidence.Record, old: bytes) -> str | None:
    """Where record ``r`` sends commit ``old`` (None: it does not name it)."""
    return r.map.get(old.decode()) or (r.new_head if r.old_head == old.decode() else None)


def covering_record(git, branch: str, old: bytes, new: bytes, *, store=None, refs: dict | None = None,
                    trust: tuple[str | None, str | None] = (None, None)) -> evidence.Record | None:
    """A signed record of ``branch`` that maps commit ``old`` into the history of
    ``new``: among ``refs`` (a remote's, objects in ``store``) or this
    repository's. With trust files the signature must be good; without, a
    signature is required but cannot be checked. None when there is none."""
    store = store if store is not None else git.object_store
    allowed, keyring = trust
    found = evidence.branch_refs(refs, branch) if refs is not None else evidence.local_refs(git, branch)
    for ref, sha in sorted(found.items()):
        if not ref.startswith(evidence.ERASURES) or sha not in store:
            continue
        try:
            r = evidence.read_record(store, ref, sha, allowed, keyring)
        except evidence._Unreadable:
            continue
        ok = r.signature.status == signing.GOOD or (allowed is None and keyring is None and r.signature.status == signing.UNCHECKED)
        mapped = _maps(r, old)
        if ok and mapped is not None and (mapped.encode() == new or _descends_in(store, mapped.encode(), new)):
            return r
    return None


def _descends_in(store, ancestor: bytes, head: bytes) -> bool:
    """Whether ``ancestor`` is on ``head``'s first-parent line (event numbers bound the walk)."""
    try:
        target = number_from_message(store[ancestor].message)
        sha: bytes | None = head
        while sha is not None and target is not None:
            if sha == ancestor:
                return True
            c = store[sha]
            if (number_from_message(c.message) or 0) <= target:
                return False
            sha = c.parents[0] if c.parents else None
    except KeyError:
        return False
    return False


def lease_base(git, branch: str, remote_head: bytes, head: bytes):
    """For a push over a remote branch at ``remote_head``: ``(base, record)``
    when a record of this repository (signed or not: the receiver judges)
    maps ``remote_head`` into ``head``'s history -- ``base`` is the last commit
    both hold (None: none) -- else False."""
    if remote_head in git.object_store:
        return False  # still here: not an erased commit
    for r in reversed(evidence.records_of(git, branch)):
        mapped = _maps(r, remote_head)
        if mapped is not None and (mapped.encode() == head or _descends_in(git.object_store, mapped.encode(), head)):
            chain = _walk(git.object_store, head)
            return (chain[r.first - 2] if r.first > 1 else None), r
    return False


def after_push(url: str, record: evidence.Record) -> int:
    """After an erased branch replaced a remote's: when the remote is a
    repository on this machine, remove its old objects too (a hosted remote
    keeps them until its own garbage collection: docs/security.md)."""
    path = url[len("file://"):] if url.startswith("file://") else url
    if "://" in path or not os.path.isdir(path) or not os.path.isfile(os.path.join(path, "HEAD")):
        return 0
    from dulwich.repo import Repo

    with Repo(path) as remote:
        doomed = doomed_by(remote.object_store, record)
    return prune(Path(path), doomed)


def after_pull(repo: AgentRepo, branch: str, record: evidence.Record) -> int:
    """After a pull took an erased history: rebuild the caches, remove the old objects here."""
    git = repo._open(False)
    doomed = doomed_by(git.object_store, record)
    cache = _read_ref(git, snapshot.cache_ref(branch))
    if cache is not None:
        doomed |= _old_cache_objects(git.object_store, cache)
    _rebuild_caches(repo, git, branch)
    return prune(repo.path, doomed)


def trust_files(root: Path) -> tuple[str | None, str | None]:
    """The allowed signers and GPG keyring as ``Halo`` finds them (environment, else files in the root)."""
    out = []
    for variable, name in (("HALO_ALLOWED_SIGNERS", "allowed_signers"), ("HALO_GPG_KEYRING", "allowed_signers.gpg")):
        if os.environ.get(variable):
            out.append(os.environ[variable])
        else:
            p = Path(root) / name
            out.append(str(p) if p.is_file() else None)
    return out[0], out[1]

