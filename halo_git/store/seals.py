"""Write a seal: the head a reviewer saw, kept under ``refs/halo/seals/<branch>/``.

Room: the store. ``Halo.seal`` (``halo-git seal``) calls ``seal``; the format
and the check ``verify`` makes live in ``evidence``. A seal is an annotated tag
(signed like ``git tag -s`` when asked: the SSH or OpenPGP signature appended
to its message, so ``git verify-tag`` accepts it) over a blob stating the
agent, branch, head commit and event count. The ref is created by
compare-and-swap and never moved; sealing the same head twice adds a second seal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from dulwich.objects import Blob, Tag

from ..errors import Conflict, NotFound
from . import evidence, signing
from .repo import ZERO_SHA, AgentRepo, _read_ref, branch_ref, number_from_message

DEFAULT_SEALER = signing.Identity("halo-git", "halo@localhost")


@dataclass(frozen=True)
class Sealed:
    ref: str
    tag: str
    head: str
    events: int
    signed: bool


def seal(repo: AgentRepo, branch: str, identity: signing.Identity, *, sign: Callable[[bytes], bytes] | None = None,
         message: str | None = None, when: int | None = None) -> Sealed:
    """Seal the branch's current head.

    Raises:
        NotFound: the agent or branch has no events.
        InvalidCall: a signer that cannot sign (from ``signing``).
    """
    ref = branch_ref(branch)
    with repo._lock:
        if not repo.exists:
            raise NotFound(f"agent '{repo.agent}' has no repository; nothing to seal")
        git = repo._open(False)
        head = _read_ref(git, ref)
        if head is None:
            raise NotFound(f"agent '{repo.agent}' has no branch '{branch}'; branches: {', '.join(repo.branches()) or 'none'}")
        events = number_from_message(git.object_store[head].message) or 0
        claim = Blob.from_string(evidence.seal_claim(repo.agent, branch, head.decode(), events))
        when = int(time.time()) if when is None else when
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(when))
        text = f"Seal of branch '{branch}' of agent '{repo.agent}': e1..e{events}, head {head.decode()}\n"
        if message:
            text += "\n" + message.strip() + "\n"
        raw = (b"object " + claim.id + b"\ntype blob\ntag halo-seal-e%d-%s\ntagger %s %d +0000\n\n" % (events, stamp.encode(), identity.raw, when)
               + text.encode("utf-8"))
        if sign is not None:
            raw += signing.signed_block(sign(raw))
        tag = Tag.from_raw_string(4, raw)
        git.object_store.add_object(claim)
        git.object_store.add_object(tag)
        base = evidence.seal_prefix(branch) + b"e%d-%s" % (events, stamp.encode())
        name = base
        for n in range(2, 1000):
            if git.refs.set_if_equals(name, ZERO_SHA, tag.id):
                break
            if _read_ref(git, name) == tag.id:
                break
            name = base + b"-%d" % n
        else:
            raise Conflict(f"could not add a seal ref under {base.decode()}; try again")
        return Sealed(name.decode(), tag.id.decode(), head.decode(), events, sign is not None)
