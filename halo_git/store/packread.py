"""Many objects at once, straight from a repository's packs: the cold read's path.

A room of the store, called by ``AgentRepo`` when it reads a long run of events
without a cache (a plain ``git clone --bare``, a pull of many events). dulwich
reads one object at a time through several layers (an unpacked-object record,
a ``ShaFile`` parsed from the raw bytes, a delta chain resolved afresh);
this reader finds an object's offset in the pack index, inflates exactly its
bytes from the pack's memory map, and resolves deltas against a small cache of
the bases it met last (HALO's and git's packs put a delta shortly after its
base, and events are read in that order). Objects it cannot find in a pack
(loose ones, alternates) come from dulwich as before.

Sizes are checked from the headers before anything is inflated
(``limits``): a read never builds an object larger than the caller allows.
"""

from __future__ import annotations

import zlib

from dulwich.pack import PackFileDisappeared, apply_delta

from . import limits

_OFS_DELTA, _REF_DELTA = 6, 7
_CACHE = 4096  # resolved objects kept as delta bases (small: trees and event files)


class PackReader:
    """Raw objects of a dulwich object ``store``, read in bulk from its packs."""

    def __init__(self, store):
        self.store = store
        self.packs = list(store.packs)
        self._resolved: dict[tuple[int, int], tuple[int, bytes]] = {}

    def raw(self, sha: bytes, limit: int = limits.MAX_OBJECT) -> tuple[int, bytes]:
        """(type number, raw bytes) of the object ``sha`` (hex).

        Raises:
            KeyError: no such object.
            limits.TooLarge: its header says it is larger than ``limit``.
        """
        binsha = bytes.fromhex(sha.decode())
        for i, pack in enumerate(self.packs):
            try:
                offset = pack.index.object_offset(binsha)
            except KeyError:
                continue
            except PackFileDisappeared:
                break  # a packing pass replaced this pack: dulwich finds the object in the new one
            try:
                found = self._at(i, offset, limit)
            except (ValueError, IndexError, OverflowError, RecursionError, PackFileDisappeared) as e:
                # a pack closed or replaced under us, a damaged entry, a hostile chain
                if isinstance(e, limits.TooLarge):
                    raise
                found = None
            if found is not None:
                return found
            break  # something this reader does not handle: dulwich reads it
        size = limits.object_size(self.store, sha)
        if size is not None and size > limit:
            raise limits.TooLarge(size, limit)
        try:
            return self.store.get_raw(sha)
        except KeyError:  # a background pass moved it from a loose file into a new pack in between: look again
            return self.store.get_raw(sha)

    def _at(self, i: int, offset: int, limit: int) -> tuple[int, bytes] | None:
        key = (i, offset)
        hit = self._resolved.get(key)
        if hit is not None:
            return hit
        buf = self.packs[i].data._buffer()
        b = buf[offset]
        type_num, size, shift, pos = (b >> 4) & 7, b & 15, 4, offset + 1
        while b & 0x80:
            b = buf[pos]
            pos += 1
            size |= (b & 0x7F) << shift
            shift += 7
        base: tuple[int, bytes] | None
        if type_num == _OFS_DELTA:
            b = buf[pos]
            pos += 1
            back = b & 0x7F
            while b & 0x80:
                b = buf[pos]
                pos += 1
                back = ((back + 1) << 7) | (b & 0x7F)
            base_at = offset - back
            if not 0 < base_at < offset:
                return None
            base = self._at(i, base_at, limits.MAX_OBJECT)
        elif type_num == _REF_DELTA:
            base_sha = bytes(buf[pos:pos + 20]).hex().encode()
            pos += 20
            try:
                base = self.raw(base_sha, limits.MAX_OBJECT)
            except KeyError:
                return None
        elif 1 <= type_num <= 4:
            if size > limit:
                raise limits.TooLarge(size, limit)
            base = None
        else:
            return None
        if type_num in (_OFS_DELTA, _REF_DELTA) and size > limits.MAX_OBJECT:
            raise limits.TooLarge(size, limits.MAX_OBJECT)
        data = _inflate(buf, pos, size)
        if data is None or (type_num >= _OFS_DELTA and base is None):
            return None
        if base is not None:
            target = _target_size(data)
            if target is None or target > limit:
                if target is None:
                    return None
                raise limits.TooLarge(target, limit)
            data = apply_delta(base[1], data)
            data = data if isinstance(data, bytes) else b"".join(data)
            type_num = base[0]
        if len(self._resolved) >= _CACHE:
            self._resolved.clear()
        self._resolved[key] = (type_num, data)
        return type_num, data


def _inflate(buf, pos: int, size: int) -> bytes | None:
    """Exactly ``size`` bytes inflated from the zlib stream at ``pos``."""
    d = zlib.decompressobj()
    window = size + (size >> 10) + 64  # deflate never grows data by more than this
    try:
        out = d.decompress(buf[pos:pos + window], size)
    except zlib.error:
        return None
    return out if len(out) == size else None


def _target_size(delta: bytes) -> int | None:
    """The result size a delta's header states (after the source size)."""
    pos = 0
    for _ in range(2):
        value = shift = 0
        while True:
            if pos >= len(delta):
                return None
            b = delta[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
    return value


__all__ = ["PackReader"]
