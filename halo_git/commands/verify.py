"""``halo-git verify``: prove a branch's history is exactly what HALO wrote."""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidCall
from ..store import verify_branch
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="check every commit of an agent's branch: one event file each, next id, valid YAML, "
        "earlier uses/about, matching message; exits 1 naming the first bad commit",
    )
    add_common(p)
    p.add_argument(
        "--allowed-signers", metavar="FILE",
        help="also check every signed commit against this ssh-keygen allowed-signers file (as git verify-commit "
        "with gpg.ssh.allowedSignersFile); a bad or unknown signature fails",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        allowed = _allowed_signers(args.allowed_signers)
        result = verify_branch(h.store.repo(args.agent), args.branch, allowed)
    where = f"branch '{result.branch}' of agent '{result.agent}'"
    if result.head is None:
        print(f"ok: {where} has no events yet")
    else:
        print(f"ok: {result.events} events on {where} verified, e1..e{result.events}, head {result.head}")
        if allowed is not None:
            print(f"ok: {result.signed} signed commit(s), each signed by an allowed signer of {allowed}")
    return 0


def _allowed_signers(path: str | None) -> str | None:
    if path is not None and not Path(path).is_file():
        raise InvalidCall(f"--allowed-signers {path!r} is not a file; pass an ssh-keygen allowed-signers file (lines: EMAIL namespaces=\"git\" KEY)")
    return path
