"""``halo-git export``: an agent's events as JSONL, or as ATIF trajectories, on stdout.

JSONL has one event per line with the fields of its YAML file, which is what
import reads back; ATIF writes one trajectory per session and line.
"""

from __future__ import annotations

import json

from .. import __version__
from ..atif import trajectories
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write an agent's events as JSONL (one event per line, the YAML's fields) or as ATIF trajectories (one session per line)",
    )
    add_common(p)
    p.add_argument(
        "--format",
        choices=("jsonl", "atif"),
        default="jsonl",
        help="jsonl (default; what import reads) or atif (Agent Trajectory Interchange Format, one trajectory per session and line)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        h.require_agent(args.agent)
        if args.format == "jsonl":
            for line in h.export_lines(args.agent):
                print(line)
            return 0
        log = h.event_log(args.agent)
    for trajectory in trajectories(log.events, agent=args.agent, branch=log.branch, head=log.head, exporter=f"halo-git {__version__}"):
        print(json.dumps(trajectory, ensure_ascii=False))
    return 0
