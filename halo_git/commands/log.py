"""``halo-git log KIND``: log one event from the shell (same rules as the tools).

Validates the event exactly as the MCP tools do (refused: exit 2, nothing
written) and prints the tools' reply as JSON; the session defaults to 'cli'.
"""

from __future__ import annotations

import json

from ..model import KINDS
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("log", help="log one event (observe, remember, recall, act, outcome, revise)")
    p.add_argument("kind", choices=list(KINDS), help="event kind")
    add_common(p)
    p.add_argument("--summary", required=True, help="what happened, in a few words")
    p.add_argument("--session", help="session label (default: 'cli')")
    p.add_argument("--uses", default="", help="comma-separated ids of earlier events, e.g. e1,e3")
    p.add_argument("--trigger", help="act: request or self")
    p.add_argument("--form", help="act: silence, communication, preparation or execution")
    p.add_argument("--about", help="outcome: id of the earlier act")
    p.add_argument("--target", help="revise: what changed")
    p.add_argument("--made-by", dest="made_by", help="revise: agent or user")
    p.add_argument("--governance", help="revise: approved, bounded or none")
    p.set_defaults(run=run)


def run(args) -> int:
    call = {"summary": args.summary, "agent": args.agent, "session": args.session or "cli"}
    if args.uses.strip():
        call["uses"] = [u.strip() for u in args.uses.split(",") if u.strip()]
    for name in ("trigger", "form", "about", "target", "made_by", "governance"):
        value = getattr(args, name)
        if value is not None:
            call[name] = value
    with open_halo(args) as h:
        print(json.dumps(h.log_call(args.kind, call), ensure_ascii=False))
    return 0
