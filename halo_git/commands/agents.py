"""``halo-git agents``: every agent of the root with its events, sessions, last activity and push state."""

from __future__ import annotations

import json

from ..store.repo import branch_ref
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "agents",
        help="list the agents of the root: events, sessions, last activity and push state on a branch",
        description=(
            "One line per agent of the root: events and sessions on the branch, the time of its newest event, "
            "and the state of the last push (by 'serve --push' or 'push'): pushed, FAILING with the error, or never."
        ),
    )
    add_common(p, agent=False)
    p.add_argument("--json", action="store_true", help="one JSON object per agent and line instead of the table")
    p.set_defaults(run=run)


def run(args) -> int:
    branch_ref(args.branch)  # an invalid name is a usage error, not an empty table
    with open_halo(args) as h:
        h.require_root()
        h.require_branch(None, args.branch)  # agents exist but none has this branch: say so
        rows = h.agent_statuses()
    if args.json:
        for r in rows:
            print(json.dumps(r.as_dict(), sort_keys=True))
        return 0
    if not rows:
        print(f"no agents under {h.root} yet; log an event (or run 'halo-git demo') first")
        return 0
    width = max(len(r.agent) for r in rows)
    print(f"{'AGENT':<{width}}  {'EVENTS':>6}  {'SESSIONS':>8}  {'LAST ACTIVITY':<20}  PUSH")
    for r in rows:
        push = r.push.describe() if r.push else "never pushed"
        print(f"{r.agent:<{width}}  {r.events:>6}  {r.sessions:>8}  {r.last or '—':<20}  {push}")
    return 0
