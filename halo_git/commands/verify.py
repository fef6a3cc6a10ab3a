"""``halo-git verify``: prove a branch's history is exactly what HALO wrote.

Walks every commit from e1: one event file each, the next id, canonical YAML,
uses/about naming earlier events, the message, author, committer and time the
event implies. Exits 1 naming the first commit that breaks the contract.
"""

from __future__ import annotations

from ..store import verify_branch
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="check every commit of an agent's branch: one event file each, next id, valid YAML, "
        "earlier uses/about, matching message; exits 1 naming the first bad commit",
    )
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        h.require_agent(args.agent)
        result = verify_branch(h.store.repo(args.agent), args.branch)
    where = f"branch '{result.branch}' of agent '{result.agent}'"
    if result.head is None:
        print(f"ok: {where} has no events yet")
    else:
        print(f"ok: {result.events} events on {where} verified, e1..e{result.events}, head {result.head}")
    return 0
