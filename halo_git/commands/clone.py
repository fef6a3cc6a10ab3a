"""``halo-git clone``: bring an agent's repository from a Git remote into the root (or many agents').

Every branch comes along; ``--branch`` picks the one the copy's ``HEAD`` names
(when the remote has it), which plain ``git clone`` of the root then checks out.
With ``--all`` the agents come from one namespace: named with ``--agents`` or
``--agents-file``, or listed when the namespace is a local folder (a Git host
cannot list its repositories over Git; its API can, e.g. ``gh repo list``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InvalidCall
from ..model import check_agent_name
from ..store import clone
from ..store.sync import clone_all, list_namespace
from . import add_common, open_halo, report_outcomes


def add_parser(sub) -> None:
    p = sub.add_parser(
        "clone",
        help="copy an agent's repository (every branch) from a Git remote into the root; --all for many agents",
        description=(
            "Copy one agent's repository, or with --all many agents' from REMOTE/<agent>.git (REMOTE with {agent} "
            "in it: the name goes there). Agents already in the root are skipped (pull --all updates them)."
        ),
    )
    p.add_argument("remote", metavar="REMOTE", help="URL or path of the agent's remote repository; with --all, of the folder or namespace holding <agent>.git")
    add_common(p, agent_required=False)
    p.add_argument("--all", action="store_true", help="clone many agents from the namespace REMOTE")
    p.add_argument("--agents", metavar="A,B", help="with --all: these agents (default: every <agent>.git of a local folder)")
    p.add_argument("--agents-file", metavar="FILE", help="with --all: agent names, one a line ('-': standard input; a trailing .git is dropped)")
    p.set_defaults(run=run)


def _names(args) -> list[str]:
    names: list[str] = []
    if args.agents:
        names += [n.strip() for n in args.agents.split(",") if n.strip()]
    if args.agents_file:
        try:
            text = sys.stdin.read() if args.agents_file == "-" else Path(args.agents_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise InvalidCall(f"cannot read --agents-file {args.agents_file}: {reason}; give a text file with one agent "
                              "name per line, or - for standard input") from None
        names += [line.strip().removesuffix(".git") for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if not (args.agents or args.agents_file):
        names = list_namespace(args.remote)
    return [check_agent_name(n) for n in dict.fromkeys(names)]


def run(args) -> int:
    with open_halo(args) as h:
        if args.all:
            if args.agent:
                raise InvalidCall("pass either --agent A or --all (with --agents a,b), not both")
            present = set(h.agents())
            wanted = [n for n in _names(args) if n not in present]
            for n in sorted(present.intersection(_names(args)) if args.agents or args.agents_file else ()):
                print(f"agent '{n}': already in the root; skipped (halo-git pull --all updates it)")
            return report_outcomes(clone_all(h.root, wanted, args.remote, head=args.branch), "cloned")
        if args.agents or args.agents_file:
            raise InvalidCall("--agents and --agents-file go with --all")
        if not args.agent:
            raise InvalidCall("name the agent with --agent A, or clone many with --all --agents a,b")
        for transfer in clone(h.root, args.agent, args.remote, head=args.branch):
            print(transfer.describe())
    return 0
