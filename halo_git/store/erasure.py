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
   the old one except the redacted files. A signature over an old commit
   cannot survive (it covers the tree): the approval commit is re-created
   unsigned, and the record keeps what checking it found before the rewrite.
   The new objects go into one pack.
2. **record** -- the erasure record (``evidence``): a commit without parent,
   authored and optionally signed by the eraser, holding the old and new
   heads, the map old commit -> new commit, the redacted ids, the tombstone
   and the approvals; created under ``refs/halo/erasures/<branch>/``. From here
   a rerun completes the erasure.
3. **swap** -- the branch moves from the old head to the new by compare-and-swap
   (an event logged meanwhile makes the swap fail: the record is removed again
   and nothing changed).
4. **caches** -- the cache file and the travelling cache ref of the branch are
   removed and rebuilt from the new history.
5. **prune** -- every object no ref reaches is removed: packs holding one are
   rewritten without it, loose files deleted, reflog lines naming removed
   commits dropped. Objects younger than ``GRACE`` seconds that the erasure
   did not make unreachable are kept (an append in flight may be about to use
   them), as ``git gc`` keeps them for two weeks.

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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from dulwich.objects import Commit, parse_tree
from dulwich.object_format import SHA1
from dulwich.pack import load_pack_index

from ..errors import Conflict, InvalidCall, NotFound
from ..model import commit_message, from_yaml, one_line, to_yaml
from . import evidence, locking, maintenance, signing, snapshot
from .maintenance import OBJ_BLOB, OBJ_COMMIT, OBJ_TREE, PackWriter, object_id
from .repo import ZERO_SHA, AgentRepo, _path_parts, _read_ref, branch_ref, event_path, number_from_message

GRACE = 60.0  # seconds: unreachable objects younger than this (not made so by the erasure) are kept
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


def _walk(store, head: bytes) -> list[bytes]:
    """Commit ids from the root to ``head`` along first parents (raw reads)."""
    out = []
    sha: bytes | None = head
    while sha is not None:
        out.append(sha)
        _t, raw = store.get_raw(sha)
        sha = raw[53:93] if raw[46:53] == b"parent " else None
    out.reverse()
    return out


class _Rewriter:
    """Old tree -> new tree with some files replaced; memoised, so each old tree is rewritten once."""

    def __init__(self, store, replacements: dict[tuple[bytes, ...], bytes]):
        self.store = store
        self.replacements = replacements  # path parts -> new blob id (binary)
        self.memo: dict[tuple[tuple[bytes, ...], bytes], bytes] = {}
        self.new: dict[bytes, bytes] = {}  # new tree id (hex) -> raw
        self.replaced: set[bytes] = set()  # old trees (hex) that changed

    def __call__(self, tree: bytes, prefix: tuple[bytes, ...] = ()) -> bytes:
        key = (prefix, tree)
        done = self.memo.get(key)
        if done is not None:
            return done
        wanted = {p[len(prefix)] for p in self.replacements if p[: len(prefix)] == prefix and len(p) > len(prefix)}
        _t, raw = self.store.get_raw(tree)
        entries = []
        changed = False
        for name, mode, sha in parse_tree(raw, 20):
            if name in wanted:
                here = prefix + (name,)
                if here in self.replacements:
                    new = self.replacements[here].hex().encode()
                else:
                    new = self(sha, here)
                changed |= new != sha
                sha = new
            entries.append(b"%o %s\0" % (mode, name) + bytes.fromhex(sha.decode()))
        if not changed:
            self.memo[key] = tree
            return tree
        new_raw = b"".join(entries)
        new_id = object_id(OBJ_TREE, new_raw).hex().encode()
        self.new[new_id] = new_raw
        self.replaced.add(tree)
        self.memo[key] = new_id
        return new_id


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
        chain = _walk(store, head)
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
        return _erase(repo, git, branch, chain, todo, text, identity, reason, sign, allowed_signers, gpg_keyring, now)


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
                        f"branch '{other}' of agent '{repo.agent}' also holds e{number} of '{branch}' (it was branched after it): "
                        f"redact it there too, first: halo-git redact --agent {repo.agent} --branch {other} …; a history shared "
                        "by two branches is rewritten one branch at a time")
                break
            sha = c.parents[0] if c.parents else None


def _erase(repo, git, branch, chain, todo, text, identity, reason, sign, allowed, keyring, now) -> Erased:
    store = git.object_store
    first = todo[0][0]
    old_head = chain[-1]
    blobs: dict[bytes, bytes] = {}
    replacements: dict[tuple[bytes, ...], bytes] = {}
    new_events = {}
    old_blobs = []
    for n, event in todo:
        new_event = replace(event, summary=text)
        data = to_yaml(new_event)
        sha = object_id(OBJ_BLOB, data)
        blobs[sha] = data
        replacements[tuple(_path_parts(n))] = sha
        new_events[n] = new_event
    rewrite = _Rewriter(store, replacements)
    writer = PackWriter(repo.path / "objects" / "pack", fsync=repo.fsync)
    try:
        for sha, data in blobs.items():
            writer.add(sha, OBJ_BLOB, data)
        mapping: dict[str, str] = {}
        approvals = []
        parent = chain[first - 2] if first > 1 else None
        for n in range(first, len(chain) + 1):
            old = chain[n - 1]
            _t, raw = store.get_raw(old)
            old_tree = raw[5:45]
            if n in new_events:
                old_blobs.append(_blob_id(store, old_tree, n))
            new_tree = rewrite(old_tree)
            message = None
            if n in new_events:
                trailer = signing.approval_trailer(_split_commit(raw)[1])
                message = (signing.approval_message(new_events[n], trailer) if trailer
                           else commit_message(new_events[n]).encode("utf-8"))
            new_raw = _rebuild_commit(raw, new_tree, parent, message)
            if b"\ngpgsig " in raw.split(b"\n\n", 1)[0]:
                check = signing.check_commit_signature(Commit.from_raw_string(1, raw, sha=old), allowed, keyring)
                approvals.append({"event": f"e{n}", "old": old.decode(), "status": check.status, "principal": check.principal,
                                  "signer": _author(raw), "format": check.format,
                                  # the signed commit itself, so verify can check the signature again later (not for a
                                  # redacted event: its message quotes the erased text)
                                  "commit": None if n in new_events else raw.decode("utf-8")})
            new_id = object_id(OBJ_COMMIT, new_raw)
            for tree_id, tree_raw in list(rewrite.new.items()):
                writer.add(bytes.fromhex(tree_id.decode()), OBJ_TREE, tree_raw)
            rewrite.new.clear()
            writer.add(new_id, OBJ_COMMIT, new_raw)
            parent = new_id.hex().encode()
            mapping[old.decode()] = parent.decode()
            if approvals and approvals[-1]["old"] == old.decode():
                approvals[-1]["new"] = parent.decode()
        new_head = parent
        when = int(now if now is not None else time.time())
        data = {
            "format": evidence.RECORD_FORMAT, "agent": repo.agent, "branch": branch,
            "old_head": old_head.decode(), "new_head": new_head.decode(), "first": first,
            "events": [f"e{n}" for n, _ in todo], "tombstone": text, "reason": reason.strip(), "by": str(identity),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)), "map": mapping, "approvals": approvals,
            "removed_blobs": [b.decode() for b in old_blobs],
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
        writer.install()
    except BaseException:
        writer.abort()
        raise
    _stop("plan")
    name = evidence.erasure_prefix(branch) + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(when)).encode() + b"-" + new_head[:12]
    marker = _marker(repo, branch)
    marker.parent.mkdir(exist_ok=True)
    _write_atomic(marker, name + b"\n")
    if not git.refs.set_if_equals(name, ZERO_SHA, record_id.hex().encode()):
        raise Conflict(f"an erasure record {name.decode()} already exists; run the redaction again")
    _stop("record")
    record = evidence.read_record(store, name, record_id.hex().encode(), allowed, keyring)
    return _finish(repo, git, branch, record, resumed=False)


def _author(raw: bytes) -> str:
    for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
        if line.startswith(b"author "):
            return line[7:].rsplit(b" ", 2)[0].decode("utf-8", "replace")
    return ""


def _blob_id(store, tree: bytes, number: int) -> bytes:
    sha = tree
    for part in _path_parts(number):
        _t, raw = store.get_raw(sha)
        sha = next(s for name, _m, s in parse_tree(raw, 20) if name == part)
    return sha


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _finish(repo: AgentRepo, git, branch: str, record: evidence.Record, *, resumed: bool) -> Erased:
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
    _rebuild_caches(repo, git, branch)
    _stop("caches")
    roots = set(record.map) | set(record.data.get("removed_blobs", [])) | ({record.data["cache"]} if record.data.get("cache") else set())
    removed = prune(repo.path, before=_marker_time(repo, branch), roots=roots)
    _marker(repo, branch).unlink(missing_ok=True)
    _stop("prune")
    return Erased(repo.agent, branch, tuple(record.events), record.ref, record.old_head, record.new_head, len(record.map), removed,
                  record.signature.status != signing.UNSIGNED, resumed)


def _marker_time(repo: AgentRepo, branch: str) -> float:
    try:
        return _marker(repo, branch).stat().st_mtime
    except FileNotFoundError:
        return time.time()


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


def _rebuild_caches(repo: AgentRepo, git, branch: str) -> None:
    """Remove the branch's cache file and cache ref, then let a read rebuild them from the new history."""
    cache = snapshot.cache_ref(branch)
    old = _read_ref(git, cache)
    if old is not None:
        git.refs.remove_if_equals(cache, old)
    snapshot.path_for(repo.path, branch).unlink(missing_ok=True)
    for memo in (repo._logs, repo._published, repo._chunk_ids, repo._snapshot_count, repo._cache_rejected, repo._travel_rejected):
        memo.pop(branch, None)
    repo._tip = None
    repo._trees.clear()
    repo.log(branch)


# -- removing what no ref reaches ---------------------------------------------------------------


def _links(type_num: int, raw: bytes) -> list[bytes]:
    """The ids an object names (hex): a commit's tree and parents, a tree's entries, a tag's object."""
    if type_num == OBJ_COMMIT:
        out = []
        for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
            if line.startswith(b"tree "):
                out.append(line[5:45])
            elif line.startswith(b"parent "):
                out.append(line[7:47])
            else:
                break
        return out
    if type_num == OBJ_TREE:
        return [s for _name, mode, s in parse_tree(raw, 20) if mode != 0o160000]
    if type_num == 4:
        return [raw[7:47]]
    return []


def _closure(store, roots, stop: set[bytes]) -> set[bytes]:
    """Every object reachable from ``roots`` that is not in ``stop`` (missing ones skipped)."""
    seen: set[bytes] = set()
    todo = list(roots)
    while todo:
        sha = todo.pop()
        if sha in seen or sha in stop:
            continue
        try:
            type_num, raw = store.get_raw(sha)
        except KeyError:
            continue
        seen.add(sha)
        todo.extend(s for s in _links(type_num, raw) if s not in seen and s not in stop)
    return seen


def reachable(git) -> set[bytes]:
    """Every object any ref reaches (hex ids)."""
    roots = []
    for ref in git.refs.allkeys():
        if ref != b"HEAD":
            try:
                roots.append(git.refs[ref])
            except KeyError:
                continue
    return _closure(git.object_store, roots, set())


def prune(path: Path, *, before: float, roots: set[str] | None = None) -> int:
    """Remove the objects of the bare repository at ``path`` that no ref
    reaches: those written before ``before`` (epoch seconds), and whatever the
    erased commits ``roots`` (hex) reached, whenever written (a background pack
    merge may have copied them). Packs are rewritten without them, loose files
    deleted, reflog lines naming them dropped. Returns how many were removed."""
    from dulwich.repo import Repo

    lock = path / maintenance.LOCK_FILE
    lock.parent.mkdir(exist_ok=True)
    removed = 0
    with open(lock, "a") as guard:
        locking.lock(guard)
        with Repo(str(path)) as git:
            keep = reachable(git)
            erased = _closure(git.object_store, [r.encode() for r in roots or ()], keep)
            removed = _remove(path, git.object_store, keep, erased, before)
        _prune_reflogs(path, keep)
    return removed


def _remove(path: Path, store, keep: set[bytes], erased: set[bytes], before: float) -> int:
    removed = 0
    objects = path / "objects"
    for sha in maintenance.loose_objects(objects):
        if sha in keep:
            continue
        p = objects / sha[:2].decode() / sha[2:].decode()
        try:
            if sha in erased or p.stat().st_mtime <= before:
                p.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    pack_dir = objects / "pack"
    for pack in maintenance.packs(pack_dir):
        idx = load_pack_index(str(pack_dir / f"{pack.name}.idx"), SHA1)
        try:
            hexes = [s.hex().encode() if len(s) == 20 else s for s, _o, _c in idx.iterentries()]
        finally:
            idx.close()
        drop = {h for h in hexes if h not in keep}
        if not drop:
            continue
        try:
            old = (pack_dir / f"{pack.name}.pack").stat().st_mtime <= before
        except FileNotFoundError:
            continue
        if not old and not (drop & erased):
            continue
        _rewrite_pack(pack_dir, pack.name, [h for h in hexes if h not in drop], store)
        removed += len(drop)
    return removed


def _rewrite_pack(pack_dir: Path, name: str, kept: list[bytes], store) -> None:
    """Replace pack ``name`` by one holding only ``kept`` (deltas resolved), new pack first."""
    if kept:
        writer = PackWriter(pack_dir)
        try:
            for sha in kept:
                type_num, raw = store.get_raw(sha)
                writer.add(bytes.fromhex(sha.decode()), type_num, raw)
            new = writer.install()
        except BaseException:
            writer.abort()
            raise
        if new == name:
            return
    maintenance.remove_pack(pack_dir, name)


def _prune_reflogs(path: Path, keep: set[bytes]) -> None:
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
            kept = [ln for ln in lines if all(s in keep or s == ZERO_SHA for s in ln.split(b" ", 2)[:2])]
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
    return prune(Path(path), before=time.time(), roots=set(record.map) | set(record.data.get("removed_blobs", [])))


def after_pull(repo: AgentRepo, branch: str, record: evidence.Record) -> int:
    """After a pull took an erased history: rebuild the caches, remove the old objects here."""
    git = repo._open(False)
    _rebuild_caches(repo, git, branch)
    roots = set(record.map) | set(record.data.get("removed_blobs", []))
    return prune(repo.path, before=time.time(), roots=roots)


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

