"""The HALO MCP server: nine tools over the ``Halo`` API, plus resources, prompts and
completion from ``mcp_resources``; the HTTP transport and who may use it (``serve_http``).

Built on the SDK's low-level ``Server`` rather than ``MCPServer`` because the
contract needs HALO, not pydantic, to judge arguments: a missing or wrong-typed
argument or an unknown parameter name must come back as ``{"error": ...}`` with
isError set, and nothing may be dropped silently. The declared input schemas
still carry types, enums and required fields for clients.

Defaults per call: ``agent`` is the argument, else ``--agent``, else the MCP
client's name (from ``initialize``, or the client info a 2026-07-28 request
carries); ``session`` is the argument, else one label per connection (stdio:
per process; HTTP with sessions: per ``Mcp-Session-Id``; stateless 2026-07-28
requests: per client name and version within the server process, at most
``MAX_CLIENT_SESSIONS`` of them, each forgotten after ``CLIENT_SESSION_IDLE``
seconds unused; client names and versions are cut to ``MAX_CLIENT_NAME`` and
``MAX_CLIENT_VERSION`` characters before they are used as keys).
"""

from __future__ import annotations

import asyncio
import errno
import io
import json
import queue
import re
import socket
import sys
import threading
import time
import weakref
from collections import OrderedDict
from contextlib import asynccontextmanager
from contextvars import ContextVar
from importlib import resources
from typing import Any, Callable

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mcp.server.lowlevel import Server

from .api import Halo
from .errors import Conflict, HaloError, InvalidCall
from .mcp_resources import Extras
from .model import (
    AGENT_RULE,
    ENUMS,
    KINDS,
    MAX_SESSION,
    MAX_SUMMARY,
    MAX_USES,
    agent_name_from_client,
    check_agent_name,
    new_session_label,
    trace_text,
)
from .review import event_data
from .screening import quoted

GUIDE = resources.files("halo_git").joinpath("guide.md").read_text(encoding="utf-8").strip()

# Stateless 2026-07-28 requests carry the client's name and version on every
# request; both are client-chosen, so they are cut short before use and the
# table they key is bounded (least recently used first out, idle entries expire).
MAX_CLIENT_NAME = 200
MAX_CLIENT_VERSION = 64
MAX_CLIENT_SESSIONS = 1024
CLIENT_SESSION_IDLE = 3600.0  # seconds

_WRITE = types.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
_READ = types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

_ID_PATTERN = "^e[1-9][0-9]*$"
_SHARED_PROPS: dict[str, Any] = {
    "summary": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_SUMMARY,
        "description": "What happened, in a few words, without secrets or raw personal data.",
    },
    "uses": {
        "type": "array",
        "items": {"type": "string", "pattern": _ID_PATTERN},
        "maxItems": MAX_USES,
        "default": [],
        "description": 'Earlier events this step relied on, such as ["e3", "e7"].',
    },
    "session": {
        "type": "string",
        "maxLength": MAX_SESSION,
        "description": "A label for the conversation or wake-up (default: this connection's session).",
    },
    "agent": {
        "type": "string",
        "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
        "description": f"The agent's name (default: the server's --agent, then the client's name); {AGENT_RULE}.",
    },
}

_KIND_PROPS: dict[str, dict[str, Any]] = {
    "act": {
        "trigger": {
            "type": "string",
            "enum": list(ENUMS["trigger"]),
            "description": "request if the user asked for it or set it up, including steps inside a run the user "
            "requested or scheduled; self only if nothing the user asked or scheduled started it and the agent "
            "decided on its own whether to act.",
        },
        "form": {
            "type": "string",
            "enum": list(ENUMS["form"]),
            "default": "communication",
            "description": "What kind of action it was.",
        },
    },
    "outcome": {
        "about": {"type": "string", "pattern": _ID_PATTERN, "description": "The earlier act event the outcome is about."},
    },
    "revise": {
        "target": {"type": "string", "minLength": 1, "description": "What changed: a prompt, rule, skill, schedule policy, or similar."},
        "made_by": {"type": "string", "enum": list(ENUMS["made_by"]), "description": "Who made the change."},
        "governance": {
            "type": "string",
            "enum": list(ENUMS["governance"]),
            "description": "approved if the user approved it, bounded if it stays within limits the user set, none if neither.",
        },
    },
}

_DESCRIPTIONS = {
    "observe": "Sensing: something the agent takes in now. Include an earlier action in uses when that action made the agent look.",
    "remember": "Memory: something the agent keeps for later interactions. Include what it keeps in uses: an observation, an action, or an outcome.",
    "recall": "Memory: the agent looks up something it kept earlier. Include the remember events it retrieved in uses.",
    "act": "Action: something the agent does for the user, or a decision to stay silent.",
    "outcome": "Sensing: how one of the agent's earlier actions went.",
    "revise": "Mechanism: a durable change to how the agent works, which later runs reuse.",
}
_REPLY_HINT = ' Replies with the new event, e.g. {"id": "e5", "agent": "demo", "session": "day2", "note": "Logged e5 (Action, act). Channels: S→A, M→A."}, or with {"error": ...} saying how to fix the call.'

_TITLES = {
    "halo_observe": "Log an observation",
    "halo_remember": "Log a memory kept",
    "halo_recall": "Log a recall",
    "halo_act": "Log an action",
    "halo_outcome": "Log an outcome",
    "halo_revise": "Log a revision",
    "halo_trace": "Recent events",
    "halo_report": "Diagnosis report",
    "halo_guide": "Guide for agents",
}

LOGGED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": _ID_PATTERN, "description": "The new event's id."},
        "agent": {"type": "string", "description": "The agent it was logged for."},
        "session": {"type": "string", "description": "The session it was logged in."},
        "note": {"type": "string", "description": "Logged eN (Category, kind), with the channels the step opened."},
    },
    "required": ["id", "agent", "session", "note"],
    "additionalProperties": False,
}
_TRACE_EVENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": _ID_PATTERN},
        "session": {"type": "string"},
        "kind": {"type": "string", "enum": list(KINDS)},
        "summary": {"type": "string"},
        "uses": {"type": "array", "items": {"type": "string", "pattern": _ID_PATTERN}},
        "trigger": {"type": "string", "enum": list(ENUMS["trigger"])},
        "form": {"type": "string", "enum": list(ENUMS["form"])},
        "about": {"type": "string", "pattern": _ID_PATTERN},
        "target": {"type": "string"},
        "made_by": {"type": "string", "enum": list(ENUMS["made_by"])},
        "governance": {"type": "string", "enum": list(ENUMS["governance"])},
    },
    "required": ["id", "session", "kind", "summary", "uses"],
    "additionalProperties": False,
}
TRACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {"type": "string"},
        "events": {"type": "array", "items": _TRACE_EVENT, "description": "The same events as the text lines, oldest first."},
    },
    "required": ["agent", "events"],
    "additionalProperties": False,
}

_READ_TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "halo_trace": (
        "Lists the agent's recent events with their ids, oldest first, one line each, so later steps can name them in uses.",
        {
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20, "description": "How many recent events (1 to 200)."},
            "session": {"type": "string", "default": "", "description": "Only this session; empty for all."},
            "agent": _SHARED_PROPS["agent"],
        },
    ),
    "halo_report": (
        "The diagnosis of the agent's trace, or of one session, as Markdown: boundary and evidence, channels, write side, "
        "read-back, actions, outcomes, mechanism, behavioral-authority paths, findings, limitations.",
        {
            "session": {"type": "string", "default": "", "description": "Diagnose one session; empty for the whole trace."},
            "agent": _SHARED_PROPS["agent"],
        },
    ),
    "halo_guide": ("Returns the instructions for agents, the same text the server sends as its MCP instructions.", {}),
}


def tool_definitions() -> list[types.Tool]:
    """The nine tools as MCP declares them."""
    tools = []
    for kind in KINDS.values():
        props = dict(_SHARED_PROPS) | _KIND_PROPS.get(kind.name, {})
        required = ["summary"] + [f for f in kind.fields if f != "form"]
        tools.append(
            types.Tool(
                name=kind.tool,
                title=_TITLES[kind.tool],
                description=_DESCRIPTIONS[kind.name] + _REPLY_HINT,
                input_schema={"type": "object", "properties": props, "required": required, "additionalProperties": False},
                output_schema=LOGGED_SCHEMA,
                annotations=_WRITE,
            )
        )
    for name, (description, props) in _READ_TOOLS.items():
        tools.append(
            types.Tool(
                name=name,
                title=_TITLES[name],
                description=description,
                input_schema={"type": "object", "properties": props, "additionalProperties": False},
                output_schema=TRACE_SCHEMA if name == "halo_trace" else None,
                annotations=_READ,
            )
        )
    return tools


_TOOL_KIND = {k.tool: k.name for k in KINDS.values()}


WRITER_IDLE = 5.0  # seconds an agent's writer thread waits for its next append before it ends
GROUP_MAX = 64  # appends of one agent committed together at most (group commit), so no reply waits on a long batch
_NOTHING = object()


class AgentWriters:
    """Each agent's appends run in a thread of that agent's own, one after the other
    in the order they were handed over, so one agent's events get their ids in the
    order its calls arrived, and an agent whose appends are slow (its branch held
    by another writer, a long sync) holds up no other agent's. Writes share no
    pool with each other nor with reads (which run in the event loop's worker
    threads), so no number of slow agents or long reports can make a write wait
    for a free thread. A thread exists while its agent has appends in flight and
    ``WRITER_IDLE`` seconds after, so an agent writing steadily keeps its thread.

    ``submit`` is called on the event loop's thread (asyncio); it returns a future
    the loop completes with what the function returned or raised.
    """

    def __init__(self, idle: float = WRITER_IDLE, group: Callable[[list], list] | None = None) -> None:
        self._idle = idle
        self._group = group
        self._lock = threading.Lock()
        self._queues: dict[Any, "queue.SimpleQueue"] = {}  # agent -> the queue its thread reads
        self._threads: dict[Any, threading.Thread] = {}

    def submit(self, key: Any, fn: Callable[[], Any], call: Any = None) -> "asyncio.Future":
        """Hand ``fn`` to ``key``'s thread. ``call``: what ``group`` needs to commit this write together
        with others that are waiting in the same queue when its turn comes (group commit); ``fn`` then
        runs only if it waits alone."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        with self._lock:
            q = self._queues.get(key)
            if q is None:
                q = queue.SimpleQueue()
                thread = threading.Thread(target=self._run, args=(key, q), name="halo-writer", daemon=True)
                thread.start()  # may raise (no thread to be had): the call then logs nothing
                self._queues[key], self._threads[key] = q, thread
            q.put((fn, loop, done, call))
        return done

    def _run(self, key: Any, q: "queue.SimpleQueue") -> None:
        carried = _NOTHING  # an item taken while gathering a group that could not join it (or the stop)
        while True:
            if carried is not _NOTHING:
                item, carried = carried, _NOTHING
            else:
                try:
                    item = q.get(timeout=self._idle)
                except queue.Empty:
                    with self._lock:  # submit puts under this lock, so nothing can slip in unseen
                        if q.empty():
                            self._end(key, q)
                            return
                    continue
            if item is None:  # stop
                with self._lock:
                    self._end(key, q)
                return
            batch = [item]
            while self._group is not None and item[3] is not None and len(batch) < GROUP_MAX:
                try:
                    nxt = q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None or nxt[3] is None:
                    carried = nxt
                    break
                batch.append(nxt)
            if len(batch) == 1:
                fn, loop, done, _ = item
                try:
                    outcomes = [(fn(), None)]
                except BaseException as e:  # handed to the awaiting call, which answers with it
                    outcomes = [(None, e)]
            else:
                try:
                    outcomes = self._group([call for *_, call in batch])
                except BaseException as e:  # the group fails as one write would: every call answers with it
                    outcomes = [(None, e)] * len(batch)
            for (_, loop, done, _), outcome in zip(batch, outcomes):
                try:
                    loop.call_soon_threadsafe(_settle, done, *outcome)
                except RuntimeError:  # the loop is closed: nobody waits for the answer
                    pass

    def _end(self, key: Any, q: "queue.SimpleQueue") -> None:
        if self._queues.get(key) is q:
            del self._queues[key], self._threads[key]

    def threads(self) -> int:
        """How many agents have a writer thread now."""
        with self._lock:
            return len(self._threads)

    def stop(self, timeout: float = 30.0) -> None:
        """End every writer thread once the appends handed to it are done (at most ``timeout`` seconds in all)."""
        with self._lock:  # forgotten here, so a later submit starts a new thread instead of queueing behind the stop
            running = list(self._threads.values())
            for q in self._queues.values():
                q.put(None)
            self._queues.clear()
            self._threads.clear()
        deadline = time.monotonic() + timeout
        for thread in running:
            thread.join(max(0.0, deadline - time.monotonic()))


def _settle(done: "asyncio.Future", result: Any, error: BaseException | None) -> None:
    if done.cancelled():
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)


class HaloServer:
    """Maps MCP requests onto one ``Halo``; one instance per server process."""

    def __init__(self, halo: Halo, agent: str | None = None):
        if agent is not None:
            check_agent_name(agent)
        self.halo = halo
        self.agent = agent
        self._tools = tool_definitions()
        self._sessions: "weakref.WeakKeyDictionary[Any, str]" = weakref.WeakKeyDictionary()
        self._client_sessions: "OrderedDict[tuple[str, str], tuple[str, float]]" = OrderedDict()
        self._labels_lock = threading.Lock()
        self.process_session = new_session_label()
        self.extras = Extras(halo, lambda ctx: self.agent or self._defaults(ctx)[0], GUIDE)
        self._background = None  # a task group while the server runs: notifications after appends
        self._writers = AgentWriters(group=self._log_group)  # one thread per agent with writes in flight
        x = self.extras
        self.server = Server(
            "halo",
            version=_version(),
            title="HALO on Git",
            instructions=GUIDE,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            get_tool_input_schema=self._input_schema,
            on_list_resources=x.list_resources,
            on_list_resource_templates=x.list_templates,
            on_read_resource=x.read_resource,
            on_subscribe_resource=x.subscribe,
            on_unsubscribe_resource=x.unsubscribe,
            on_subscriptions_listen=x.listen,
            on_list_prompts=x.list_prompts,
            on_get_prompt=x.get_prompt,
            on_completion=x.complete,
        )

    @asynccontextmanager
    async def _lifespan(self, server):
        try:
            async with anyio.create_task_group() as tg:
                self._background = tg
                try:
                    yield {}
                finally:
                    self._background = None
                    tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):  # appends in flight finish before the server is gone
                await anyio.to_thread.run_sync(self._writers.stop)

    async def _notify(self, agent: str, session: str) -> None:
        try:
            await self.extras.appended(agent, session)
        except Exception:  # a subscriber's trouble must never reach the server
            pass

    # -- handlers --------------------------------------------------------------

    async def _list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools)

    def _input_schema(self, name: str):
        for t in self._tools:
            if t.name == name:
                return t.input_schema
        return None

    async def _call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments if params.arguments is not None else {}
        try:
            if not isinstance(args, dict):
                raise InvalidCall("arguments must be a JSON object of named parameters")
            handler = self._handler(params.name)
            client_agent, session = self._defaults(ctx)
            named_by_client = client_agent is not None and self.agent is None and args.get("agent") is None
            raw_name = (self._client_info(ctx)[0] or "") if named_by_client else ""

            def screen() -> None:  # in a thread: the screening too is no work for the event loop
                if named_by_client:
                    self._screen_client_name(raw_name, client_agent)

            def run() -> tuple[str, dict | None]:
                screen()
                return handler(args, client_agent, session)

            if params.name in _TOOL_KIND:  # writes to one agent commit in the order they arrived, in its own thread
                agent = self.agent if args.get("agent") is None else args.get("agent")
                call = (_TOOL_KIND[params.name], args, self.agent or client_agent, session, screen)
                done = self._writers.submit(agent if isinstance(agent, str) else client_agent, run, call)
                with anyio.CancelScope(shield=True):  # a call already handed over completes (its reply may be lost)
                    text, structured = await done
            else:
                text, structured = await anyio.to_thread.run_sync(run)
        except HaloError as e:
            return _error(str(e))
        except Exception as e:  # a bug must not kill the connection; say what happened
            return _error(f"internal error ({type(e).__name__}); nothing was logged by this call, try again or report it")
        if params.name in _TOOL_KIND and self.extras.watching():  # tell subscribers after the reply, without delaying it
            if self._background is not None:
                self._background.start_soon(self._notify, structured["agent"], structured["session"])
            else:
                await self._notify(structured["agent"], structured["session"])
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)

    def _log_group(self, calls: list[tuple]) -> list[tuple[Any, BaseException | None]]:
        """Group commit for the write calls of one agent that waited together in its queue: one ref swap for
        all of them, each call answered with its own reply or refusal (``Halo.log_calls``)."""
        outcomes: list[tuple[Any, BaseException | None]] = [(None, None)] * len(calls)
        todo, places = [], []
        for i, (kind, args, default_agent, session, screen) in enumerate(calls):
            try:
                screen()
            except BaseException as e:
                outcomes[i] = (None, e)
                continue
            todo.append((kind, args, default_agent, session))
            places.append(i)
        for i, reply in zip(places, self.halo.log_calls(todo)):
            outcomes[i] = (None, reply) if isinstance(reply, BaseException) else (
                (json.dumps(reply, ensure_ascii=False), reply), None)
        return outcomes

    def _handler(self, name: str) -> Callable[[dict, str | None, str], tuple[str, dict | None]]:
        if name in _TOOL_KIND:
            kind = _TOOL_KIND[name]

            def log(args: dict, client_agent: str | None, session: str) -> tuple[str, dict]:
                reply = self.halo.log_call(kind, args, default_agent=self.agent or client_agent, default_session=session)
                return json.dumps(reply, ensure_ascii=False), reply

            return log
        if name == "halo_trace":
            return self._trace
        if name == "halo_report":
            return lambda *a: (self._report(*a), None)
        if name == "halo_guide":
            return lambda *a: (self._guide(*a), None)
        raise InvalidCall(f"unknown tool {quoted(name, 60)}; the tools are: {', '.join(t.name for t in self._tools)}")

    def _trace(self, args: dict, client_agent: str | None, session: str) -> tuple[str, dict]:
        _only(args, "halo_trace", ("limit", "session", "agent"))
        agent = self._agent(args, client_agent)
        label = _label(args.get("session", ""))
        events = self.halo.recent_events(agent, limit=args.get("limit", 20), session=label)
        return trace_text(events, agent, label), {"agent": agent, "events": [event_data(e) for e in events]}

    def _report(self, args: dict, client_agent: str | None, session: str) -> str:
        _only(args, "halo_report", ("session", "agent"))
        return self.halo.report(self._agent(args, client_agent), session=_label(args.get("session", "")))

    def _guide(self, args: dict, client_agent: str | None, session: str) -> str:
        _only(args, "halo_guide", ())
        return GUIDE

    def _agent(self, args: dict, client_agent: str | None) -> str:
        agent = args.get("agent")
        if agent is None:
            agent = self.agent or client_agent
        if agent is None:
            raise InvalidCall("no agent name: pass 'agent' (e.g. \"demo\") or start the server with --agent NAME")
        return check_agent_name(agent)

    def _screen_client_name(self, raw: str, derived: str) -> None:
        """The client's name becomes the agent's name, a repository name kept forever:
        it is screened like an explicit ``agent`` (as sent and as turned into a name)."""
        screen = self.halo.screen
        found = []
        for text in (raw, derived) if screen is not None else ():
            found += [f for f in screen(text) if f not in found]
        if found:
            raise InvalidCall(
                f"the MCP client's name, used as the agent's name, looks like it contains {', '.join(found)}; "
                'pass \'agent\' (e.g. "demo") or start the server with --agent NAME'
            )

    # -- per-connection defaults ----------------------------------------------------

    @staticmethod
    def _client_info(ctx) -> tuple[str | None, str]:
        """(client name, client version) as the client sent them, cut to their limits."""
        name, version = None, ""
        params = ctx.session.client_params
        if params is not None and params.client_info is not None:
            name, version = params.client_info.name, params.client_info.version or ""
        elif ctx.meta:
            info = ctx.meta.get(types.CLIENT_INFO_META_KEY)
            if isinstance(info, dict) and isinstance(info.get("name"), str):
                name, version = info["name"], info.get("version", "")
                version = version if isinstance(version, str) else ""
        if name is not None:
            name = name[:MAX_CLIENT_NAME]
        return name, version[:MAX_CLIENT_VERSION]

    def _defaults(self, ctx) -> tuple[str | None, str]:
        """(client-derived agent name, this connection's session label)."""
        name, version = self._client_info(ctx)
        connection = getattr(ctx.session, "_connection", None)
        with self._labels_lock:
            if connection is not None and getattr(connection, "client_params", None) is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                label = self._sessions.get(connection)
                if label is None:
                    label = self._sessions[connection] = new_session_label()
            else:
                label = self._client_label((name or "", version))
        return agent_name_from_client(name), label

    def _client_label(self, key: tuple[str, str]) -> str:
        """The session label of a stateless client identity (call with the lock held)."""
        now = time.monotonic()
        table = self._client_sessions
        entry = table.pop(key, None)
        if entry is not None and now - entry[1] > CLIENT_SESSION_IDLE:
            entry = None  # idle too long: a new conversation
        while table and (len(table) >= MAX_CLIENT_SESSIONS or now - next(iter(table.values()))[1] > CLIENT_SESSION_IDLE):
            table.popitem(last=False)  # least recently used first
        label = entry[0] if entry is not None else new_session_label()
        table[key] = (label, now)
        return label


def _only(args: dict, tool: str, allowed: tuple[str, ...]) -> None:
    unknown = [k for k in args if k not in allowed]
    if unknown:
        names = ", ".join(quoted(k) for k in unknown)
        params = ", ".join(allowed) if allowed else "none"
        raise InvalidCall(f"unknown parameter(s) {names} for {tool}; its parameters are: {params}")


def _label(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidCall("'session' must be a string label; pass \"\" for all sessions")
    return value


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps({"error": message}, ensure_ascii=False))],
        is_error=True,
    )


def _version() -> str:
    from . import __version__

    return __version__


# -- transports -----------------------------------------------------------------------


DRAIN_SECONDS = 30.0  # at the end of stdin, how long requests already read may take to be answered


class _AnsweredLines:
    """stdin lines for the SDK's stdio transport, minus those it cannot parse.

    The SDK drops a line its JSON-RPC parser refuses (a lone surrogate escape,
    nesting deeper than its parser allows) without a reply, so a client waits
    forever. Such a line is answered here with a -32700 parse error carrying the
    request's id when it can be read, and is not passed on.

    At the end of stdin the lines end only once every request already read has
    its answer (``pending``, emptied by ``_AnsweringWrite``; at most
    ``DRAIN_SECONDS``): the transport closing would cancel a call still in
    flight, whose event may already be committed, and its reply would be lost
    for a client that piped its requests and closed stdin.
    """

    def __init__(self) -> None:
        self.write = None  # the transport's write stream, bound once it exists
        self.pending: set = set()  # ids of requests passed on and not answered yet
        self._stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        from mcp.shared.message import SessionMessage

        async for line in self._stdin:
            if not line.strip():
                continue
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception:
                if self.write is not None:
                    error = types.JSONRPCError(
                        jsonrpc="2.0",
                        id=_request_id(line),
                        error=types.ErrorData(
                            code=types.PARSE_ERROR,
                            message="Parse error: the line is not a JSON-RPC message this server can read "
                            "(invalid JSON, a lone surrogate escape such as \\ud800, or nesting too deep); "
                            "send valid UTF-8 JSON",
                        ),
                    )
                    await self.write.send(SessionMessage(error))
                continue
            if isinstance(message, types.JSONRPCRequest):
                self.pending.add(message.id)
            yield line
        with anyio.move_on_after(DRAIN_SECONDS):
            while self.pending:
                await anyio.sleep(0.01)


class _AnsweringWrite:
    """The transport's write stream, noting which requests got their answer (see ``_AnsweredLines``)."""

    def __init__(self, inner, pending: set) -> None:
        self._inner, self._pending = inner, pending

    async def send(self, item) -> None:
        await self._inner.send(item)
        message = getattr(item, "message", None)
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self._pending.discard(message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def _request_id(line: str) -> int | str | None:
    """The id of a request the JSON-RPC parser refused, when it can still be read."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        m = re.search(r'"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")', line[:4096])
        if not m:
            return None
        try:
            return json.loads(m.group(1))
        except ValueError:
            return None
    value = message.get("id") if isinstance(message, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return value if isinstance(value, int) else value.encode("utf-8", "replace").decode("utf-8")


async def serve_stdio(app: HaloServer) -> None:
    from mcp.server.stdio import stdio_server

    lines = _AnsweredLines()
    async with stdio_server(stdin=lines) as (read, write):
        lines.write = write
        await app.server.run(read, _AnsweringWrite(write, lines.pending), app.server.create_initialization_options())


# -- HTTP: who may connect ----------------------------------------------------------

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
TOKEN_ENV = "HALO_TOKEN"
# Limits of the HTTP transport, chosen so that a flood of connections or
# ``initialize`` calls costs bounded memory and never locks new clients out.
MAX_HTTP_SESSIONS = 1000  # open Mcp-Session-Id sessions; when full, the least recently active one is closed for a new one
HTTP_SESSION_IDLE_TIMEOUT = 600.0  # seconds without a request before a session is closed
HTTP_READ_TIMEOUT = 15.0  # seconds a connection may take to send a request's headers and body
HTTP_KEEP_ALIVE_TIMEOUT = 5  # seconds an idle keep-alive connection stays open (uvicorn's default)
# A request body is held several times over while it is read, parsed and validated
# (about 12 MiB for a body just under the SDK's 4 MiB limit), so concurrent large
# bodies are limited: no tool call needs more than 256 KiB (a 10,000-character
# summary is at most 120 KiB of JSON, escaped).
LARGE_BODY = 256 * 1024  # bytes; a request declaring more (or no length) waits for a slot
MAX_LARGE_BODIES = 4  # large bodies read and handled at once
LARGE_BODY_WAIT = 10.0  # seconds a large body may wait for a slot before 503


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``: addresses only this machine can reach."""
    import ipaddress

    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_token(token_file: str | None, environ: dict[str, str] | None = None) -> str | None:
    """The bearer token clients must send: ``--token-file``, else ``HALO_TOKEN``, else None.

    Raises:
        InvalidCall: the file cannot be read, or the token is empty or shorter than 16 characters.
    """
    import os

    environ = os.environ if environ is None else environ
    if token_file is not None:
        try:
            token = open(token_file, encoding="utf-8").read().strip()
        except (OSError, UnicodeDecodeError) as e:
            raise InvalidCall(f"cannot read the token file {token_file}: {e.strerror or e}; pass a readable file holding one token") from None
        where = f"the token file {token_file}"
    elif environ.get(TOKEN_ENV):
        token, where = environ[TOKEN_ENV].strip(), TOKEN_ENV
    else:
        return None
    if len(token) < 16 or any(c.isspace() for c in token):
        raise InvalidCall(
            f"{where} must hold one token of at least 16 characters without spaces; "
            "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return token


def http_allow_lists(host: str, allow_hosts: list[str] = (), allow_origins: list[str] = ()) -> tuple[list[str], list[str]]:
    """(Host header values, Origin values) the server accepts; loopback names always.

    An entry without a port accepts any port. A specific non-loopback bind address
    is accepted as a Host; a wildcard bind (0.0.0.0, ::) accepts only loopback names
    and the ``--allow-host`` entries, because the names clients use are not known.
    """
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    extra = list(allow_hosts)
    if host not in ("0.0.0.0", "::", "") and not is_loopback(host):
        extra.append(f"[{host}]" if ":" in host else host)
    for h in extra:
        hosts += [h] if re.search(r":(\d+|\*)$", h) and not h.endswith("]") else [h, f"{h}:*"]
    for o in allow_origins:
        o = o.rstrip("/")
        origins += [o] if re.search(r":(\d+|\*)$", o) else [o, f"{o}:*"]
    return hosts, origins


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    The comparison is constant-time (``hmac.compare_digest``); a missing or wrong
    token gets 401 with ``WWW-Authenticate`` and a JSON body saying how to fix it.
    """

    def __init__(self, app, token: str):
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope, receive, send) -> None:
        import hmac

        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                given = value
                break
        scheme, _, credential = given.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), self._token):
            await self.app(scope, receive, send)
            return
        error = "invalid_token" if given else "invalid_request"
        message = (
            "the bearer token is wrong; send the token the server was started with"
            if given
            else "authentication required: send the header Authorization: Bearer <token>"
        )
        body = json.dumps({"error": message}).encode("utf-8")
        await send({
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", f'Bearer realm="halo", error="{error}"'.encode()),
            ],
        })
        await send({"type": "http.response.body", "body": body})


class BodyGate:
    """ASGI middleware: at most ``slots`` requests with a large body at a time.

    A request whose ``Content-Length`` exceeds ``threshold`` (or that sends a body
    without one) waits for a slot before anything reads its body, and keeps it
    until its answer is sent; while it waits the server holds no more than the
    connection's read buffer. One that waits ``wait`` seconds gets 503 with
    ``Retry-After``. Small requests, every tool call among them, never wait.
    """

    def __init__(self, app, slots: int = MAX_LARGE_BODIES, threshold: int = LARGE_BODY, wait: float = LARGE_BODY_WAIT):
        self.app = app
        self._slots, self._threshold, self._wait = slots, threshold, wait
        self._semaphore: anyio.Semaphore | None = None

    def _large(self, scope) -> bool:
        length = None
        chunked = False
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    return True
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        return (length is not None and length > self._threshold) or (length is None and chunked)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not self._large(scope):
            await self.app(scope, receive, send)
            return
        if self._semaphore is None:
            self._semaphore = anyio.Semaphore(self._slots)
        acquired = False
        with anyio.move_on_after(self._wait):  # the wait only, never the request itself
            await self._semaphore.acquire()
            acquired = True
        if acquired:
            try:
                await self.app(scope, receive, send)
            finally:
                self._semaphore.release()
            return
        body = json.dumps({"error": f"too many large requests at once (over {self._threshold // 1024} KiB each); "
                                    "retry later, or send smaller requests"}).encode("utf-8")
        await send({
            "type": "http.response.start",
            "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"retry-after", b"1")],
        })
        await send({"type": "http.response.body", "body": body})


def _h11_with_read_timeout(read_timeout: float):
    """uvicorn's h11 protocol, closing a connection that takes longer than
    ``read_timeout`` to send a request (headers and body): a half-open or
    trickling client cannot hold a connection forever. A request that has been
    read (a long SSE stream included) is not affected."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class ReadTimeoutH11(H11Protocol):
        _read_timer = None

        def _arm(self) -> None:
            if self._read_timer is not None:
                self._read_timer.cancel()
            self._read_timer = self.loop.call_later(read_timeout, self._read_timed_out)

        def _read_timed_out(self) -> None:
            self._read_timer = None
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc) -> None:
            if self._read_timer is not None:
                self._read_timer.cancel()
            super().connection_lost(exc)

    return ReadTimeoutH11


# Requests whose whole answer is their one response, sent as a plain JSON body
# (``application/json``) instead of an event stream: nothing the server does for
# them sends anything else first. An answer as a stream costs the server a
# stream and its tasks, and the SDK's client closes a stream as soon as it holds
# the response, so every call also cost a new TCP connection; a JSON body keeps
# the connection. ``subscriptions/listen`` and ``initialize`` keep the stream.
_PLAIN_ANSWERS = frozenset({
    "tools/call", "tools/list", "resources/read", "resources/list", "resources/templates/list",
    "prompts/list", "prompts/get", "completion/complete", "ping",
})
_answer_as_json: ContextVar[bool] = ContextVar("halo_answer_as_json", default=False)
_plain_transports: dict[type, type] = {}


async def _answers_in_one(request) -> bool:
    """Whether the POST holds one request of ``_PLAIN_ANSWERS`` (its body is read
    here; the transport reads the same bytes again)."""
    import pydantic_core

    try:
        message = pydantic_core.from_json(await request.body())
    except Exception:  # unreadable: the transport answers it as it always does
        return False
    return isinstance(message, dict) and "id" in message and message.get("method") in _PLAIN_ANSWERS


def _answering_plainly(transport) -> None:
    """Make one session's transport answer ``_PLAIN_ANSWERS`` requests with a JSON
    body, per request (the SDK decides per transport); other requests, and the
    messages its router passes, are handled as before."""
    base = type(transport)
    cls = _plain_transports.get(base)
    if cls is None:

        class PlainAnswers(base):  # type: ignore[misc, valid-type]
            @property
            def is_json_response_enabled(self) -> bool:
                return self.__dict__.get("is_json_response_enabled", False) or _answer_as_json.get()

            @is_json_response_enabled.setter
            def is_json_response_enabled(self, value: bool) -> None:
                self.__dict__["is_json_response_enabled"] = value

            async def _handle_post_request(self, scope, request, receive, send) -> None:
                token = _answer_as_json.set(await _answers_in_one(request))
                try:
                    await super()._handle_post_request(scope, request, receive, send)
                finally:
                    _answer_as_json.reset(token)

        cls = _plain_transports[base] = PlainAnswers
    transport.__class__ = cls


def _make_room_for_newcomers(manager) -> None:
    """A full session table closes a session for each newcomer instead of answering 503.

    The SDK answers 503 while ``max_sessions`` sessions are open, and a session
    with a request in flight (a held SSE stream, say) never idles out: 1,000
    clients holding streams locked everyone else out for as long as they held.
    Here admission makes room under the manager's own creation lock, so each
    newcomer frees exactly the slot it takes, even when thousands arrive at once:
    the session idle the longest is closed first, and when none is idle, the one
    whose latest request began the longest ago (a stream held for minutes goes
    before a call made a moment ago). A closed session's id answers 404 and its
    client starts a new one."""
    admit = manager._admit_session
    handle = manager._handle_stateful_request
    began: dict[str, float] = {}  # session id -> when its latest request began (monotonic)

    def victim(sessions: dict) -> tuple | None:
        best = None
        for sid, t in sessions.items():
            scope = t.idle_scope
            if scope is not None and scope.deadline != float("inf"):
                key = (0, scope.deadline)  # idle: the one idle the longest first
            else:
                key = (1, began.get(sid, 0.0))  # busy: the one whose latest request is oldest
            if best is None or key < best[0]:
                best = (key, sid, t)
        return best

    def admit_with_room(requestor):
        sessions = manager._server_instances
        if manager.max_sessions is not None and len(sessions) >= manager.max_sessions:
            chosen = victim(sessions)
            if chosen is not None:
                _, sid, transport = chosen
                sessions.pop(sid, None)  # forgotten now, so the newcomer's admission below has room
                manager._session_owners.pop(sid, None)
                began.pop(sid, None)
                manager._task_group.start_soon(manager._discard_session, sid, transport)
        transport = admit(requestor)
        if transport is not None:
            _answering_plainly(transport)
            began[transport.mcp_session_id] = time.monotonic()
            if len(began) > 2 * len(sessions) + 64:  # sessions the SDK ended on its own
                for sid in [s for s in began if s not in sessions]:
                    del began[sid]
        return transport

    async def handle_noting_activity(scope, receive, send) -> None:
        from mcp.server.streamable_http import MCP_SESSION_ID_HEADER

        wanted = MCP_SESSION_ID_HEADER.lower().encode()
        for name, value in scope.get("headers", ()):
            if name == wanted:
                sid = value.decode("latin-1")
                if sid in manager._server_instances:
                    began[sid] = time.monotonic()
                break
        await handle(scope, receive, send)

    manager._admit_session = admit_with_room
    manager._handle_stateful_request = handle_noting_activity


async def serve_http(
    app: HaloServer,
    host: str = "127.0.0.1",
    port: int = 8765,
    ready: Callable[[int], None] | None = None,
    *,
    token: str | None = None,
    allow_hosts: list[str] = (),
    allow_origins: list[str] = (),
    max_sessions: int = MAX_HTTP_SESSIONS,
) -> None:
    """Streamable HTTP at ``http://host:port/mcp``; ``ready`` gets the bound port.

    A non-loopback ``host`` is refused unless ``token`` is set: without it anyone
    who can reach the address could write to the audit trail. Host and Origin
    headers are checked on every bind (the allow-lists of ``http_allow_lists``).

    Raises:
        InvalidCall: a non-loopback host without a token.
    """
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host) and token is None:
        raise InvalidCall(
            f"refusing to serve HTTP on {host}: a non-loopback address needs authentication, or anyone who can "
            f"reach it could log events; set {TOKEN_ENV} or pass --token-file FILE (clients then send "
            "Authorization: Bearer <token>), or serve on 127.0.0.1"
        )
    hosts, origins = http_allow_lists(host, allow_hosts, allow_origins)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)
    starlette_app = app.server.streamable_http_app(
        host=host,
        transport_security=security,
        session_idle_timeout=HTTP_SESSION_IDLE_TIMEOUT,
        max_sessions=max_sessions,
    )
    _make_room_for_newcomers(app.server.session_manager)
    gated = BodyGate(starlette_app)
    asgi = BearerAuth(gated, token) if token is not None else gated
    config = uvicorn.Config(
        asgi,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=_h11_with_read_timeout(HTTP_READ_TIMEOUT),
        timeout_keep_alive=HTTP_KEEP_ALIVE_TIMEOUT,
    )
    server = uvicorn.Server(config)
    sock = _bind(host, port)  # here, so a busy port is one clear message, not uvicorn's log and exit
    if ready is not None:
        async def announce() -> None:
            while not server.started:
                await anyio.sleep(0.01)
            ready(sock.getsockname()[1])

        async with anyio.create_task_group() as tg:
            tg.start_soon(announce)
            await server.serve(sockets=[sock])
    else:
        await server.serve(sockets=[sock])


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``, or ``HaloError`` saying what to change."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as e:
        raise InvalidCall(f"--host {host!r} is not an address or a name this machine resolves ({e.strerror}); "
                          "use 127.0.0.1, ::1 or an address of this machine") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise Conflict(f"port {port} on {host} is already in use (another server?); pass --port with another "
                           "number, or --port 0 for a free one") from None
        if e.errno == errno.EADDRNOTAVAIL:
            raise InvalidCall(f"cannot listen on {host}: it is not an address of this machine; use 127.0.0.1 or one of its addresses") from None
        if e.errno == errno.EACCES:
            raise InvalidCall(f"port {port} needs privileges this process lacks; use a port above 1023 (or --port 0)") from None
        raise HaloError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.setblocking(False)
    return sock
