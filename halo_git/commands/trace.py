"""``halo-git trace``: the halo_trace text of an agent."""

from __future__ import annotations

from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("trace", help="print an agent's recent events, one line each (as halo_trace)")
    add_common(p)
    p.add_argument("--session", default="", help="only this session (default: all)")
    p.add_argument("--limit", type=int, default=20, help="how many recent events, 1-200 (default 20)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        h.require_agent(args.agent)
        print(h.trace(args.agent, limit=args.limit, session=args.session, interface="cli"))
    return 0
