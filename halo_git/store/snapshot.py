"""The parsed-event cache (``halo/events-<key>.jsonl``): derived data, never trusted.

A room of the store, called by ``AgentRepo.log`` (load, save) and by
``verify`` (check). A cold process reads a branch's events from this file
instead of parsing every YAML blob again; the file lives inside the
repository folder, so anyone who can write there could edit it. Therefore
each line binds its event to the Git blob the branch holds at its path::

    {"format": 4, "branch": "main"}
    ["", "", {"id": "e1", ...}]
    ...
    ["<commit of e1000>", "", {"id": "e1000", ...}]

and a load accepts an entry only when the canonical YAML of the cached event
hashes to the blob id the branch head's tree holds at the event's path (the
tree walk reads ~1 tree per 100 events): the same bytes HALO committed, so
the cached event *is* the committed one.

The canonical YAML is rebuilt by HALO's own emitter (``eventfile``), a few
microseconds per event; a blob an earlier version wrote where PyYAML had no
libyaml (the legacy form) is accepted too. Any mismatch discards the
whole file: the branch is read from Git and the cache rewritten.

The first two fields of a line are the event's commit id and blob id, each
empty when not stored ("compact" lines, format 4). A line carries its commit
id only where the cache needs one: every thousandth event (``CHUNK``) and the
last line of each write, so the file always ends at a known commit. Commit
ids are only hints, for extending the cache; the log's commit ids are read
from Git when someone asks for them. The blob id is never written any more:
the check derives it from the event and compares it with the tree's. Files
of format 3 (every id on every line) are still read, and a stored blob id
must then equal the tree's as well.

The format is self-contained (no local paths), so the same lines also travel
in Git under a ref of their own (``refs/halo/cache/<branch>``, see "the
travelling cache" below) and are checked the same way: a fresh clone reads
them instead of parsing every YAML blob.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..model import Event, legacy_yaml, to_yaml
from . import locking

FORMAT = 4  # compact lines; 3: every line carries its commit and blob ids (still read)
CACHE_DIR = "halo"  # inside the bare repository; git ignores unknown folders there


def path_for(repo_path: Path, branch: str) -> Path:
    key = hashlib.sha1(branch.encode()).hexdigest()[:16]
    return repo_path / CACHE_DIR / f"events-{key}.jsonl"


def header(branch: str, fmt: int = FORMAT) -> bytes:
    return json.dumps({"format": fmt, "branch": branch}, ensure_ascii=False).encode("utf-8") + b"\n"


@dataclass
class Snapshot:
    """What a cache file claims: events e1..eK, their blob ids, commit hints."""

    events: list[Event]
    blobs: list[str]  # hex blob id per event, "" where not stored (the check derives it)
    commits: list[str]  # hex commit id per event, "" where not stored (a hint, checked only at the end)

    @property
    def head(self) -> str:
        return self.commits[-1]

    def upto(self, count: int) -> "Snapshot | None":
        """The first ``count`` entries or fewer, cut back to the last entry that
        names its commit (a snapshot must end at a commit ``_extend`` can
        check); None when no entry in them does."""
        k = min(count, len(self.events))
        while k and not self.commits[k - 1]:
            k -= 1
        if not k:
            return None
        if k == len(self.events):
            return self
        return Snapshot(self.events[:k], self.blobs[:k], self.commits[:k])


def load(path: Path, branch: str) -> Snapshot | None:
    """The file's entries up to the first unreadable line, or None.

    Nothing here is trusted yet: ``mismatch`` proves the entries against Git,
    and a reader uses them only up to the last that names its commit (``upto``).
    """
    try:
        with open(path, encoding="utf-8") as f:
            if f.readline().encode("utf-8") not in (header(branch), header(branch, 3)):
                return None
            snap = Snapshot([], [], [])
            entries(f, snap)
    except (OSError, ValueError):
        return None
    return snap if snap.events else None


def entries(lines: Iterable[str], snap: Snapshot, limit: int | None = None) -> bool:
    """Add the entries of ``lines`` that continue ``snap`` (``e<K+1>``, ...) to
    it; False at the first line that does not (unreadable, torn, out of order)
    or once ``snap`` holds ``limit`` events."""
    events, blobs, commits = snap.events, snap.blobs, snap.commits
    for line in lines:
        if limit is not None and len(events) >= limit:
            return False
        try:
            commit, blob, d = json.loads(line)
            event = Event.from_dict(d)
            if not (isinstance(commit, str) and isinstance(blob, str) and len(blob) in (0, 40) and _plain(event)):
                return False
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return False  # a torn last line (a crash while appending), or a line edited outside HALO
        if event.id != f"e{len(events) + 1}":
            return False
        commits.append(commit)
        blobs.append(blob)
        events.append(event)
    return True


def _plain(event: Event) -> bool:
    """Every value of the cached event is the string (or tuple of strings) HALO writes:
    an edited cache can hold anything JSON can, such as a list nested 900 deep."""
    return (all(isinstance(v, str) for v in (event.id, event.kind, event.agent, event.session, event.time, event.summary))
            and all(isinstance(u, str) for u in event.uses) and all(isinstance(c, str) for c in event.channels)
            and all(isinstance(v, str) for v in event.fields.values()))


def mismatch(snap: Snapshot, tree_blobs: Sequence[bytes | None]) -> str | None:
    """Why the cache does not describe the Git objects, or None when every entry does.

    ``tree_blobs[i]`` is the hex blob id the head tree holds for event ``e<i+1>``.
    An entry is the event in that blob when its canonical YAML (or the legacy
    form's) hashes to it; a blob id the entry stores (format 3) must be it too.
    """
    if len(tree_blobs) < len(snap.events):
        return f"it holds {len(snap.events)} events, the branch only {len(tree_blobs)} (if events were logged meanwhile, check again)"
    for i, (event, blob) in enumerate(zip(snap.events, snap.blobs)):
        held = tree_blobs[i]
        if held is None or (blob and blob.encode() != held):
            return f"its entry {event.id} names blob {(blob or 'none')[:12]}, the branch holds {(held or b'nothing').decode()[:12]}"
        held_hex = held.decode()
        if blob_id(event) != held_hex and _hex(legacy_yaml(event)) != held_hex:  # a file an earlier version wrote without libyaml
            return f"its entry {event.id} is not the event in blob {held_hex[:12]} (edited outside HALO)"
    return None


def blob_id(event: Event) -> str:
    """Hex Git blob id of ``event``'s canonical YAML file."""
    return _hex(canonical_yaml(event))


def _hex(data: bytes) -> str:
    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def lines(events: Sequence[Event], blobs: Sequence[str], commits: Sequence[str]) -> bytes:
    """Compact lines (format 4) for ``events``: no blob id (a reader derives it
    from the event), the commit id only on every ``CHUNK``-th event and on the
    last line. ``blobs`` is accepted for symmetry and not written."""
    last = len(events) - 1
    return "".join(
        json.dumps([c if (i == last or int(e.id[1:]) % CHUNK == 0) else "", "", e.to_dict()], ensure_ascii=False) + "\n"
        for i, (c, e) in enumerate(zip(commits, events))
    ).encode("utf-8")


def save(path: Path, branch: str, events: Sequence[Event], blobs: Sequence[str], commits: Sequence[str], *, rewrite: bool, newer_than: Callable[[], int] | None = None) -> bool:
    """Bring the file up to these events: append what it lacks, or rewrite it
    when it holds another history (or ``rewrite``). Appends are serialised by
    ``flock``. ``newer_than()``: the branch's current event count; a file that
    already holds more than ``events`` but no more than that was written by a
    process that got further and is left alone. Returns False on I/O errors
    (the cache is an optimisation)."""
    try:
        path.parent.mkdir(exist_ok=True)
        with open(path, "a+b") as f:
            locking.lock(f)
            f.seek(0)
            head = header(branch)
            count, commit = _end(f) if f.readline() == head else (0, None)
            if not rewrite and count > len(events) and newer_than is not None and newer_than() >= count:
                return True
            if rewrite or count > len(events) or (count and commits[count - 1] != commit):
                tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
                with open(tmp, "wb") as out:
                    out.write(head)
                    out.write(lines(events, blobs, commits))
                os.replace(tmp, path)
            else:
                if not count:
                    f.truncate(0)
                    f.write(head)
                f.write(lines(events[count:], blobs[count:], commits[count:]))
        return True
    except OSError:
        return False


def install(path: Path, branch: str, body: bytes) -> bool:
    """Replace the file by ``header + body`` (lines already in the format, e.g.
    the chunks of the travelling cache once they passed ``mismatch``); False
    on I/O errors."""
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with open(tmp, "wb") as out:
            out.write(header(branch))
            out.write(body)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


# -- the travelling cache: the same lines as Git objects under a ref of their own ------
#
# ``refs/halo/cache/<branch>`` names a commit without parents whose tree holds
# ``format`` (TRAVEL_FORMAT) and ``c000000.jsonl``, ``c000001.jsonl``, ... : the
# cache lines of e1..e1000, e1001..e2000, ... (full chunks only, so a chunk once
# written never changes and is shared by every later version of the ref), in
# the compact form: no ids but the commit of each chunk's last event, which a
# clone cannot get cheaper than from its own objects anyway (format 3 chunks,
# every id on every line, are still read, and rewritten by the next publish). Git
# carries the ref with ``clone --mirror`` and ``fetch 'refs/halo/*:refs/halo/*'``,
# HALO's own push/pull/clone carry it too. It is a hint from whoever wrote the
# repository: a reader puts its lines through exactly the check a local file
# gets (``mismatch``), so it can make a first read fast but never change what
# the read shows. AgentRepo reads and writes the Git side.

CHUNK = 1000
TRAVEL_FORMAT = json.dumps({"format": FORMAT, "what": "HALO parsed-event cache"}).encode() + b"\n"
TRAVEL_FORMATS = (TRAVEL_FORMAT, json.dumps({"format": 3, "what": "HALO parsed-event cache"}).encode() + b"\n")  # read
CACHE_REF_PREFIX = b"refs/halo/cache/"


def cache_ref(branch: str) -> bytes:
    return CACHE_REF_PREFIX + branch.encode()


def chunk_name(i: int) -> bytes:
    return b"c%06d.jsonl" % i


def travel_message(branch: str, count: int, last_commit: str) -> bytes:
    return f"HALO parsed-event cache of branch {branch}: e1..e{count}, e{count} at commit {last_commit}\n".encode()


_TRAVEL_MESSAGE = re.compile(rb"HALO parsed-event cache of branch .*: e1\.\.e([0-9]+), e[0-9]+ at commit ([0-9a-f]{40})\n\Z", re.S)


def travel_claim(message: bytes) -> tuple[int, str] | None:
    """(events covered, commit hint of the last) a cache commit's message claims."""
    m = _TRAVEL_MESSAGE.match(message)
    return (int(m.group(1)), m.group(2).decode()) if m else None


def _end(f) -> tuple[int, str | None]:
    """(number of events, commit of the last) of the cache open in ``f``,
    read from its last complete line; a torn line after it is cut off, and
    ``(0, None)`` means empty or unreadable (to be rewritten from scratch)."""
    size = f.seek(0, os.SEEK_END)
    window = min(size, 1 << 16)
    f.seek(size - window)
    tail = f.read(window)
    end = tail.rfind(b"\n")
    if end < 0:
        return 0, None
    if end != len(tail) - 1:
        f.truncate(size - window + end + 1)
    start = tail.rfind(b"\n", 0, end) + 1
    try:
        commit, _blob, d = json.loads(tail[start:end])
        return int(d["id"][1:]), commit
    except (ValueError, KeyError, TypeError, IndexError):
        return 0, None


def canonical_yaml(event: Event) -> bytes:
    """The bytes of ``event``'s file (``model.to_yaml``, HALO's own emitter)."""
    return to_yaml(event)


__all__ = ["FORMAT", "CHUNK", "TRAVEL_FORMAT", "TRAVEL_FORMATS", "Snapshot", "load", "entries", "install", "mismatch", "save", "blob_id", "canonical_yaml", "path_for", "cache_ref", "chunk_name", "travel_message", "travel_claim"]
