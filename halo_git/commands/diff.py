"""``halo-git diff``: how an agent's behaviour differs between two branches or commits.

From their merge base: events and channels on each side, loop metrics and
findings of each whole branch, revisions only on one side; Markdown fits a
pull-request comment, JSON lists everything.
"""

from __future__ import annotations

import sys

from ..diff import render_diff_json, render_diff_markdown
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "diff",
        help="compare two branches (or commit ids) of an agent from their merge base: events, channels, loop metrics, findings, revisions",
    )
    add_common(p)
    p.add_argument("base", metavar="BASE", help="branch or commit id to compare against, e.g. main")
    p.add_argument("head", metavar="HEAD", nargs="?", help="branch or commit id to compare, e.g. prompt-v2 (default: --branch)")
    p.add_argument("--format", choices=("md", "json"), default="md", help="md (default; fits a pull-request comment) or json")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        h.require_agent(args.agent)
        diff = h.diff(args.agent, args.base, args.head or args.branch)
    if args.head is None:  # one side given: say what the other one was
        print(f"halo-git diff: compared BASE {args.base} with HEAD {args.branch} (--branch, as no HEAD was given); "
              f"pass HEAD to compare another branch or commit, e.g. halo-git diff --agent {args.agent} {args.base} prompt-v2",
              file=sys.stderr)
    sys.stdout.write(render_diff_markdown(diff) if args.format == "md" else render_diff_json(diff))
    return 0
