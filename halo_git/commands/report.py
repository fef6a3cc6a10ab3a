"""``halo-git report``: the diagnosis Markdown (as halo_report).

Deterministic Markdown pinned to the branch's head commit: boundary and
evidence, channels, write side, read-back, actions, outcomes, mechanism,
behavioral-authority paths and findings, every claim citing event ids.
"""

from __future__ import annotations

import sys

from . import add_common, add_observed, load_observed, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="print the diagnosis of an agent's trace as Markdown (as halo_report)")
    add_common(p)
    p.add_argument("--session", default="", help="diagnose one session (default: the whole trace)")
    add_observed(p)
    p.set_defaults(run=run)


def run(args) -> int:
    observed = load_observed(args)
    with open_halo(args) as h:
        h.require_agent(args.agent)
        sys.stdout.write(h.report(args.agent, session=args.session, branch=args.branch, observed=observed))
    return 0
