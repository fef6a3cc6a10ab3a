"""Merging a diverged copy of an agent's trail, and verifying merges.

A room of the store, called by ``Halo.merge`` (``halo-git merge``, ``pull
--merge``) and by ``verify``. The pure part, which events a merge appends and
with which ids, is ``lineage.plan_merge``; this module reads and writes Git.

**Shape of a merge.** The source's events the target lacks are appended after
the target's head as ordinary event commits (one event, one file, one commit),
each with a ``merged_from`` field naming the source, the id it had there and
its original commit. The first of them has the source's head as a second
parent, so the source's own commits (signed approvals included, signatures
intact) stay in the history; the first-parent line stays the event log every
read uses. When the target's head is already in the source's history the
branch simply fast-forwards.

**Verifying a line.** ``check_line`` checks a first-parent line as ``verify``
always has (``verify.check_history``), then for each merge commit on it checks
the second parent's line the same way (recursively, stopping at commits already
checked), and every event with ``merged_from`` against its original: same
kind, session (or the session with ``@<tag>``), time, summary and fields, with
each ``uses``/``about`` id naming the event of the same origin.
"""

from __future__ import annotations

import os
import time as _time
from dataclasses import dataclass, field
from typing import Callable

from dulwich.file import FileLocked
from dulwich.objects import Commit

from ..errors import Conflict, HaloError, IntegrityError, InvalidCall, NotFound
from ..lineage import MergePlan, origin, plan_merge
from ..model import MAX_SOURCE, Event, merge_origin
from . import maintenance
from .maintenance import OBJ_COMMIT, Item, object_id
from .repo import ZERO_SHA, AgentRepo, _read_ref, branch_ref, number_from_message
from .verify import BadCommit, _Bad, _read, check_history


@dataclass
class Line:
    """A checked first-parent line: its commits and events, oldest first, each
    event's origin, the lines merged into it (``sides``) and where in
    ``sides`` each merge commit's second parent is."""

    commits: list[bytes]
    events: list[Event]
    origins: list[str]
    sides: list["Line"] = field(default_factory=list)
    _set: set[bytes] | None = None

    def holds(self, commit: bytes) -> bool:
        """Whether ``commit`` is in this line's history (first parents or merged lines)."""
        if self._set is None:
            self._set = set(self.commits)
        return commit in self._set or any(side.holds(commit) for side in self.sides)


class Registry:
    """Every commit checked so far: commit -> (line, index)."""

    def __init__(self) -> None:
        self.at: dict[bytes, tuple[Line, int]] = {}
        self.checked: list[Commit] = []  # the commits of merged lines checked here (their signatures: verify)

    def add(self, line: Line, start: int = 0) -> None:
        for i in range(start, len(line.commits)):
            self.at.setdefault(line.commits[i], (line, i))


def _bad(commit: bytes, number: int, reason: str) -> BadCommit:
    return BadCommit(commit.decode(), number, reason)


def _commit(store, sha: bytes, number: int = 0) -> Commit:
    """The commit ``sha``, hash-checked; ``BadCommit`` when it is missing or not a commit."""
    if not _is_sha(sha):
        raise _bad(sha, number, "it is not a commit id")
    try:
        return _read(store, sha, "commit", Commit)
    except _Bad as e:
        raise _bad(sha, number, str(e)) from None


def check_line(store, tip: bytes, agent: str, reg: Registry, *, trusted: Line | None = None) -> Line:
    """Check the line ending at ``tip`` and every line merged into it.

    Commits already in ``reg`` are not checked again. ``trusted`` is a line
    read through the caches (the target of a merge): its events are taken as
    they are, but lines merged into it are checked and registered.

    Raises:
        BadCommit: the first commit HALO could not have written, and why.
    """
    if tip in reg.at:
        line, i = reg.at[tip]
        return line if i == len(line.commits) - 1 else Line(line.commits[: i + 1], line.events[: i + 1], line.origins[: i + 1], line.sides)
    if trusted is not None:
        line, start, chain = trusted, 0, None
    else:
        chain: list[Commit] = []
        sha: bytes | None = tip
        stop: tuple[Line, int] | None = None
        while sha is not None:
            if sha in reg.at:
                stop = reg.at[sha]
                break
            commit = _commit(store, sha)
            if len(commit.parents) > 2:
                raise _bad(sha, number_from_message(commit.message) or 0, f"it has {len(commit.parents)} parents; a merged event commit has two")
            chain.append(commit)
            sha = commit.parents[0] if commit.parents else None
        chain.reverse()
        if stop is None:
            prefix_c: list[bytes] = []
            prefix_e: list[Event] = []
            prefix_o: list[str] = []
            parent = None
            sides: list[Line] = []
        else:
            base, i = stop
            prefix_c, prefix_e, prefix_o = base.commits[: i + 1], base.events[: i + 1], base.origins[: i + 1]
            parent = _commit(store, base.commits[i])
            sides = list(base.sides)
        events = check_history(store, chain, agent, parent=parent, earlier=prefix_e)
        reg.checked.extend(chain)
        line = Line(prefix_c + [c.id for c in chain], prefix_e + events, prefix_o + [""] * len(chain), sides)
        start = len(prefix_c)
    reg.add(line, start)  # first: a line merged into this one stops where it forked from it
    _check_merged(store, line, start, agent, reg, chain)
    return line


def _is_sha(sha: bytes) -> bool:
    return len(sha) == 40 and all(c in b"0123456789abcdef" for c in sha)


def _check_merged(store, line: Line, start: int, agent: str, reg: Registry, chain: list[Commit] | None) -> None:
    """Merge commits and merged events of ``line`` from ``start`` on; fills ``line.origins``."""
    held: dict[str, str] = {}
    for i in range(start):
        held.setdefault(line.origins[i], line.events[i].id)
    for i in range(start, len(line.commits)):
        event = line.events[i]
        sha = line.commits[i]
        commit = chain[i - start] if chain is not None else None
        if commit is None and event.merged_from is not None:
            commit = _commit(store, sha, event.number)
        if commit is not None and len(commit.parents) == 2:
            if event.merged_from is None:
                raise _bad(sha, event.number, "it has two parents but its event has no merged_from; only the first event a merge appends has two")
            try:
                side = check_line(store, commit.parents[1], agent, reg)
            except BadCommit as e:
                raise _bad(sha, event.number, f"the history it merges is not HALO's: commit {e.commit[:12]} (position e{e.number} there): {e.reason}") from None
            line.sides.append(side)
        o = sha.decode() if event.merged_from is None else _check_copy(store, line, i, event, held, reg)
        if o in held:
            raise _bad(sha, event.number, f"it repeats {held[o]}, which holds the same original event (commit {o[:12]})")
        line.origins[i] = o
        held[o] = event.id


def _check_copy(store, line: Line, i: int, event: Event, held: dict[str, str], reg: Registry) -> str:
    """Check a merged event against its original; returns the original commit."""
    sha = line.commits[i]
    try:
        m = merge_origin(event.merged_from)
    except InvalidCall as e:
        raise _bad(sha, event.number, e.base) from None
    found = reg.at.get(m.commit.encode())
    if found is None:
        raise _bad(sha, event.number, f"its merged_from names commit {m.commit[:12]}, which is not in the history merged before it")
    src, j = found
    o = src.events[j]
    if o.id != m.id:
        raise _bad(sha, event.number, f"its merged_from says {m.id}, but commit {m.commit[:12]} holds {o.id}")
    if o.merged_from is not None:
        raise _bad(sha, event.number, f"its merged_from names commit {m.commit[:12]}, itself a merged event; name its original")

    def mapped(u: str) -> str | None:
        return held.get(src.origins[int(u[1:]) - 1])

    wrong = []
    if (o.kind, o.time, o.summary) != (event.kind, event.time, event.summary):
        wrong.append("kind, time or summary")
    if event.session != o.session and not event.session.startswith(o.session + "@"):
        wrong.append("session")
    for name, value in o.fields.items():
        if (mapped(value) if name == "about" else value) != event.fields.get(name):
            wrong.append(name)
    if tuple(mapped(u) for u in o.uses) != event.uses:
        wrong.append("uses (mapped to this line's ids)")
    if wrong:
        raise _bad(sha, event.number, f"it differs from its original {o.id} (commit {m.commit[:12]}) in: {', '.join(wrong)}")
    return m.commit


def check_merges(store, chain: list[Commit], events: list[Event], agent: str) -> list[Commit]:
    """``verify``'s merge pass over a checked first-parent ``chain``; returns the
    commits of the lines merged into it (none when it never merged: no extra read),
    whose signatures ``verify`` checks like the chain's.

    Raises:
        BadCommit: as ``check_line``.
    """
    merges = sum(1 for c in chain if len(c.parents) == 2)
    if not merges and all(e.merged_from is None for e in events):
        return []
    for c in chain:
        if len(c.parents) > 2:
            raise _bad(c.id, number_from_message(c.message) or 0, f"it has {len(c.parents)} parents; a merged event commit has two")
    line = Line([c.id for c in chain], list(events), [""] * len(chain))
    reg = Registry()
    reg.add(line)
    _check_merged(store, line, 0, agent, reg, chain)
    return reg.checked


# -- merging ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Merged:
    """What a merge did: ``status`` is ``merged``, ``fast-forward`` or ``up-to-date``."""

    agent: str
    branch: str
    source: str
    status: str
    old: str | None
    new: str | None
    appended: int = 0  # events appended
    held: int = 0  # source events the branch already held
    renamed: tuple[tuple[str, str], ...] = ()  # (source session, label on the branch)
    first: str | None = None  # id of the first appended event
    last: str | None = None

    def describe(self) -> str:
        where = f"agent '{self.agent}' branch '{self.branch}'"
        if self.status == "up-to-date":
            return f"{where}: already holds every event of {self.source} ({(self.new or '')[:12]})"
        if self.status == "fast-forward":
            return f"{where}: fast-forwarded to {self.source} ({(self.old or '')[:12]}..{(self.new or '')[:12]})"
        span = self.first if self.first == self.last else f"{self.first}..{self.last}"
        text = (f"{where}: merged {self.appended} event(s) of {self.source} as {span} "
                f"({self.held} already held; {(self.old or '')[:12]}..{(self.new or '')[:12]})")
        for old, new in self.renamed:
            text += f"; session '{old}' of {self.source} is '{new}' here"
        return text

    def as_dict(self) -> dict:
        return {
            "agent": self.agent, "branch": self.branch, "source": self.source, "status": self.status,
            "old": self.old, "new": self.new, "appended": self.appended, "held": self.held,
            "first": self.first, "last": self.last, "renamed": dict(self.renamed),
        }


def check_label(label: str) -> str:
    if not isinstance(label, str) or not label.strip() or len(label) > MAX_SOURCE or any(ord(c) < 32 or c in "\x7f\x85\u2028\u2029" for c in label):
        raise InvalidCall(f"the merge source is named {str(label)[:80]!r}: name it on one line of at most {MAX_SOURCE} characters")
    return label


def merge(repo: AgentRepo, source: str, into: str, *, store=None, tip: bytes | None = None, label: str | None = None,
          before_write: Callable[[], None] | None = None, retries: int = 20) -> Merged:
    """Merge ``source`` (a branch or commit of ``repo``; or ``tip`` in ``store``,
    e.g. fetched from a remote) into the branch ``into``.

    ``before_write`` runs once the merge is decided and checked, before any ref
    moves (a pull adopts the fetched pack there).

    Raises:
        NotFound: no such branch or commit.
        InvalidCall: merging a branch into itself.
        IntegrityError: the source's history is not one HALO wrote (nothing changed).
        Conflict: the branch stayed busy.
    """
    ref = branch_ref(into)
    with repo._lock:
        git = repo._open(False)
        if tip is None:
            if source == into:
                raise InvalidCall(f"cannot merge branch '{into}' into itself; name another branch or commit of agent '{repo.agent}'")
            tip = repo.resolve(source).encode()
            label = label or (source if source in repo.branches() else source[:12])
        label = check_label(label or source)
        objects = store if store is not None else git.object_store
        for _attempt in range(retries):
            log = repo.log(into)
            if log.head is None:
                raise NotFound(f"agent '{repo.agent}' has no branch '{into}' to merge into; create it first: "
                               f"halo-git branch --agent {repo.agent} {into} --from {label}")
            old = log.head.encode()
            if old == tip:
                return Merged(repo.agent, into, label, "up-to-date", log.head, log.head)
            reg = Registry()
            try:
                target = check_line(objects, old, repo.agent, reg, trusted=Line([c.encode() for c in log.commits], list(log.events), [""] * len(log.events)))
                src = check_line(objects, tip, repo.agent, reg)
            except BadCommit as e:
                raise _refused(repo.agent, label, e) from None
            if src.holds(old):
                if before_write is not None:
                    before_write()
                    before_write, objects = None, git.object_store
                if git.refs.set_if_equals(ref, old, tip):
                    return Merged(repo.agent, into, label, "fast-forward", log.head, tip.decode(), held=len(log.events))
                continue
            plan = plan_merge(repo.agent, target.events, target.origins, src.events, src.origins, label)
            if not plan.appended:
                return Merged(repo.agent, into, label, "up-to-date", log.head, log.head, held=plan.held)
            if before_write is not None:
                before_write()
                before_write, objects = None, git.object_store
            new = _write(repo, git, plan, old, tip)
            try:
                moved = git.refs.set_if_equals(ref, old, new)
            except FileLocked as e:
                repo._clear_if_stale(e.lockfilename)
                moved = False
            if moved:
                first, last = plan.appended[0], plan.appended[-1]
                if last.number // maintenance.PACK_EVERY > (first.number - 1) // maintenance.PACK_EVERY:
                    repo._packer.request()
                return Merged(repo.agent, into, label, "merged", log.head, new.decode(), len(plan.appended), plan.held,
                              tuple(sorted(plan.renamed.items())), first.id, last.id)
            _time.sleep(0.01)
        raise Conflict(f"branch '{into}' of agent '{repo.agent}' stayed busy while merging; try again")


def _write(repo: AgentRepo, git, plan: MergePlan, old: bytes, tip: bytes) -> bytes:
    """Write the plan's commits on ``old`` (the first with ``tip`` as second parent); returns the last commit."""
    with repo._writing("nothing was merged"):
        first_commit = git.object_store[old]
        items = repo._event_objects(plan.appended[0], first_commit.tree, old)
        raw = items[-1].raw
        at = raw.index(b"\n", raw.index(b"\nparent ") + 1) + 1
        raw = raw[:at] + b"parent " + tip + b"\n" + raw[at:]
        items[-1] = Item(object_id(OBJ_COMMIT, raw), OBJ_COMMIT, raw, None)
        repo._write_loose(git, items)
        head = items[-1].sha.hex().encode()
        if len(plan.appended) > 1:
            _done, head, _pack = repo._write_batch(git, plan.appended[1:], repo._spine.root, head)
        return head


def _refused(agent: str, label: str, e: BadCommit) -> HaloError:
    if e.other_agent:
        return NotFound(f"{label} holds the trace of agent '{e.other_agent}', not '{agent}': nothing was merged; "
                        f"merge only copies of the same agent's trail")
    return IntegrityError(
        f"refused: {label} does not verify: commit {e.commit[:12]} (position e{e.number} there) is not an event commit "
        f"HALO would write: {e.reason}. Nothing was merged; restore that copy from a good one, or run halo-git verify on it",
        e.commit,
    )


def pull_merge(repo: AgentRepo, url: str, branch: str, into: str | None = None) -> Merged:
    """Fetch the remote's ``branch`` and merge it into ``into`` (default ``branch``):
    a fast-forward when this side has nothing new, else a merge. The fetched
    objects stay in a scratch store until the merge is checked; a refused merge
    leaves nothing behind.

    Raises:
        NotFound: no repository here (clone it), or no such remote branch.
        IntegrityError: the remote's history does not verify.
    """
    from .remote import _HEADS, _adopt, _cmd, _fetch_into, _incoming, _redact, check_url

    check_url(url)
    into = into or branch
    remote_ref = branch_ref(branch)
    shown = _redact(url)
    if not repo.exists:
        raise NotFound(f"agent '{repo.agent}' has no repository under this root; bring it in with: {_cmd('clone', shown, '--agent', repo.agent)}")
    with repo._lock:
        local = repo._open(False)
        old = _read_ref(local, branch_ref(into))
        if old is None:
            raise NotFound(f"agent '{repo.agent}' has no branch '{into}' to merge into; pull without --merge to create it")
        with _incoming(repo) as store:
            refs = _fetch_into(local, url, store, remote_ref, old, shown, repo.agent)
            new = refs.get(remote_ref)
            if new is None:
                names = sorted(r[len(_HEADS):].decode() for r, s in refs.items() if r.startswith(_HEADS) and s)
                raise NotFound(f"{shown} has no branch '{branch}'; its branches: {', '.join(names) or 'none (an empty repository)'}")
            label = shown if branch == into else f"{shown} {branch}"
            return merge(repo, label, into, store=store, tip=new, label=label,
                         before_write=lambda: _adopt(store, repo.path / "objects"))


# -- transfers of merged histories (push, pull) ---------------------------------------------


def reaches(store, tip: bytes, target: bytes) -> bool:
    """Whether ``target`` is in the history of ``tip`` through any parent (a
    merged line included). Called only when the first-parent walk said no."""
    seen: set[bytes] = set()
    stack = [tip]
    while stack:
        sha = stack.pop()
        while sha is not None and sha not in seen:
            if sha == target:
                return True
            seen.add(sha)
            try:
                commit = store[sha]
            except KeyError:
                break
            parents = getattr(commit, "parents", [])
            stack.extend(parents[1:])
            sha = parents[0] if parents else None
    return False


def new_commits(store, tip: bytes, old: bytes | None) -> list[Commit]:
    """Every commit in the history of ``tip`` (merged lines included) that the
    history of ``old`` lacks: what a push of ``tip`` to a remote at ``old`` sends
    once merges are involved (both histories are walked: only then)."""
    have = set(_line(store, old, set())) if old is not None else set()
    return [store[s] for s in _line(store, tip, have)]


def _line(store, tip: bytes, stop: set[bytes]) -> list[bytes]:
    """Commits reachable from ``tip`` (every parent) and not in ``stop``."""
    out, seen, stack = [], set(), [tip]
    while stack:
        sha = stack.pop()
        if sha in stop or sha in seen or sha not in store:
            continue
        seen.add(sha)
        out.append(sha)
        stack.extend(store[sha].parents)
    return out


def check_incoming_merges(store, tip: bytes, old: bytes | None, repo: AgentRepo, branch: str) -> None:
    """After a pull checked the first-parent commits from ``old`` to ``tip``:
    check the lines they merge and every merged event (nothing to do when none
    of them merges).

    Raises:
        BadCommit: as ``check_line``.
    """
    sha: bytes | None = tip
    merged = False
    while sha is not None and sha != old:
        c = store[sha]
        merged |= len(c.parents) == 2
        sha = c.parents[0] if c.parents else None
    if not merged:
        return
    reg = Registry()
    if old is not None:
        log = repo.log(branch)
        check_line(store, old, repo.agent, reg, trusted=Line([c.encode() for c in log.commits], list(log.events), [""] * len(log.events)))
    check_line(store, tip, repo.agent, reg)


# -- evidence covering events (for ``Halo.history``) ------------------------------------------


def seals_of(repo: AgentRepo, branch: str, commits: list[str]) -> list[dict]:
    """The seals of ``branch`` (``refs/halo/seals/<branch>/``) as plain data: name,
    head, how many events it covers, who sealed it, its signature status (not
    checked against any trust file here: ``verify`` does that) and whether its head
    is the branch's commit at that position (``commits``: the branch's commits)."""
    from . import evidence

    out = []
    with repo._lock:
        if not repo.exists:
            return out
        git = repo._open(False)
        for ref, sha in sorted(evidence.local_refs(git, branch).items()):
            if not ref.startswith(evidence.SEALS):
                continue
            try:
                s = evidence.read_seal(git.object_store, ref, sha, None, None)
            except Exception:  # an unreadable seal is verify's to report
                continue
            on = 0 < s.events <= len(commits) and commits[s.events - 1] == s.head
            out.append({"name": s.name, "head": s.head, "events": s.events, "sealed_by": s.signer,
                        "signature": s.signature.status, "on_branch": on})
    return out
