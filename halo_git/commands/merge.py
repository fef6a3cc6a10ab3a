"""``halo-git merge``: fold a diverged copy of an agent's trail into a branch.

The source's events the branch lacks are appended after its head with the next
ids, uses/about mapped to the branch's ids and merged_from naming their
original; the source's own commits (signed approvals too) stay in the history
as a second parent. Merging again appends only what is new; merging back the
other way fast-forwards. A source that does not verify is refused.
"""

from __future__ import annotations

import json
import sys

from ..errors import InvalidCall
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "merge",
        help="merge a diverged copy (a branch or commit) into a branch: its new events appended with mapped ids",
    )
    add_common(p)
    p.add_argument("source", metavar="SOURCE", help="branch or commit id of the agent to merge, e.g. ci (a remote: halo-git pull --merge)")
    p.add_argument("--into", metavar="BRANCH", help="branch to merge into (default: --branch)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        h.require_agent(args.agent)
        into = args.into or args.branch
        if args.source == into:
            raise InvalidCall(f"cannot merge branch '{into}' into itself; name another branch or commit of agent '{args.agent}'")
        result = h.merge(args.agent, args.source, into)
    if args.format == "json":
        json.dump(result.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(result.describe())
    return 0
