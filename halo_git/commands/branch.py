"""``halo-git branch``: start a branch of an agent's trace, or list its branches.

A new branch starts at --from (a branch, a commit id, or an event id such as
e12 on --branch: the branch then holds e1..e12; default: the head of --branch)
and its ids continue from there, so prompt v2 can be run beside prompt v1 and compared
with halo-git diff.
"""

from __future__ import annotations

import re
import shlex

from ..errors import NotFound
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "branch",
        help="create a branch of an agent's trace (ids continue from the fork point), or list branches without NEW",
    )
    add_common(p)
    p.add_argument("new", nargs="?", metavar="NEW", help="name of the new branch, e.g. prompt-v2")
    p.add_argument("--from", dest="from_rev", metavar="REV",
                   help="branch, commit id or event id (e12: after that event of --branch) to start from (default: --branch, i.e. main)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        h.require_agent(args.agent)
        repo = h.store.repo(args.agent)
        if args.new is None:
            for name in repo.branches():
                print(name)
            return 0
        start = args.from_rev or args.branch
        if re.fullmatch(r"e[1-9][0-9]*", start) and start not in repo.branches():
            log = repo.log(args.branch)
            if int(start[1:]) > len(log.commits):
                last = f"e{len(log.commits)}" if log.commits else "none"
                raise NotFound(f"no event {start} on branch '{args.branch}' of agent '{args.agent}' (its last is {last}); "
                               "pass an event id it holds, or --branch the branch that holds it")
            start = log.commit_of(start)
        sha = repo.create_branch(args.new, start)
        tip = repo.tail(args.new, 1)
    last = tip[-1].id if tip else "no events"
    print(f"created branch '{args.new}' of agent '{args.agent}' at {sha[:12]} ({last}); log to it with --branch {shlex.quote(args.new)}")
    return 0
