"""``halo-git blame``: each version of one target, who made it and what used it.

One line per version, oldest first: the event and its commit, who made it,
governance, approval (proven by a signed approval commit, claimed, or none)
and the events that used it.
"""

from __future__ import annotations

import json
import sys

from ..model import one_line
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("blame", help="each version of a target: event, commit, who made it, governance, approval, what used it")
    add_common(p)
    p.add_argument("--target", required=True, help="the target (case and spacing ignored), e.g. 'reminder rule'")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.add_argument("--allowed-signers", metavar="FILE", help="ssh-keygen allowed-signers file that proves signed approvals "
                   "(default: $HALO_ALLOWED_SIGNERS, else <root>/allowed_signers if present)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        out = h.blame(args.agent, args.target, args.branch, args.allowed_signers)
    if args.format == "json":
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{one_line(out['target'])}: {len(out['versions'])} version(s) on branch '{out['branch']}'")
    for v in out["versions"]:
        approved = f" by {', '.join(v['approved_by'])}" if v["approved_by"] else ""
        used = ", ".join(v["used_by"]) or "nothing"
        force = " (in force)" if v["in_force"] else ""
        print(f"v{v['version']} {v['id']} {v['commit'][:12]} [{v['session']}] made_by={v['made_by']} governance={v['governance']} "
              f"approval={v['approval']}{approved}; used by {used}{force}: {one_line(v['summary'])}")
    return 0
