"""The parsed-event cache (``halo/events-<key>.jsonl``): derived data, never trusted.

A room of the store, called by ``AgentRepo.log`` (load, save) and by
``verify`` (check). A cold process reads a branch's events from this file
instead of parsing every YAML blob again; the file lives inside the
repository folder, so anyone who can write there could edit it. Therefore
each line binds its event to the Git blob it came from::

    {"format": 3, "branch": "main"}
    ["<commit of e1>", "<blob id of e1>", {"id": "e1", ...}]
    ...

and a load accepts an entry only when

* its blob id is the one the branch head's tree holds at the event's path
  (the tree walk reads ~1 tree per 100 events), and
* the canonical YAML of the cached event hashes to that blob id — the same
  bytes HALO committed, so the cached event *is* the committed one.

The canonical YAML is rebuilt by HALO's own emitter (``eventfile``), a few
microseconds per event; a blob an earlier version wrote where PyYAML had no
libyaml (the legacy form) is accepted too. Any mismatch discards the
whole file: the branch is read from Git and the cache rewritten. Commit ids
per line are only a hint for extending the cache; the log's commit ids are
read from Git when someone asks for them.

The format is self-contained (blob ids, no local paths), so the same lines
also travel in Git under a ref of their own (``refs/halo/cache/<branch>``, see
"the travelling cache" below) and are checked the same way: a fresh clone
reads them instead of parsing every YAML blob.
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

FORMAT = 3
CACHE_DIR = "halo"  # inside the bare repository; git ignores unknown folders there


def path_for(repo_path: Path, branch: str) -> Path:
    key = hashlib.sha1(branch.encode()).hexdigest()[:16]
    return repo_path / CACHE_DIR / f"events-{key}.jsonl"


def header(branch: str) -> bytes:
    return json.dumps({"format": FORMAT, "branch": branch}, ensure_ascii=False).encode("utf-8") + b"\n"


@dataclass
class Snapshot:
    """What a cache file claims: events e1..eK, their blob ids, commit hints."""

    events: list[Event]
    blobs: list[str]  # hex blob id per event
    commits: list[str]  # hex commit id per event (a hint, checked only at the end)

    @property
    def head(self) -> str:
        return self.commits[-1]


def load(path: Path, branch: str) -> Snapshot | None:
    """The file's entries up to the first unreadable line, or None.

    Nothing here is trusted yet: ``mismatch`` proves the entries against Git.
    """
    try:
        with open(path, encoding="utf-8") as f:
            if f.readline().encode("utf-8") != header(branch):
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
            if not (isinstance(commit, str) and isinstance(blob, str) and len(blob) == 40 and _plain(event)):
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
    """
    if len(tree_blobs) < len(snap.events):
        return f"it holds {len(snap.events)} events, the branch only {len(tree_blobs)} (if events were logged meanwhile, check again)"
    for i, (event, blob) in enumerate(zip(snap.events, snap.blobs)):
        if tree_blobs[i] is None or blob.encode() != tree_blobs[i]:
            return f"its entry {event.id} names blob {blob[:12]}, the branch holds {(tree_blobs[i] or b'nothing').decode()[:12]}"
        if blob_id(event) != blob and _hex(legacy_yaml(event)) != blob:  # a file an earlier version wrote without libyaml
            return f"its entry {event.id} is not the event in blob {blob[:12]} (edited outside HALO)"
    return None


def blob_id(event: Event) -> str:
    """Hex Git blob id of ``event``'s canonical YAML file."""
    return _hex(canonical_yaml(event))


def _hex(data: bytes) -> str:
    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def lines(events: Sequence[Event], blobs: Sequence[str], commits: Sequence[str]) -> bytes:
    return "".join(
        json.dumps([c, b, e.to_dict()], ensure_ascii=False) + "\n" for c, b, e in zip(commits, blobs, events)
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
# written never changes and is shared by every later version of the ref). Git
# carries the ref with ``clone --mirror`` and ``fetch 'refs/halo/*:refs/halo/*'``,
# HALO's own push/pull/clone carry it too. It is a hint from whoever wrote the
# repository: a reader puts its lines through exactly the check a local file
# gets (``mismatch``), so it can make a first read fast but never change what
# the read shows. AgentRepo reads and writes the Git side.

CHUNK = 1000
TRAVEL_FORMAT = json.dumps({"format": FORMAT, "what": "HALO parsed-event cache"}).encode() + b"\n"
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


__all__ = ["FORMAT", "CHUNK", "Snapshot", "load", "entries", "install", "mismatch", "save", "blob_id", "canonical_yaml", "path_for", "cache_ref", "chunk_name", "travel_message", "travel_claim"]
