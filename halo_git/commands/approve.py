"""``halo-git approve``: the user's approval of a revision, in a commit the user authors (and signs)."""

from __future__ import annotations

import json
import sys

from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "approve",
        help="log the user's approval of revision eN as a commit authored (and optionally signed) by the user, "
        "which git verify-commit can check",
        description="Logs a revise event with made_by=user, governance=approved, uses=[eN] and eN's target. Its "
        "commit is authored by the approving user, not the agent, and with --sign ssh (gpg.format=ssh) or --sign gpg "
        "carries a signature that 'git verify-commit' and 'halo-git verify --allowed-signers/--gpg-keyring' check. "
        "Agents cannot approve through MCP: this is a person's act.",
    )
    add_common(p)
    p.add_argument("revision", metavar="eN", help="id of the revise event to approve")
    p.add_argument("--by", metavar="NAME", help="approver's name (default: git config user.name)")
    p.add_argument("--email", metavar="ADDR", help="approver's email (default: git config user.email)")
    p.add_argument("--sign", choices=("ssh", "gpg"), help="sign the commit: ssh (ssh-keygen -Y sign -n git) or gpg (gpg -bsau KEY)")
    p.add_argument("--key", metavar="KEY", help="SSH private key file, or GPG key id (default: git config user.signingkey)")
    p.add_argument("--note", metavar="TEXT", help="why it is approved; becomes the event's summary after 'approved eN: '")
    p.add_argument("--session", help="session label of the approval event (default: review)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args) as h:
        h.require_agent(args.agent)
        earlier = [s for s in h.signoffs(args.agent, args.branch).values() if s.approves == args.revision]
        reply = h.approve(
            args.agent, args.revision, name=args.by, email=args.email, sign=args.sign, key=args.key,
            note=args.note, session=args.session, branch=args.branch,
        )
    print(json.dumps(reply, ensure_ascii=False))
    if earlier:  # allowed (a second approver, a signed one after an unsigned one), but never silently
        listed = "; ".join(f"{s.event} by {s.approver} ({'signed, ' + s.format if s.format else 'unsigned'})" for s in earlier)
        print(f"halo-git approve: {args.revision} was already approved with halo-git approve: {listed}; "
              f"{reply['id']} is one more approval (halo-git revisions --agent {args.agent} lists them all)", file=sys.stderr)
    return 0
