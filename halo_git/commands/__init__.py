"""One module per CLI command; shared option helpers live here."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..accept import DEFAULT_FILE, Accepted, load_accepted
from ..api import Halo
from ..observed import DEFAULT_WINDOW, Observed, load
from ..store import DEFAULT_BRANCH


# What --branch means, by command (a command not listed both writes to and reads from it).
BRANCH_HELP = {
    **dict.fromkeys(("trace", "report", "diff", "check", "verify", "export", "revisions", "agents", "site"),
                    "branch to read (default: main)"),
    "push": "branch to push (default: main)",
    "branch": "branch the new one starts from, and whose event ids --from names (default: main)",
}


def add_common(p: argparse.ArgumentParser, *, agent: bool = True, agent_required: bool = True) -> None:
    """``--root`` and ``--branch`` on every command; ``--agent`` where it applies."""
    p.add_argument("--root", help="HALO root folder (default: $HALO_ROOT, else ~/.halo)")
    command = p.prog.split()[-1]
    p.add_argument("--branch", default=DEFAULT_BRANCH, help=BRANCH_HELP.get(command, "branch to write to and read from (default: main)"))
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


def add_observed(p: argparse.ArgumentParser) -> None:
    """``--observed`` and ``--observed-window`` (report, check, site)."""
    p.add_argument("--observed", metavar="FILE", help="observed evidence of what the agent did: an ATIF trajectory.json, "
                   "a folder of them, or OTLP/JSON spans; aligned with the trace per session (see the Interop docs page)")
    p.add_argument("--observed-window", metavar="SECONDS", type=positive_float, default=DEFAULT_WINDOW,
                   help=f"how far apart in time an observed call and the logged step reporting it may be (default: {DEFAULT_WINDOW:g})")


def load_observed(args: argparse.Namespace) -> Observed | None:
    return load(args.observed, window=args.observed_window) if args.observed else None


def add_accept(p: argparse.ArgumentParser, what: str) -> None:
    """``--accept FILE`` (check, report, site): findings a reviewer accepted."""
    p.add_argument("--accept", metavar="FILE",
                   help=f"accepted findings (YAML, see docs/ci.md), {what}; default: ./{DEFAULT_FILE} when it exists")


def load_accept(args: argparse.Namespace) -> tuple[list[Accepted], str | None]:
    """The accepted findings and the file they came from (``--accept``, else ./halo-accept.yaml if present)."""
    if args.accept:
        return load_accepted(args.accept), args.accept
    if Path(DEFAULT_FILE).is_file():
        return load_accepted(DEFAULT_FILE), DEFAULT_FILE
    return [], None


def _whole(text: str, what: str, low: int, high: int | None, out_of_range: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if n < low or (high is not None and n > high):
        raise argparse.ArgumentTypeError(f"{n} {out_of_range}")
    return n


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _whole(text, "a whole number", 1, None, "is too small: give 1 or more")


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not x > 0 or x == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is out of range: give a number of seconds above 0")
    return x


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (a free one) to 65535."""
    return _whole(text, "a port number", 0, 65535, "is not a port: give 1-65535, or 0 for a free one")
