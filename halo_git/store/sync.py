"""Remote sync: agents' branches reach a Git host without a person pushing.

A room of the store, beside ``remote.py`` (whose ``push``/``pull``/``clone``
it calls), used by ``Halo`` (``Halo.start_push``), ``halo-git serve --push``,
``push --all``, ``pull --all``, ``clone --all`` and ``halo-git agents``.

**One remote for a fleet.** ``REMOTE`` names a Git namespace: agent ``A``'s
repository is ``REMOTE/A.git``, or ``REMOTE`` with ``{agent}`` replaced by the
name when it holds that placeholder (``ssh://git@host/org/{agent}-trace.git``).
The repositories must exist on a Git host (GitHub, GitLab and Gitea create
repositories through their web API, not over Git); a bare repository on a
path or served by ``git daemon`` works the same.

**Off the append path.** ``Syncer.appended`` only counts, under a lock, and
wakes a background thread. The thread pushes in a child process (its own
repository handle and interpreter, so neither a lock nor the interpreter is
shared with appends, and a remote that hangs is killed after a timeout). A
branch is pushed when a session ends (the agent logs under a new session
label, or no event came for ``idle`` seconds), every ``every`` events, and on
shutdown; at start, branches whose head is not the commit last pushed (events
logged while no server pushed) are queued too. A failed push is retried with
exponential backoff; a failing remote never blocks, slows or fails an append,
it only shows in the state.

**State.** Each push writes ``<agent>.git/halo-push.json`` (the remote without
credentials, last attempt and success, the commit pushed, consecutive
failures and the last error), which ``halo-git agents`` shows and the server
logs; deleting it changes nothing but that display.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import urlsplit

from ..errors import HaloError, InvalidCall, NotFound
from ..model import check_agent_name
from .remote import Transfer, _redact, clone, pull, push
from .repo import DEFAULT_BRANCH, AgentRepo

STATE_FILE = "halo-push.json"
EVERY = 50  # events between pushes while a session goes on
IDLE = 10.0  # seconds without an event after which a session counts as ended
TIMEOUT = 120.0  # seconds one push may take before it is killed
BACKOFF = (1.0, 300.0)  # first retry delay and the longest, doubling in between


def remote_url(remote: str, agent: str) -> str:
    """The agent's repository in the namespace ``remote`` (see the module docstring)."""
    check_agent_name(agent)
    if "{agent}" in remote:
        return remote.replace("{agent}", agent)
    return f"{remote.rstrip('/')}/{agent}.git"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- state ---------------------------------------------------------------------------


@dataclass
class PushState:
    """What the last push of one agent's branch did (``halo-push.json``)."""

    agent: str
    branch: str
    remote: str  # without credentials
    status: str = "pending"  # pending | pushed | failing
    commit: str | None = None  # the commit the remote branch holds after the last success
    last_attempt: str | None = None
    last_success: str | None = None
    failures: int = 0  # consecutive
    error: str | None = None
    next_retry: str | None = None

    def describe(self) -> str:
        if self.status == "pushed":
            return f"pushed {(self.commit or '')[:10]} to {self.remote} at {self.last_success}"
        if self.status == "failing":
            retry = f", next try {self.next_retry}" if self.next_retry else ""
            return f"FAILING since {self.failures} attempt(s) to {self.remote} (last {self.last_attempt}{retry}): {self.error}"
        return f"pending push to {self.remote}"


def state_path(repo_path: Path) -> Path:
    return Path(repo_path) / STATE_FILE


def read_state(repo_path: Path) -> dict[str, PushState]:
    """Branch -> push state of one repository (empty when never pushed)."""
    try:
        data = json.loads(state_path(repo_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    names = set(PushState.__dataclass_fields__)
    for branch, item in (data.get("branches") or {}).items() if isinstance(data, dict) else ():
        if isinstance(item, dict) and names >= set(item) and _well_typed(item):
            try:
                out[branch] = PushState(**{k: _printable(v) if isinstance(v, str) else v for k, v in item.items()})
            except TypeError:
                continue
    return out


_STATE_TYPES = {"agent": str, "branch": str, "remote": str, "status": str, "failures": int}


def _well_typed(item: dict) -> bool:
    """A state as ``write_state`` writes it (the file can be edited by hand; a bad one reads as never pushed)."""
    return (all(isinstance(item.get(k), t) and not isinstance(item.get(k), bool) for k, t in _STATE_TYPES.items() if k in item)
            and isinstance(item.get("agent"), str)
            and all(item.get(k) is None or isinstance(item[k], str) for k in ("commit", "last_attempt", "last_success", "error", "next_retry")))


def _printable(text: str) -> str:
    """``text`` with control characters shown as escapes, so a hand-edited state cannot forge lines on a terminal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def write_state(repo_path: Path, state: PushState) -> None:
    """Record ``state`` for its branch (atomic replace; other branches kept)."""
    states = read_state(repo_path)
    states[state.branch] = state
    path = state_path(repo_path)
    tmp = path.with_name(f".{STATE_FILE}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(json.dumps({"branches": {b: asdict(s) for b, s in sorted(states.items())}}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _record(repo_path: Path, agent: str, branch: str, url: str, result: Transfer | None, error: str | None, previous: PushState | None) -> PushState:
    now = _now()
    state = previous or PushState(agent, branch, _redact(url))
    state.remote = _redact(url)
    state.last_attempt = now
    if error is None:
        state.status, state.failures, state.error, state.next_retry = "pushed", 0, None, None
        state.last_success = now
        state.commit = result.new if result is not None else state.commit
    else:
        state.status, state.failures, state.error = "failing", state.failures + 1, error
    write_state(repo_path, state)
    return state


# -- one-shot operations over many agents ------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What happened to one agent in a fleet-wide push, pull or clone."""

    agent: str
    transfers: tuple[Transfer, ...] = ()
    error: str | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"agent '{self.agent}': FAILED: {self.error}"
        return "\n".join(t.describe() for t in self.transfers) or f"agent '{self.agent}': nothing to do"


def push_recorded(root: Path, agent: str, url: str, branch: str = DEFAULT_BRANCH) -> Transfer:
    """``push`` one agent's branch to ``url`` and record the outcome in ``halo-push.json``.

    Raises:
        HaloError: as ``push`` (recorded as a failure first).
    """
    path = Path(root) / f"{check_agent_name(agent)}.git"
    with AgentRepo(path, agent) as repo:
        try:
            t = push(repo, url, branch)
        except HaloError as e:
            if path.is_dir() and branch in repo.branches():
                _record(path, agent, branch, url, None, str(e), read_state(path).get(branch))
            raise
    _record(path, agent, branch, url, t, None, read_state(path).get(branch))
    return t


def push_all(root: Path, agents: Iterable[str], remote: str, branch: str = DEFAULT_BRANCH) -> list[Outcome]:
    """Push ``branch`` of every agent to its repository in ``remote``; one failure does not stop the others."""
    out = []
    for agent in agents:
        with AgentRepo(Path(root) / f"{agent}.git", agent) as repo:
            if branch not in repo.branches():
                out.append(Outcome(agent, error=f"no branch '{branch}' here; nothing pushed"))
                continue
        try:
            out.append(Outcome(agent, (push_recorded(root, agent, remote_url(remote, agent), branch),)))
        except HaloError as e:
            out.append(Outcome(agent, error=str(e)))
    return out


def pull_all(root: Path, agents: Iterable[str], remote: str, branch: str = DEFAULT_BRANCH) -> list[Outcome]:
    """Fast-forward ``branch`` of every agent from its repository in ``remote``."""
    out = []
    for agent in agents:
        try:
            with AgentRepo(Path(root) / f"{agent}.git", agent) as repo:
                out.append(Outcome(agent, (pull(repo, remote_url(remote, agent), branch),)))
        except HaloError as e:
            out.append(Outcome(agent, error=str(e)))
    return out


def clone_all(root: Path, agents: Iterable[str], remote: str, head: str = DEFAULT_BRANCH) -> list[Outcome]:
    """Clone every named agent from its repository in ``remote`` (each failure reported, the rest go on)."""
    out = []
    for agent in agents:
        try:
            out.append(Outcome(agent, tuple(clone(root, agent, remote_url(remote, agent), head=head))))
        except HaloError as e:
            out.append(Outcome(agent, error=str(e)))
    return out


def list_namespace(remote: str) -> list[str]:
    """Agent names in a namespace that can be listed: a local folder or ``file://`` URL.

    Raises:
        InvalidCall: a Git host's namespace (Git cannot list repositories).
        NotFound: the folder does not exist.
    """
    if "{agent}" in remote:
        raise InvalidCall(f"cannot list agents of {_redact(remote)} (it holds {{agent}}); name them with --agents a,b or --agents-file FILE")
    parts = urlsplit(remote)
    if parts.scheme == "file":
        folder = Path(parts.path)
    elif parts.scheme == "" and "@" not in remote.split("/", 1)[0] and ":" not in remote.split("/", 1)[0]:
        folder = Path(remote)
    else:
        raise InvalidCall(
            f"Git cannot list the repositories of {_redact(remote)}; name the agents with --agents a,b or --agents-file FILE "
            "(a host's API can list them, e.g. gh repo list ORG --json name -q '.[].name' | halo-git clone --all REMOTE --agents-file -)"
        )
    if not folder.is_dir():
        raise NotFound(f"{folder} is not a folder; pass the folder that holds the agents' <agent>.git repositories")
    names = []
    for p in sorted(folder.iterdir()):
        if p.name.endswith(".git") and (p / "HEAD").exists():
            try:
                names.append(check_agent_name(p.name[: -len(".git")]))
            except HaloError:
                continue
    return names


@dataclass(frozen=True)
class AgentStatus:
    """One line of ``halo-git agents``."""

    agent: str
    branch: str
    events: int
    sessions: int
    last: str | None  # time of the newest event
    head: str | None
    push: PushState | None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["push"] = asdict(self.push) if self.push else None
        return d


def status_of(repo: AgentRepo, branch: str = DEFAULT_BRANCH) -> AgentStatus:
    """Events, sessions, last activity and push state of one agent's branch."""
    log = repo.log(branch) if branch in repo.branches() else None
    events = log.events if log is not None else []
    return AgentStatus(
        repo.agent,
        branch,
        len(events),
        len({e.session for e in events}),
        events[-1].time if events else None,
        log.head if log is not None else None,
        read_state(repo.path).get(branch),
    )


# -- background pushes ---------------------------------------------------------------------


@dataclass
class _Agent:
    branch: str
    pending: int = 0
    session: str | None = None
    ended: bool = False  # a session ended since the last push
    last_event: float = 0.0
    failures: int = 0
    retry_at: float = 0.0
    state: PushState | None = None


class Syncer:
    """Pushes agents' branches to ``remote`` in the background (see the module docstring).

    Args:
        root: the HALO root.
        remote: the namespace (``REMOTE/<agent>.git`` or ``{agent}`` in it).
        every: push after this many events even while a session goes on.
        idle: seconds without an event after which the session counts as ended.
        timeout: seconds a push may take before its process is killed.
        branch: at start, agents never pushed are pushed on this branch (every
            branch pushed before is pushed again when its head moved).
        log: called with one line per push attempt (the server prints to stderr).
    """

    def __init__(
        self,
        root: Path,
        remote: str,
        *,
        every: int = EVERY,
        idle: float = IDLE,
        timeout: float = TIMEOUT,
        backoff: tuple[float, float] = BACKOFF,
        branch: str = DEFAULT_BRANCH,
        log: Callable[[str], None] | None = None,
    ):
        if every < 1:
            raise InvalidCall(f"--push-every must be at least 1, not {every}")
        if idle <= 0 or timeout <= 0:
            raise InvalidCall("--push-idle and --push-timeout must be positive numbers of seconds")
        self.root = Path(root)
        self.remote = remote
        self.every, self.idle, self.timeout, self.backoff = every, idle, timeout, backoff
        self.branch = branch  # never-pushed agents are caught up on this branch; pushed branches on any
        self.log = log or (lambda line: None)
        self._agents: dict[tuple[str, str], _Agent] = {}
        self._cond = threading.Condition()
        self._stopping = False
        self._final: set[tuple[str, str]] = set()
        self._child: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._run, name="halo-push", daemon=True)
        self._thread.start()
        shown = _redact(remote) if "{agent}" in remote else f"{_redact(remote).rstrip('/')}/<agent>.git"
        self.log(f"halo-git push: pushing each agent's branch to {shown} after each session, every {every} events and on shutdown")

    # called on the append path: count and wake, nothing else
    def appended(self, agent: str, branch: str, session: str | None, count: int = 1) -> None:
        with self._cond:
            a = self._agents.get((agent, branch))
            if a is None:
                a = self._agents[(agent, branch)] = _Agent(branch)
            if a.session is not None and session != a.session:
                a.ended = True
            a.session = session
            a.pending += count
            a.last_event = time.monotonic()
            self._cond.notify()

    def states(self) -> dict[tuple[str, str], PushState | None]:
        with self._cond:
            return {k: a.state for k, a in self._agents.items()}

    def close(self, timeout: float | None = None) -> None:
        """Push what is pending (one attempt each), then stop; waits at most
        ``timeout`` seconds (default: the push timeout) and then leaves."""
        with self._cond:
            if self._stopping:
                return
            self._stopping = True
            self._cond.notify()
        self._thread.join(self.timeout if timeout is None else timeout)
        child = self._child
        if self._thread.is_alive() and child is not None and child.poll() is None:
            child.kill()
            self.log(f"halo-git push: stopped waiting for a push to {_redact(self.remote)} at shutdown; events not pushed stay local")

    # -- the background thread --

    def _due(self, now: float) -> tuple[list[tuple[str, str]], float | None]:
        due, wake = [], None
        for key, a in self._agents.items():
            if a.pending == 0:
                continue
            if self._stopping:
                if key not in self._final:  # one last attempt each at shutdown
                    due.append(key)
                continue
            ready = a.ended or a.pending >= self.every or now - a.last_event >= self.idle
            at = max(a.retry_at, now if ready else a.last_event + self.idle)
            if at <= now:
                due.append(key)
            else:
                wake = at if wake is None else min(wake, at)
        return due, wake

    def _catch_up(self) -> None:
        """Queue the branches whose head is not what was last pushed (events
        logged while no server pushed, or before a crash)."""
        if not self.root.is_dir():
            return
        for path in sorted(self.root.glob("*.git")):
            agent = path.name[: -len(".git")]
            try:
                check_agent_name(agent)
                with AgentRepo(path, agent) as repo:
                    heads = {b: repo.head(b) for b in repo.branches()}
            except (HaloError, OSError):
                continue
            states = read_state(path)
            with self._cond:
                for branch, head in heads.items():
                    pushed = states.get(branch)
                    if head is None or (pushed is not None and pushed.commit == head) or (pushed is None and branch != self.branch):
                        continue
                    a = self._agents.setdefault((agent, branch), _Agent(branch))
                    if a.pending == 0:
                        a.pending, a.ended = 1, True
                self._cond.notify()

    def _run(self) -> None:
        try:
            self._catch_up()
        except Exception as e:  # never let the catch-up stop the pushes of new events
            self.log(f"halo-git push: could not look for unpushed branches: {e}")
        while True:
            with self._cond:
                while True:
                    due, wake = self._due(time.monotonic())
                    if due or (self._stopping and not due):
                        break
                    self._cond.wait(None if wake is None else max(0.0, wake - time.monotonic()))
                if not due:
                    return
                batch = []
                for key in due:
                    if self._stopping:
                        self._final.add(key)
                    a = self._agents[key]
                    batch.append((key, a.pending))
                    a.pending, a.ended = 0, False
                stopping = self._stopping
            for (agent, branch), count in batch:
                self._push(agent, branch, count)

    def _push(self, agent: str, branch: str, count: int) -> None:
        # no file or process work under the lock the append path takes
        url = remote_url(self.remote, agent)
        path = self.root / f"{agent}.git"
        result, error = self._push_in_child(agent, branch, url)
        with self._cond:
            a = self._agents[(agent, branch)]
            previous = a.state
            if error is None:
                a.failures, a.retry_at, delay = 0, 0.0, 0.0
            else:
                a.failures += 1
                a.pending += count  # still to push
                delay = min(self.backoff[1], self.backoff[0] * 2 ** (a.failures - 1))
                a.retry_at = time.monotonic() + delay
            failures, stopping = a.failures, self._stopping
        try:
            state = _record(path, agent, branch, url, result, error, previous or read_state(path).get(branch))
            if error is not None and not stopping:
                state.next_retry = datetime.fromtimestamp(time.time() + delay, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                write_state(path, state)
        except OSError as e:  # the state is for display; failing to write it changes no push
            state = previous or PushState(agent, branch, _redact(url))
            self.log(f"halo-git push: could not record the push state of agent '{agent}': {e}")
        if error is None:
            self.log(f"halo-git push: {result.describe()}")
        else:
            later = "" if stopping else f"; retrying in {delay:g} s"
            self.log(f"halo-git push: agent '{agent}' branch '{branch}' to {_redact(url)} failed (attempt {failures}): {error}{later}")
        with self._cond:
            a.state = state

    def _push_in_child(self, agent: str, branch: str, url: str) -> tuple[Transfer | None, str | None]:
        cmd = [sys.executable, "-m", "halo_git.store.sync", str(self.root), agent, branch, url]
        try:
            child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        except OSError as e:
            return None, f"could not start the push process: {e}"
        self._child = child
        try:
            out, err = child.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return None, f"timed out after {self.timeout:g} s (is the remote reachable?)"
        finally:
            self._child = None
        try:
            reply = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return None, f"the push process failed: {(err or out).strip()[-300:] or f'exit status {child.returncode}'}"
        if "error" in reply:
            return None, reply["error"]
        return Transfer(**reply["transfer"]), None


def _child_main(argv: list[str]) -> int:
    """``python -m halo_git.store.sync ROOT AGENT BRANCH URL``: one push, one JSON line."""
    root, agent, branch, url = argv
    try:
        with AgentRepo(Path(root) / f"{check_agent_name(agent)}.git", agent) as repo:
            t = push(repo, url, branch)
        print(json.dumps({"transfer": asdict(t)}))
        return 0
    except HaloError as e:
        print(json.dumps({"error": str(e)}))
        return 1
    except Exception as e:  # anything dulwich raises on a broken connection
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 1


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
