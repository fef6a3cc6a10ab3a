"""``halo-git import``: append JSONL events to an agent's branch, all or nothing."""

from __future__ import annotations

import sys

from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "import",
        help="import JSONL events (as export writes them); validated first, each event its own commit",
    )
    add_common(p)
    p.add_argument("file", help="JSONL file, or - for stdin")
    p.add_argument("--session", default="import", help="session for lines without one (default: import)")
    p.set_defaults(run=run)


def run(args) -> int:
    stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    with stream, open_halo(args) as h:
        ids = h.import_lines(args.agent, stream, session=args.session)
    print(f"imported {len(ids)} events" + (f": {ids[0]}..{ids[-1]}" if ids else ""))
    return 0
