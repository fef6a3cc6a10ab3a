"""``halo-git beliefs``: the memories and rules in force at the head or at a point.

A memory is in force unless a later remember or revise names it (superseding
or withdrawing it); a rule is the latest revision of its target. Each comes
with its age, when it was last read and whether it was reviewed.
"""

from __future__ import annotations

import json
import sys

from ..lineage import beliefs_lines
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("beliefs", help="memories and rules in force (at the head or --at eN|COMMIT): age, last read, reviewed")
    add_common(p)
    p.add_argument("--at", metavar="POINT", help="an event id (eN) or a commit of the branch (default: its head)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.add_argument("--allowed-signers", metavar="FILE", help="ssh-keygen allowed-signers file that proves signed approvals "
                   "(default: $HALO_ALLOWED_SIGNERS, else <root>/allowed_signers if present)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        out = h.beliefs(args.agent, args.at, args.branch, args.allowed_signers)
    if args.format == "json":
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(beliefs_lines(out)) + "\n")
    return 0
