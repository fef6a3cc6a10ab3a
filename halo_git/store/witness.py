"""Compare this copy of a branch with another one: ``halo-git verify --against REMOTE|PATH``.

Room: the store. ``Halo.witness`` calls ``compare``. The other copy (a remote
URL or a repository path, e.g. an auditor's clone kept from before an
erasure) is fetched into a scratch store beside the repository, with its seals
and erasure records; nothing here changes. Then, position by position along
the two first-parent lines:

* the same commit: agreed;
* a commit of theirs that this copy's signed erasure records map to ours: the
  two trees are compared entry by entry, and every event file that differs
  must be one the records redacted -- the changed events are listed;
* anything else is a rewrite on one side: the comparison fails naming the
  first position where they part.

Their seals must hold on our branch (through our records), and ours on theirs
as far as it reaches: a rewrite on either side shows against the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from dulwich.objects import parse_tree

from ..errors import IntegrityError, NotFound
from . import evidence, signing
from .remote import _fetch_into, _incoming, _redact, check_url
from .repo import AgentRepo, _read_ref, branch_ref, event_path
from .erasure import _walk


@dataclass(frozen=True)
class Witnessed:
    """What comparing the two copies found."""

    other: str
    ours: int  # events here
    theirs: int  # events there
    agreed: int  # positions holding the same commit
    changed: tuple[str, ...]  # event ids whose files differ, each redacted by a record
    records: tuple[str, ...]  # names of the records that explain the differences
    seals: int  # seals checked on both sides

    def lines(self) -> list[str]:
        out = [f"ok: {self.other} holds e1..e{self.theirs}, this copy e1..e{self.ours}; {self.agreed} position(s) hold the same commit"]
        if self.changed:
            out.append(f"ok: the copies differ only in {', '.join(self.changed)}, redacted by erasure {', '.join(self.records)} "
                       "(compared tree by tree at every rewritten position)")
        out.append(f"ok: {self.seals} seal(s) of either copy hold on the other")
        return out


def compare(repo: AgentRepo, branch: str, url: str, allowed: str | None, keyring: str | None) -> Witnessed:
    """Compare ``branch`` here with the same branch at ``url`` (see the module docstring).

    Raises:
        NotFound: no such branch here or there.
        IntegrityError: the copies part where no signed erasure record explains it, or a seal fails.
    """
    check_url(url)
    shown = _redact(url)
    ref = branch_ref(branch)
    with repo._lock:
        git = repo._open(False)
        ours_head = _read_ref(git, ref)
        if ours_head is None:
            raise NotFound(f"agent '{repo.agent}' has no branch '{branch}' here")
        records = [r for r in evidence.records_of(git, branch, allowed, keyring)
                   if r.signature.status == signing.GOOD or (allowed is None and keyring is None and r.signature.status == signing.UNCHECKED)]
        with _incoming(repo) as store:
            refs = _fetch_into(git, url, store, ref, None, shown, repo.agent, evidence_of=branch)
            theirs_head = refs.get(ref)
            if theirs_head is None:
                raise NotFound(f"{shown} has no branch '{branch}'")
            ours = [c.decode() for c in _walk(git.object_store, ours_head)]
            theirs = [c.decode() for c in _walk(store, theirs_head)]
            where = f"branch '{branch}' of agent '{repo.agent}'"
            changed: set[int] = set()
            redacted = {int(e[1:]) for r in records for e in r.events}
            agreed = 0
            used: set[str] = set()
            trees = _TreeDiff(store)
            for i in range(min(len(ours), len(theirs))):
                if ours[i] == theirs[i]:
                    agreed += 1
                    continue
                mapped = evidence.forward(theirs[i], records)
                if mapped != ours[i]:
                    raise IntegrityError(
                        f"{shown} and this copy part at e{i + 1} of {where}: there commit {theirs[i][:12]}, here {ours[i][:12]}, "
                        "and no signed erasure record maps one to the other: one side was rewritten. Compare them with "
                        f"halo-git pull --agent {repo.agent} {shown} --into {branch}-other and halo-git diff")
                used.update(r.name for r in records if theirs[i] in r.map)
                diff = trees(store[theirs[i].encode()].tree, store[ours[i].encode()].tree)
                unexplained = sorted(diff - redacted)
                if unexplained:
                    shown_ids = ", ".join(f"e{n} ({event_path(n)})" if n > 0 else "a file that is no event file" for n in unexplained)
                    raise IntegrityError(
                        f"{shown} and this copy of {where} differ at e{i + 1} in {shown_ids}, which no erasure record "
                        "redacted: the rewrite changed more than its record says")
                changed |= diff
            seals = 0
            for s_ref, sha in sorted(evidence.branch_refs(refs, branch).items()):
                if not s_ref.startswith(evidence.SEALS):
                    continue
                try:
                    seal = evidence.read_seal(store, s_ref, sha, allowed, keyring)
                except evidence._Unreadable:
                    continue
                _seal_holds(seal, ours, records, f"{shown}'s seal", "this copy")
                seals += 1
            for seal in _our_seals(git, branch):
                if seal.events <= len(theirs):
                    there = evidence.forward(theirs[seal.events - 1], records)
                    if there != evidence.forward(seal.head, records):
                        raise IntegrityError(
                            f"this copy's seal {seal.ref} (head {seal.head[:12]}, e1..e{seal.events}) does not hold on {shown}: its "
                            f"e{seal.events} is {theirs[seal.events - 1][:12]}; the other copy was rewritten after the seal")
                seals += 1
    return Witnessed(shown, len(ours), len(theirs), agreed, tuple(f"e{n}" for n in sorted(changed)), tuple(sorted(used)), seals)


def _our_seals(git, branch: str) -> list[evidence.Seal]:
    out = []
    for ref, sha in sorted(evidence.local_refs(git, branch).items()):
        if ref.startswith(evidence.SEALS):
            try:
                out.append(evidence.read_seal(git.object_store, ref, sha, None, None))
            except evidence._Unreadable:
                continue
    return out


def _seal_holds(seal: evidence.Seal, chain: list[str], records, whose: str, side: str) -> None:
    now = evidence.forward(seal.head, records)
    if not (1 <= seal.events <= len(chain) and chain[seal.events - 1] == now):
        raise IntegrityError(f"{whose} {seal.ref} (head {seal.head[:12]}, e1..e{seal.events}, by {seal.signer}) does not hold on "
                             f"{side}: {side} was rewritten, truncated or moved back after the seal")


class _TreeDiff:
    """Event numbers whose files differ between two root trees (equal subtrees skipped)."""

    def __init__(self, store):
        self.store = store
        self.memo: dict[tuple[bytes, bytes], frozenset[int]] = {}

    def __call__(self, a: bytes, b: bytes) -> set[int]:
        return set(self._diff(a, b))

    def _diff(self, a: bytes, b: bytes) -> frozenset[int]:
        if a == b:
            return frozenset()
        key = (a, b)
        if key in self.memo:
            return self.memo[key]
        ea = {n: (m, s) for n, m, s in parse_tree(self.store.get_raw(a)[1], 20)}
        eb = {n: (m, s) for n, m, s in parse_tree(self.store.get_raw(b)[1], 20)}
        out: set[int] = set()
        for name in set(ea) | set(eb):
            x, y = ea.get(name), eb.get(name)
            if x == y:
                continue
            if x is not None and y is not None and x[0] == y[0] == 0o040000:
                out |= self._diff(x[1], y[1])
            elif name.startswith(b"e") and name.endswith(b".yaml") and name[1:-5].isdigit():
                out.add(int(name[1:-5]))
            else:
                out.add(-1)  # not an event file: never explained by a redaction
        result = frozenset(out)
        if len(self.memo) > 100_000:
            self.memo.clear()
        self.memo[key] = result
        return result
