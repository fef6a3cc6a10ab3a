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

import dataclasses
import os
import shlex
import threading
import weakref
from collections import OrderedDict
from typing import Any, Callable, Mapping, Sequence

from . import jsonl, lineage, retention, revisions
from .accept import Accepted, accepted_for
from .diagnosis import Diagnosis, diagnose
from .diff import BehaviourDiff, compare
from .errors import CLI, HaloError, InvalidCall, NotFound
from .gate import Gate, evaluate
from .model import (
    Event,
    check_agent_name,
    parse_id,
    check_call,
    check_limit,
    check_session,
    logged_reply,
    merge_origin,
    new_session_label,
    EARLIEST,
    clock_time,
    normalize_time,
    now_iso,
    resolve,
    trace_text,
)
from .observed import Observed
from .report import render_report
from .screening import Screen, default_screen, load_screen
from .store import DEFAULT_BRANCH, EventLog, Store
from .store.sync import AgentStatus, Syncer, status_of
from .store import erasure, seals, signing, witness

KEPT_DIAGNOSES = 4  # scopes whose diagnosis a Halo object keeps, one head each (a few agents or sessions read in turn)


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
        clock: returns the current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``
            (default: the system clock); events are dated by it, never before
            1971 nor before the event they follow (docs/storage.md, "Time").
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        branch: str = DEFAULT_BRANCH,
        session: str | None = None,
        screen: Screen | None = default_screen,
        fsync: bool = False,
        clock: Callable[[], str] = now_iso,
    ):
        self.store = Store(root, fsync=fsync)
        self.clock = clock
        self._finalizer = weakref.finalize(self, self.store.close)
        self.branch = branch
        self.session = session or new_session_label()
        self.screen = load_screen(self.root) if screen is default_screen else screen  # <root>/screening.yaml, HALO_SCREEN
        self._syncer: Syncer | None = None
        self._sealer: seals.Sealer | None = None
        # the diagnosis of the last few scopes read, (agent, branch, session) -> the diagnosis of the head read: a
        # pure function of the head's events, so a kept one is never stale, and the report, the findings resource
        # and the self-review prompt of one head share it
        self._diagnoses: OrderedDict[tuple, Diagnosis] = OrderedDict()
        self._diagnoses_lock = threading.Lock()

    @property
    def root(self):
        return self.store.root

    def close(self) -> None:
        if self._sealer is not None:  # seal the last sessions first, so a push below carries the seals
            self._sealer.close()
            self._sealer = None
        if self._syncer is not None:  # push what is pending first (bounded by the push timeout)
            self._syncer.close()
            self._syncer = None
        self._finalizer()

    def start_push(self, remote: str, **options: Any) -> Syncer:
        """Push each agent's branch to ``remote`` in the background from now on
        (see ``store.sync``: after each session, every N events, at ``close``).
        ``options``: ``every``, ``idle``, ``timeout``, ``log``."""
        if self._syncer is not None:
            raise InvalidCall("this Halo already pushes to a remote; close it first")
        self._syncer = Syncer(self.root, remote, **{"branch": self.branch, **options})
        return self._syncer

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
        call = self._prepare(kind, args, default_agent, default_session, time)
        repo = self.store.repo(call.agent)
        branch = branch or self.branch
        committed = repo.append(branch, call.builder(repo, branch), clock=call.fixed is None)
        return self._logged(call, branch, committed)

    def log_calls(
        self,
        calls: Sequence[tuple],
        *,
        default_agent: str | None = None,
        default_session: str | None = None,
    ) -> list[dict[str, str] | HaloError]:
        """Log the events of several tool calls by group commit: each call,
        ``(kind, args)`` or ``(kind, args, default_agent, default_session)``, is
        validated and numbered as ``log_call`` would, in the order given, and
        the events of one agent are published by one ref swap (one sync where
        ``log_call`` makes one each). Each call's reply or refusal takes its
        place in the result; a refused call loses nothing of the others."""
        out: list[dict[str, str] | HaloError | None] = [None] * len(calls)
        groups: dict[str, list[tuple[int, _Call]]] = {}
        for i, (kind, args, *defaults) in enumerate(calls):
            agent, session = defaults if defaults else (default_agent, default_session)
            try:
                call = self._prepare(kind, args, agent, session, None)
            except HaloError as e:
                out[i] = e
                continue
            groups.setdefault(call.agent, []).append((i, call))
        branch = self.branch
        for agent, members in groups.items():
            repo = self.store.repo(agent)
            try:
                landed = repo.append_group(branch, [call.builder(repo, branch) for _, call in members], clock=True)
            except HaloError as e:  # nothing of this agent's group was published (a full disk, a busy branch)
                landed = [e] * len(members)
            for (i, call), result in zip(members, landed):
                out[i] = result if isinstance(result, HaloError) else self._logged(call, branch, result)
        return out  # type: ignore[return-value]

    def _prepare(self, kind: str, args: Mapping[str, Any], default_agent: str | None, default_session: str | None,
                 time: str | None) -> "_Call":
        draft = check_call(kind, args, self.screen)
        agent = draft.agent or default_agent
        if agent is None:
            raise InvalidCall(
                "no agent name: pass 'agent' (e.g. \"demo\") or start the server with --agent NAME"
            )
        agent = check_agent_name(agent)
        session = draft.session or default_session or self.session
        fixed = normalize_time(time) if time else None
        repo = self.store.repo(agent)
        if not repo.exists:  # refuse before the repository is created
            resolve(draft, 1, agent, session, fixed or EARLIEST, _no_events)
        return _Call(self, draft, agent, session, fixed)

    def _logged(self, call: "_Call", branch: str, committed) -> dict[str, str]:
        """After an event is committed: tell the pusher and the sealer, and word the reply."""
        if self._syncer is not None:
            self._syncer.appended(call.agent, branch, call.session)
        if self._sealer is not None:
            self._sealer.appended(call.agent, branch, call.session, committed.commit)
        reply = logged_reply(committed.event)
        if call.reading and committed.event.time != call.reading[0]:
            behind = "1971, the earliest time HALO dates" if committed.event.time == EARLIEST else f"e{committed.event.number - 1}, the event before"
            reply["note"] += (
                f" Dated {committed.event.time}: the clock reads {call.reading[0]}, earlier than {behind}"
                " (times never go backwards on a branch; check the system clock)."
            )
        return reply

    def import_lines(
        self, agent: str, lines, branch: str | None = None, session: str = "import", *, allow_duplicates: bool = False,
    ) -> list[str]:
        """Import JSONL events (see ``jsonl``); all or nothing. Returns the new ids.

        Refuses a file with lines the branch already holds (same kind,
        session, summary and time: the file was imported before) unless
        ``allow_duplicates``."""
        agent = check_agent_name(agent)
        items = jsonl.parse_lines(lines, self.screen, self.clock)
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
        if self._syncer is not None and done:
            self._syncer.appended(agent, branch, session, len(done))
        return [c.event.id for c in done]

    def export_lines(self, agent: str, branch: str | None = None):
        """The branch's events as JSONL lines (same fields as the YAML files)."""
        return jsonl.export_lines(self.event_log(agent, branch).events)

    # -- reading ---------------------------------------------------------------

    def agents(self) -> list[str]:
        return self.store.agents()

    def agent_statuses(self, branch: str | None = None) -> list[AgentStatus]:
        """Every agent of the root: events, sessions, last activity, push state."""
        return [status_of(self.store.repo(a), branch or self.branch) for a in self.store.agents()]

    def require_root(self) -> None:
        """Raise ``NotFound`` naming the root when the root folder does not exist
        (a reading command must not answer "no events" for a mistyped root)."""
        if not self.root.is_dir():  # a file as the root is refused when the store opens
            raise NotFound(
                f"no HALO root at {self.root}: the folder does not exist",
                hints={CLI: "pass --root (or set HALO_ROOT) to the folder that holds the agents' <agent>.git repositories"},
            )

    def require_agents(self, hint: str = "log an event (or run 'halo-git demo') first") -> list[str]:
        """The root's agents, or ``NotFound`` when the root is missing or holds none (for --all)."""
        self.require_root()
        agents = self.agents()
        if not agents:
            raise NotFound(f"no agents under {self.root} yet", hints={CLI: hint})
        return agents

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

    def require_session(self, agent: str, session: str, branch: str | None = None) -> None:
        """Raise ``NotFound`` listing the agent's sessions when none of its events has ``session``."""
        _require_session(agent, check_session(session), self.event_log(agent, branch).events)

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
        return trace_text(self.recent_events(agent, limit, session, branch), agent, session, interface)

    def recent_events(self, agent: str, limit: int = 20, session: str = "", branch: str | None = None) -> list[Event]:
        """The events ``halo_trace`` shows: the most recent ``limit``, oldest first."""
        check_agent_name(agent)
        limit = check_limit(limit)
        if session:
            check_session(session)
        repo = self.store.repo(agent)
        if not repo.exists:
            return []
        if repo.head(branch or self.branch) is None:
            _refuse_missing_branch(repo, branch or self.branch)
        if not session:
            return list(repo.tail(branch or self.branch, limit))
        picked = [e for e in reversed(repo.log(branch or self.branch).events) if e.session == session]
        return list(reversed(picked[:limit]))

    def diagnosis(self, agent: str, session: str = "", branch: str | None = None, observed: Observed | None = None,
                  allowed_signers: str | None = None) -> Diagnosis:
        """The pure diagnosis of the agent's branch head (or one session); ``observed`` from ``observed.load``.

        An approval of an ungoverned self-revision counts only when its commit is signed by an
        allowed signer (``allowed_signers``, else the root's default file); signatures are
        checked only when the trace holds such an approval."""
        check_agent_name(agent)
        if session:
            check_session(session)
        log = self.event_log(agent, branch)
        if session:
            _require_session(agent, session, log.events)
        d = self._diagnosis_at_head(agent, log, session) if observed is None else diagnose(
            log.events, agent=agent, branch=log.branch, head=log.head, session=session, observed=observed)
        if d.claimed_approvals and (self.allowed_signers(allowed_signers) or self.gpg_keyring()):
            proven = {i for i, s in self.signoffs(agent, branch, allowed_signers, log=log, gpg_keyring=self.gpg_keyring()).items()
                      if s.proven}
            if proven & set(d.claimed_approvals):
                d = diagnose(log.events, agent=agent, branch=log.branch, head=log.head, session=session, observed=observed,
                             proven_approvals=proven)
        return d

    def _diagnosis_at_head(self, agent: str, log: EventLog, session: str) -> Diagnosis:
        """``diagnose`` of the branch head, kept for the last few scopes read, one head each: a scope whose head
        moved drops its old diagnosis before the new one is made, so at most one is held per scope (a 100k-event
        diagnosis holds tens of MiB), and a head with no commit is not kept."""
        scope = (agent, log.branch, session)
        with self._diagnoses_lock:
            kept = self._diagnoses.get(scope)
            if kept is not None and kept.head == log.head:
                self._diagnoses.move_to_end(scope)
                return kept
            self._diagnoses.pop(scope, None)
        d = diagnose(log.events, agent=agent, branch=log.branch, head=log.head, session=session)
        if log.head is not None:
            with self._diagnoses_lock:
                self._diagnoses[scope] = d
                while len(self._diagnoses) > KEPT_DIAGNOSES:
                    self._diagnoses.popitem(last=False)
        return d

    def report(
        self, agent: str, session: str = "", branch: str | None = None, observed: Observed | None = None,
        allowed_signers: str | None = None, accepted: Sequence[Accepted] = (),
    ) -> str:
        """The ``halo_report`` Markdown (its Mechanism section with the revision audit);
        findings that ``accepted`` entries (``accept.load_accepted``) cover are listed apart."""
        d = self.diagnosis(agent, session, branch, observed, allowed_signers)
        taken = accepted_for(d, accepted) if accepted else []
        if not d.mechanism.revisions:
            return render_report(d, accepted=taken)
        listed = revisions.report_impacts([r.id for r in d.mechanism.revisions])
        return render_report(d, audit=self.audit(agent, branch, allowed_signers, impacts_for=listed), accepted=taken)

    def merge(self, agent: str, source: str, into: str | None = None, *, remote: str | None = None) -> "Merged":
        """Merge a diverged copy into the branch ``into`` (default: this Halo's
        branch): ``source`` is a branch or commit of the agent, or with ``remote``
        (a URL) the remote's branch. See ``store.merge``."""
        from .store.merge import merge, pull_merge

        repo = self.store.repo(check_agent_name(agent))
        into = into or self.branch
        if remote is not None:
            result = pull_merge(repo, remote, source, into)
        elif not repo.exists:
            raise NotFound(f"agent '{agent}' has no repository under {self.root}; check the agent name and --root")
        else:
            result = merge(repo, source, into)
        if self._syncer is not None and result.status != "up-to-date":  # serve --push: the merged branch goes out too
            self._syncer.appended(agent, into, None, max(result.appended, 1))
        return result

    # -- lineage: history of one event, blame of a target, beliefs in force --------------

    def _lineage_log(self, agent: str, branch: str | None) -> EventLog:
        self.require_agent(agent)
        self.require_branch(agent, branch or self.branch)
        return self.event_log(agent, branch)

    def _approval_status(self, agent: str, branch: str | None, log: EventLog, allowed_signers: str | None) -> dict[str, str]:
        return {i: revisions.PROVEN if s.proven else revisions.CLAIMED
                for i, s in self.signoffs(agent, branch, allowed_signers, log=log).items()}

    def history(self, agent: str, event_id: str, branch: str | None = None, allowed_signers: str | None = None) -> dict:
        """The history of one event (``lineage.history``): what it rests on, what rests
        on it, its target's versions, the approvals covering it."""
        number = parse_id(event_id, "event")
        log = self._lineage_log(agent, branch)
        if number > len(log.events):
            raise NotFound(f"agent '{agent}' has no event {event_id} on branch '{log.branch}' (it holds e1..e{len(log.events)})"
                           if log.events else f"agent '{agent}' has no events on branch '{log.branch}'")
        from .store.merge import seals_of

        g = lineage.Graph(log.events, log.commit_of)
        sealed = [x for x in seals_of(self.store.repo(agent), log.branch, log.commits) if x["on_branch"]]
        out = lineage.history(g, event_id, self._approval_status(agent, branch, log, allowed_signers), sealed)
        return {"agent": agent, "branch": log.branch, "head": log.head, **out}

    def blame(self, agent: str, target: str, branch: str | None = None, allowed_signers: str | None = None) -> dict:
        """Each version of ``target`` (case and spacing ignored): event, who made it,
        governance, approval (proven or claimed), what used it."""
        log = self._lineage_log(agent, branch)
        a = self.audit(agent, branch, allowed_signers, log=log, impacts_for=())
        t = a.target(target)
        if t is None:
            known = "; ".join(x.name for x in a.targets[:10]) or "none"
            raise NotFound(f"agent '{agent}' has no revision of target {target!r}; its targets: {known}")
        return {"agent": agent, "branch": log.branch, "head": log.head, "target": t.name, "versions": lineage.blame_rows(t)}

    def beliefs(self, agent: str, at: str | None = None, branch: str | None = None, allowed_signers: str | None = None) -> dict:
        """The memories and rules in force at the head, or ``at`` (an event id or a
        commit of the branch): see ``lineage.beliefs``."""
        log = self._lineage_log(agent, branch)
        events = log.events
        if at:
            if at.startswith("e") and at[1:].isdigit():
                n = parse_id(at, "at")
                if n > len(events):
                    raise NotFound(f"agent '{agent}' has no event {at} on branch '{log.branch}' (it holds e1..e{len(events)})")
                events = events[:n]
            else:
                sha = self.store.repo(agent).resolve(at)
                if sha in log.commits:
                    events = events[: log.commits.index(sha) + 1]
                else:
                    raise NotFound(f"commit {at} is not on branch '{log.branch}' of agent '{agent}'; give an event id (eN) or a commit of the branch")
        out = lineage.beliefs(events, self._approval_status(agent, branch, log, allowed_signers))
        return {"agent": agent, "branch": log.branch, "head": log.head, **out}

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
        require_signed_approvals: bool = False,
    ) -> Gate:
        """The CI gate over the agent's branch (see ``halo_git.gate``): findings at or
        above ``fail_on`` that ``accepted`` (``accept.Accepted`` entries) does not
        cover; with ``baseline`` (a branch or commit id) only those new relative to it."""
        if baseline and session:
            raise InvalidCall("--baseline compares whole branches; leave out --session, or check the session without a baseline")
        if baseline and observed is not None:
            raise InvalidCall("--observed describes one run of one branch, so it cannot be compared with a baseline; "
                              "check with --observed and without --baseline")
        if baseline and require_signed_approvals:
            raise InvalidCall("--require-signed-approvals checks one branch's approvals; run it without --baseline")
        if baseline:
            diff = self.diff(agent, baseline, branch or self.branch)
            return evaluate(diff.head.diagnosis, fail_on=fail_on, diff=diff, accepted=accepted, accept_file=accept_file)
        d = self.diagnosis(agent, session=session, branch=branch, observed=observed)
        if require_signed_approvals:
            d = dataclasses.replace(d, findings=revisions.with_policy(d.findings, self.audit(agent, branch, impacts_for=()),
                                                                      session))  # (a copy: the diagnosis may be kept)
        return evaluate(d, fail_on=fail_on, accepted=accepted, accept_file=accept_file)

    # -- revisions and approvals ---------------------------------------------------

    def allowed_signers(self, explicit: str | os.PathLike[str] | None = None) -> str | None:
        """The allowed-signers file: ``explicit``, else ``HALO_ALLOWED_SIGNERS``,
        else ``<root>/allowed_signers`` when it exists, else None (nothing proven)."""
        return self._trust_file(explicit, "HALO_ALLOWED_SIGNERS", "allowed_signers")

    def gpg_keyring(self, explicit: str | os.PathLike[str] | None = None) -> str | None:
        """The keyring of allowed GPG keys: ``explicit``, else ``HALO_GPG_KEYRING``,
        else ``<root>/allowed_signers.gpg`` when it exists, else None."""
        return self._trust_file(explicit, "HALO_GPG_KEYRING", "allowed_signers.gpg")

    def _trust_file(self, explicit: str | os.PathLike[str] | None, variable: str, name: str) -> str | None:
        if explicit:
            return os.fspath(explicit)
        if os.environ.get(variable):
            return os.environ[variable]
        default = self.root / name
        return str(default) if default.is_file() else None

    def signoffs(
        self, agent: str, branch: str | None = None, allowed_signers: str | None = None, *, log: EventLog | None = None,
        gpg_keyring: str | None = None,
    ) -> dict[str, "revisions.Signoff"]:
        """The approvals ``approve`` wrote on the branch (or in ``log``), their signatures checked."""
        log = log if log is not None else self.event_log(agent, branch)
        targets: dict[str, str] = {}
        candidates: dict[str, str] = {}
        for e, c in zip(log.events, log.commits):
            if e.kind == "revise":
                if signing.is_approval_event(e, targets):
                    candidates[e.id] = merge_origin(e.merged_from).commit if e.merged_from else c  # a merged one: its original commit
                targets[e.id] = e.fields["target"]
        if not candidates:
            return {}
        proofs = signing.read_proofs(
            self.store.repo(agent).path, agent, candidates, self.allowed_signers(allowed_signers), self.gpg_keyring(gpg_keyring)
        )
        merged = {e.id: e.uses[0] for e in log.events if e.id in proofs and e.merged_from}  # the id the approved revision has here
        return {
            i: revisions.Signoff(p.event, merged.get(i, p.approves), p.approver, p.signature.status, p.signature.principal,
                                 p.signature.key, p.signature.format, p.commit)
            for i, p in proofs.items()
        }

    def audit(
        self, agent: str, branch: str | None = None, allowed_signers: str | None = None, *, log: EventLog | None = None,
        gpg_keyring: str | None = None, impacts_for: Sequence[str] | None = None,
    ) -> "revisions.Audit":
        """Per-target history, impact and approvals of the agent's revisions (see
        ``revisions``), of the branch head or of ``log`` (a head already read)."""
        check_agent_name(agent)
        log = log if log is not None else self.event_log(agent, branch)
        allowed, keyring = self.allowed_signers(allowed_signers), self.gpg_keyring(gpg_keyring)
        return revisions.audit(
            log.events, log.commits, agent=agent, branch=log.branch, head=log.head,
            signoffs=self.signoffs(agent, branch, allowed, log=log, gpg_keyring=keyring),
            signatures_checked=allowed is not None or keyring is not None, impacts_for=impacts_for,
        )

    def approve(
        self,
        agent: str,
        revision: str,
        *,
        name: str | None = None,
        email: str | None = None,
        sign: str | None = None,
        key: str | None = None,
        note: str | None = None,
        session: str | None = None,
        branch: str | None = None,
        time: str | None = None,
    ) -> dict[str, str]:
        """Log the user's approval of revision ``revision`` as a commit the user authors.

        The event is a revise with made_by=user, governance=approved, uses=[revision]
        and the revision's target; the commit's author is ``NAME <EMAIL>`` (default:
        git config user.name/user.email) and, with ``sign="ssh"`` or ``"gpg"``, it is
        signed with ``key`` (an SSH private key file, or a GPG key id; default: git
        config user.signingkey) so ``git verify-commit`` accepts it.
        """
        check_agent_name(agent)
        parse_id(revision, "revision")
        branch = branch or self.branch
        log = self.event_log(agent, branch)
        by_id = {e.id: e for e in log.events}
        rev = by_id.get(revision)
        if rev is None:
            raise NotFound(f"agent '{agent}' has no event {revision} on branch '{branch}'; run halo-git revisions --agent {agent} to see its revisions")
        if rev.kind != "revise":
            raise InvalidCall(f"{revision} is {'an' if rev.kind[0] in 'aeiou' else 'a'} {rev.kind} event; approve names a revise event (halo-git revisions --agent {agent} lists them)")
        if revision in self.signoffs(agent, branch, None):
            raise InvalidCall(f"{revision} is itself an approval logged with halo-git approve; approve the revision it names, {by_id[revision].uses[0]}")
        default = signing.default_identity()
        name = name or (default.name if default else None)
        email = email or (default.email if default else None)
        if not name or not email:
            raise InvalidCall("no approver identity: pass --by NAME --email ADDR (or set git config --global user.name / user.email)")
        identity = signing.Identity(name, email)
        signer = None
        if sign is not None:
            if sign not in ("ssh", "gpg"):
                raise InvalidCall(f"--sign {sign!r} is not supported; use --sign ssh or --sign gpg")
            key = key or signing.default_signing_key()
            if not key:
                what = "an SSH private key file" if sign == "ssh" else "a GPG key id, fingerprint or email"
                raise InvalidCall(f"--sign {sign} needs a key: pass --key with {what} (or set git config --global user.signingkey)")
            signer = signing.ssh_signer(key) if sign == "ssh" else signing.gpg_signer(key)
        summary = f"approved {revision}" + (f": {note}" if note else f" ({rev.fields['target']})")
        args = {"summary": summary, "uses": [revision], "target": rev.fields["target"], "made_by": "user", "governance": "approved"}
        if session is not None:
            args["session"] = session
        draft = check_call("revise", args, self.screen)
        label = draft.session or "review"
        fixed = normalize_time(time) if time else None  # else the clock, never before 1971 nor the event before
        repo = self.store.repo(agent)
        committed = repo.append(
            branch,
            lambda number, kind_of: resolve(draft, number, agent, label, fixed or clock_time(self.clock()), kind_of),
            author=signing.Approver(identity, revision, signer),
            clock=fixed is None,
        )
        if self._syncer is not None:
            self._syncer.appended(agent, branch, label)
        reply = logged_reply(committed.event)
        return {**reply, "commit": committed.commit, "author": str(identity), "signed": sign if signer else "no"}

    # -- seals and erasure (store.seals, store.erasure) ------------------------------------

    def seal(self, agent: str, branch: str | None = None, *, sign: str | None = None, key: str | None = None,
             message: str | None = None, name: str | None = None, email: str | None = None) -> "seals.Sealed":
        """Seal the branch's head under ``refs/halo/seals/<branch>/`` (signed with ``sign``/``key`` when given)."""
        self.require_agent(agent)
        branch = branch or self.branch
        signer = signing.signer_for(sign, key)
        identity = _person(name, email, required=signer is not None, what="sealer")
        return seals.seal(self.store.repo(agent), branch, identity or seals.DEFAULT_SEALER, sign=signer, message=message)

    def redact(self, agent: str, ids: Sequence[str], reason: str, branch: str | None = None, *, name: str | None = None,
               email: str | None = None, sign: str | None = None, key: str | None = None, resume: bool = False) -> "erasure.Erased | None":
        """Replace the text of events ``ids`` with a tombstone, re-create the later commits, write the
        erasure record and remove the old objects (``store.erasure``); ``resume`` only completes a pending one."""
        self.require_agent(agent)
        branch = branch or self.branch
        repo = self.store.repo(agent)
        if resume:
            with repo._lock:
                return erasure.resume(repo, branch)
        numbers = [parse_id(i, "events") for i in ids]
        if not numbers:
            raise InvalidCall("name the events to redact (e.g. e5 e9), or pass --resume to complete an interrupted redaction")
        signer = signing.signer_for(sign, key)
        identity = _person(name, email, required=True, what="eraser")
        return erasure.redact(repo, branch, numbers, identity, reason, sign=signer,
                              allowed_signers=self.allowed_signers(), gpg_keyring=self.gpg_keyring())

    def retention(self, agent: str, policy: str, branch: str | None = None) -> "retention.Plan":
        """The events the retention policy file ``policy`` selects on the branch now (nothing is changed)."""
        self.require_agent(agent)
        rules = retention.load_policy(policy)
        log = self.event_log(agent, branch)
        return retention.plan(rules, log.events, clock_time(self.clock()), agent, log.branch)

    def start_sealing(self, *, sign: str | None = None, key: str | None = None, name: str | None = None,
                      email: str | None = None, log: Callable[[str], None] | None = None) -> "seals.Sealer":
        """Seal each agent's branch at every session end from now on, and at ``close`` (``serve --seal-every-session``)."""
        if self._sealer is not None:
            raise InvalidCall("this Halo already seals every session")
        signer = signing.signer_for(sign, key)
        identity = _person(name, email, required=signer is not None, what="sealer") or seals.DEFAULT_SEALER
        self._sealer = seals.Sealer(self.root, identity, signer, log)
        return self._sealer

    def witness(self, agent: str, other: str, branch: str | None = None, *, allowed_signers: str | None = None,
                gpg_keyring: str | None = None) -> "witness.Witnessed":
        """Compare the branch with the same branch of another copy (``store.witness``)."""
        self.require_agent(agent)
        return witness.compare(self.store.repo(agent), branch or self.branch, other,
                               self.allowed_signers(allowed_signers), self.gpg_keyring(gpg_keyring))


def _person(name: str | None, email: str | None, *, required: bool, what: str) -> "signing.Identity | None":
    """``NAME <EMAIL>`` from the options, else git config; None when neither gives both and none is required."""
    default = signing.default_identity()
    name = name or (default.name if default else None)
    email = email or (default.email if default else None)
    if not name or not email:
        if required:
            raise InvalidCall(f"no {what} identity: pass --by NAME --email ADDR (or set git config --global user.name / user.email)")
        return None
    return signing.Identity(name, email)


def _require_session(agent: str, session: str, events: Sequence[Event]) -> None:
    if not any(e.session == session for e in events):
        sessions = sorted({e.session for e in events})
        shown = ", ".join(sessions[:10]) + (" …" if len(sessions) > 10 else "")
        raise NotFound(
            f"agent '{agent}' has no session '{session}'" + (f"; its sessions: {shown}" if sessions else "; it has no events yet")
        )


@dataclasses.dataclass
class _Call:
    """One validated tool call on its way to a commit: the draft event, where it goes, and the clock reading
    its event got (kept to say so in the reply when times had to be put in order)."""
    halo: "Halo"
    draft: Any
    agent: str
    session: str
    fixed: str | None
    reading: list[str] = dataclasses.field(default_factory=list)

    def builder(self, repo, branch: str) -> Callable[[int, Callable[[int], str]], Event]:
        """The event for a number: called again with a fresh number whenever another writer moved the branch."""
        def build(number: int, kind_of) -> Event:
            if number == 1:  # the branch has no commit yet
                _refuse_missing_branch(repo, branch)
            if self.fixed is None:  # read the clock on each attempt: a retry follows a newer event
                self.reading[:] = [self.halo.clock()]
            return resolve(self.draft, number, self.agent, self.session, self.fixed or clock_time(self.reading[0]),
                           kind_of)
        return build


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
            f"create it first: {shlex.join(['halo-git', 'branch', '--agent', repo.agent, branch, '--from', start])}"
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
