"""One module per CLI command; shared option helpers live here."""

from __future__ import annotations

import argparse

from ..api import Halo
from ..store import DEFAULT_BRANCH


def add_common(p: argparse.ArgumentParser, *, agent: bool = True, agent_required: bool = True) -> None:
    """``--root`` and ``--branch`` on every command; ``--agent`` where it applies."""
    p.add_argument("--root", help="HALO root folder (default: $HALO_ROOT, else ~/.halo)")
    p.add_argument("--branch", default=DEFAULT_BRANCH, help="branch to write to and read from (default: main)")
    if agent:
        p.add_argument("--agent", required=agent_required, help="agent name")


def open_halo(args: argparse.Namespace, **kw) -> Halo:
    return Halo(args.root, branch=args.branch, **kw)


def report_outcomes(outcomes, verb: str) -> int:
    """Print a fleet-wide push, pull or clone agent by agent; exit 1 if any failed."""
    import sys

    failed = [o for o in outcomes if o.error is not None]
    for o in outcomes:
        print(o.describe(), file=sys.stderr if o.error is not None else sys.stdout)
    print(f"{len(outcomes) - len(failed)} of {len(outcomes)} agent(s) {verb}" + (f"; {len(failed)} failed: {', '.join(o.agent for o in failed)}" if failed else ""))
    return 1 if failed else 0
