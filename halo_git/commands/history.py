"""``halo-git history``: the history of one event and what rests on it.

The event; everything it rests on (its ancestry over uses/about, as a tree,
with sessions and who made each revision); everything that rests on it later;
the versions of its target if it is a revision; the approvals covering it.
"""

from __future__ import annotations

import json
import sys

from ..lineage import history_lines
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("history", help="the history of one event: what it rests on (a tree), what rests on it, its target's versions, approvals")
    add_common(p)
    p.add_argument("event", metavar="EVENT", help="event id, e.g. e12")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.add_argument("--allowed-signers", metavar="FILE", help="ssh-keygen allowed-signers file that proves signed approvals "
                   "(default: $HALO_ALLOWED_SIGNERS, else <root>/allowed_signers if present)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        out = h.history(args.agent, args.event, args.branch, args.allowed_signers)
    if args.format == "json":
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(history_lines(out)) + "\n")
    return 0
