"""The Python API: one object over the store, the model and the diagnosis.

The MCP server, the CLI and the site builder are thin shells over ``Halo``;
scripts and tests use it directly::

    from halo_git import Halo
    with Halo("~/.halo") as h:
        h.log("demo", "observe", "user asked for a 9:30 reminder", session="day1")

A ``Halo`` that is never closed is closed at the latest when it is garbage
collected or the interpreter exits (``weakref.finalize``), before the modules
its open pack files need are torn down.
"""

from __future__ import annotations

import os
import weakref
from typing import Any, Mapping, Sequence

from . import jsonl
from .diagnosis import Diagnosis, diagnose
from .diff import BehaviourDiff, compare
from .errors import CLI, InvalidCall, NotFound
from .model import (
    Event,
    check_agent_name,
    check_call,
    check_limit,
    check_session,
    logged_reply,
    new_session_label,
    now_iso,
    resolve,
    trace_text,
)
from .report import render_report
from .screening import Screen, default_screen, load_screen
from .store import DEFAULT_BRANCH, EventLog, Store


class Halo:
    """HALO over one root folder.

    Args:
        root: the root folder (default: ``HALO_ROOT``, else ``~/.halo``).
        branch: the branch events go to and tools read (default ``main``).
        session: default session label for ``log`` (default: one new label per
            ``Halo`` object, like one MCP connection).
        screen: the secrets/personal-data screen applied to summaries
            (``None`` disables it).
        fsync: fsync every object before an append returns (durable against
            power loss, not only process crashes; slower).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        branch: str = DEFAULT_BRANCH,
        session: str | None = None,
        screen: Screen | None = default_screen,
        fsync: bool = False,
    ):
        self.store = Store(root, fsync=fsync)
        self._finalizer = weakref.finalize(self, self.store.close)
        self.branch = branch
        self.session = session or new_session_label()
        self.screen = load_screen(self.root) if screen is default_screen else screen  # <root>/screening.yaml, HALO_SCREEN

    @property
    def root(self):
        return self.store.root

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> "Halo":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------

    def log(
        self,
        agent: str | None,
        kind: str,
        summary: str,
        uses: Sequence[str] | None = None,
        session: str | None = None,
        *,
        branch: str | None = None,
        time: str | None = None,
        **fields: Any,
    ) -> dict[str, str]:
        """Log one event; returns the tools' reply dict. Raises ``HaloError``."""
        args: dict[str, Any] = {"summary": summary, **fields}
        if uses is not None:
            args["uses"] = list(uses)
        if session is not None:
            args["session"] = session
        if agent is not None:
            args["agent"] = agent
        return self.log_call(kind, args, branch=branch, time=time)

    def log_call(
        self,
        kind: str,
        args: Mapping[str, Any],
        *,
        default_agent: str | None = None,
        default_session: str | None = None,
        branch: str | None = None,
        time: str | None = None,
    ) -> dict[str, str]:
        """Log one event from a tool call's raw arguments (validated here)."""
        draft = check_call(kind, args, self.screen)
        agent = draft.agent or default_agent
        if agent is None:
            raise InvalidCall(
                "no agent name: pass 'agent' (e.g. \"demo\") or start the server with --agent NAME"
            )
        agent = check_agent_name(agent)
        session = draft.session or default_session or self.session
        when = time or now_iso()
        repo = self.store.repo(agent)
        branch = branch or self.branch
        if not repo.exists:  # refuse before the repository is created
            resolve(draft, 1, agent, session, when, _no_events)

        def build(number: int, kind_of) -> Event:
            if number == 1:  # the branch has no commit yet
                _refuse_missing_branch(repo, branch)
            return resolve(draft, number, agent, session, when, kind_of)

        committed = repo.append(branch, build)
        return logged_reply(committed.event)

    def import_lines(
        self, agent: str, lines, branch: str | None = None, session: str = "import", *, allow_duplicates: bool = False,
    ) -> list[str]:
        """Import JSONL events (see ``jsonl``); all or nothing. Returns the new ids.

        Refuses a file with lines the branch already holds (same kind,
        session, summary and time: the file was imported before) unless
        ``allow_duplicates``."""
        agent = check_agent_name(agent)
        items = jsonl.parse_lines(lines, self.screen)
        if not items:
            return []
        repo = self.store.repo(agent)
        branch = branch or self.branch
        if not repo.exists:  # refuse before the repository is created
            jsonl.plan(items, 1, agent, session, _no_events)
        elif not allow_duplicates and repo.head(branch) is not None:
            dup = jsonl.duplicates(items, repo.log(branch).events, session)
            if dup:
                raise _already_imported(agent, branch, dup, len(items))

        def build(first: int, kind_of) -> list[Event]:
            if first == 1:  # the branch has no commit yet
                _refuse_missing_branch(repo, branch)
            return jsonl.plan(items, first, agent, session, kind_of)

        done = repo.append_many(branch, build)
        return [c.event.id for c in done]

    def export_lines(self, agent: str, branch: str | None = None):
        """The branch's events as JSONL lines (same fields as the YAML files)."""
        return jsonl.export_lines(self.event_log(agent, branch).events)

    # -- reading ---------------------------------------------------------------

    def agents(self) -> list[str]:
        return self.store.agents()

    def require_root(self) -> None:
        """Raise ``NotFound`` naming the root when the root folder does not exist
        (a reading command must not answer "no events" for a mistyped root)."""
        if not self.root.is_dir():
            raise NotFound(
                f"no HALO root at {self.root}: the folder does not exist",
                hints={CLI: "pass --root (or set HALO_ROOT) to the folder that holds the agents' <agent>.git repositories"},
            )

    def require_agent(self, agent: str) -> str:
        """The agent's checked name, or ``NotFound`` naming the root and the
        agents it does hold (for commands that read an existing trace)."""
        agent = check_agent_name(agent)
        self.require_root()
        agents = self.agents()
        if agent not in agents:
            shown = ", ".join(agents[:20]) + (f" and {len(agents) - 20} more" if len(agents) > 20 else "")
            raise NotFound(
                f"no agent '{agent}' in {self.root} "
                + (f"(its agents: {shown})" if agents else "(it holds no agents yet)"),
                hints={CLI: "check --agent and --root"},
            )
        return agent

    def require_branch(self, agent: str | None, branch: str | None = None) -> None:
        """Refuse (``NotFound``) a branch that appends would refuse: the agent's
        repository holds other branches but not this one. Without an agent,
        refuse only when the root holds agents and none of them has the branch
        (a new agent may still start on any branch: pass its name)."""
        branch = branch or self.branch
        if agent is not None:
            repo = self.store.repo(check_agent_name(agent))
            if repo.exists and repo.head(branch) is None:
                _refuse_missing_branch(repo, branch)
            return
        repos = [self.store.repo(a) for a in self.agents()]
        if repos and all(r.head(branch) is None for r in repos):
            shown = ", ".join(r.agent for r in repos[:10])
            raise NotFound(
                f"no agent in {self.root} has a branch '{branch}' (agents: {shown}); create it first: "
                f"halo-git branch --agent {repos[0].agent} {branch} --from main, or name the new agent that starts it with --agent"
            )

    def event_log(self, agent: str, branch: str | None = None) -> EventLog:
        """All events of the agent's branch with their commit ids."""
        repo = self.store.repo(agent)
        if not repo.exists:
            return EventLog(branch or self.branch, None, [], [])
        return repo.log(branch or self.branch)

    def events(self, agent: str, branch: str | None = None) -> list[Event]:
        return list(self.event_log(agent, branch).events)

    def trace(self, agent: str, limit: int = 20, session: str = "", branch: str | None = None, *, interface: str = "mcp") -> str:
        """The ``halo_trace`` text: the most recent ``limit`` events, oldest first
        (``interface`` phrases the empty trace's hint for ``"mcp"`` or ``"cli"``)."""
        check_agent_name(agent)
        limit = check_limit(limit)
        if session:
            check_session(session)
        repo = self.store.repo(agent)
        if not repo.exists:
            return trace_text([], agent, session, interface)
        if repo.head(branch or self.branch) is None:
            _refuse_missing_branch(repo, branch or self.branch)
        if not session:
            return trace_text(repo.tail(branch or self.branch, limit), agent)
        picked = [e for e in reversed(repo.log(branch or self.branch).events) if e.session == session]
        return trace_text(list(reversed(picked[:limit])), agent, session, interface)

    def diagnosis(self, agent: str, session: str = "", branch: str | None = None) -> Diagnosis:
        """The pure diagnosis of the agent's branch head (or one session)."""
        check_agent_name(agent)
        if session:
            check_session(session)
        log = self.event_log(agent, branch)
        if session and not any(e.session == session for e in log.events):
            sessions = sorted({e.session for e in log.events})
            shown = ", ".join(sessions[:10]) + (" …" if len(sessions) > 10 else "")
            raise NotFound(
                f"agent '{agent}' has no session '{session}'" + (f"; its sessions: {shown}" if sessions else "; it has no events yet")
            )
        return diagnose(log.events, agent=agent, branch=log.branch, head=log.head, session=session)

    def report(self, agent: str, session: str = "", branch: str | None = None) -> str:
        """The ``halo_report`` Markdown."""
        return render_report(self.diagnosis(agent, session, branch))

    def diff(self, agent: str, base: str, head: str) -> BehaviourDiff:
        """Behaviour diff of two branches or commit ids of the agent (see ``halo_git.diff``)."""
        repo = self.store.repo(check_agent_name(agent))
        branches = repo.branches()

        def log(rev: str) -> EventLog:
            return repo.log(rev) if rev in branches else repo.log_at(repo.resolve(rev))

        return compare(agent, base, log(base), head, log(head))


def _refuse_missing_branch(repo, branch: str) -> None:
    """Called when ``branch`` has no commit: refuse it if the repository holds other
    branches, so a typo in ``--branch`` cannot silently start a second history at e1.
    (Appends call it from inside their compare-and-swap loop, so a racing first
    append to the same branch simply retries as e2.)"""
    branches = repo.branches()
    if branches and branch not in branches:
        start = "main" if "main" in branches else branches[0]
        raise NotFound(
            f"agent '{repo.agent}' has no branch '{branch}' (its branches: {', '.join(branches)}); "
            f"create it first: halo-git branch --agent {repo.agent} {branch} --from {start}"
        )


def _already_imported(agent: str, branch: str, dup: list[tuple[int, str]], lines: int) -> InvalidCall:
    line, held = dup[0]
    more = f", and so do {len(dup) - 1} more of the file's {lines} lines" if len(dup) > 1 else ""
    return InvalidCall(
        f"line {line} repeats {held} of agent '{agent}' on branch '{branch}' (same kind, session, summary and time){more}: "
        "the file looks imported already; nothing was imported",
        hints={CLI: "pass --allow-duplicates to import it again", "mcp": "pass allow_duplicates=True to import it again"},
    )


def _no_events(number: int) -> str:
    raise AssertionError(f"e{number} looked up in an empty history")
