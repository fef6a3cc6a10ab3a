"""``halo-git seal``: record the head a reviewer saw, so a later rewrite, truncation or move back fails verify.

Writes an annotated tag (signed with --sign ssh|gpg, which git verify-tag checks)
under refs/halo/seals/<branch>/ naming the head commit and the event count. It
travels with push, pull and clone; halo-git verify checks that every seal is on
the branch (or mapped there by a signed erasure record) and names any that is not.
"""

from __future__ import annotations

from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "seal",
        help="seal the branch head a reviewer saw (refs/halo/seals/<branch>/…, optionally signed); verify then fails if "
        "the history is later rewritten, truncated or moved back",
    )
    add_common(p)
    p.add_argument("--sign", choices=("ssh", "gpg"), help="sign the seal: ssh (ssh-keygen -Y sign -n git) or gpg (gpg -bsau KEY)")
    p.add_argument("--key", metavar="KEY", help="SSH private key file, or GPG key id (default: git config user.signingkey)")
    p.add_argument("--by", metavar="NAME", help="sealer's name (default: git config user.name)")
    p.add_argument("--email", metavar="ADDR", help="sealer's email (default: git config user.email); a signed seal must use the key listed for it")
    p.add_argument("--message", metavar="TEXT", help="what was reviewed, kept in the seal's message")
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        s = h.seal(args.agent, args.branch, sign=args.sign, key=args.key, message=args.message, name=args.by, email=args.email)
    print(f"sealed {s.ref}: branch '{args.branch}' of agent '{args.agent}', e1..e{s.events}, head {s.head}"
          + (" (signed)" if s.signed else " (unsigned)"))
    return 0
