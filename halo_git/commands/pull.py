"""``halo-git pull``: fast-forward a branch from the agent's repository on a Git remote (or every agent's).

Refused, changing nothing, when both sides have new events; --into pulls into
another local branch to compare them with halo-git diff.
"""

from __future__ import annotations

from ..errors import InvalidCall
from ..store import pull
from ..store.sync import pull_all
from . import add_common, open_halo, report_outcomes


def add_parser(sub) -> None:
    p = sub.add_parser(
        "pull",
        help="fast-forward a branch from a Git remote; refused (nothing changes) when both sides have new events",
        description=(
            "Fast-forward one agent's branch from its remote repository, or with --all every agent of the root "
            "from REMOTE/<agent>.git (REMOTE with {agent} in it: the name goes there). New agents come with clone --all."
        ),
    )
    add_common(p, agent_required=False)
    p.add_argument("remote", metavar="REMOTE", help="URL or path of the agent's remote repository; with --all, of the folder or namespace holding <agent>.git")
    p.add_argument("--into", metavar="LOCAL", help="local branch to update or create (default: the same name as --branch)")
    p.add_argument("--all", action="store_true", help="pull every agent of the root; a failure is reported and the others go on")
    p.add_argument("--merge", action="store_true", help="when both sides have new events, merge the remote's into the branch "
                   "(see halo-git merge) instead of refusing")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        if args.all:
            if args.merge:
                raise InvalidCall("--merge merges one agent's copy; name it with --agent instead of --all")
            if args.agent or args.into:
                raise InvalidCall("--all pulls each agent's --branch into the same branch; drop --agent and --into")
            return report_outcomes(pull_all(h.root, h.require_agents("clone them first: halo-git clone --all REMOTE --agents a,b"),
                                            args.remote, args.branch), "pulled")
        if not args.agent:
            raise InvalidCall("name the agent with --agent A, or pull every agent of the root with --all")
        if args.merge:
            print(h.merge(args.agent, args.branch, args.into or args.branch, remote=args.remote).describe())
            return 0
        print(pull(h.store.repo(args.agent), args.remote, args.branch, into=args.into).describe())
    return 0
