"""``halo-git import``: append JSONL events to an agent's branch, all or nothing.

Every line is validated before anything is written, and each event becomes its
own commit. A file whose events the branch already holds (same kind, session,
summary and time) is refused as imported before, unless --allow-duplicates.
"""

from __future__ import annotations

import sys

from ..errors import InvalidCall
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "import",
        help="import JSONL events (as export writes them); validated first, each event its own commit",
    )
    add_common(p)
    p.add_argument("file", help="JSONL file, or - for stdin")
    p.add_argument("--session", default="import", help="session for lines without one (default: import)")
    p.add_argument(
        "--allow-duplicates", action="store_true",
        help="import events the branch already holds again (default: refuse a file that was imported before)",
    )
    p.set_defaults(run=run)


def _lines(path: str) -> list[str]:
    """The file's lines; a missing, unreadable or non-UTF-8 file is bad input."""
    how = "pass a JSONL file (as halo-git export writes it), or - to read standard input"
    try:
        if path == "-":
            return sys.stdin.readlines()
        with open(path, encoding="utf-8") as f:
            return f.readlines()
    except IsADirectoryError:
        raise InvalidCall(f"{path} is a folder, not a JSONL file; {how}") from None
    except FileNotFoundError:
        raise InvalidCall(f"no file {path}; {how}") from None
    except UnicodeDecodeError as e:
        raise InvalidCall(f"{path} is not UTF-8 text (byte {e.start}); {how}") from None
    except OSError as e:
        raise InvalidCall(f"cannot read {path} ({e.strerror}); {how}") from None


def imported(ids: list[str]) -> str:
    """``imported 1 event: e3``, ``imported 3 events: e3..e5``."""
    if not ids:
        return "imported 0 events (the file holds none)"
    if len(ids) == 1:
        return f"imported 1 event: {ids[0]}"
    return f"imported {len(ids)} events: {ids[0]}..{ids[-1]}"


def run(args) -> int:
    lines = _lines(args.file)
    with open_halo(args) as h:
        ids = h.import_lines(args.agent, lines, session=args.session, allow_duplicates=args.allow_duplicates)
    print(imported(ids))
    return 0
