"""How much a remote or a repository can make HALO inflate: sizes read from
object headers, before any object's bytes are built.

A room of the store. ``remote`` calls ``check_pack`` on every incoming pack
before dulwich indexes it (indexing inflates each object whole: a 400 MiB blob
packs into 440 KB); ``verify`` and ``repo`` call ``object_size`` before reading
an event file, a tree or a commit from a repository that plain ``git`` may
have filled. Nothing HALO writes comes near these limits (docs/security.md,
"Hostile remotes").
"""

from __future__ import annotations

import os
import struct
import zlib

from dulwich.pack import PackFileDisappeared
from typing import IO

from tempfile import SpooledTemporaryFile

from ..errors import IntegrityError
from ..eventfile import MAX_FILE

MAX_OBJECT = 64 << 20  # any object in an incoming pack (the largest HALO writes, a cache chunk, is a few MiB)
MAX_EVENT_FILE = MAX_FILE  # an event's blob
MAX_COMMIT = 1 << 20  # a commit (its message is one line and a trailer, plus a signature)
MAX_TREE = 1 << 20  # a tree (at most ~100 entries)
LIMITS = {1: MAX_COMMIT, 2: MAX_TREE, 3: MAX_EVENT_FILE}  # by type number, for what verify reads

_OFS_DELTA, _REF_DELTA = 6, 7
_CHUNK = 1 << 16


class TooLarge(ValueError):
    """An object larger than HALO ever writes (``size`` bytes, ``limit`` allowed)."""

    def __init__(self, size: int, limit: int, what: str = "an object"):
        self.size, self.limit = size, limit
        super().__init__(f"{what} of {size:,} bytes (HALO writes none larger than {limit:,})")


class BadPack(ValueError):
    """An incoming pack that is not a well-formed Git pack."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """A delta header's size (little-endian base-128) at ``pos``; (value, next pos)."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise BadPack("a delta header is cut short")
        b = data[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        shift += 7
        if not b & 0x80:
            return value, pos
        if shift > 63:
            raise BadPack("a delta header is too long")


def _object_header(read: "_Reader") -> tuple[int, int]:
    b = read.byte()
    type_num, size, shift = (b >> 4) & 7, b & 15, 4
    while b & 0x80:
        b = read.byte()
        size |= (b & 0x7F) << shift
        shift += 7
        if shift > 70:
            raise BadPack("an object header is too long")
    return type_num, size


class _Reader:
    """Sequential reads over a binary file object, with a small look-ahead buffer."""

    def __init__(self, f: IO[bytes]):
        self.f = f
        self.buf = b""
        self.pos = 0

    def take(self, n: int) -> bytes:
        while len(self.buf) - self.pos < n:
            more = self.f.read(_CHUNK)
            if not more:
                raise BadPack("the pack is cut short")
            self.buf = self.buf[self.pos:] + more
            self.pos = 0
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out

    def byte(self) -> int:
        return self.take(1)[0]

    def inflate(self, declared: int, delta: bool, limit: int) -> None:
        """Inflate one zlib stream, keeping nothing but (for a delta) its first
        bytes; refuse a stream longer than ``declared`` or a delta whose result
        is larger than ``limit``."""
        d = zlib.decompressobj()
        total = 0
        head = b""
        step = 512  # most objects are a few hundred bytes compressed: copy little, then more
        while not d.eof:
            if self.pos >= len(self.buf):
                self.buf, self.pos = self.f.read(_CHUNK), 0
                if not self.buf:
                    raise BadPack("the pack is cut short")
            end = min(len(self.buf), self.pos + step)
            data = self.buf[self.pos:end]
            self.pos = end
            step = min(step * 4, _CHUNK)
            while True:
                try:
                    out = d.decompress(data, _CHUNK)
                except zlib.error:
                    raise BadPack("an object's data is not valid zlib") from None
                total += len(out)
                if total > declared:
                    raise BadPack("an object inflates to more than its header says")
                if delta and len(head) < 32:
                    head += out[: 32 - len(head)]
                data = d.unconsumed_tail
                if d.eof or not data:
                    break
            if d.eof:
                self.pos -= len(d.unused_data)
        if total != declared:
            raise BadPack("an object inflates to less than its header says")
        if delta:
            _source, at = _varint(head, 0)
            target, _ = _varint(head, at)
            if target > limit:
                raise TooLarge(target, limit)


def check_pack(f: IO[bytes], limit: int = MAX_OBJECT) -> int:
    """Walk the pack in ``f`` (from its start; left at its start again) and
    refuse any object, or any delta's result, larger than ``limit`` before
    inflating it; the others are inflated once and thrown away, so memory
    stays at a few chunks whatever the pack holds. Returns the object count.

    Raises:
        TooLarge: an object over the limit.
        BadPack: not a pack dulwich could index either.
    """
    start = f.tell()
    try:
        read = _Reader(f)
        head = read.take(12)
        if head[:4] != b"PACK" or struct.unpack(">I", head[4:8])[0] not in (2, 3):
            raise BadPack("it does not start like a Git pack")
        count = struct.unpack(">I", head[8:12])[0]
        for _ in range(count):
            type_num, size = _object_header(read)
            if type_num == _OFS_DELTA:
                b = read.byte()
                while b & 0x80:
                    b = read.byte()
            elif type_num == _REF_DELTA:
                read.take(20)
            elif type_num not in (1, 2, 3, 4):
                raise BadPack(f"it holds an object of unknown type {type_num}")
            if size > limit:
                raise TooLarge(size, limit)
            read.inflate(size, type_num in (_OFS_DELTA, _REF_DELTA), limit)
        return count
    finally:
        f.seek(start)


def check_incoming(f: IO[bytes], shown: str) -> None:
    """``check_pack`` for a pack fetched from ``shown``, as one refusal saying what came."""
    try:
        check_pack(f)
    except TooLarge as e:
        raise IntegrityError(f"refused: {shown} sent {e}: not a HALO event repository, or a hostile one. Nothing was "
                             "transferred; ask the remote's owner to run halo-git verify there") from None
    except BadPack as e:
        raise IntegrityError(f"refused: {shown} sent a pack that is not a valid Git pack ({e}). Nothing was transferred; "
                             "try again, or ask the remote's owner to run git fsck there") from None


def fetch_checked(client, path: str, repo, determine_wants, shown: str, spool_dir: str):
    """``client.fetch`` into the Repo ``repo``, with the pack checked by
    ``check_incoming`` before dulwich indexes it; returns the fetch result."""
    check_local(client, path, shown)
    with SpooledTemporaryFile(max_size=16 << 20, dir=spool_dir) as spool:
        result = client.fetch_pack(path, determine_wants, repo.get_graph_walker(), spool.write)
        if spool.tell():
            spool.seek(0)
            check_incoming(spool, shown)
            repo.object_store.add_thin_pack(spool.read, None)
    return result


def check_local(client, path: str, shown: str) -> None:
    """``check_local_store`` when ``client`` serves the remote in this process."""
    from dulwich.client import LocalGitClient

    if isinstance(client, LocalGitClient):
        check_local_store(path, shown)


def check_local_store(path: str, shown: str, limit: int = MAX_OBJECT) -> None:
    """Refuse a remote on this machine (a path or ``file://`` URL) holding an
    object larger than ``limit``, read from headers only. dulwich serves such a
    remote in this very process and inflates every object it sends, so the
    check of the pack it produces (``check_incoming``) would come too late."""
    from dulwich.object_store import DiskObjectStore

    objects = os.path.join(path, "objects")
    if not os.path.isdir(objects):
        objects = os.path.join(path, ".git", "objects")
    if not os.path.isdir(objects):
        return  # not a repository: the fetch itself says so
    store = DiskObjectStore(objects)
    try:
        for pack in store.packs:
            buf = pack.data._buffer()
            for _sha, offset, _crc in pack.index.iterentries():
                first = buf[offset]
                if (first & 0x80 or (first >> 4) & 7 >= _OFS_DELTA) and _packed_size(buf, offset) > limit:
                    raise TooLarge(_packed_size(buf, offset), limit)
        for sha in store._iter_loose_objects():
            size = object_size(store, sha)
            if size is not None and size > limit:
                raise TooLarge(size, limit)
    except TooLarge as e:
        raise IntegrityError(f"refused: {shown} holds {e}: not a HALO event repository, or a hostile one. Nothing was "
                             "transferred; ask the remote's owner to run halo-git verify there") from None
    except (OSError, ValueError, IndexError, zlib.error):
        return  # unreadable: the fetch reports it
    finally:
        store.close()


def object_size(store, sha: bytes) -> int | None:
    """The size of object ``sha`` (hex) read from its pack entry's or loose
    file's header, inflating at most a few bytes; None when ``store`` keeps it
    where this cannot look (the caller reads it whole, as before)."""
    binsha = bytes.fromhex(sha.decode() if isinstance(sha, bytes) else sha)
    try:
        packs = list(getattr(store, "packs", ()))
    except PackFileDisappeared:
        return None
    for pack in packs:
        try:
            offset = pack.index.object_offset(binsha)
        except KeyError:
            continue
        except PackFileDisappeared:
            return None  # a packing pass replaced it under us: the caller reads the object the usual way
        try:
            return _packed_size(pack.data._buffer(), offset)
        except (AttributeError, ValueError, IndexError, zlib.error, PackFileDisappeared):
            return None
    path_of = getattr(store, "_get_shafile_path", None)
    if path_of is not None:
        try:
            with open(path_of(sha.decode() if isinstance(sha, bytes) else sha), "rb") as f:
                d = zlib.decompressobj()
                header = d.decompress(f.read(256), 64)
            return int(header.split(b"\0", 1)[0].split(b" ", 1)[1])
        except FileNotFoundError:
            pass
        except (OSError, ValueError, IndexError, zlib.error):
            return None
    for alternate in getattr(store, "alternates", ()):
        found = object_size(alternate, sha)
        if found is not None:
            return found
    return None


def _packed_size(buf, offset: int) -> int:
    b = buf[offset]
    type_num, size, shift, pos = (b >> 4) & 7, b & 15, 4, offset + 1
    while b & 0x80:
        b = buf[pos]
        pos += 1
        size |= (b & 0x7F) << shift
        shift += 7
    if type_num == _OFS_DELTA:
        while buf[pos] & 0x80:
            pos += 1
        pos += 1
    elif type_num == _REF_DELTA:
        pos += 20
    else:
        return size
    d = zlib.decompressobj()
    head = b""
    while len(head) < 32 and not d.eof:
        chunk = bytes(buf[pos:pos + 64])
        if not chunk:
            break
        head += d.decompress(chunk, 32 - len(head))
        pos += len(chunk) - len(d.unconsumed_tail) - len(d.unused_data)
        if d.unconsumed_tail:
            head += d.decompress(d.unconsumed_tail, 32 - len(head))
            break
    _source, at = _varint(head, 0)
    return _varint(head, at)[0]


def check_size(store, sha: bytes, type_num: int, what: str) -> None:
    """Refuse (``TooLarge``) object ``sha`` when its header says it is larger
    than HALO writes for ``type_num`` (``LIMITS``)."""
    limit = LIMITS.get(type_num)
    if limit is None:
        return
    size = object_size(store, sha)
    if size is not None and size > limit:
        raise TooLarge(size, limit, what)


__all__ = ["MAX_OBJECT", "MAX_EVENT_FILE", "MAX_COMMIT", "MAX_TREE", "TooLarge", "BadPack", "check_pack", "check_incoming", "check_local", "check_local_store", "fetch_checked", "object_size", "check_size"]
