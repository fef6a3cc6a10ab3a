"""``halo-git verify``: prove a branch's history is exactly what HALO wrote.

Walks every commit from e1: one event file each, the next id, canonical YAML,
uses/about naming earlier events, the message, author, committer and time the
event implies. Exits 1 naming the first commit that breaks the contract.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidCall
from ..store import verify_branch
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="check every commit of an agent's branch: one event file each, next id, valid YAML, "
        "earlier uses/about, matching message (and, with --allowed-signers/--gpg-keyring, every signature); "
        "exits 1 naming the first bad commit",
    )
    add_common(p)
    p.add_argument(
        "--allowed-signers", metavar="FILE",
        help="also check every signed commit against this ssh-keygen allowed-signers file (as git verify-commit "
        "with gpg.ssh.allowedSignersFile); a bad or unknown signature fails",
    )
    p.add_argument(
        "--gpg-keyring", metavar="FILE",
        help="also check every GPG-signed commit against the public keys in this file (gpg --export KEY > FILE), with gpgv",
    )
    p.add_argument(
        "--against", metavar="REMOTE", help="also compare with another copy of the branch (a URL or a repository path, e.g. "
        "a clone kept from before an erasure): every difference must be an event a signed erasure record redacted, and the "
        "seals of each copy must hold on the other",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    with open_halo(args, screen=None) as h:
        h.require_agent(args.agent)
        allowed = _file(args.allowed_signers, "--allowed-signers", "an ssh-keygen allowed-signers file (lines: EMAIL namespaces=\"git\" KEY)")
        keyring = _file(args.gpg_keyring, "--gpg-keyring", "a keyring written by gpg --export KEY > FILE")
        result = verify_branch(h.store.repo(args.agent), args.branch, allowed, keyring)
        witnessed = h.witness(args.agent, args.against, args.branch, allowed_signers=allowed, gpg_keyring=keyring) if args.against else None
    where = f"branch '{result.branch}' of agent '{result.agent}'"
    if result.head is None:
        print(f"ok: {where} has no events yet")
    else:
        print(f"ok: {result.events} events on {where} verified, e1..e{result.events}, head {result.head}")
        if allowed is not None or keyring is not None:
            given = " and ".join(p for p in (allowed, keyring) if p)
            print(f"ok: {result.signed} signed commit(s), each signed by an allowed signer of {given}")
        if result.cached:
            print(f"ok: the parsed-event cache of {where} matches Git ({result.cached} events)")
        if result.travelled:
            print(f"ok: the travelling cache refs/halo/cache/{result.branch} matches Git ({result.travelled} events)")
        proof = result.evidence
        if proof is not None:
            for seal in proof.seals:
                print(f"ok: seal {seal.describe()} is on the branch, signature {seal.signature.status}"
                      + (f" ({seal.signature.principal})" if seal.signature.principal else ""))
            for note in proof.notes:
                print(f"ok: {note}")
    for line in witnessed.lines() if witnessed is not None else ():
        print(line)
    return 0


def _file(path: str | None, option: str, what: str) -> str | None:
    if path is not None and not Path(path).is_file():
        raise InvalidCall(f"{option} {path!r} is not a file; pass {what}")
    return path
