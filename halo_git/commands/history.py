"""``halo-git history``: the history of one event and what rests on it.

The event; everything it rests on (its ancestry over uses/about, as a tree,
with sessions and who made each revision); everything that rests on it later;
the versions of its target if it is a revision; the approvals covering it.
"""

from __future__ import annotations

from ..lineage import history_lines
from .lineage_view import add_lineage_parser, print_lineage


def add_parser(sub) -> None:
    add_lineage_parser(sub, "history", "the history of one event: what it rests on (a tree), what rests on it, its target's versions, approvals",
                       run, lambda p: p.add_argument("event", metavar="EVENT", help="event id, e.g. e12"))


def run(args) -> int:
    return print_lineage(args, lambda h: h.history(args.agent, args.event, args.branch, args.allowed_signers), history_lines)
