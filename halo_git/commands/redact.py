"""``halo-git redact``: erase the text of events on request, verifiably.

Each named event's summary becomes a tombstone, [redacted <date> by <name>: <reason>],
keeping its id, kind, session, time, uses and own fields; every later commit is
re-created on trees identical but for the redacted files; an erasure record
(signed with --sign) under refs/halo/erasures/<branch>/ maps each old commit to
its new one; the old objects are removed from the repository (packs rewritten,
loose objects and reflog lines pruned) and the caches rebuilt. A redaction
killed midway is completed by running it again (or with --resume). With
--policy FILE, the events a retention policy selects are listed (a dry run)
or, with --apply, redacted.
"""

from __future__ import annotations

import sys

from ..errors import InvalidCall
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "redact",
        help="erase the text of events eN … (tombstone, rewritten later commits, signed erasure record, old objects "
        "removed); --policy FILE applies a retention policy (dry run unless --apply)",
    )
    add_common(p)
    p.add_argument("events", nargs="*", metavar="eN", help="ids of the events whose text is erased")
    p.add_argument("--reason", help="why (kept in the tombstone and the record), e.g. 'erasure request 2026-12-01'")
    p.add_argument("--by", metavar="NAME", help="who erases (default: git config user.name)")
    p.add_argument("--email", metavar="ADDR", help="their email (default: git config user.email); a signed record must use the key listed for it")
    p.add_argument("--sign", choices=("ssh", "gpg"), help="sign the erasure record: ssh (ssh-keygen -Y sign -n git) or gpg")
    p.add_argument("--key", metavar="KEY", help="SSH private key file, or GPG key id (default: git config user.signingkey)")
    p.add_argument("--resume", action="store_true", help="only complete a redaction that was interrupted")
    p.add_argument("--policy", metavar="FILE", help="a retention policy (halo-retention.yaml): redact what it selects")
    p.add_argument("--apply", action="store_true", help="with --policy: redact (default: list what would go, change nothing)")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        if args.policy:
            if args.events:
                raise InvalidCall("pass either event ids or --policy FILE, not both")
            plan = h.retention(args.agent, args.policy, args.branch)
            for line in plan.lines():
                print(line)
            if not args.apply or not plan.events:
                if plan.events:
                    print(f"dry run: {len(plan.events)} event(s) would be redacted; pass --apply to redact them")
                return 0
            result = h.redact(args.agent, plan.events, args.reason or plan.reason, args.branch, name=args.by, email=args.email,
                              sign=args.sign, key=args.key)
        elif args.resume:
            result = h.redact(args.agent, [], "", args.branch, resume=True)
            if result is None:
                print(f"no interrupted redaction on branch '{args.branch}' of agent '{args.agent}'")
                return 0
        else:
            if not args.events:
                raise InvalidCall("name the events to redact (e.g. e5 e9), pass --policy FILE, or --resume")
            if not args.reason:
                raise InvalidCall("pass --reason TEXT: why the text is erased (kept in the tombstone and the record)")
            result = h.redact(args.agent, args.events, args.reason, args.branch, name=args.by, email=args.email,
                              sign=args.sign, key=args.key)
    print(result.describe())
    print(f"rebuild every site published from branch '{result.branch}' of agent '{result.agent}' (halo-git site), and "
          "push the branch to every remote that holds it (halo-git push replaces the old history there only if it is "
          "still at the old head)", file=sys.stderr)
    return 0
