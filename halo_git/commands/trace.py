"""``halo-git trace``: the halo_trace text of an agent.

Prints the most recent events of the branch, oldest first, one line each
(id, session, kind, summary, uses, the kind's own fields), as the halo_trace
tool answers; --session keeps one session's events. An unknown root, agent
or session exits 1 and names the agents (or the sessions) there are.
"""

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
        if args.session:
            h.require_session(args.agent, args.session, args.branch)
        print(h.trace(args.agent, limit=args.limit, session=args.session, interface="cli"))
    return 0
