"""Prove a branch's history is exactly what HALO writes, commit by commit.

Git already guarantees that nobody changed an object without changing its id;
it cannot tell whether the history *as a whole* was rewritten with ordinary
``git`` commands (an event edited, dropped, reordered, a file slipped in). This
walk re-derives every event from the one before and fails at the first commit
that HALO could not have written:

* the walk follows first parents from the head to the root commit; a commit with
  a second parent is the first event a merge appended, and the line it merges
  is checked the same way, with every merged event against its original
  (``merge.check_merges``);
* each commit adds exactly one file, the next event's path, and changes nothing else;
* every object read hashes to its id (no corrupted loose object or pack entry);
* the file is HALO's canonical YAML of an event whose id is the next one, of
  this agent, that passes the same validation as a tool call (``check_call``,
  screening aside: a screen configured today does not judge yesterday), whose
  ``uses``/``about`` name earlier events, and whose channels, recomputed from
  those events, are the ones recorded (``resolve``);
* the commit message, author and commit time are the ones the event implies
  (author the agent, except a user's approval written by ``halo-git approve``:
  see ``signing``), the time a UTC time from 1971 on (what the write path dates
  events at, whatever the clock reads: docs/storage.md, "Time");
* with an allowed-signers file, every signed commit carries a good signature of
  an allowed signer;
* every seal under ``refs/halo/seals/<branch>/`` names the branch's commit at
  its position, or one a signed erasure record maps there (``evidence``).

Reading is independent of ``AgentRepo``'s caches and snapshots: it opens the
repository afresh and trusts nothing but the objects. Then it checks the
branch's parsed-event cache against those objects (``snapshot``): every entry
must be the blob the head's tree holds for it and name the commit that added
it; a cache changed outside HALO is reported (reads already ignore it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from dulwich.objects import Blob, Commit, ShaFile, Tree
from dulwich.repo import Repo

from ..errors import HaloError, IntegrityError, NotFound
from ..model import legacy_yaml, load_event_file  # the event file's limits (eventfile)
from . import limits
from ..model import (
    KINDS,
    SHARED_PARAMS,
    Event,
    check_agent_name,
    check_call,
    check_session,
    commit_message,
    epoch_seconds,
    merge_origin,
    normalize_time,
    resolve,
    to_yaml,
)
from . import evidence, signing, snapshot
from .repo import AgentRepo, _path_parts, branch_ref, event_blob_ids, event_path, number_from_message, read_travelling

_FILE_MODE = 0o100644


@dataclass(frozen=True)
class Verified:
    """A branch that passed: how many events, up to which head commit."""

    agent: str
    branch: str
    head: str | None
    events: int
    signed: int = 0  # commits whose signature was checked against the allowed signers
    cached: int = 0  # events in the branch's parsed-event cache, all checked
    travelled: int = 0  # events in its travelling cache (refs/halo/cache/<branch>), all checked
    evidence: "evidence.Evidence | None" = None  # its seals and erasure records, all checked (``evidence.check``)


class _Bad(Exception):
    """What is wrong with one commit (wrapped into ``IntegrityError``); ``other_agent``:
    the agent its event names when that is not the repository's."""

    def __init__(self, reason: str, other_agent: str | None = None):
        super().__init__(reason)
        self.other_agent = other_agent


class BadCommit(IntegrityError):
    """The first commit of a history HALO could not have written: ``commit``
    (hex), its position ``number`` and ``reason``, for the caller to word."""

    def __init__(self, commit: str, number: int, reason: str, other_agent: str | None = None):
        self.number = number
        self.reason = reason
        self.other_agent = other_agent
        super().__init__(f"commit {commit[:12]} (position e{number}) is not a HALO event commit: {reason}", commit)


def verify_branch(repo: AgentRepo, branch: str, allowed_signers: str | None = None, gpg_keyring: str | None = None) -> Verified:
    """Walk ``branch`` from its root commit and check every event commit (and,
    with ``allowed_signers`` or ``gpg_keyring``, every signature).

    Raises:
        NotFound: no repository for the agent, or no such branch.
        IntegrityError: naming the first commit HALO could not have written.
    """
    ref = branch_ref(branch)
    if not repo.exists:
        raise NotFound(f"agent '{repo.agent}' has no repository at {repo.path}; check the agent name and --root")
    with Repo(str(repo.path)) as git:
        try:
            head = git.refs.follow(ref)[1]
        except KeyError:
            head = None
        if head is None:
            repo.head(branch)  # a branch whose caches outlive it was removed outside HALO: IntegrityError
            branches = sorted(k.decode() for k in git.refs.keys(base=b"refs/heads/"))
            if branches:
                raise NotFound(f"agent '{repo.agent}' has no branch '{branch}'; branches: {', '.join(branches)}")
            return Verified(repo.agent, branch, None, 0)
        _check_plain_git_view(git, repo.agent)
        chain = _first_parent_chain(git.object_store, head, repo.agent, branch)
        try:
            events = check_history(git.object_store, chain, repo.agent)
            from .merge import check_merges  # merge imports this module

            merged = check_merges(git.object_store, chain, events, repo.agent)
        except BadCommit as e:
            raise IntegrityError(
                f"commit {e.commit[:12]} (position e{e.number} on branch '{branch}' of agent "
                f"'{repo.agent}') is not a HALO event commit: {e.reason}. The history was changed outside HALO; "
                f"events before it are intact: restore the branch from a clone or backup",
                commit=e.commit,
            ) from None
        signed = 0
        if allowed_signers is not None or gpg_keyring is not None:
            for number, commit in enumerate(chain, 1):
                if commit.gpgsig is not None:
                    _check_signature(commit, allowed_signers, gpg_keyring, f"e{number} on branch '{branch}' of agent '{repo.agent}'")
                    signed += 1
            for commit in merged:  # the original commits of merged events (a signed approval of another copy)
                if commit.gpgsig is not None:
                    _check_signature(commit, allowed_signers, gpg_keyring, f"a commit merged into branch '{branch}' of agent '{repo.agent}'")
                    signed += 1
        proof = evidence.check(git, repo.agent, branch, [c.id.decode() for c in chain], [e.summary for e in events], allowed_signers, gpg_keyring,
                               {c.id.decode(): number_from_message(c.message) or 0 for c in merged})
        cached = _check_cache(git, repo, branch, chain)
        travelled = _check_travelling(git, repo, branch, chain)
        return Verified(repo.agent, branch, head.decode(), len(chain), signed, cached, travelled, proof)


def check_history(store, chain: list[Commit], agent: str, *, parent: Commit | None = None, earlier: list[Event] | None = None) -> list[Event]:
    """Check ``chain`` (oldest first) as the commits after ``parent``, whose
    history holds the events ``earlier``; returns the chain's events.

    ``store`` is any object store (``get_raw``): verify passes the repository's,
    a pull the scratch store an incoming pack was unpacked into.

    Raises:
        BadCommit: the first commit HALO could not have written, and why.
    """
    kinds = [e.kind for e in earlier or ()]
    trees = _Trees(store)
    out: list[Event] = []
    for commit in chain:
        number = len(kinds) + 1
        try:
            event = _check_commit(store, commit, parent, number, agent, kinds, trees)
        except _Bad as e:
            raise BadCommit(commit.id.decode(), number, str(e), e.other_agent) from None
        kinds.append(event.kind)
        out.append(event)
        parent = commit
    return out


def _check_cache(git: Repo, repo: AgentRepo, branch: str, chain: list[Commit]) -> int:
    """Prove the branch's cache file describes the verified commits; returns its
    number of entries (0: no cache)."""
    path = snapshot.path_for(repo.path, branch)
    snap = snapshot.load(path, branch)
    if snap is None:
        return 0
    _check_rewound(git, repo, branch, chain, snap, str(path))
    problem = _cache_mismatch(git, snap, chain)
    if problem is None:
        complete = _complete_lines(path) - 1  # the header; a torn last line (a crash mid-append) has no newline
        if complete > len(snap.events):
            problem = (f"its line {len(snap.events) + 2} is not an entry HALO writes (unreadable, or not e{len(snap.events) + 1}), "
                       f"and {complete - len(snap.events)} complete line(s) from there on are ignored")
    if problem is not None:
        raise IntegrityError(
            f"the history of branch '{branch}' of agent '{repo.agent}' is intact ({len(chain)} events verified, head "
            f"{chain[-1].id.decode()[:12]}), but its parsed-event cache {path} was changed outside HALO: {problem}. Reads ignore "
            "a cache that does not match Git and rewrite it from Git on the next read (any report or trace), or delete the file",
        )
    return len(snap.events)


def _complete_lines(path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for line in f if line.endswith(b"\n"))
    except OSError:
        return 0


def _check_travelling(git: Repo, repo: AgentRepo, branch: str, chain: list[Commit]) -> int:
    """Prove the branch's travelling cache (``refs/halo/cache/<branch>``, which
    clones and fetches carry) describes the verified commits; returns its
    number of entries (0: none)."""
    ref = snapshot.cache_ref(branch)
    try:
        sha = git.refs[ref]
    except KeyError:
        return 0
    shown = ref.decode()
    # one chunk past the head: compact chunks name the commit of their last event only,
    # and a ref ahead of the branch is told apart from an edited one by the next commit it names
    snap = read_travelling(lambda x: git.object_store[x], sha, len(chain) + snapshot.CHUNK, store=git.object_store)
    if snap is None:
        problem = "it is not a HALO cache commit, or its first chunk cannot be read"
    else:
        _check_rewound(git, repo, branch, chain, snap, shown)
        problem = _cache_mismatch(git, snap, chain)
    if problem is not None:
        raise IntegrityError(
            f"the history of branch '{branch}' of agent '{repo.agent}' is intact ({len(chain)} events verified, head "
            f"{chain[-1].id.decode()[:12]}), but its travelling parsed-event cache {shown} (commit {sha.decode()[:12]}) was "
            f"changed outside HALO: {problem}. Reads ignore a cache that does not match Git and HALO rewrites the ref on the "
            f"next read (any report or trace); or delete it: git --git-dir {repo.path} update-ref -d {shown}",
        )
    return len(snap.events)


def _check_rewound(git: Repo, repo: AgentRepo, branch: str, chain: list[Commit], snap: snapshot.Snapshot, cache: str) -> None:
    """A cache that recorded more events of this same history than the branch holds,
    the next of them a commit here on top of the branch's head, says the branch was
    moved back, not that the cache was edited: say that."""
    n = len(chain)
    if len(snap.events) <= n or any(hint and hint.encode() != c.id for hint, c in zip(snap.commits[:n], chain)):
        return
    later = next((k for k in range(n, len(snap.events)) if snap.commits[k]), None)  # compact lines name few commits
    if later is None:
        return
    try:
        following = git.object_store[snap.commits[later].encode("ascii")]
        for _ in range(later - n):  # down to e<n+1>, one parent at a time
            if not isinstance(following, Commit) or not following.parents:
                return
            following = git.object_store[following.parents[0]]
        if not isinstance(following, Commit) or following.parents[:1] != [chain[-1].id] \
                or number_from_message(following.message) != n + 1:
            return
    except (KeyError, ValueError, UnicodeEncodeError, AssertionError):
        return
    raise IntegrityError(
        f"branch '{branch}' of agent '{repo.agent}' was moved back outside HALO: its head {chain[-1].id.decode()[:12]} "
        f"is e{n}, but its parsed-event cache {cache} recorded e1..e{len(snap.events)} of this same history, the last at "
        f"commit {snap.commits[-1][:12]}: e{n + 1}..e{len(snap.events)} are no longer on the branch (the {n} events "
        "kept verify). Restore the branch from a clone or backup (git update-ref refs/heads/<branch> <that commit> "
        "if it is still here), or, if it was moved back on purpose, delete the cache"
    )


def _cache_mismatch(git: Repo, snap: snapshot.Snapshot, chain: list[Commit]) -> str | None:
    problem = None
    count = min(len(snap.events), len(chain))
    try:
        blobs = event_blob_ids(lambda sha: _read(git.object_store, sha, "tree", Tree).as_raw_string(), chain[-1].tree, count)
    except _Bad as e:  # cannot happen after a passing walk, but never a traceback
        blobs, problem = [], f"the head's trees cannot be read: {e}"
    problem = problem or snapshot.mismatch(snap, blobs)
    if problem is None:
        for i, hint in enumerate(snap.commits):
            if hint and hint.encode() != chain[i].id:  # (compact lines leave most commits out)
                problem = f"its entry e{i + 1} names commit {hint[:12]}, the branch's e{i + 1} is {chain[i].id.decode()[:12]}"
                break
    return problem


_TYPE_NAMES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


def _read(store, sha: bytes, what: str, kind: type[ShaFile]) -> ShaFile:
    """Read an object, proving its bytes hash to its id and it is of the expected type."""
    try:
        limits.check_size(store, sha, kind.type_num, f"{what} {sha.decode()[:12]}")  # before inflating it
        type_num, raw = store.get_raw(sha)
    except limits.TooLarge as e:
        raise _Bad(f"it holds {e}") from None
    except KeyError:
        raise _Bad(f"its {what} {sha.decode()[:12]} is missing from the repository") from None
    except Exception as e:
        raise _Bad(f"its {what} {sha.decode()[:12]} cannot be read ({type(e).__name__})") from None
    header = b"%s %d\0" % (_TYPE_NAMES.get(type_num, b"?"), len(raw))
    if hashlib.sha1(header + raw).hexdigest().encode() != sha:
        raise _Bad(f"its {what} {sha.decode()[:12]} is corrupt (its contents do not hash to its id)")
    try:
        obj = ShaFile.from_raw_string(type_num, raw, sha=sha)
    except Exception as e:
        raise _Bad(f"its {what} {sha.decode()[:12]} is corrupt ({type(e).__name__})") from None
    if not isinstance(obj, kind):
        raise _Bad(f"its {what} {sha.decode()[:12]} is a {obj.type_name.decode()}, not a {kind.type_name.decode()}")
    return obj


def _first_parent_chain(store, head: bytes, agent: str, branch: str) -> list[Commit]:
    """Commits from the root to ``head``, refusing merges on the way down."""
    chain: list[Commit] = []
    sha: bytes | None = head
    while sha is not None:
        try:
            commit = _read(store, sha, "commit", Commit)
            if len(commit.parents) > 2 or (len(commit.parents) == 2 and number_from_message(commit.message) is None):
                # two parents: the first event a merge appended (the merged line is checked by merge.check_merges)
                raise _Bad(f"it is a merge of {len(commit.parents)} commits; an event commit has one parent (a merged one two)")
        except _Bad as e:
            raise IntegrityError(
                f"commit {sha.decode()[:12]} on branch '{branch}' of agent '{agent}' is not a HALO event commit: {e}. "
                "The history was changed outside HALO: restore the branch from a clone or backup",
                commit=sha.decode(),
            ) from None
        chain.append(commit)
        sha = commit.parents[0] if commit.parents else None
    chain.reverse()
    return chain


def _check_plain_git_view(git: Repo, agent: str) -> None:
    """Plain ``git`` shows the objects stored, unless replace refs or grafts say
    otherwise: HALO never writes either, and a history they alter would verify
    here while ``git log`` shows another one."""
    replaced = sorted(git.refs.keys(base=b"refs/replace/"))
    if replaced:
        raise IntegrityError(
            f"agent '{agent}' has {len(replaced)} replace ref(s) (refs/replace/{replaced[0].decode('utf-8', 'replace')[:40]}…), "
            "which make plain git show other objects than the ones stored; HALO never writes them: "
            "list them with git replace -l and remove them with git replace -d"
        )
    grafts = git.controldir() + "/info/grafts"
    try:
        with open(grafts, "rb") as f:
            grafted = any(line.strip() and not line.startswith(b"#") for line in f)
    except OSError:
        grafted = False
    if grafted:
        raise IntegrityError(
            f"agent '{agent}' has an info/grafts file, which makes plain git show other parents than the commits "
            f"store; HALO never writes it: delete {grafts}"
        )


def _check_commit(store, commit: Commit, parent: Commit | None, number: int, agent: str, kinds: list[str], trees: "_Trees") -> Event:
    if commit._extra or commit.mergetag or commit.encoding not in (None, b"UTF-8"):
        names = [k.decode("utf-8", "replace")[:40] for k, _ in commit._extra] + (["mergetag"] if commit.mergetag else []) \
            + (["encoding"] if commit.encoding not in (None, b"UTF-8") else [])
        raise _Bad(f"it carries a commit header HALO never writes ({', '.join(names)})")
    path = event_path(number)
    blob_id = _check_tree_change(commit, parent, number, path, trees)
    blob = _read(store, blob_id, f"file {path}", Blob)
    event = _check_event(blob.data, number, agent, kinds, path)
    ident = f"{agent} <{agent}@halo>".encode()
    if commit.author != ident and signing.approval_trailer(commit.message) is not None:
        _check_approval(store, commit, event, trees)
    else:
        if commit.message != commit_message(event).encode("utf-8"):
            raise _Bad(f"its message does not match the event (expected {commit_message(event).strip()!r})")
        if commit.author != ident or commit.committer != ident:
            raise _Bad(f"its author or committer is not the agent ({ident.decode()})")
    when = epoch_seconds(event.time)
    if commit.author_time != when or commit.commit_time != when:
        raise _Bad(f"its author or commit time differs from the event time {event.time}")
    return event


def _check_approval(store, commit: Commit, event: Event, trees: "_Trees") -> None:
    """The one exception to "authored by the agent": an approval ``approve`` wrote.
    The revise it approves is read from the commit's own tree (no state from the walk)."""
    targets = {}
    if event.kind == "revise" and len(event.uses) == 1:
        approved = _earlier_event(store, commit.tree, int(event.uses[0][1:]), trees)
        if approved is not None and approved.get("kind") == "revise":
            targets[event.uses[0]] = approved.get("target")
    if not signing.is_approval_event(event, targets):
        raise _Bad(
            "it is authored by someone other than the agent, which only an approval written by 'halo-git approve' may be "
            "(a revise with made_by=user, governance=approved naming one earlier revise of the same target)"
        )
    expected = signing.approval_message(event, event.uses[0])
    if commit.message != expected:
        raise _Bad(f"its message does not match the approval event (expected {expected.decode('utf-8').strip()!r})")
    if commit.author != commit.committer:
        raise _Bad("its author and committer differ; an approval commit is authored and committed by the approving user")


def _earlier_event(store, root: bytes, number: int, trees: "_Trees") -> dict | None:
    """The mapping of event ``e<number>`` in the tree ``root``, or None if it is not there."""
    sha, prefix = root, ""
    parts = _path_parts(number)
    for part in parts[:-1]:
        entry = trees(sha, prefix).get(part)
        if entry is None or entry[0] != 0o040000:
            return None
        sha, prefix = entry[1], prefix + part.decode() + "/"
    entry = trees(sha, prefix).get(parts[-1])
    if entry is None:
        return None
    try:
        d = load_event_file(_read(store, entry[1], f"file {event_path(number)}", Blob).data)
    except Exception:
        return None
    return d if isinstance(d, dict) else None


def _check_signature(commit: Commit, allowed_signers: str | None, gpg_keyring: str | None, where: str) -> None:
    """A signed commit must carry a good signature of an allowed signer (``git verify-commit`` semantics)."""
    check = signing.check_commit_signature(commit, allowed_signers, gpg_keyring)
    if check.status != signing.GOOD:
        store = gpg_keyring if check.format == "gpg" else allowed_signers
        raise IntegrityError(
            f"commit {commit.id.decode()[:12]} ({where}) carries a signature that does not prove it: {check.status}, "
            f"{check.detail}. If the signer is trusted, add their key to {store or 'the allowed signers (--allowed-signers for SSH, --gpg-keyring for GPG)'}; "
            "otherwise treat this approval as unproven (re-approve with halo-git approve --sign using an allowed key)",
            commit=commit.id.decode(),
        )


class _Trees:
    """Parsed, hash-checked trees by id; only the last few paths are kept."""

    def __init__(self, store):
        self.store = store
        self.entries: dict[bytes, dict[bytes, tuple[int, bytes]]] = {}

    def __call__(self, sha: bytes | None, where: str) -> dict[bytes, tuple[int, bytes]]:
        if sha is None:
            return {}
        found = self.entries.get(sha)
        if found is None:
            tree = _read(self.store, sha, f"tree {where or '(root)'}", Tree)
            found = {e.path: (e.mode, e.sha) for e in tree.iteritems()}
            if len(self.entries) >= 64:
                self.entries.clear()
            self.entries[sha] = found
        return found


def _check_tree_change(commit: Commit, parent: Commit | None, number: int, path: str, trees: _Trees) -> bytes:
    """The added file's blob id, after proving the commit changes nothing else.

    Walks the new file's path in the commit's tree and in its parent's side by
    side: at each level every other entry must be identical, so only the trees
    on the path (new in every commit) are read, not the whole snapshot.
    """
    parts = _path_parts(number)
    changes: list[str] = []
    new_sha, old_sha, prefix = commit.tree, parent.tree if parent is not None else None, ""
    for depth, part in enumerate(parts):
        new, old = trees(new_sha, prefix), trees(old_sha, prefix)
        for name in sorted((set(new) | set(old)) - {part}):
            if new.get(name) != old.get(name):
                kind = "add" if name not in old else "delete" if name not in new else "modify"
                changes.append(f"{kind} {prefix}{name.decode('utf-8', 'replace')}")
        here = f"{prefix}{part.decode()}"
        if new.get(part) == old.get(part):
            break  # nothing changed below this point
        if part not in new:
            changes.append(f"delete {here}")
            break
        mode, sha = new[part]
        is_last = depth == len(parts) - 1
        if is_last or mode != 0o040000 or (part in old and old[part][0] != 0o040000):
            changes.append(f"{'add' if part not in old else 'modify'} {here}")
            if is_last and part not in old and mode != _FILE_MODE:
                raise _Bad(f"{path} has mode {mode:o}, not a regular file ({_FILE_MODE:o})")
            break
        new_sha, old_sha, prefix = sha, old.get(part, (0, None))[1], here + "/"
    if changes == [f"add {path}"]:
        return new[parts[-1]][1]
    if not changes:
        raise _Bad(f"it changes no file; the next event commit adds {path}")
    if len(changes) == 1:
        raise _Bad(f"it does {changes[0]}; the next event commit adds {path}")
    shown = ", ".join(changes[:5]) + (", …" if len(changes) > 5 else "")
    raise _Bad(f"it changes {len(changes)} files ({shown}); an event commit adds exactly one, {path}")


def _check_event(data: bytes, number: int, agent: str, kinds: list[str], path: str) -> Event:
    """Re-derive the event from its own fields and the earlier events' kinds."""
    try:
        d = load_event_file(data)
    except Exception as e:
        raise _Bad(f"{path} is not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(d, dict):
        raise _Bad(f"{path} is not a YAML mapping")
    kind = d.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:  # (a list is unhashable)
        raise _Bad(f"{path} has kind {str(kind)[:40]!r}; kinds are {', '.join(KINDS)}")
    if d.get("id") != f"e{number}":
        raise _Bad(f"{path} holds id {str(d.get('id'))[:40]!r}, expected e{number}")
    if d.get("agent") != agent:
        other = d.get("agent") if isinstance(d.get("agent"), str) else None
        raise _Bad(f"{path} names agent {str(d.get('agent'))[:80]!r}, not the repository's agent '{agent}'", other)
    try:
        args = {k: d[k] for k in SHARED_PARAMS + KINDS[kind].fields if k in d}
        draft = check_call(kind, args)
        check_agent_name(d["agent"])
        session = check_session(d.get("session"))
        time = d.get("time")
        if not isinstance(time, str) or normalize_time(time) != time:
            raise _Bad(f"{path} has time {str(time)[:40]!r}, not a UTC ISO 8601 time as HALO writes it")
        event = resolve(draft, number, agent, session, time, lambda n: kinds[n - 1])
        if "merged_from" in d:  # checked against its original by merge.check_merges
            event = replace(event, merged_from=merge_origin(d["merged_from"]).text())
    except HaloError as e:
        raise _Bad(f"{path} does not validate: {e}") from None
    expected = event.to_dict()
    if list(d) != list(expected) or d != expected:
        wrong = [k for k in expected if d.get(k) != expected[k]] + [k for k in d if k not in expected]
        raise _Bad(f"{path} differs from the event its fields imply in: {', '.join(dict.fromkeys(wrong)) or 'key order'}")
    if to_yaml(event) != data and legacy_yaml(event) != data:  # legacy: written where PyYAML had no libyaml
        raise _Bad(f"{path} is not in HALO's canonical YAML form (edited by hand?)")
    return event
