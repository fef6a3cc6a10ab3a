"""``halo-git beliefs``: the memories and rules in force at the head or at a point.

A memory is in force unless a later remember or revise names it (superseding
or withdrawing it); a rule is the latest revision of its target. Each comes
with its age, when it was last read and whether it was reviewed.
"""

from __future__ import annotations

from ..lineage import beliefs_lines
from .lineage_view import add_lineage_parser, print_lineage


def add_parser(sub) -> None:
    add_lineage_parser(sub, "beliefs", "memories and rules in force (at the head or --at eN|COMMIT): age, last read, reviewed", run,
                       lambda p: p.add_argument("--at", metavar="POINT", help="an event id (eN) or a commit of the branch (default: its head)"))


def run(args) -> int:
    return print_lineage(args, lambda h: h.beliefs(args.agent, args.at, args.branch, args.allowed_signers), beliefs_lines)
