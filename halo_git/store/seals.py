"""Write a seal: the head a reviewer saw, kept under ``refs/halo/seals/<branch>/``.

Room: the store. ``Halo.seal`` (``halo-git seal``) calls ``seal``; the format
and the check ``verify`` makes live in ``evidence``. A seal is an annotated tag
(signed like ``git tag -s`` when asked: the SSH or OpenPGP signature appended
to its message, so ``git verify-tag`` accepts it) over a blob stating the
agent, branch, head commit and event count. The ref is created by
compare-and-swap and never moved; sealing the same head twice adds a second seal.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
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
         message: str | None = None, when: int | None = None, head: str | None = None) -> Sealed:
    """Seal the branch's current head (or ``head``, a commit of the branch).

    Raises:
        NotFound: the agent or branch has no events.
        InvalidCall: a signer that cannot sign (from ``signing``).
    """
    ref = branch_ref(branch)
    with repo._lock:
        if not repo.exists:
            raise NotFound(f"agent '{repo.agent}' has no repository; nothing to seal")
        git = repo._open(False)
        current = _read_ref(git, ref)
        if current is None:
            raise NotFound(f"agent '{repo.agent}' has no branch '{branch}'; branches: {', '.join(repo.branches()) or 'none'}")
        head = head.encode() if head is not None else current
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


class Sealer:
    """``serve --seal-every-session``: seal each agent's branch when one of its
    sessions ends (the agent logs under a new session label: the head before
    that event is sealed) and, at ``close``, every head not sealed yet.

    ``appended`` only records and queues, under a lock; a background thread
    writes the seals (signing may start ``ssh-keygen`` or ``gpg``), so an
    append never waits for one. A seal that fails is reported through ``log``.
    """

    def __init__(self, root: Path, identity: signing.Identity, sign: Callable[[bytes], bytes] | None = None,
                 log: Callable[[str], None] | None = None):
        self.root, self.identity, self.sign = Path(root), identity, sign
        self.log = log or (lambda line: None)
        self._lock = threading.Lock()
        self._last: dict[tuple[str, str], tuple[str | None, str, bool]] = {}  # (agent, branch) -> (session, commit, sealed)
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="halo-seal", daemon=True)
        self._thread.start()

    def appended(self, agent: str, branch: str, session: str | None, commit: str, parent: str | None = None) -> None:
        with self._lock:
            prev = self._last.get((agent, branch))
            if prev is not None and prev[0] != session and not prev[2]:
                self._queue.put((agent, branch, prev[1], f"end of session {prev[0]}"))
            self._last[(agent, branch)] = (session, commit, False)

    def close(self) -> None:
        with self._lock:
            for (agent, branch), (session, commit, sealed) in self._last.items():
                if not sealed:
                    self._queue.put((agent, branch, commit, f"end of session {session} (server stopped)"))
            self._last.clear()
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            agent, branch, commit, why = item
            try:
                with AgentRepo(self.root / f"{agent}.git", agent) as repo:
                    done = seal(repo, branch, self.identity, sign=self.sign, message=why, head=commit)
                self.log(f"halo-git serve: sealed {done.ref} (agent '{agent}', e1..e{done.events}, {why})")
            except Exception as e:  # never let one failed seal stop the others
                self.log(f"halo-git serve: could not seal agent '{agent}' branch '{branch}' at {commit[:12]}: {e}")
