"""Automatic packing: loose objects into small delta packs, and few packs.

Why: every append writes six loose objects, one 4 KiB file each (~24 KB per
event on disk). dulwich's ``pack_loose_objects`` stores them whole (~3.1 KB
per event), and its delta search is no answer: ``write_pack_objects(...,
deltify=True)`` took 139 s for the 12,000 objects of 2,000 events and saved 4 %
(1.87 instead of 1.96 KB per event), ``repack`` also holds every object in
memory. Our history has a shape a general packer does not know: each commit
adds one file, so it rewrites one tree per level of the path to it, and each
version of a tree differs from the next by one entry. In every pack the newest
version of each tree path is stored whole and the older ones as one delta each
against it (depth 1, a few dozen bytes; see ``make_delta``). A packed event
takes ~0.65 KB with its index entries, about what ``git gc`` achieves, with no
``git`` binary. The trees of the head, read by appends, stay whole.

Policy: the append of every ``PACK_EVERY``-th (250th) event of a branch, and
every batch import, asks for a pass in a background thread (one per repository
and process; one per repository across processes through ``flock``). So at
most ~250 events per branch sit in loose objects (~6 MB), and a pass costs a
fraction of a second. A pass

1. packs the loose objects of each branch: it walks back from each head over
   loose commits and takes what each commit added compared with its parent,
   in slices of ``SLICE_EVENTS`` commits, one pack per slice; a loose object no
   branch reaches (a lost compare-and-swap leaves a few) is packed whole once
   it is ``LEFTOVER_AGE`` old, younger ones may belong to an append in flight;
2. consolidates the packs the way ``git repack --geometric=2`` does: the
   smallest packs are merged until every remaining pack holds at least twice
   the objects of the next smaller one. Merging copies compressed entries byte
   for byte. A repository therefore holds about log2(events / PACK_EVERY)
   packs, and a lookup, which probes each pack, stays cheap.

Readers never miss an object: a pack becomes visible only when its ``.idx`` is
renamed into place (after the ``.pack``); loose objects and merged packs are
deleted only after the pack holding them is visible, and a pack's ``.idx``
goes before its ``.pack``. A reader that looked at the old set of files looks
again (``AgentRepo`` does, dulwich rescans the pack folder on a miss, ``git``
re-reads it). A killed pass leaves at most a ``tmp_pack_halo_*`` file, removed
by a later pass after an hour.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import sys
import tempfile
import threading
import time
import zlib
from array import array
from pathlib import Path
from typing import Iterable, NamedTuple

from dulwich.object_format import SHA1
from dulwich.object_store import DiskObjectStore
from dulwich.objects import parse_tree
from dulwich.pack import load_pack_index
from dulwich.refs import DiskRefsContainer

from . import locking

PACK_EVERY = 250  # events between background packing passes (see the module docstring)
SLICE_EVENTS = 5000  # loose commits per new pack (bounds a pass's memory)
TMP_PREFIX = "tmp_pack_halo_"
TMP_MAX_AGE = 3600.0  # seconds before a leftover temporary pack counts as abandoned
LEFTOVER_AGE = 600.0  # seconds before a loose object no branch reaches is packed anyway
LOCK_FILE = "halo/maintenance.lock"

OBJ_COMMIT, OBJ_TREE, OBJ_BLOB = 1, 2, 3
OFS_DELTA, REF_DELTA = 6, 7
_DIR_MODE = 0o040000


class Item(NamedTuple):
    """One object to pack; ``group`` names the objects that are versions of one
    another (a tree's path), ``None`` for objects packed whole."""

    sha: bytes  # 20-byte binary id
    type_num: int
    raw: bytes
    group: bytes | None


def object_id(type_num: int, raw: bytes) -> bytes:
    """The binary Git id of an object (SHA-1 of its header and content)."""
    name = (b"commit", b"tree", b"blob")[type_num - 1]
    h = hashlib.sha1(b"%s %d\0" % (name, len(raw)))
    h.update(raw)
    return h.digest()


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    out.append(n)
    return bytes(out)


def _longest(fits, n: int) -> int:
    """The largest k in 0..n with ``fits(k)``, for a ``fits`` true up to some k."""
    if fits(n):
        return n
    lo, hi = 0, n  # fits(lo), not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def make_delta(base: bytes, target: bytes) -> bytes:
    """A Git delta turning ``base`` into ``target``: copy their common prefix
    and suffix, insert the middle. Enough for versions of one tree (an entry
    appended or one id changed) and much cheaper than a general delta search."""
    n = min(len(base), len(target))
    p = _longest(lambda k: base.startswith(target[:k]), n)
    s = _longest(lambda k: base.endswith(target[len(target) - k :]), n - p)
    out = bytearray(_varint(len(base)) + _varint(len(target)))
    _copy_op(out, 0, p)
    middle = target[p : len(target) - s]
    for i in range(0, len(middle), 0x7F):
        piece = middle[i : i + 0x7F]
        out.append(len(piece))
        out += piece
    _copy_op(out, len(base) - s, s)
    return bytes(out)


def _copy_op(out: bytearray, offset: int, size: int) -> None:
    while size:
        n = min(size, 0x10000)
        op = 0x80
        args = bytearray()
        for i in range(4):
            if (offset >> (8 * i)) & 0xFF:
                op |= 1 << i
                args.append((offset >> (8 * i)) & 0xFF)
        if n != 0x10000:  # a size of 0x10000 is written as no size bytes
            for i in range(3):
                if (n >> (8 * i)) & 0xFF:
                    op |= 0x10 << i
                    args.append((n >> (8 * i)) & 0xFF)
        out.append(op)
        out += args
        offset += n
        size -= n


def _entry_header(type_num: int, size: int) -> bytearray:
    out = bytearray()
    c = (type_num << 4) | (size & 15)
    size >>= 4
    while size:
        out.append(c | 0x80)
        c = size & 0x7F
        size >>= 7
    out.append(c)
    return out


def _ofs(distance: int) -> bytes:
    """Git's offset encoding of an OFS_DELTA base distance."""
    out = [distance & 0x7F]
    distance >>= 7
    while distance:
        distance -= 1
        out.append(0x80 | (distance & 0x7F))
        distance >>= 7
    return bytes(reversed(out))


def _index_v2(entries: dict[bytes, tuple[int, int]], checksum: bytes) -> bytes:
    """A version 2 pack index (what ``git index-pack`` writes) for
    ``sha -> (offset, crc32)``; built with whole-array packing because an
    import indexes hundreds of thousands of objects."""
    shas = sorted(entries)  # cheap when they were added in this order (a pack copied without some entries)
    values = [entries[sha] for sha in shas]
    fanout = [0] * 256
    for sha in shas:
        fanout[sha[0]] += 1
    total = 0
    for i, c in enumerate(fanout):
        total += c
        fanout[i] = total
    offsets = [v[0] for v in values]
    large = [o for o in offsets if o >= 1 << 31]
    if large:
        position = {o: i for i, o in enumerate(large)}
        offsets = [o if o < 1 << 31 else (1 << 31) | position[o] for o in offsets]
    n = len(shas)
    body = b"".join(
        (
            b"\377tOc\0\0\0\2",
            struct.pack(">256L", *fanout),
            b"".join(shas),
            struct.pack(f">{n}L", *[v[1] for v in values]),
            struct.pack(f">{n}L", *offsets),
            struct.pack(f">{len(large)}Q", *large),
            checksum,
        )
    )
    return body + hashlib.sha1(body).digest()


_U32 = "I" if array("I").itemsize == 4 else "L"


def _u32_array(data: bytes) -> array:
    a = array(_U32)
    a.frombytes(data)
    if sys.byteorder == "little":
        a.byteswap()
    return a


def _read_index(idx_path: str | os.PathLike[str]) -> tuple[bytes, int, array, list[int]] | None:
    """A version 2 index as ``(its bytes, count, crc32s, offsets)``, in index
    (id) order; None for another version."""
    with open(idx_path, "rb") as f:
        data = f.read()
    if data[:8] != b"\377tOc\0\0\0\2" or len(data) < 8 + 1024:
        return None
    n = struct.unpack(">L", data[8 + 255 * 4 : 8 + 256 * 4])[0]
    crcs_at = _NAMES + 20 * n
    offsets_at = crcs_at + 4 * n
    large_at = offsets_at + 4 * n
    offsets = _u32_array(data[offsets_at:large_at])
    if any(o & 0x80000000 for o in offsets):
        big = [struct.unpack(">Q", data[large_at + 8 * (o & 0x7FFFFFFF) : large_at + 8 * (o & 0x7FFFFFFF) + 8])[0]
               if o & 0x80000000 else o for o in offsets]
        return data, n, _u32_array(data[crcs_at:offsets_at]), big
    return data, n, _u32_array(data[crcs_at:offsets_at]), offsets.tolist()


_NAMES = 8 + 1024  # where the ids start in a version 2 index


def index_entries(idx_path: str | os.PathLike[str]) -> list[tuple[int, bytes, int]]:
    """``(offset, binary id, crc32)`` of every entry of a pack index, by
    offset. A version 2 index (what git and HALO write) is read as whole
    arrays; any other through dulwich."""
    got = _read_index(idx_path)
    if got is None:
        idx = load_pack_index(os.fspath(idx_path), SHA1)
        try:
            return sorted((off, sha, crc) for sha, off, crc in idx.iterentries())
        finally:
            idx.close()
    data, n, crcs, offsets = got
    order = sorted(range(n), key=offsets.__getitem__)
    return [(offsets[i], data[_NAMES + 20 * i : _NAMES + 20 * i + 20], crcs[i]) for i in order]


def commits_in_packs(pack_dir: Path) -> dict[bytes, bytes]:
    """Hex id -> raw bytes of every commit stored whole in the packs (one
    pass over each pack's entries by offset, ids computed from the bytes; a
    commit stored as a delta, or in a pack replaced meanwhile, is not listed:
    read it through dulwich)."""
    out: dict[bytes, bytes] = {}
    for pack in packs(pack_dir):
        try:
            got = _read_index(pack_dir / f"{pack.name}.idx")
            if got is None:
                offsets = [off for off, _s, _c in index_entries(pack_dir / f"{pack.name}.idx")]
            else:
                offsets = sorted(got[3])
            with open(pack_dir / f"{pack.name}.pack", "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                offsets.append(len(data) - 20)
                for i in range(len(offsets) - 1):
                    off = offsets[i]
                    if data[off] & 0x70 != 0x10:  # OBJ_COMMIT << 4
                        continue
                    pos = off
                    while data[pos] & 0x80:
                        pos += 1
                    raw = zlib.decompress(data[pos + 1 : offsets[i + 1]])
                    out[object_id(OBJ_COMMIT, raw).hex().encode()] = raw
        except (OSError, ValueError, zlib.error):
            continue
    return out


class PackWriter:
    """Streams objects into a new pack in ``objects/pack`` and installs it.

    Nothing is visible to readers until ``install``; ``abort`` (or a crash)
    leaves no pack behind. Objects added twice are written once.
    """

    def __init__(self, pack_dir: Path, *, fsync: bool = False):
        pack_dir.mkdir(parents=True, exist_ok=True)
        self.pack_dir = pack_dir
        self.fsync = fsync
        fd, self._tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=pack_dir)
        self._f = os.fdopen(fd, "w+b")
        self._f.write(b"PACK\0\0\0\2\0\0\0\0")  # the count is filled in by install
        self._offset = 12
        self.entries: dict[bytes, tuple[int, int]] = {}  # sha -> (offset, crc32)

    def __contains__(self, sha: bytes) -> bool:
        return sha in self.entries

    def add(self, sha: bytes, type_num: int, raw: bytes) -> None:
        """Write an object whole."""
        if sha not in self.entries:
            self._write(sha, _entry_header(type_num, len(raw)), zlib.compress(raw))

    def add_delta(self, item: Item, base: Item) -> None:
        """Write ``item`` as a delta against ``base`` (already written), or
        whole when the delta would not be smaller."""
        if item.sha in self.entries:
            return
        delta = make_delta(base.raw, item.raw)
        if len(delta) >= len(item.raw):
            return self.add(item.sha, item.type_num, item.raw)
        head = _entry_header(OFS_DELTA, len(delta))
        head += _ofs(self._offset - self.entries[base.sha][0])
        self._write(item.sha, head, zlib.compress(delta))

    def add_grouped(self, items: Iterable[Item]) -> None:
        """Write ``items`` (oldest first): the newest object of each group
        whole, the others as deltas against it, everything else whole."""
        items = list(items)
        newest: dict[bytes, Item] = {}
        for it in items:
            if it.group is not None:
                newest[it.group] = it
        for it in newest.values():
            self.add(it.sha, it.type_num, it.raw)
        for it in items:
            if it.group is None:
                self.add(it.sha, it.type_num, it.raw)
            else:
                self.add_delta(it, newest[it.group])

    def _write(self, sha: bytes, head: bytes, data: bytes, crc: int | None = None) -> None:
        if crc is None:
            crc = zlib.crc32(data, zlib.crc32(head))
        self.entries[sha] = (self._offset, crc)
        self._f.write(head)
        self._f.write(data)
        self._offset += len(head) + len(data)

    def copy_whole(self, data: mmap.mmap, entries: list[tuple[int, bytes, int]]) -> None:
        """Copy a whole pack's entries (``(offset, sha, crc)``, by offset)."""
        shift = self._offset - 12
        with memoryview(data) as view:
            self._f.write(view[12 : len(data) - 20])
        self._offset += len(data) - 32
        for off, sha, crc in entries:
            self.entries[sha] = (off + shift, crc)

    def copy_entries(self, data: mmap.mmap, entries: list[tuple[int, bytes, int]], drop: frozenset[bytes] | set[bytes] = frozenset(),
                     whole=None) -> int:
        """Copy a pack's entries (``(offset, sha, crc)``, by offset), leaving
        out objects already written and the objects ``drop`` (binary ids);
        returns how many of ``drop`` were left out.

        Runs of entries that stay as they are (whole objects, deltas whose
        base moved with them) are written in one piece. An offset delta whose
        base moved by another distance is re-pointed; one whose base was left
        out refers to the copy already written by id, and when its base was
        dropped it is stored whole: ``whole(binary id)`` returns its
        ``(type number, raw)`` (so is a ref delta on a dropped base)."""
        moved: dict[int, int] = {}  # old offset -> new offset of kept entries
        skipped: dict[int, bytes] = {}  # old offset -> id of entries left out
        out = self.entries
        f = self._f
        left_out = 0
        run_start = run_new = -1  # old and new offset of the pending run (-1: none)
        ends = [off for off, _, _ in entries[1:]] + [len(data) - 20]
        for (off, sha, crc), end in zip(entries, ends):
            if sha in out or sha in drop:
                if run_start >= 0:
                    f.write(data[run_start:off])
                    self._offset = run_new + off - run_start
                    run_start = -1
                skipped[off] = sha
                if sha in drop:
                    left_out += 1
                continue
            new = run_new + off - run_start if run_start >= 0 else self._offset
            type_num = (data[off] >> 4) & 7
            if type_num == OFS_DELTA or type_num == REF_DELTA:
                pos = off
                size = data[pos] & 15
                shift = 4
                while data[pos] & 0x80:
                    pos += 1
                    size |= (data[pos] & 0x7F) << shift
                    shift += 7
                pos += 1
                head = None
                if type_num == OFS_DELTA:
                    distance = data[pos] & 0x7F
                    while data[pos] & 0x80:
                        pos += 1
                        distance = ((distance + 1) << 7) | (data[pos] & 0x7F)
                    pos += 1
                    base = off - distance
                    based = moved.get(base)
                    if based is None or new - based != distance:
                        if based is not None:
                            head = _entry_header(OFS_DELTA, size) + _ofs(new - based)
                        else:
                            base_sha = skipped.get(base)
                            if base_sha is not None and base_sha in out and base_sha not in drop:
                                head = _entry_header(REF_DELTA, size) + base_sha
                            else:
                                head = b""
                elif data[pos : pos + 20] in drop:
                    head = b""
                if head is not None:  # written apart from the run
                    if run_start >= 0:
                        f.write(data[run_start:off])
                        self._offset = run_new + off - run_start
                        run_start = -1
                    moved[off] = self._offset
                    if head:
                        self._write(sha, bytes(head), data[pos:end])
                    else:
                        if whole is None:
                            raise ValueError(f"the base of {sha.hex()} is dropped and nothing can read it whole")
                        kind, raw = whole(sha)
                        self.add(sha, kind, raw)
                    continue
            if run_start < 0:
                run_start, run_new = off, self._offset
            moved[off] = new
            out[sha] = (new, crc)
        if run_start >= 0:
            end = len(data) - 20
            f.write(data[run_start:end])
            self._offset = run_new + end - run_start
        return left_out

    def install(self) -> str | None:
        """Finish the pack and make it visible; returns its base name
        (``pack-<checksum>``), or None when it is empty (nothing written)."""
        if not self.entries:
            self.abort()
            return None
        f = self._f
        f.seek(8)
        f.write(struct.pack(">L", len(self.entries)))
        f.flush()
        f.seek(0)
        h = hashlib.sha1()
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
        checksum = h.digest()
        f.write(checksum)
        f.flush()
        if self.fsync:
            os.fsync(f.fileno())
        f.close()
        name = f"pack-{checksum.hex()}"
        os.chmod(self._tmp, 0o444)
        os.replace(self._tmp, self.pack_dir / f"{name}.pack")
        fd, tmp_idx = tempfile.mkstemp(prefix=TMP_PREFIX, dir=self.pack_dir)
        try:
            with os.fdopen(fd, "wb") as idx:
                idx.write(_index_v2(self.entries, checksum))
                if self.fsync:
                    idx.flush()
                    os.fsync(idx.fileno())
            os.chmod(tmp_idx, 0o444)
            os.replace(tmp_idx, self.pack_dir / f"{name}.idx")  # now readers see the pack
        except BaseException:
            _unlink(tmp_idx)
            raise
        return name

    def abort(self) -> None:
        if not self._f.closed:
            self._f.close()
        _unlink(self._tmp)


def remove_pack(pack_dir: Path, name: str) -> None:
    """Remove a pack, index first so no reader finds an index without data,
    then what ``git`` keeps beside it (reverse index, bitmap) and a
    multi-pack index, which would name a pack that is gone (both only speed
    ``git`` up; it does without them)."""
    _unlink(pack_dir / f"{name}.idx")
    _unlink(pack_dir / f"{name}.pack")
    for suffix in (".rev", ".bitmap", ".mtimes"):
        _unlink(pack_dir / f"{name}{suffix}")
    _unlink(pack_dir / "multi-pack-index")


def forget_commit_graph(objects_dir: Path) -> None:
    """Remove ``git``'s commit-graph files (``git gc`` writes them): after
    commits were removed they would name commits that are gone, which ``git
    fsck`` reports. ``git`` works without them and writes them again."""
    _unlink(objects_dir / "info" / "commit-graph")
    chain = objects_dir / "info" / "commit-graphs"
    try:
        names = os.listdir(chain)
    except FileNotFoundError:
        return
    for name in names:
        _unlink(chain / name)
    try:
        os.rmdir(chain)
    except OSError:
        pass


def _unlink(path: str | os.PathLike[str]) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


# -- one pass ------------------------------------------------------------------------


class Pass(NamedTuple):
    """What one maintenance pass did."""

    packed: int  # loose objects now in packs
    merged: int  # packs merged into one (0 when none)


def run(path: Path, *, fsync: bool = False) -> Pass | None:
    """One maintenance pass over the bare repository at ``path``; None when
    another pass (thread or process) holds the repository's lock."""
    lock = path / LOCK_FILE
    lock.parent.mkdir(exist_ok=True)
    with open(lock, "a") as f:
        if not locking.try_lock(f):
            return None
        pack_dir = path / "objects" / "pack"
        _remove_abandoned(pack_dir)
        packed = pack_loose(path, fsync=fsync)
        merged = consolidate(pack_dir, fsync=fsync)
        return Pass(packed, merged)


def _remove_abandoned(pack_dir: Path) -> None:
    try:
        names = os.listdir(pack_dir)
    except FileNotFoundError:
        return
    now = time.time()
    for name in names:
        if name.startswith(TMP_PREFIX):
            p = pack_dir / name
            try:
                if now - p.stat().st_mtime > TMP_MAX_AGE:
                    p.unlink()
            except FileNotFoundError:
                pass


def loose_objects(objects_dir: Path) -> set[bytes]:
    """Hex ids of the loose objects."""
    found = set()
    for d in range(256):
        sub = f"{d:02x}"
        try:
            names = os.listdir(objects_dir / sub)
        except FileNotFoundError:
            continue
        found.update((sub + n).encode() for n in names if len(n) == 38)
    return found


class _Reader:
    """Raw objects: loose files read directly, anything else through dulwich;
    the last trees parsed are kept, as each commit's parent needs them again."""

    def __init__(self, path: Path, loose: set[bytes]):
        self.objects = os.fspath(path / "objects")
        self.loose = loose
        self.store = DiskObjectStore(self.objects)
        self._parsed: dict[bytes, dict[bytes, tuple[int, bytes]]] = {}

    def path(self, hexsha: bytes) -> str:
        s = hexsha.decode()
        return f"{self.objects}/{s[:2]}/{s[2:]}"

    def get(self, hexsha: bytes) -> tuple[int, bytes]:
        if hexsha in self.loose:
            try:
                with open(self.path(hexsha), "rb") as f:
                    data = zlib.decompress(f.read())
            except FileNotFoundError:
                pass  # packed meanwhile by someone else (git gc); read it from there
            else:
                head, _, raw = data.partition(b"\0")
                return _TYPES.get(head.split(b" ")[0], 0), raw
        return self.store.get_raw(hexsha)

    def entries(self, tree: bytes, raw: bytes | None = None) -> dict[bytes, tuple[int, bytes]]:
        """``name -> (mode, hex id)`` of a tree."""
        got = self._parsed.get(tree)
        if got is None:
            if len(self._parsed) > 64:
                self._parsed.clear()
            got = self._parsed[tree] = {n: (m, s) for n, m, s in parse_tree(raw if raw is not None else self.get(tree)[1], 20)}
        return got

    def close(self) -> None:
        self.store.close()


_TYPES = {b"commit": OBJ_COMMIT, b"tree": OBJ_TREE, b"blob": OBJ_BLOB}


def _commit_links(raw: bytes) -> tuple[bytes, list[bytes]]:
    """(tree, parents) of a raw commit, as hex ids."""
    tree, parents = b"", []
    for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
        if line.startswith(b"tree "):
            tree = line[5:]
        elif line.startswith(b"parent "):
            parents.append(line[7:])
    return tree, parents


def _added(reader: _Reader, tree: bytes, base: bytes | None, path: bytes, out: list[Item]) -> None:
    """Append the loose objects of ``tree`` that ``base`` (the same path in the
    parent commit) does not have, each tree grouped by its path."""
    if tree == base or tree not in reader.loose:
        return
    type_num, raw = reader.get(tree)
    out.append(Item(bytes.fromhex(tree.decode()), type_num, raw, b"tree:" + path))
    old = reader.entries(base) if base is not None else {}
    for name, (mode, sha) in reader.entries(tree, raw).items():
        prev = old.get(name)
        if prev is not None and prev[1] == sha:
            continue
        if mode & 0o170000 == _DIR_MODE:
            _added(reader, sha, prev[1] if prev and prev[0] & 0o170000 == _DIR_MODE else None, path + b"/" + name, out)
        elif sha in reader.loose:
            t, data = reader.get(sha)
            out.append(Item(bytes.fromhex(sha.decode()), t, data, None))


def pack_loose(path: Path, *, fsync: bool = False) -> int:
    """Pack the loose objects; returns how many were packed."""
    objects = path / "objects"
    heads = _branch_heads(path)  # before listing, so every loose commit they reach is listed
    loose = loose_objects(objects)
    if not loose:
        return 0
    reader = _Reader(path, loose)
    packed = 0
    try:
        commits: list[tuple[bytes, bytes]] = []  # (id, raw) of loose commits, newest first per branch
        seen: set[bytes] = set()
        for head in heads:
            c = head
            while c in loose and c not in seen:
                seen.add(c)
                raw = reader.get(c)[1]
                commits.append((c, raw))
                parents = _commit_links(raw)[1]
                if not parents:
                    break
                c = parents[0]
        commits.reverse()  # oldest first: the newest version of each path is then last
        trees = {c: _commit_links(raw)[0] for c, raw in commits}
        for start in range(0, len(commits), SLICE_EVENTS):
            items: list[Item] = []
            for c, raw in commits[start : start + SLICE_EVENTS]:
                tree, parents = _commit_links(raw)
                base = None
                if parents:
                    base = trees.get(parents[0]) or _commit_links(reader.get(parents[0])[1])[0]
                _added(reader, tree, base, b"", items)
                items.append(Item(bytes.fromhex(c.decode()), OBJ_COMMIT, raw, None))
            packed += _write_and_drop(reader, items, fsync)
        # Leftovers, e.g. of a lost compare-and-swap; young ones may belong to
        # an append in flight (not yet on a branch) and wait for a later pass.
        items = []
        old = time.time() - LEFTOVER_AGE
        for hexsha in sorted(loose_objects(objects) & loose):
            try:
                if os.stat(reader.path(hexsha)).st_mtime > old:
                    continue
            except FileNotFoundError:
                continue
            if reader.store.contains_packed(hexsha):
                _unlink(reader.path(hexsha))
                continue
            t, raw = reader.get(hexsha)
            if t:
                items.append(Item(bytes.fromhex(hexsha.decode()), t, raw, None))
        packed += _write_and_drop(reader, items, fsync)
    finally:
        reader.close()
    return packed


def _branch_heads(path: Path) -> list[bytes]:
    """The commit of every branch (hex ids)."""
    refs = DiskRefsContainer(str(path))
    heads = []
    for name in refs.keys(base=b"refs/heads/"):
        try:
            heads.append(refs[b"refs/heads/" + name])
        except KeyError:
            continue
    return heads


def _write_and_drop(reader: _Reader, items: list[Item], fsync: bool) -> int:
    """Write ``items`` into one pack, install it, then delete their loose files.

    An object that is also in an older pack is written again rather than
    looked up (that would cost a pack scan per object); the next merge keeps
    one copy."""
    if not items:
        return 0
    writer = PackWriter(Path(reader.objects) / "pack", fsync=fsync)
    try:
        writer.add_grouped(items)
        writer.install()
    except BaseException:
        writer.abort()
        raise
    for sha in writer.entries:
        _unlink(reader.path(sha.hex().encode()))
    return len(writer.entries)


# -- consolidation -------------------------------------------------------------------


class _PackFile(NamedTuple):
    name: str
    count: int


def packs(pack_dir: Path) -> list[_PackFile]:
    """The complete packs (with an index), smallest first."""
    try:
        names = set(os.listdir(pack_dir))
    except FileNotFoundError:
        return []
    out = []
    for n in names:
        if n.endswith(".pack") and n[:-5] + ".idx" in names:
            try:
                with open(pack_dir / n, "rb") as f:
                    head = f.read(12)
            except FileNotFoundError:
                continue
            if len(head) == 12 and head[:4] == b"PACK":
                out.append(_PackFile(n[:-5], struct.unpack(">L", head[8:])[0]))
    return sorted(out, key=lambda p: (p.count, p.name))


def consolidate(pack_dir: Path, *, fsync: bool = False) -> int:
    """Merge small packs so that the rest form a geometric progression (each
    at least twice the objects of the next smaller one); returns the number
    of packs merged (0 when none). This is Git's geometric repack with factor 2.
    """
    current = packs(pack_dir)
    split = len(current) - 1
    while split > 0 and current[split].count >= 2 * current[split - 1].count:
        split -= 1
    if split <= 0:
        return 0
    split += 1  # the packs below the first break are rolled up...
    total = sum(p.count for p in current[:split])
    while split < len(current) and current[split].count < 2 * total:
        total += current[split].count  # ...with any bigger pack the roll-up would not be half of
        split += 1
    merge(pack_dir, [p.name for p in reversed(current[:split])], fsync=fsync)
    return split


def merge(pack_dir: Path, names: list[str], *, fsync: bool = False, drop: frozenset[bytes] | set[bytes] = frozenset(),
          whole=None, listed: dict[str, list[tuple[int, bytes, int]]] | None = None) -> str | None:
    """Merge packs into one by copying their entries, then remove them.

    A pack whose objects are all new to the merge is copied in one piece
    (offset deltas stay valid, being relative). An object already copied from
    an earlier pack (two packs can hold the same object, e.g. an interrupted
    import run again) is dropped; entries of that pack are then copied in
    runs (``PackWriter.copy_entries``), re-pointing offset deltas, and a delta
    whose base was dropped refers to the kept copy by id instead. Objects
    ``drop`` (binary ids) are left out (``remove_objects``; ``whole`` as for
    ``copy_entries``); ``listed``: the entries of packs already read
    (``index_entries``).
    """
    writer = PackWriter(pack_dir, fsync=fsync)
    try:
        for name in names:
            entries = listed.get(name) if listed else None
            if entries is None:
                entries = index_entries(pack_dir / f"{name}.idx")
            with open(pack_dir / f"{name}.pack", "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                if not any(sha in writer or sha in drop for _, sha, _ in entries):
                    writer.copy_whole(data, entries)
                else:
                    writer.copy_entries(data, entries, drop, whole)
            if len(names) == 1:
                writer.entries = _in_index_order(pack_dir / f"{names[0]}.idx", writer.entries)
        merged = writer.install()
    except BaseException:
        writer.abort()
        raise
    for name in names:
        if name != merged:
            remove_pack(pack_dir, name)
    return merged


def remove_objects(pack_dir: Path, drop: set[bytes], whole, *, fsync: bool = False) -> int:
    """Rewrite every pack holding one of the objects ``drop`` (binary ids)
    without them, one pack at a time (``merge`` of that pack alone: the new
    pack is visible before the old one goes); returns how many entries were
    removed. ``whole(binary id)`` reads an object whole, for a delta whose
    base goes. The caller holds the maintenance lock."""
    removed = 0
    for pack in packs(pack_dir):
        entries = index_entries(pack_dir / f"{pack.name}.idx")
        n = sum(1 for _o, sha, _c in entries if sha in drop)
        if n:
            merge(pack_dir, [pack.name], fsync=fsync, drop=drop, whole=whole, listed={pack.name: entries})
            removed += n
    return removed


def _in_index_order(idx_path: Path, kept: dict[bytes, tuple[int, int]]) -> dict[bytes, tuple[int, int]]:
    """``kept`` (entries copied from the pack of ``idx_path``) in that index's
    order, by id, which makes sorting them for the new index a linear pass."""
    got = _read_index(idx_path)
    if got is None:
        return kept
    data, n = got[0], got[1]
    ordered = {}
    for i in range(_NAMES, _NAMES + 20 * n, 20):
        sha = data[i : i + 20]
        if sha in kept:
            ordered[sha] = kept[sha]
    return ordered if len(ordered) == len(kept) else kept


# -- scheduling ------------------------------------------------------------------------


class Background:
    """Runs passes for one repository in a background thread, one at a time.

    ``request`` never waits; a request made while a pass runs starts one more
    pass after it. ``wait`` joins the thread (``AgentRepo.close`` calls it) so
    a finishing process leaves no half-done pass behind when it can avoid it;
    an abrupt exit is safe too (see the module docstring).
    """

    def __init__(self, path: Path, *, fsync: bool = False):
        self.path = path
        self.fsync = fsync
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self.passes: list[Pass] = []
        self.error: BaseException | None = None

    def request(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                self._again = True
                return
            self._again = False
            self._thread = threading.Thread(target=self._loop, name=f"halo-pack-{self.path.name}", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                done = run(self.path, fsync=self.fsync)
                if done is not None:
                    self.passes.append(done)
            except Exception as e:  # packing is an optimisation: the repository stays valid
                self.error = e
            with self._lock:
                if not self._again:
                    return
                self._again = False

    def wait(self) -> None:
        thread = self._thread
        if thread is not None:
            thread.join()
