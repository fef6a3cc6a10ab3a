"""``halo-git report``: the diagnosis Markdown (as halo_report).

Deterministic Markdown pinned to the branch's head commit: boundary and
evidence, channels, write side, read-back, actions, outcomes, mechanism,
behavioral-authority paths and findings, every claim citing event ids.
"""

from __future__ import annotations

import sys

from . import add_accept, add_common, add_observed, load_accept, load_observed, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="print the diagnosis of an agent's trace as Markdown (as halo_report)")
    add_common(p)
    p.add_argument("--session", default="", help="diagnose one session (default: the whole trace)")
    add_observed(p)
    add_accept(p, "listed apart under Accepted with the reason")
    p.set_defaults(run=run)


def run(args) -> int:
    observed = load_observed(args)
    accepted, _ = load_accept(args)
    with open_halo(args) as h:
        h.require_agent(args.agent)
        sys.stdout.write(h.report(args.agent, session=args.session, branch=args.branch, observed=observed, accepted=accepted))
    return 0
