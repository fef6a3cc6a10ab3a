"""``halo-git blame``: each version of one target, who made it and what used it.

One line per version, oldest first: the event and its commit, who made it,
governance, approval (proven by a signed approval commit, claimed, or none)
and the events that used it.
"""

from __future__ import annotations

from ..model import one_line
from .lineage_view import add_lineage_parser, print_lineage


def add_parser(sub) -> None:
    add_lineage_parser(sub, "blame", "each version of a target: event, commit, who made it, governance, approval, what used it", run,
                       lambda p: p.add_argument("--target", required=True, help="the target (case and spacing ignored), e.g. 'reminder rule'"))


def blame_lines(out: dict) -> list[str]:
    lines = [f"{one_line(out['target'])}: {len(out['versions'])} version(s) on branch '{out['branch']}'"]
    for v in out["versions"]:
        approved = f" by {', '.join(v['approved_by'])}" if v["approved_by"] else ""
        used = ", ".join(v["used_by"]) or "nothing"
        force = " (in force)" if v["in_force"] else ""
        lines.append(f"v{v['version']} {v['id']} {v['commit'][:12]} [{v['session']}] made_by={v['made_by']} governance={v['governance']} "
                     f"approval={v['approval']}{approved}; used by {used}{force}: {one_line(v['summary'])}")
    return lines


def run(args) -> int:
    return print_lineage(args, lambda h: h.blame(args.agent, args.target, args.branch, args.allowed_signers), blame_lines)
