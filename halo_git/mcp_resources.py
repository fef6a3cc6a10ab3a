"""MCP beyond tools: resources, prompts, completion and subscriptions.

A thin shell beside ``server`` (which builds the SDK ``Server`` with these
handlers): every handler parses the request, calls the same ``Halo`` methods the
tools call, and formats the answer with ``review`` and ``report``.

Resources (templates; ``resources/list`` lists each agent's report)::

    halo://agents/{agent}/report                    halo_report's Markdown, whole trace
    halo://agents/{agent}/findings                  the findings as JSON
    halo://agents/{agent}/trace                     halo_trace's lines, the last 200 events
    halo://agents/{agent}/sessions/{session}/report halo_report's Markdown for one session
    halo://agents/{agent}/events/{id}/history       one event's history as JSON (halo-git history)
    halo://agents/{agent}/beliefs                   the memories and rules in force as JSON (halo-git beliefs)

A session label is percent-encoded in its URI (``urllib.parse.quote`` with no safe
characters). Subscriptions: ``resources/subscribe`` on handshake-era connections,
``subscriptions/listen`` on 2026-07-28 ones. After an append made through this
server, subscribers of the agent's report and trace (and of the session's report)
are told the resource changed; subscribers of its findings only when the findings
did change. Appends by other processes are not watched.
"""

from __future__ import annotations

import json
import re
import threading
import weakref
from collections import OrderedDict
from typing import Any, Callable
from urllib.parse import quote, unquote

import anyio
import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError

from .errors import HaloError, InvalidCall
from .model import AGENT_RULE, check_agent_name, trace_text
from .review import findings_data, findings_fingerprint, log_step_text, self_review_text
from .screening import quoted

RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource URI
TRACE_RESOURCE_EVENTS = 200
MAX_COMPLETIONS = 100  # the spec's cap on completion values
KEPT_TEXTS = 4  # report and findings texts kept per server, by head commit

REPORT = "halo://agents/{agent}/report"
FINDINGS = "halo://agents/{agent}/findings"
TRACE = "halo://agents/{agent}/trace"
SESSION_REPORT = "halo://agents/{agent}/sessions/{session}/report"
HISTORY = "halo://agents/{agent}/events/{id}/history"
BELIEFS = "halo://agents/{agent}/beliefs"

_AGENT = r"(?P<agent>[A-Za-z0-9][A-Za-z0-9._-]{0,63})"
_URI = re.compile(r"halo://agents/" + _AGENT + r"/(?:(?P<what>report|findings|trace|beliefs)|sessions/(?P<session>[^/]+)/report"
                  r"|events/(?P<event>[^/]+)/history)")

TEMPLATES = [
    types.ResourceTemplate(
        name="agent-report",
        title="Diagnosis report",
        uri_template=REPORT,
        description="The diagnosis of the agent's whole trace as Markdown: the same text halo_report returns.",
        mime_type="text/markdown",
    ),
    types.ResourceTemplate(
        name="agent-findings",
        title="Findings",
        uri_template=FINDINGS,
        description="The diagnosis' findings as JSON: rule, name, severity, events, message, next_step and the events' "
        "summaries, with the head commit they were computed at.",
        mime_type="application/json",
    ),
    types.ResourceTemplate(
        name="agent-trace",
        title="Trace",
        uri_template=TRACE,
        description=f"The agent's last {TRACE_RESOURCE_EVENTS} events, one halo_trace line each, oldest first.",
        mime_type="text/plain",
    ),
    types.ResourceTemplate(
        name="session-report",
        title="Session report",
        uri_template=SESSION_REPORT,
        description="The diagnosis of one session as Markdown (halo_report with that session); "
        "the session label is percent-encoded.",
        mime_type="text/markdown",
    ),
    types.ResourceTemplate(
        name="event-history",
        title="History of one event",
        uri_template=HISTORY,
        description="One event as JSON: what it rests on (a tree over uses/about), what rests on it later, the versions "
        "of its target and the approvals covering it (the same as halo-git history --format json).",
        mime_type="application/json",
    ),
    types.ResourceTemplate(
        name="agent-beliefs",
        title="Beliefs in force",
        uri_template=BELIEFS,
        description="The memories and rules in force at the head as JSON, each with its age, when it was last read and "
        "whether it was reviewed: what the agent believes and why (halo-git beliefs --format json).",
        mime_type="application/json",
    ),
]

SELF_REVIEW = "halo_self_review"
LOG_STEP = "halo_log_step"
_AGENT_ARG = types.PromptArgument(
    name="agent",
    description=f"The agent to review (default: the server's --agent, then your client's name); {AGENT_RULE}.",
    required=False,
)
PROMPTS = [
    types.Prompt(
        name=SELF_REVIEW,
        title="Session-start self-review",
        description="Read at the start of a session: your open high and medium findings, the events they cite, and "
        "what your user must approve before you rely on them.",
        arguments=[
            _AGENT_ARG,
            types.PromptArgument(name="session", description="Review only this session (default: the whole trace).", required=False),
        ],
    ),
    types.Prompt(
        name=LOG_STEP,
        title="Log this step",
        description="Which HALO tool fits a step you describe, with its kind, trigger, form and what to put in uses, "
        "from the guide.",
        arguments=[
            types.PromptArgument(name="step", description="The step in a few words, e.g. 'emailed the user the report'.", required=True),
        ],
    ),
]


def uri(template: str, agent: str, session: str = "") -> str:
    return template.replace("{agent}", agent).replace("{session}", quote(session, safe=""))


def parse_uri(value: str) -> tuple[str, str, str]:
    """(agent, what, session) of a HALO resource URI; what is report, findings, trace, beliefs or
    history (then the third item is the event id)."""
    m = _URI.fullmatch(value)
    if not m:
        raise MCPError(
            RESOURCE_NOT_FOUND,
            f"unknown resource {quoted(value, 200)}; HALO's resources are {REPORT}, {FINDINGS}, {TRACE}, {SESSION_REPORT}, "
            f"{HISTORY} and {BELIEFS}",
        )
    if m.group("event") is not None:
        return m.group("agent"), "history", unquote(m.group("event"))
    if m.group("session") is not None:
        return m.group("agent"), "report", unquote(m.group("session"))
    return m.group("agent"), m.group("what"), ""


class Extras:
    """Resources, prompts, completion and subscriptions for one ``HaloServer``.

    ``default_agent(ctx)`` gives the agent a request means when it names none
    (the server's ``--agent``, then the client's name), as the tools do.
    """

    def __init__(self, halo, default_agent: Callable[[Any], str | None], guide: str):
        self.halo = halo
        self.default_agent = default_agent
        self.guide = guide
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)
        self._lock = threading.Lock()
        self._legacy: dict[str, "weakref.WeakSet[Any]"] = {}  # uri -> handshake-era connections
        self._listening: dict[str, int] = {}  # uri -> open 2026-07-28 listen streams naming it
        self._fingerprints: dict[str, tuple] = {}  # agent -> findings last announced
        self._texts: "OrderedDict[tuple, str]" = OrderedDict()  # (agent, what, session, head) -> text

    # -- resources -----------------------------------------------------------------------

    async def list_resources(self, ctx, params) -> types.ListResourcesResult:
        agents = await anyio.to_thread.run_sync(self.halo.agents)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name=f"{a}-report",
                    title=f"Diagnosis report of {a}",
                    uri=uri(REPORT, a),
                    description=f"The diagnosis of agent {a}'s whole trace (halo_report).",
                    mime_type="text/markdown",
                )
                for a in agents
            ]
        )

    async def list_templates(self, ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read_resource(self, ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        agent, what, session = parse_uri(str(params.uri))
        mime = {"report": "text/markdown", "trace": "text/plain"}.get(what, "application/json")
        text = await self._run(lambda: self.read(agent, what, session))
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=str(params.uri), mime_type=mime, text=text)])

    def read(self, agent: str, what: str, session: str = "") -> str:
        """The text of a resource. Reports and findings are kept for the last few
        (agent, session, head commit) read: the same head gives the same bytes, and a
        new event moves the head, so a kept text can never be stale."""
        if what == "trace":
            return trace_text(self.halo.recent_events(agent, TRACE_RESOURCE_EVENTS), agent)
        if what == "history":
            return json.dumps(self.halo.history(agent, session), ensure_ascii=False)
        if what == "beliefs":
            return json.dumps(self.halo.beliefs(agent), ensure_ascii=False)
        check_agent_name(agent)
        key = (agent, what, session, self.halo.event_log(agent).head)
        with self._lock:
            text = self._texts.get(key)
            if text is not None:
                self._texts.move_to_end(key)
                return text
        if what == "report":
            text = self.halo.report(agent, session=session)
        else:
            text = json.dumps(findings_data(self.halo.diagnosis(agent)), ensure_ascii=False)
        with self._lock:
            self._texts[key] = text
            while len(self._texts) > KEPT_TEXTS:
                self._texts.popitem(last=False)
        return text

    async def _run(self, fn: Callable[[], str]) -> str:
        try:
            return await anyio.to_thread.run_sync(fn)
        except HaloError as e:
            raise MCPError(types.INVALID_PARAMS, str(e)) from None

    # -- prompts -------------------------------------------------------------------------

    async def list_prompts(self, ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=PROMPTS)

    async def get_prompt(self, ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        args = dict(params.arguments or {})
        if params.name == SELF_REVIEW:
            allowed = ("agent", "session")
        elif params.name == LOG_STEP:
            allowed = ("step",)
        else:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {quoted(params.name, 60)}; the prompts are: {SELF_REVIEW}, {LOG_STEP}")
        unknown = [k for k in args if k not in allowed]
        if unknown:
            raise MCPError(
                types.INVALID_PARAMS,
                f"unknown argument(s) {', '.join(quoted(k) for k in unknown)} for {params.name}; its arguments are: {', '.join(allowed)}",
            )
        if params.name == LOG_STEP:
            step = args.get("step", "")
            if not step.strip():
                raise MCPError(types.INVALID_PARAMS, "'step' is required: describe the step in a few words")
            text = log_step_text(step, self.guide)
            description = "Which HALO tool fits this step"
        else:
            agent = self._agent(ctx, args.get("agent"))
            session = args.get("session", "")

            def review() -> str:
                diagnosis = self.halo.diagnosis(agent, session=session)
                events = diagnosis.events if not session else self.halo.events(agent)
                return self_review_text(diagnosis, events)

            text = await self._run(review)
            description = f"Self-review of agent {agent} at the start of a session"
        return types.GetPromptResult(
            description=description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
        )

    def _agent(self, ctx, given: str | None) -> str:
        agent = given or self.default_agent(ctx)
        if not agent:
            raise MCPError(types.INVALID_PARAMS, "no agent name: pass the 'agent' argument or start the server with --agent NAME")
        try:
            return check_agent_name(agent)
        except InvalidCall as e:
            raise MCPError(types.INVALID_PARAMS, str(e)) from None

    # -- completion ----------------------------------------------------------------------

    async def complete(self, ctx, params: types.CompleteRequestParams) -> types.CompleteResult:
        name, prefix = params.argument.name, params.argument.value
        context = dict(params.context.arguments or {}) if params.context is not None else {}
        ref = params.ref
        known = (isinstance(ref, types.ResourceTemplateReference) and ref.uri in {t.uri_template for t in TEMPLATES}) or (
            isinstance(ref, types.PromptReference) and ref.name == SELF_REVIEW
        )
        values: list[str] = []
        if known and name == "agent":
            values = [a for a in await anyio.to_thread.run_sync(self.halo.agents) if a.startswith(prefix)]
        elif known and name == "session":
            agent = context.get("agent") or self.default_agent(ctx)
            if agent:
                values = await anyio.to_thread.run_sync(lambda: self._sessions(agent, prefix))
        return types.CompleteResult(
            completion=types.Completion(values=values[:MAX_COMPLETIONS], total=len(values), has_more=len(values) > MAX_COMPLETIONS)
        )

    def _sessions(self, agent: str, prefix: str) -> list[str]:
        try:
            check_agent_name(agent)
        except InvalidCall:
            return []
        seen: dict[str, None] = {}
        for e in self.halo.events(agent):
            if e.session.startswith(prefix):
                seen.setdefault(e.session, None)
        return list(seen)

    # -- subscriptions ---------------------------------------------------------------------

    async def subscribe(self, ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        value = str(params.uri)
        agent, what, _ = parse_uri(value)
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            with self._lock:
                self._legacy.setdefault(value, weakref.WeakSet()).add(connection)
        if what == "findings":
            await self._remember_findings(agent)
        return types.EmptyResult()

    async def unsubscribe(self, ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        connection = getattr(ctx.session, "_connection", None)
        with self._lock:
            subs = self._legacy.get(str(params.uri))
            if subs is not None and connection is not None:
                subs.discard(connection)
        return types.EmptyResult()

    async def listen(self, ctx, params: types.SubscriptionsListenRequestParams) -> types.SubscriptionsListenResult:
        uris = [u for u in (params.notifications.resource_subscriptions or []) if _URI.fullmatch(u)]
        with self._lock:
            for u in uris:
                self._listening[u] = self._listening.get(u, 0) + 1
        try:
            for u in uris:
                agent, what, _ = parse_uri(u)
                if what == "findings":
                    await self._remember_findings(agent)
            return await self._listen(ctx, params)
        finally:
            with self._lock:
                for u in uris:
                    self._listening[u] -= 1
                    if not self._listening[u]:
                        del self._listening[u]

    async def _remember_findings(self, agent: str) -> None:
        try:
            fp = await anyio.to_thread.run_sync(lambda: findings_fingerprint(self.halo.diagnosis(agent)))
        except HaloError:
            fp = ()
        with self._lock:
            self._fingerprints[agent] = fp

    def watching(self) -> bool:
        """Whether any resource has a subscriber (else an append has no one to tell)."""
        with self._lock:
            return bool(self._listening or self._legacy)

    def _watched(self, value: str) -> bool:
        with self._lock:
            return self._listening.get(value, 0) > 0 or bool(self._legacy.get(value))

    async def appended(self, agent: str, session: str) -> None:
        """After an append through this server: tell the subscribers what changed."""
        changed = [u for u in (uri(REPORT, agent), uri(TRACE, agent), uri(SESSION_REPORT, agent, session), uri(BELIEFS, agent))
                   if self._watched(u)]
        findings = uri(FINDINGS, agent)
        if self._watched(findings):
            try:
                fp = await anyio.to_thread.run_sync(lambda: findings_fingerprint(self.halo.diagnosis(agent)))
            except HaloError:
                fp = None
            with self._lock:
                before = self._fingerprints.get(agent)
                if fp is not None:
                    self._fingerprints[agent] = fp
            if fp is not None and fp != before:
                changed.append(findings)
        for u in changed:
            await self.bus.publish(ResourceUpdated(uri=u))
            with self._lock:
                connections = list(self._legacy.get(u, ()))
            for c in connections:
                await c.send_resource_updated(u)
