"""``halo-git demo``: a scripted two-day agent through the real server, then the site."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from ..demo import AGENT, DEFAULT_ROOT, run_demo
from ..site import build_site
from ..site.output import new_out, require_builder


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="run a scripted two-day assistant through the MCP server, print its trace and report, optionally build the review site",
        description=(
            "Runs a scripted assistant through 'halo-git serve' over stdio, one connection per day, and prints "
            "what it logged and the diagnosis. Running it again on the same root continues with the next days."
        ),
    )
    p.add_argument("--root", default=str(DEFAULT_ROOT), help=f"HALO root folder for the demo (default: ./{DEFAULT_ROOT}; HALO_ROOT is not used)")
    p.add_argument("--out", help="also build the review site into this folder and print its path")
    p.set_defaults(run=run)


def run(args) -> int:
    out = Path(args.out) if args.out else None
    if out:
        require_builder()  # say what to install before the demo runs, not after
    with new_out(out) if out else nullcontext():  # a folder the site cannot go to stops the demo before it runs
        done = run_demo(args.root)
        first, last = done.ids[next(iter(done.ids))], done.ids[list(done.ids)[-1]]
        print(f"Agent '{AGENT}' logged {first}–{last} in sessions {', '.join(done.sessions)} (one MCP connection each, and a second on the last day) under {done.root}/")
        print()
        print("## What it read at the start of the last day's second connection (the halo_self_review prompt)")
        print()
        print(done.review)
        print()
        print("## What it logged (halo_trace)")
        print()
        print(done.trace)
        print()
        print(done.report, end="" if done.report.endswith("\n") else "\n")
        if out:
            built = build_site(done.root, out, agents=[AGENT])
            print()
            print(built.message())
    return 0
