"""Whole-file advisory locks that work where MCP clients run: POSIX and Windows.

A room of the store: ``repo.py`` and ``maintenance.py`` call ``lock`` and
``try_lock`` on an open file; the lock lasts until the file is closed, and the
operating system drops it when its process dies (the stale-lock guard relies
on that). Backends, picked at import:

- ``fcntl``: ``flock`` (Linux, macOS, the BSDs);
- ``msvcrt``: ``msvcrt.locking`` on the file's first byte (Windows);
- ``process``: neither module exists (an exotic platform, or ``fcntl`` blocked):
  a lock per path inside this process only; other processes are not held back.
  HALO's appends stay safe (they are compare-and-swap on the ref); what these
  locks guard (removing a stale lock file, appending to the parsed-event cache,
  one maintenance pass at a time) may then race between processes.

Why a shim and not the ``filelock`` package: the call sites need a lock on a
file they already hold open (the snapshot is read and appended under its own
lock), which ``filelock``'s lock-a-path model does not give; the two platform
calls are a dozen lines.
"""

from __future__ import annotations

import os
import threading
import time
from typing import IO

try:
    import fcntl
except ImportError:
    fcntl = None  # type: ignore[assignment]

msvcrt = None
if fcntl is None:
    try:
        import msvcrt  # type: ignore[no-redef]
    except ImportError:
        msvcrt = None

BACKEND = "fcntl" if fcntl is not None else "msvcrt" if msvcrt is not None else "process"

_held: dict[str, threading.Lock] = {}
_held_guard = threading.Lock()


def _process_lock(f: IO) -> threading.Lock:
    key = os.path.abspath(f.name)
    with _held_guard:
        return _held.setdefault(key, threading.Lock())


def try_lock(f: IO) -> bool:
    """Lock the open file ``f`` exclusively if no one holds it; False if busy."""
    if fcntl is not None:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    if msvcrt is not None:
        where = f.tell()
        f.seek(0)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            f.seek(where)
        return True
    held = _process_lock(f)
    if not held.acquire(blocking=False):
        return False
    _release_on_close(f, held)
    return True


def lock(f: IO) -> None:
    """Lock the open file ``f`` exclusively, waiting for its holder."""
    if fcntl is not None:
        fcntl.flock(f, fcntl.LOCK_EX)
        return
    if msvcrt is not None:
        while not try_lock(f):  # LK_LOCK gives up after ten seconds; wait as flock does
            time.sleep(0.005)
        return
    held = _process_lock(f)
    held.acquire()
    _release_on_close(f, held)


def _release_on_close(f: IO, held: threading.Lock) -> None:
    """Tie a process-local lock to the file's lifetime, like the kernel's locks."""
    close = f.close

    def close_and_release() -> None:
        try:
            close()
        finally:
            if held.locked():
                held.release()

    f.close = close_and_release  # type: ignore[method-assign]
