"""``halo-git export``: an agent's events as JSONL on stdout."""

from __future__ import annotations

from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write an agent's events as JSONL (one event per line, the YAML's fields)")
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        for line in h.export_lines(args.agent):
            print(line)
    return 0
