"""``halo-git push``: send a branch to the agent's repository on a Git remote (or every agent's).

Fast-forward only and never forced: when the remote holds events this branch
lacks, nothing is pushed and the message says to pull first.
"""

from __future__ import annotations

from ..errors import InvalidCall
from ..store.sync import push_all, push_recorded
from . import add_common, open_halo, report_outcomes


def add_parser(sub) -> None:
    p = sub.add_parser(
        "push",
        help="push a branch to a Git remote (path, file://, ssh://, git://, https://); fast-forward only, never forced",
        description=(
            "Push one agent's branch to its remote repository, or with --all every agent's branch to "
            "REMOTE/<agent>.git (REMOTE with {agent} in it: the name goes there). The remote repositories must exist."
        ),
    )
    add_common(p, agent_required=False)
    p.add_argument("remote", metavar="REMOTE", help="URL or path of the agent's remote repository; with --all, of the folder or namespace holding <agent>.git")
    p.add_argument("--all", action="store_true", help="push every agent of the root; a failure is reported and the others go on")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        if args.all:
            if args.agent:
                raise InvalidCall("pass either --agent A or --all, not both")
            return report_outcomes(push_all(h.root, h.require_agents(), args.remote, args.branch), "pushed")
        if not args.agent:
            raise InvalidCall("name the agent with --agent A, or push every agent with --all")
        h.require_agent(args.agent)
        print(push_recorded(h.root, args.agent, args.remote, args.branch).describe())
    return 0
