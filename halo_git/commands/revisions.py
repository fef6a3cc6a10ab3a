"""``halo-git revisions``: the per-target history and impact of an agent's revisions."""

from __future__ import annotations

import json
import sys

from .. import revisions
from ..errors import NotFound
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "revisions",
        help="per-target history of an agent's revisions: each version, who made it, governance, basis, "
        "commit, approval (proven or claimed), what relied on it, and its impact",
        description="The revision audit trail of an agent's branch: one section per target with its versions "
        "oldest first, the version in force at the head, the events that relied on each, whether its approval is "
        "proven (signed by an allowed signer) or only claimed, and its impact (the session before it against the "
        "session after it).",
    )
    add_common(p)
    p.add_argument("--target", help="only this target (case and spacing ignored)")
    p.add_argument("--format", choices=("md", "json"), default="md", help="Markdown (default) or JSON")
    p.add_argument(
        "--allowed-signers", metavar="FILE",
        help="ssh-keygen allowed-signers file that proves signed approvals (default: $HALO_ALLOWED_SIGNERS, "
        "else <root>/allowed_signers if present)",
    )
    p.add_argument(
        "--gpg-keyring", metavar="FILE",
        help="public keys (gpg --export) that prove GPG-signed approvals (default: $HALO_GPG_KEYRING, else "
        "<root>/allowed_signers.gpg if present)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        h.require_agent(args.agent)
        a = h.audit(args.agent, args.branch, args.allowed_signers, gpg_keyring=args.gpg_keyring)
    if args.target is not None and a.target(args.target) is None:
        known = "; ".join(t.name for t in a.targets[:10]) or "none"
        raise NotFound(f"agent '{args.agent}' has no revision of target {args.target!r}; its targets: {known}")
    if args.format == "json":
        json.dump(revisions.to_json(a, args.target), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(revisions.to_markdown(a, args.target))
    return 0
