"""Prove a branch's history is exactly what HALO writes, commit by commit.

Git already guarantees that nobody changed an object without changing its id;
it cannot tell whether the history *as a whole* was rewritten with ordinary
``git`` commands (an event edited, dropped, reordered, a file slipped in). This
walk re-derives every event from the one before and fails at the first commit
that HALO could not have written:

* the walk follows single parents from the head to the root commit (no merges);
* each commit adds exactly one file, the next event's path, and changes nothing else;
* every object read hashes to its id (no corrupted loose object or pack entry);
* the file is HALO's canonical YAML of an event whose id is the next one, of
  this agent, that passes the same validation as a tool call (``check_call``,
  screening aside: a screen configured today does not judge yesterday), whose
  ``uses``/``about`` name earlier events, and whose channels, recomputed from
  those events, are the ones recorded (``resolve``);
* the commit message, author and commit time are the ones the event implies.

Reading is independent of ``AgentRepo``'s caches and snapshots: it opens the
repository afresh and trusts nothing but the objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from dulwich.diff_tree import tree_changes
from dulwich.objects import Blob, Commit, ShaFile, Tree
from dulwich.repo import Repo

from ..errors import HaloError, IntegrityError, NotFound
from ..model import (
    KINDS,
    SHARED_PARAMS,
    Event,
    check_agent_name,
    check_call,
    check_session,
    commit_message,
    epoch_seconds,
    load_yaml,
    normalize_time,
    resolve,
    to_yaml,
)
from .repo import AgentRepo, _path_parts, branch_ref, event_path

_FILE_MODE = 0o100644


@dataclass(frozen=True)
class Verified:
    """A branch that passed: how many events, up to which head commit."""

    agent: str
    branch: str
    head: str | None
    events: int


class _Bad(Exception):
    """What is wrong with one commit (wrapped into ``IntegrityError``)."""


def verify_branch(repo: AgentRepo, branch: str) -> Verified:
    """Walk ``branch`` from its root commit and check every event commit.

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
            branches = sorted(k.decode() for k in git.refs.keys(base=b"refs/heads/"))
            if branches:
                raise NotFound(f"agent '{repo.agent}' has no branch '{branch}'; branches: {', '.join(branches)}")
            return Verified(repo.agent, branch, None, 0)
        chain = _first_parent_chain(git, head, repo.agent, branch)
        kinds: list[str] = []
        parent: Commit | None = None
        for number, commit in enumerate(chain, 1):
            try:
                event = _check_commit(git, commit, parent, number, repo.agent, kinds)
            except _Bad as e:
                raise IntegrityError(
                    f"commit {commit.id.decode()[:12]} (position e{number} on branch '{branch}' of agent "
                    f"'{repo.agent}') is not a HALO event commit: {e}. The history was changed outside HALO; "
                    f"events before it are intact: restore the branch from a clone or backup",
                    commit=commit.id.decode(),
                ) from None
            kinds.append(event.kind)
            parent = commit
        return Verified(repo.agent, branch, head.decode(), len(chain))


def _read(git: Repo, sha: bytes, what: str) -> ShaFile:
    try:
        obj = git.object_store[sha]
        obj.check()  # recompute the hash: a corrupted object must not pass
    except KeyError:
        raise _Bad(f"its {what} {sha.decode()[:12]} is missing from the repository") from None
    except Exception as e:
        raise _Bad(f"its {what} {sha.decode()[:12]} is corrupt ({type(e).__name__})") from None
    return obj


def _first_parent_chain(git: Repo, head: bytes, agent: str, branch: str) -> list[Commit]:
    """Commits from the root to ``head``, refusing merges on the way down."""
    chain: list[Commit] = []
    sha: bytes | None = head
    while sha is not None:
        try:
            commit = _read(git, sha, "commit")
            if not isinstance(commit, Commit):
                raise _Bad(f"{sha.decode()[:12]} is a {commit.type_name.decode()}, not a commit")
            if len(commit.parents) > 1:
                raise _Bad(f"it is a merge of {len(commit.parents)} commits; an event commit has one parent")
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


def _check_commit(git: Repo, commit: Commit, parent: Commit | None, number: int, agent: str, kinds: list[str]) -> Event:
    path = event_path(number)
    blob_id = _check_tree_change(git, commit, parent, number, path)
    blob = _read(git, blob_id, f"file {path}")
    if not isinstance(blob, Blob):
        raise _Bad(f"{path} is not a file")
    event = _check_event(blob.data, number, agent, kinds, path)
    if commit.message != commit_message(event).encode("utf-8"):
        raise _Bad(f"its message does not match the event (expected {commit_message(event).strip()!r})")
    ident = f"{agent} <{agent}@halo>".encode()
    if commit.author != ident or commit.committer != ident:
        raise _Bad(f"its author or committer is not the agent ({ident.decode()})")
    when = epoch_seconds(event.time)
    if commit.author_time != when or commit.commit_time != when:
        raise _Bad(f"its author or commit time differs from the event time {event.time}")
    return event


def _check_tree_change(git: Repo, commit: Commit, parent: Commit | None, number: int, path: str) -> bytes:
    """The one added file's blob id, after checking nothing else changed."""
    tree = _read(git, commit.tree, "tree")
    # Every tree on the path to the new file is new in this commit: check each once.
    sha = tree.id
    for part in _path_parts(number)[:-1]:
        if not isinstance(tree, Tree) or part not in tree:
            raise _Bad(f"it does not add {path}")
        mode, sha = tree[part]
        tree = _read(git, sha, "tree")
    try:
        changes = list(tree_changes(git.object_store, parent.tree if parent is not None else None, commit.tree))
    except Exception as e:
        raise _Bad(f"its tree cannot be compared with its parent's ({type(e).__name__})") from None
    described = [f"{c.type} {_changed_path(c)}" for c in changes]
    if len(changes) != 1:
        raise _Bad(f"it changes {len(changes)} files ({', '.join(described[:5])}); an event commit adds exactly one, {path}")
    change = changes[0]
    if change.type != "add" or change.new.path != path.encode():
        raise _Bad(f"it does {described[0]}; the next event commit adds {path}")
    if change.new.mode != _FILE_MODE:
        raise _Bad(f"{path} has mode {change.new.mode:o}, not a regular file ({_FILE_MODE:o})")
    return change.new.sha


def _changed_path(change) -> str:
    side = change.new if change.new is not None and change.new.path is not None else change.old
    return side.path.decode("utf-8", "replace")


def _check_event(data: bytes, number: int, agent: str, kinds: list[str], path: str) -> Event:
    """Re-derive the event from its own fields and the earlier events' kinds."""
    try:
        d = load_yaml(data)
    except Exception as e:
        raise _Bad(f"{path} is not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(d, dict):
        raise _Bad(f"{path} is not a YAML mapping")
    kind = d.get("kind")
    if kind not in KINDS:
        raise _Bad(f"{path} has kind {str(kind)[:40]!r}; kinds are {', '.join(KINDS)}")
    if d.get("id") != f"e{number}":
        raise _Bad(f"{path} holds id {str(d.get('id'))[:40]!r}, expected e{number}")
    if d.get("agent") != agent:
        raise _Bad(f"{path} names agent {str(d.get('agent'))[:80]!r}, not the repository's agent '{agent}'")
    try:
        args = {k: d[k] for k in SHARED_PARAMS + KINDS[kind].fields if k in d}
        draft = check_call(kind, args)
        check_agent_name(d["agent"])
        session = check_session(d.get("session"))
        time = d.get("time")
        if not isinstance(time, str) or normalize_time(time) != time:
            raise _Bad(f"{path} has time {str(time)[:40]!r}, not a UTC ISO 8601 time as HALO writes it")
        event = resolve(draft, number, agent, session, time, lambda n: kinds[n - 1])
    except HaloError as e:
        raise _Bad(f"{path} does not validate: {e}") from None
    expected = event.to_dict()
    if list(d) != list(expected) or d != expected:
        wrong = [k for k in expected if d.get(k) != expected[k]] + [k for k in d if k not in expected]
        raise _Bad(f"{path} differs from the event its fields imply in: {', '.join(dict.fromkeys(wrong)) or 'key order'}")
    if to_yaml(event) != data:
        raise _Bad(f"{path} is not in HALO's canonical YAML form (edited by hand?)")
    return event
