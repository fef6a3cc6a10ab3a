"""``halo-git push``: send a branch to the agent's repository on a Git remote.

Fast-forward only and never forced: when the remote holds events this branch
lacks, nothing is pushed and the message says to pull first.
"""

from __future__ import annotations

from ..store import push
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "push",
        help="push a branch to a Git remote (path, file://, ssh://, git://, https://); fast-forward only, never forced",
    )
    add_common(p)
    p.add_argument("remote", metavar="REMOTE", help="URL or path of the agent's remote repository")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        h.require_agent(args.agent)
        print(push(h.store.repo(args.agent), args.remote, args.branch).describe())
    return 0
