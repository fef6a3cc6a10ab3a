"""``halo-git clone``: bring an agent's repository from a Git remote into the root.

Every branch comes along; ``--branch`` picks the one the copy's ``HEAD`` names
(when the remote has it), which plain ``git clone`` of the root then checks out.
"""

from __future__ import annotations

from ..store import clone
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("clone", help="copy an agent's repository (every branch) from a Git remote into the root")
    p.add_argument("remote", metavar="REMOTE", help="URL or path of the agent's remote repository")
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        for transfer in clone(h.root, args.agent, args.remote, head=args.branch):
            print(transfer.describe())
    return 0
