"""The Python API: one object over the store, the model and the diagnosis.

The MCP server, the CLI and the site builder are thin shells over ``Halo``;
scripts and tests use it directly::

    from halo_git import Halo
    h = Halo("/tmp/halo")
    h.log("demo", "observe", "user asked for a 9:30 reminder", session="day1")
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from . import jsonl
from .diagnosis import Diagnosis, diagnose
from .diff import BehaviourDiff, compare
from .errors import InvalidCall, NotFound
from .gate import Gate, evaluate
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
from .observed import Observed
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
        self.branch = branch
        self.session = session or new_session_label()
        self.screen = load_screen(self.root) if screen is default_screen else screen  # <root>/screening.yaml, HALO_SCREEN

    @property
    def root(self):
        return self.store.root

    def close(self) -> None:
        self.store.close()

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

    def import_lines(self, agent: str, lines, branch: str | None = None, session: str = "import") -> list[str]:
        """Import JSONL events (see ``jsonl``); all or nothing. Returns the new ids."""
        agent = check_agent_name(agent)
        items = jsonl.parse_lines(lines, self.screen)
        if not items:
            return []
        repo = self.store.repo(agent)
        branch = branch or self.branch
        if not repo.exists:  # refuse before the repository is created
            jsonl.plan(items, 1, agent, session, _no_events)

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

    def event_log(self, agent: str, branch: str | None = None) -> EventLog:
        """All events of the agent's branch with their commit ids."""
        repo = self.store.repo(agent)
        if not repo.exists:
            return EventLog(branch or self.branch, None, [], [])
        return repo.log(branch or self.branch)

    def events(self, agent: str, branch: str | None = None) -> list[Event]:
        return list(self.event_log(agent, branch).events)

    def trace(self, agent: str, limit: int = 20, session: str = "", branch: str | None = None) -> str:
        """The ``halo_trace`` text: the most recent ``limit`` events, oldest first."""
        check_agent_name(agent)
        limit = check_limit(limit)
        if session:
            check_session(session)
        repo = self.store.repo(agent)
        if not repo.exists:
            return trace_text([], agent, session)
        if repo.head(branch or self.branch) is None:
            _refuse_missing_branch(repo, branch or self.branch)
        if not session:
            return trace_text(repo.tail(branch or self.branch, limit), agent)
        picked = [e for e in reversed(repo.log(branch or self.branch).events) if e.session == session]
        return trace_text(list(reversed(picked[:limit])), agent, session)

    def diagnosis(self, agent: str, session: str = "", branch: str | None = None, observed: Observed | None = None) -> Diagnosis:
        """The pure diagnosis of the agent's branch head (or one session); ``observed`` from ``observed.load``."""
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
        return diagnose(log.events, agent=agent, branch=log.branch, head=log.head, session=session, observed=observed)

    def report(self, agent: str, session: str = "", branch: str | None = None, observed: Observed | None = None) -> str:
        """The ``halo_report`` Markdown."""
        return render_report(self.diagnosis(agent, session, branch, observed))

    def diff(self, agent: str, base: str, head: str) -> BehaviourDiff:
        """Behaviour diff of two branches or commit ids of the agent (see ``halo_git.diff``)."""
        repo = self.store.repo(check_agent_name(agent))
        branches = repo.branches()

        def log(rev: str) -> EventLog:
            return repo.log(rev) if rev in branches else repo.log_at(repo.resolve(rev))

        return compare(agent, base, log(base), head, log(head))


    def check(
        self,
        agent: str,
        *,
        session: str = "",
        branch: str | None = None,
        fail_on: str = "high",
        baseline: str | None = None,
        accepted: Sequence = (),
        accept_file: str | None = None,
        observed: Observed | None = None,
    ) -> Gate:
        """The CI gate over the agent's branch (see ``halo_git.gate``): findings at or
        above ``fail_on`` that ``accepted`` (``accept.Accepted`` entries) does not
        cover; with ``baseline`` (a branch or commit id) only those new relative to it."""
        if baseline and session:
            raise InvalidCall("--baseline compares whole branches; leave out --session, or check the session without a baseline")
        if baseline and observed is not None:
            raise InvalidCall("--observed describes one run of one branch, so it cannot be compared with a baseline; "
                              "check with --observed and without --baseline")
        if baseline:
            diff = self.diff(agent, baseline, branch or self.branch)
            return evaluate(diff.head.diagnosis, fail_on=fail_on, diff=diff, accepted=accepted, accept_file=accept_file)
        d = self.diagnosis(agent, session=session, branch=branch, observed=observed)
        return evaluate(d, fail_on=fail_on, accepted=accepted, accept_file=accept_file)


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


def _no_events(number: int) -> str:
    raise AssertionError(f"e{number} looked up in an empty history")
