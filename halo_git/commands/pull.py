"""``halo-git pull``: fast-forward a branch from the agent's repository on a Git remote.

Refused, changing nothing, when both sides have new events; --into pulls into
another local branch to compare them with halo-git diff.
"""

from __future__ import annotations

from ..store import pull
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "pull",
        help="fast-forward a branch from a Git remote; refused (nothing changes) when both sides have new events",
    )
    add_common(p)
    p.add_argument("remote", metavar="REMOTE", help="URL or path of the agent's remote repository")
    p.add_argument("--into", metavar="LOCAL", help="local branch to update or create (default: the same name as --branch)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        print(pull(h.store.repo(args.agent), args.remote, args.branch, into=args.into).describe())
    return 0
