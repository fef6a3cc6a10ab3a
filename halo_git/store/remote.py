"""Agent repositories travel through ordinary Git remotes: push, pull, clone.

Any URL dulwich speaks works: a path, ``file://``, ``ssh://`` (or
``user@host:path``), ``git://`` and ``https://``. The remote is the agent's own
repository, branch names are the same on both ends.

History is append-only, so only fast-forwards are allowed, in both directions,
and nothing is ever forced. When two ends grew different events after a common
point (ids continue from the fork on each side, so both may hold a different
``e41``), the transfer is refused with a message saying what to do: pull the
remote branch into a new local branch, then ``halo-git diff`` the two.

A pull changes nothing when it is refused: the incoming pack is first
unpacked into a scratch object store beside the repository (which sees the
repository's objects through Git's *alternates* mechanism), the decision is
made there, and only an accepted pack is moved into ``objects/pack`` before
the branch is swapped by compare-and-swap, as appends are.

Every incoming commit is checked there exactly as ``verify`` checks a branch
(``verify.check_history``: one file at the next event's path, HALO's YAML of
a valid event, the next id, ``uses``/``about`` naming earlier events, message,
author, time not before its parent's) before any ref moves; the first commit
HALO could not have written is named and the branch stays where it was. A
clone checks every branch the same way before the copy is renamed into place.

HALO histories are linear and every commit message starts with its event id,
so ancestry is decided by walking first parents down to a known event number:
the walk costs the number of events transferred, not the size of the history,
and a commit that is not an event commit is refused as foreign.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from tempfile import SpooledTemporaryFile
from typing import Iterator

from dulwich.client import HTTPUnauthorized, StrangeHostname, get_transport_and_path
from dulwich.errors import GitProtocolError, NotGitRepository
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Commit
from dulwich.pack import pack_objects_to_data
from dulwich.repo import Repo

from ..errors import Conflict, HaloError, IntegrityError, InvalidCall, NotFound
from ..model import check_agent_name
from . import limits
from . import erasure, evidence, merge, snapshot
from .credentials import with_git_credentials
from .repo import CACHE_DIR, DEFAULT_BRANCH, ZERO_SHA, AgentRepo, _read_ref, branch_ref, number_from_message
from .verify import BadCommit, check_history

_HEADS = b"refs/heads/"
_SPOOL = 16 << 20  # keep incoming packs up to 16 MiB in memory, then spill to disk
_NEGOTIATION_DEPTH = 1024  # how far back a pull offers ancestors of the branch head


@dataclass(frozen=True)
class Transfer:
    """What one push or pull did to one branch.

    ``status`` is ``created`` (the branch did not exist there), ``fast-forward``,
    ``up-to-date`` (same commit), ``ahead`` (the receiving side already holds
    more events than the sending side; nothing moves) or ``replaced`` (an
    erased history replaced the old one, as a signed erasure record allows).
    """

    agent: str
    branch: str
    remote: str
    status: str
    old: str | None  # commit the receiving branch was at
    new: str | None  # commit it is at now
    events: int  # events the receiving side gained

    def describe(self) -> str:
        """One line for a person: what moved where."""
        where = f"agent '{self.agent}' branch '{self.branch}'"
        if self.status == "up-to-date":
            return f"{where}: already up to date with {self.remote} ({_short(self.new)})"
        if self.status == "ahead":
            return f"{where}: the receiving side already holds every event of the other; nothing moved ({_short(self.old)})"
        if self.status == "replaced":
            return (f"{where}: replaced by the history after an erasure ({_short(self.old)}..{_short(self.new)}) via {self.remote}; "
                    "the old objects were removed")
        verb = "created" if self.status == "created" else "fast-forwarded"
        return f"{where}: {verb} with {self.events} event(s) ({_short(self.old)}..{_short(self.new)}) via {self.remote}"


# -- public operations ---------------------------------------------------------------


def push(repo: AgentRepo, url: str, branch: str = DEFAULT_BRANCH) -> Transfer:
    """Push ``branch`` to the same branch of the remote repository at ``url``.

    Raises:
        NotFound: the agent has no such branch, or nothing at ``url``.
        Conflict: the remote branch holds events this one does not.
    """
    check_url(url)
    ref = branch_ref(branch)
    shown = _redact(url)
    with repo._lock:
        local = repo._open(False)
        sha = _read_ref(local, ref)
        if sha is None:
            raise NotFound(f"agent '{repo.agent}' has no branch '{branch}'; branches: {', '.join(repo.branches()) or 'none'}")
        seen: dict[str, bytes | None] = {}
        cache_ref = snapshot.cache_ref(branch)
        cache = _read_ref(local, cache_ref)

        def update_refs(refs: dict) -> dict:
            old = refs.get(ref)
            seen["old"] = old
            # the travelling cache goes along (a hint the receiver checks; never forced onto a remote that refuses it)
            extra = {cache_ref: cache} if cache is not None and refs.get(cache_ref) != cache else {}
            proofs = {r: s for r, s in evidence.local_refs(local, branch).items() if r not in refs}  # seals, erasure records
            seen["evidence"] = list(proofs.values())
            extra.update(proofs)
            seen["cache_old"] = refs.get(cache_ref)
            seen["cache"] = cache if extra else None
            if old == sha:
                return extra
            lease = erasure.lease_base(local, branch, old, sha) if old is not None else False
            if lease is not False:  # an erased branch: replace the remote's only if it is still at the erased head
                seen["base"], seen["record"] = lease
                if cache is None and refs.get(cache_ref) not in (None, ZERO_SHA):
                    extra[cache_ref] = ZERO_SHA  # the remote's cache describes (and quotes) the old history
                return {ref: sha, **extra}
            if old is None or (old in local.object_store and (_is_ancestor(local.object_store, old, sha, repo.agent)
                                                              or merge.reaches(local.object_store, sha, old))):
                return {ref: sha, **extra}
            if old not in local.object_store or _is_ancestor(local.object_store, sha, old, repo.agent):
                raise Conflict(
                    f"cannot push: the remote's branch '{branch}' at {shown} holds events this branch does not; nothing was "
                    f"pushed and nothing is ever forced. Pull first: {_cmd('pull', '--agent', repo.agent, shown, '--branch', branch)} "
                    "(a fast-forward when your branch has nothing new; when both sides do, add --merge to merge them, or pull into "
                    "another branch to compare them first)"
                )
            raise Conflict(_diverged(repo.agent, branch, shown, "push", local.object_store, sha, old))

        def pack_data(have, want, *, ofs_delta: bool = False, progress=None):
            since = seen["base"] if "record" in seen else seen.get("old")
            objects = _added_objects(local.object_store, sha, since, repo.agent) if seen.get("old") != sha else []
            if seen.get("cache") is not None:
                objects += _cache_objects(local.object_store, seen["cache"], seen.get("cache_old"))
            for proof in seen.get("evidence", ()):
                objects += evidence.objects_of(local.object_store, proof)
            return pack_objects_to_data(objects)

        client, path = _client(local, url, "push")
        with _transport_errors(shown, pushing=True):
            result = client.send_pack(path, update_refs, pack_data)
        failed = {k: v for k, v in (result.ref_status or {}).items() if v and k != cache_ref and not k.startswith(b"refs/halo/")}
        if failed:
            raise Conflict(f"the remote at {shown} refused the update of '{branch}': {failed.get(ref, next(iter(failed.values())))}; nothing was forced")
        old = seen.get("old")
        if "record" in seen:
            erasure.after_push(url, seen["record"])
            return Transfer(repo.agent, branch, shown, "replaced", old.decode(), sha.decode(), 0)
        return _transfer(repo.agent, branch, shown, old, sha, local.object_store)


def pull(repo: AgentRepo, url: str, branch: str = DEFAULT_BRANCH, into: str | None = None) -> Transfer:
    """Fast-forward local branch ``into`` (default ``branch``) to the remote's ``branch``.

    Raises:
        NotFound: no repository for the agent here (clone it), or no such remote branch.
        Conflict: both sides hold events the other does not; nothing changed.
    """
    check_url(url)
    into = into or branch
    remote_ref, local_ref = branch_ref(branch), branch_ref(into)
    shown = _redact(url)
    if not repo.exists:
        raise NotFound(
            f"agent '{repo.agent}' has no repository under this root; bring it in with: {_cmd('clone', shown, '--agent', repo.agent)}"
        )
    with repo._lock:
        local = repo._open(False)
        old = _read_ref(local, local_ref)
        with _incoming(repo) as store:
            refs = _fetch_into(local, url, store, remote_ref, old, shown, repo.agent, also=snapshot.cache_ref(branch), evidence_of=branch)
            new = refs.get(remote_ref)
            if new is None:
                names = sorted(_shown_name(r) for r, s in refs.items() if r.startswith(_HEADS) and s)
                raise NotFound(f"{shown} has no branch '{branch}'; its branches: {', '.join(names) or 'none (an empty repository)'}")
            if old == new:
                _adopt(store, repo.path / "objects")  # at most the travelling cache's and the evidence's objects
                _take_cache(local, into, refs.get(snapshot.cache_ref(branch)))
                _take_evidence(local, refs, branch, into, repo.agent)
                return Transfer(repo.agent, into, shown, "up-to-date", old.decode(), new.decode(), 0)
            if old is not None and not _is_ancestor(store, old, new, repo.agent) and not merge.reaches(store, new, old):
                record = erasure.covering_record(local, branch, old, new, store=store, refs=refs, trust=erasure.trust_files(repo.path.parent))
                if record is not None:  # the remote erased events: take the new history only as its signed record maps ours
                    _check_incoming(store, new, None, [], repo.agent, shown, branch, f"branch '{into}' was not changed")
                    _adopt(store, repo.path / "objects")
                    if not local.refs.set_if_equals(local_ref, old, new):
                        raise Conflict(f"branch '{into}' of agent '{repo.agent}' moved while pulling (an event was logged); run the pull again")
                    _take_evidence(local, refs, branch, into, repo.agent)
                    erasure.after_pull(repo, into, record)
                    return Transfer(repo.agent, into, shown, "replaced", old.decode(), new.decode(), 0)
                if _is_ancestor(store, new, old, repo.agent):
                    return Transfer(repo.agent, into, shown, "ahead", old.decode(), old.decode(), 0)
                raise Conflict(_diverged(repo.agent, into, shown, "pull", store, old, new, remote_branch=branch))
            # the events ``old`` holds (an append racing this pull only adds after them)
            earlier = repo.log(into).events[: _number(store, store[old], repo.agent)] if old is not None else []
            unchanged = f"branch '{into}' was not changed" + (f" (still at {_short(old.decode())})" if old else " (not created)")
            if old is None or _is_ancestor(store, old, new, repo.agent):  # else old is reached through a merge: checked below
                _check_incoming(store, new, old, earlier, repo.agent, shown, branch, unchanged)
            try:
                merge.check_incoming_merges(store, new, old, repo, into)
            except BadCommit as e:
                raise IntegrityError(f"refused: {shown} merges a line HALO could not have written: commit {e.commit[:12]}: {e.reason}. "
                                     f"Nothing was transferred and {unchanged}", e.commit) from None
            _adopt(store, repo.path / "objects")
        if not local.refs.set_if_equals(local_ref, old or ZERO_SHA, new):
            raise Conflict(f"branch '{into}' of agent '{repo.agent}' moved while pulling (an event was logged); run the pull again")
        _take_cache(local, into, refs.get(snapshot.cache_ref(branch)))
        _take_evidence(local, refs, branch, into, repo.agent)
        return _transfer(repo.agent, into, shown, old, new, local.object_store)


def clone(root: str | os.PathLike[str], agent: str, url: str, head: str = DEFAULT_BRANCH) -> list[Transfer]:
    """Bring the agent repository at ``url`` (every branch) into ``<root>/<agent>.git``.

    The copy's ``HEAD`` names ``head`` when the remote has that branch, else
    its first branch by name.

    The copy is built under a hidden name and renamed into place at the end, so
    a failed clone leaves nothing an agent listing would pick up.

    Raises:
        Conflict: the agent already has a repository here (pull instead).
        NotFound: nothing at ``url``, or it holds no branches.
        IntegrityError: a branch head is not a HALO event commit.
    """
    check_url(url)
    check_agent_name(agent)
    root = Path(root)
    target = root / f"{agent}.git"
    shown = _redact(url)
    if target.exists():
        raise Conflict(f"agent '{agent}' already has a repository at {target}; bring new events in with: {_cmd('pull', '--agent', agent, shown)}")
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".clone-{agent}-", dir=root))
    try:
        fresh = AgentRepo(scratch / "repo.git", agent)
        with fresh:
            local = fresh._open(True)
            client, path = _client(local, url, "pull")
            with _transport_errors(shown):
                result = limits.fetch_checked(client, path, local, _wants_heads_and_caches, shown, str(scratch))
            heads = {r: s for r, s in result.refs.items() if r.startswith(_HEADS) and s}
            if not heads:
                raise NotFound(f"{shown} holds no branches; push one there first: {_cmd('push', '--agent', agent, shown)}")
            done, known = [], {}
            for ref, sha in sorted(heads.items()):
                try:
                    name = ref[len(_HEADS):].decode("utf-8")
                    branch_ref(name)
                except (InvalidCall, UnicodeDecodeError) as e:
                    why = e if isinstance(e, InvalidCall) else f"the name {_shown_name(ref)} is not UTF-8 text"
                    raise InvalidCall(f"refused: {shown} has a branch HALO cannot hold ({why}); no repository was created") from None
                _check_clone_branch(local.object_store, sha, agent, known, shown, name)
                local.refs.set_if_equals(ref, ZERO_SHA, sha)
                _take_cache(local, name, result.refs.get(snapshot.cache_ref(name)))
                _take_evidence(local, result.refs, name, name, agent)
                done.append(_transfer(agent, name, shown, None, sha, local.object_store))
            wanted = branch_ref(head)
            if wanted != branch_ref(DEFAULT_BRANCH) or wanted not in heads:
                local.refs.set_symbolic_ref(b"HEAD", wanted if wanted in heads else sorted(heads)[0])
        if target.exists():
            raise Conflict(f"agent '{agent}' got a repository at {target} while cloning; pull into it instead")
        os.rename(scratch / "repo.git", target)
        return done
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _shown_name(ref: bytes) -> str:
    """A remote branch's name for a message: bytes that are not UTF-8 shown escaped."""
    name = ref[len(_HEADS):] if ref.startswith(_HEADS) else ref
    return "'" + name.decode("utf-8", "backslashreplace")[:80] + "'"


def fetch_into_root(root: str | os.PathLike[str], agent: str, url: str) -> list[Transfer]:
    """Clone the agent from ``url`` into ``root``, or fast-forward every branch it
    already has there (branches new on the remote are created). For building a
    review site from remotes.

    Raises:
        Conflict: a branch diverged from the remote's (nothing changed on that branch).
    """
    check_url(url)
    check_agent_name(agent)
    target = Path(root) / f"{agent}.git"
    if not target.exists():
        return clone(root, agent, url)
    with AgentRepo(target, agent) as repo:
        local = repo._open(False)
        client, path = _client(local, url, "pull")
        with _transport_errors(_redact(url)):
            refs = client.get_refs(path).refs
        names = []
        for r, s in refs.items():
            if r.startswith(_HEADS) and s:
                try:
                    names.append(r[len(_HEADS):].decode("utf-8"))
                except UnicodeDecodeError:
                    raise InvalidCall(f"refused: {_redact(url)} has a branch HALO cannot hold (the name {_shown_name(r)} "
                                      "is not UTF-8 text); nothing was pulled") from None
        return [pull(repo, url, name) for name in sorted(names)]


# -- ancestry over event commits ---------------------------------------------------------


def _number(store, commit: Commit, agent: str) -> int:
    n = number_from_message(commit.message)
    if n is None:
        raise IntegrityError(
            f"commit {commit.id.decode()[:12]} in the history of agent '{agent}' is not a HALO event commit "
            "(its message does not start with an event id); only HALO event repositories can be transferred",
            commit.id.decode(),
        )
    return n


def _first_parents(store, tip: bytes, agent: str) -> Iterator[tuple[Commit, int]]:
    """Commits from ``tip`` down the first-parent chain with their event numbers,
    checking that numbers fall by exactly one and that the chain ends at e1."""
    commit = store[tip]
    n = _number(store, commit, agent)
    while True:
        yield commit, n
        if not commit.parents:
            if n != 1:
                raise IntegrityError(f"the history of agent '{agent}' at {tip.decode()[:12]} does not start at e1", commit.id.decode())
            return
        if len(commit.parents) > 2:  # two: the first event a merge appended (its merged line: merge.check_incoming_merges)
            raise IntegrityError(f"commit {commit.id.decode()[:12]} of agent '{agent}' has {len(commit.parents)} parents; HALO event commits have one or two", commit.id.decode())
        child, commit = commit, store[commit.parents[0]]
        m = _number(store, commit, agent)
        if m != n - 1:
            raise IntegrityError(
                f"refused: commit {child.id.decode()[:12]} says it holds e{n} but follows e{m} ({commit.id.decode()[:12]}): "
                f"the history of agent '{agent}' at {tip.decode()[:12]} skips ids, which HALO never writes (ids are "
                f"contiguous: the next event after e{m} is e{m + 1}). Nothing was changed",
                child.id.decode(),
            )
        n = m


def _is_ancestor(store, anc: bytes, desc: bytes, agent: str) -> bool:
    """True when commit ``anc`` is on ``desc``'s history (or is ``desc``)."""
    target = _number(store, store[anc], agent)
    for commit, n in _first_parents(store, desc, agent):
        if n <= target:
            return commit.id == anc
    return False


def _check_incoming(store, tip: bytes, old: bytes | None, earlier: list, agent: str, shown: str, branch: str, unchanged: str) -> list:
    """Check every commit after ``old`` up to ``tip`` as ``verify`` would, given
    the events ``earlier`` that ``old`` holds; returns the new events.

    Raises:
        IntegrityError: naming the first commit HALO could not have written.
    """
    chain = []
    for commit, _n in _first_parents(store, tip, agent):
        if commit.id == old:
            break
        chain.append(commit)
    chain.reverse()
    parent = store[old] if old is not None else None
    try:
        return check_history(store, chain, agent, parent=parent, earlier=earlier)
    except BadCommit as e:
        if e.number == 1 and e.other_agent:  # the whole remote is another agent's: a mistyped --agent or URL
            try:
                other = check_agent_name(e.other_agent)
            except InvalidCall:
                other = None
            if other:
                raise NotFound(
                    f"{shown} holds the trace of agent '{other}', not '{agent}': nothing was transferred and {unchanged}; "
                    f"pass --agent {other}, or the URL of {agent}'s own repository"
                ) from None
        raise IntegrityError(
            f"refused: commit {e.commit[:12]} (e{e.number} of branch '{branch}' at {shown}) is not an event commit HALO "
            f"would write: {e.reason}. Nothing was transferred and {unchanged}; ask the remote's owner to run "
            f"halo-git verify there, or restore that branch from a good copy",
            e.commit,
        ) from None


def _check_clone_branch(store, tip: bytes, agent: str, known: dict, shown: str, branch: str) -> None:
    """``_check_incoming`` for a clone's branch; branches share their common
    history, so events already checked on another branch are not checked again
    (``known``: commit id -> (a list of events, how many of them it holds))."""
    walked = []
    base = None
    for commit, _n in _first_parents(store, tip, agent):
        if commit.id in known:
            base = commit.id
            break
        walked.append(commit.id)
    earlier = known[base][0][: known[base][1]] if base is not None else []
    events = earlier + _check_incoming(store, tip, base, earlier, agent, shown, branch, "no repository was created")
    for i, sha in enumerate(reversed(walked)):
        known[sha] = (events, len(earlier) + i + 1)


def _added_objects(store, tip: bytes, old: bytes | None, agent: str) -> list:
    """The objects the commits after ``old`` up to ``tip`` added: each commit, and
    in its tree only the entries that differ from its parent's. A remote at
    ``old`` holds everything else, so a push costs the events it sends, not the
    history (dulwich's generic finder walks every commit the remote has)."""
    stop = _number(store, store[old], agent) if old is not None else 0
    found: dict[bytes, object] = {}
    parents: dict[bytes, object] = {}  # the parent's trees are the next commit's own
    for commit, n in _first_parents(store, tip, agent):
        if n <= stop:
            break
        found[commit.id] = commit
        parent_tree = store[commit.parents[0]].tree if commit.parents else None
        trees, parents = parents, {}
        _added_in_tree(store, commit.tree, parent_tree, found, trees, parents)
    if any(len(c.parents) == 2 for c in found.values() if isinstance(c, Commit)) or (old is not None and not _is_ancestor(store, old, tip, agent)):
        found = {}  # a merge since (or the remote's head reached only through one): every commit old's history lacks
        for commit in merge.new_commits(store, tip, old):
            found[commit.id] = commit
            _added_in_tree(store, commit.tree, store[commit.parents[0]].tree if commit.parents else None, found, {}, {})
    return list(found.values())


def _added_in_tree(store, tree_id: bytes, old_id: bytes | None, found: dict, trees: dict, parents: dict) -> None:
    """Add ``tree_id`` and what differs from ``old_id`` below it to ``found``;
    ``trees`` holds already loaded trees, ``parents`` collects the old ones."""
    if tree_id == old_id or tree_id in found:
        return
    tree = trees.get(tree_id) or store[tree_id]
    found[tree_id] = tree
    old = None
    if old_id is not None:
        old = parents[old_id] = store[old_id]
    for entry in tree.iteritems():
        before = old[entry.path][1] if old is not None and entry.path in old else None
        if entry.sha == before:
            continue
        if stat.S_ISDIR(entry.mode):
            _added_in_tree(store, entry.sha, before, found, trees, parents)
        else:
            found[entry.sha] = store[entry.sha]


def _merge_base(store, a: bytes, b: bytes, agent: str) -> tuple[int, int, int]:
    """(events in common, number at ``a``, number at ``b``) for two linear histories."""
    walk_a, walk_b = _first_parents(store, a, agent), _first_parents(store, b, agent)
    ca, na = next(walk_a)
    cb, nb = next(walk_b)
    top_a, top_b = na, nb
    while na > nb:
        ca, na = next(walk_a)
    while nb > na:
        cb, nb = next(walk_b)
    while ca.id != cb.id:
        if na == 1:
            return 0, top_a, top_b
        ca, na = next(walk_a)
        cb, nb = next(walk_b)
    return na, top_a, top_b


def _diverged(agent: str, branch: str, shown: str, op: str, store, ours: bytes, theirs: bytes, remote_branch: str | None = None) -> str:
    """The refusal for diverged histories: where they split and what to do next."""
    remote_branch = remote_branch or branch
    side = f"{branch}-remote"
    common, n_ours, n_theirs = _merge_base(store, ours, theirs, agent)
    since = f"since e{common}" if common else "from the start (no common history)"
    split = f"they diverged {since}: here {_span(common, n_ours)}, on the remote {_span(common, n_theirs)}"
    if n_ours > common and n_theirs > common:
        split += " (the same ids name different events)"
    return (
        f"cannot {op}: branch '{branch}' of agent '{agent}' and branch '{remote_branch}' at {shown} have different histories; "
        f"{split}. Nothing was changed and nothing is ever forced. To compare them, pull the remote branch into a new "
        f"local branch and diff: {_cmd('pull', '--agent', agent, shown, '--branch', remote_branch, '--into', side)} && "
        f"{_cmd('diff', '--agent', agent, branch, side)}"
    )


def _span(common: int, top: int) -> str:
    if top <= common:
        return "no events of its own"
    return f"e{common + 1}" + (f"..e{top}" if top > common + 1 else "")


def _transfer(agent: str, branch: str, shown: str, old: bytes | None, new: bytes, store) -> Transfer:
    n_new = _number(store, store[new], agent)
    n_old = _number(store, store[old], agent) if old is not None else 0
    status = "created" if old is None else ("up-to-date" if old == new else "fast-forward")
    return Transfer(agent, branch, shown, status, old.decode() if old else None, new.decode(), n_new - n_old)


# -- transport plumbing ------------------------------------------------------------------


def check_url(url: str) -> str:
    """Refuse a remote whose host, user or path would reach ``ssh`` (or any
    helper) as a command-line option, e.g. ``ssh://-oProxyCommand=…``; Git
    refuses them too (CVE-2017-1000117)."""
    rest = url.split("://", 1)[1] if "://" in url else url
    authority = rest.split("/", 1)[0]
    if "://" not in url and ":" in authority:  # scp-like user@host:path
        authority = authority.split(":", 1)[0]
    user, _, host = authority.rpartition("@")
    if url.startswith("-") or host.startswith("-") or user.startswith("-") or any(ord(c) < 32 for c in url):
        raise InvalidCall(
            f"refused remote {_redact(url)!r}: its host, user or path starts with '-' (or holds a control character), "
            "which ssh and other helpers would read as an option; give a plain path, file://, ssh://user@host/path, "
            "git:// or https:// URL"
        )
    return url


def _client(local: Repo, url: str, operation: str):
    """A dulwich client for ``url`` honouring the user's Git config and GIT_SSH_COMMAND."""
    check_url(url)
    ssh = os.environ.get("GIT_SSH_COMMAND") or os.environ.get("GIT_SSH") or None
    try:
        client, path = get_transport_and_path(url, config=local.get_config_stack(), operation=operation, ssh_command=ssh, quiet=True)
        return with_git_credentials(client, url), path  # a 401 asks git's credential helpers, as git clone does
    except ValueError as e:
        raise NotFound(f"cannot use remote {_redact(url)!r}: {e}; give a path, file://, ssh://, git:// or https:// URL") from None


class _transport_errors:
    """Turn transport failures into HaloErrors that say what to check."""

    def __init__(self, shown: str, *, pushing: bool = False):
        self.shown, self.pushing = shown, pushing

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or isinstance(exc, HaloError):
            return False
        if isinstance(exc, NotGitRepository) or (isinstance(exc, FileNotFoundError)):
            raise NotFound(
                f"no Git repository at {self.shown}; check the URL"
                + ("; to push to a new one, create it empty first, e.g. git init --bare --initial-branch=main <path>"
                   if self.pushing else "")
            ) from None
        if isinstance(exc, StrangeHostname):
            raise InvalidCall(f"refused remote {self.shown}: its host name looks like a command-line option; check the URL") from None
        if isinstance(exc, HTTPUnauthorized):
            helpers = ("no Git credential helper had them (git credential fill)" if shutil.which("git")
                       else "the git binary, through which halo-git asks your Git credential helpers, is not installed")
            raise HaloError(f"{self.shown} asked for credentials and {helpers}; store them with your Git credential "
                            "helper (e.g. git config --global credential.helper store, then git credential approve) "
                            "or put them in the URL, and try again") from None
        if isinstance(exc, (GitProtocolError, OSError)):
            raise HaloError(f"could not talk to {self.shown}: {_redact(str(exc)) or type(exc).__name__}; check the URL, the network and your access") from None
        return False


def _wants_heads(refs: dict, depth: int | None = None) -> list[bytes]:
    return sorted({s for r, s in refs.items() if r.startswith(_HEADS) and s and s != ZERO_SHA})


def _wants_heads_and_caches(refs: dict, depth: int | None = None) -> list[bytes]:
    """The branch heads and the travelling caches of those branches."""
    caches = {snapshot.cache_ref(r[len(_HEADS):].decode("utf-8", "replace")) for r in refs if r.startswith(_HEADS)}
    proofs = {s for r, s in refs.items() if r.startswith((evidence.SEALS, evidence.ERASURES)) and s and s != ZERO_SHA}
    return sorted(set(_wants_heads(refs)) | {s for r, s in refs.items() if r in caches and s and s != ZERO_SHA} | proofs)


def _take_cache(local: Repo, branch: str, sha: bytes | None) -> None:
    """Point the local branch's travelling cache at the remote's ``sha`` when it
    arrived and claims more events than the local one. Either is only a hint:
    a read puts it through the same check as the cache file."""
    if sha is None or sha == ZERO_SHA or sha not in local.object_store:
        return
    ref = snapshot.cache_ref(branch)
    mine = _read_ref(local, ref)
    try:
        theirs = snapshot.travel_claim(local.object_store[sha].message)
        ours = snapshot.travel_claim(local.object_store[mine].message) if mine is not None else None
        if theirs is not None and (ours is None or theirs[0] > ours[0]):
            local.refs.set_if_equals(ref, mine if mine is not None else ZERO_SHA, sha)
    except (KeyError, AttributeError, OSError):
        pass


def _take_evidence(local: Repo, refs: dict, branch: str, into: str, agent: str) -> int:
    """Take the remote's seals and erasure records of ``branch`` as those of
    local branch ``into``, when they hold on it (``evidence.take``)."""
    head = _read_ref(local, branch_ref(into))
    if head is None:
        return 0
    if branch != into:
        renamed = {}
        for ref, sha in evidence.branch_refs(refs, branch).items():
            for prefix, mine in ((evidence.seal_prefix(branch), evidence.seal_prefix(into)), (evidence.erasure_prefix(branch), evidence.erasure_prefix(into))):
                if ref.startswith(prefix):
                    renamed[mine + ref[len(prefix):]] = sha
        refs = renamed
        branch = into

    def on_branch(commit: str, events: int | None) -> bool:
        sha = commit.encode()
        try:
            if sha not in local.object_store:
                return False
            if events is not None and _number(local.object_store, local.object_store[sha], agent) != events:
                return False
            return _is_ancestor(local.object_store, sha, head, agent)
        except (IntegrityError, KeyError):
            return False

    try:
        return evidence.take(local, refs, branch, on_branch)
    except OSError:
        return 0


def _cache_objects(store, sha: bytes, old: bytes | None) -> list:
    """The objects of the cache commit ``sha`` a remote holding cache commit ``old`` lacks."""
    try:
        commit = store[sha]
        tree = store[commit.tree]
        known: set[bytes] = set()
        if old is not None and old in store:
            known = {entry.sha for entry in store[store[old].tree].iteritems()}
        return [commit, tree] + [store[entry.sha] for entry in tree.iteritems() if entry.sha not in known]
    except (KeyError, AttributeError):
        return []


class _incoming:
    """A scratch object store inside the repository that also reads the
    repository's own objects (alternates); removed on exit."""

    def __init__(self, repo: AgentRepo):
        self.repo = repo

    def __enter__(self) -> DiskObjectStore:
        base = self.repo.path / CACHE_DIR
        base.mkdir(exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix="incoming-", dir=base)
        DiskObjectStore.init(self.dir).close()
        self.store = DiskObjectStore(self.dir, alternates=[str(self.repo.path / "objects")])
        return self.store

    def __exit__(self, *exc: object) -> None:
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _fetch_into(local: Repo, url: str, store: DiskObjectStore, ref: bytes, old: bytes | None, shown: str, agent: str, also: bytes | None = None,
                evidence_of: str | None = None) -> dict:
    """Fetch the remote's ``ref`` (and ``also``, the branch's travelling cache,
    when the remote has one) into ``store`` over one connection; returns the
    remote's refs. Fetches nothing when the commits are already here."""
    client, path = _client(local, url, "pull")
    limits.check_local(client, path, shown)  # a remote on this machine is served in this process: headers first
    spool = SpooledTemporaryFile(max_size=_SPOOL, dir=store.path)
    wanted: list[bytes] = []
    haves = _Haves()

    def wants(refs: dict, depth: int | None = None) -> list[bytes]:
        sha = refs.get(ref)
        if sha is not None and sha not in store:
            wanted.append(sha)
        extra = refs.get(also) if also is not None and sha is not None else None
        if extra is not None and extra != ZERO_SHA and extra not in store:
            wanted.append(extra)
        if evidence_of is not None:  # the branch's seals and erasure records
            wanted.extend(s for s in evidence.branch_refs(refs, evidence_of).values() if s not in store and s not in wanted)
        if wanted:
            haves.offer(local, old, refs, agent)
        return list(wanted)

    with spool, _transport_errors(shown):
        result = client.fetch_pack(path, wants, haves, spool.write)
        if wanted and spool.tell():
            spool.seek(0)
            limits.check_incoming(spool, shown)  # sizes from the object headers, before dulwich inflates anything
            store.add_thin_pack(spool.read, None)
    return result.refs


class _Haves:
    """The commits offered to the server as already held, so it sends only what
    is missing. dulwich's own walker offers every ancestor of every head (it
    cannot read the server's acknowledgements mid-way), which makes each pull
    cost the whole history; HALO offers the receiving branch's head (all a
    fast-forward needs), remote heads it already holds, ancestors of its head at
    doubling distances (so after a divergence the server still finds a recent
    common commit), then its other branch heads."""

    def __init__(self) -> None:
        self._shas: list[bytes] = []

    def offer(self, local: Repo, old: bytes | None, refs: dict, agent: str) -> None:
        shas = dict.fromkeys([old] if old else [])
        shas.update(dict.fromkeys(s for s in refs.values() if s and s != ZERO_SHA and s in local.object_store))
        if old is not None:
            next_at = 1
            for depth, (commit, _n) in enumerate(_first_parents(local.object_store, old, agent)):
                if depth == next_at:
                    shas[commit.id] = None
                    next_at *= 2
                if depth >= _NEGOTIATION_DEPTH:
                    break
        shas.update(dict.fromkeys(local.refs.as_dict(_HEADS).values()))
        self._shas = list(shas)

    def next(self) -> bytes | None:
        return self._shas.pop(0) if self._shas else None

    __next__ = next

    def ack(self, sha: bytes) -> None:
        """The server holds ``sha``; the offers stay as they are."""

    def nak(self) -> None:
        """The server holds none of the offers; it will send the whole history."""


def _adopt(store: DiskObjectStore, objects: Path) -> None:
    """Move the scratch store's packs into the repository (index last, so Git
    never sees an index without its pack)."""
    store.close()
    pack_dir = Path(store.path) / "pack"
    names = sorted(os.listdir(pack_dir), key=lambda n: (n.endswith(".idx"), n))
    for name in names:
        os.replace(pack_dir / name, objects / "pack" / name)


# Up to the authority's last '@': a password may hold a raw '@' (``https://u:p@ss@host``).
_USERINFO = re.compile(r"(?<=://)[^/?#\s]*@")


def _redact(text: str) -> str:
    """Hide credentials in a URL (``https://user:token@host`` → ``https://***@host``)."""
    return _USERINFO.sub("***@", text)


def _cmd(*args: str) -> str:
    """A ``halo-git`` command line to paste into a shell (every argument quoted as needed)."""
    return shlex.join(["halo-git", *args])


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "nothing"
