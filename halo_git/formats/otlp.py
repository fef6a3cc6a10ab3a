"""OTLP/JSON export: an agent's branch as one OpenTelemetry ``ExportTraceServiceRequest``.

A room of the ``formats`` package: pure (events in, plain JSON data out), called
by ``commands/export.py`` (``halo-git export --format otlp``); the optional post
to a collector lives in ``formats/otlp_http.py``. The mapping is documented on
the docs' Interop page:

* one trace per session, rooted in one ``invoke_agent <agent>`` span (the GenAI
  agent-invocation span: ``gen_ai.operation.name`` = ``invoke_agent``, from the
  session's first event to its last), then one span per event, all of kind
  INTERNAL, in commit order under one resource (``service.name`` = the agent)
  and one instrumentation scope (``halo-git``);
* ids are derived, not random: the trace id hashes agent, branch and session,
  the span id agent, branch and event id, so exporting the same branch twice
  gives the same ids and a collector sees the same spans again, and an event's
  span can be named from another session's trace (links across sessions);
* the parent of a span is the event's ``about`` act when it is in the same
  session, else the first event of the same session it names in ``uses``, else
  the session's root span; every other reference (and any reference to another
  session) is a span link carrying ``halo.link`` = ``about`` or ``uses``;
* the GenAI attributes are those the event supports: every span carries
  ``gen_ai.agent.name``, ``gen_ai.conversation.id`` and ``session.id`` (the
  session). An act is not claimed as a tool call (``execute_tool``): the event
  names no tool, and an observer reading this export as evidence must not take
  the agent's self-report for observed calls. An act ends at its first outcome
  of the same session, every other event span is a point in time. Every field
  of the event's YAML but ``time`` is ``halo.<key>``.

OTLP/JSON differs from protobuf's own JSON mapping in two places, both followed
here: trace and span ids are hex strings, and 64-bit integers are decimal strings.
"""

from __future__ import annotations

import calendar
import hashlib
from datetime import datetime
from typing import Any, Sequence

from ..model import KINDS, Event

SCOPE_NAME = "halo-git"
SPAN_KIND_INTERNAL = 1
ROOT_OPERATION = "invoke_agent"


def trace_id(agent: str, branch: str, session: str) -> str:
    """The 32-hex-digit trace id of one session of an agent's branch."""
    return hashlib.sha256(f"halo-git trace\0{agent}\0{branch}\0{session}".encode()).hexdigest()[:32]


def span_id(agent: str, branch: str, event_id: str) -> str:
    """The 16-hex-digit span id of one event of an agent's branch."""
    return hashlib.sha256(f"halo-git span\0{agent}\0{branch}\0{event_id}".encode()).hexdigest()[:16]


def session_span_id(agent: str, branch: str, session: str) -> str:
    """The 16-hex-digit id of a session's root ``invoke_agent`` span."""
    return hashlib.sha256(f"halo-git session\0{agent}\0{branch}\0{session}".encode()).hexdigest()[:16]


def unix_nano(iso: str) -> int:
    """An event time (``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``) in nanoseconds since the epoch, exactly."""
    t = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return calendar.timegm(t.utctimetuple()) * 1_000_000_000 + t.microsecond * 1000


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, (list, tuple)):
        return {"arrayValue": {"values": [_value(x) for x in v]}}
    return {"stringValue": str(v)}


def _attrs(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in pairs.items()]


def span_name(e: Event) -> str:
    """The logging tool's name (``halo_act``, ``halo_observe``, …)."""
    return KINDS[e.kind].tool


def export_request(
    events: Sequence[Event], *, agent: str, branch: str, head: str | None, exporter_version: str = ""
) -> dict[str, Any]:
    """The whole branch (``events`` in commit order) as one ExportTraceServiceRequest."""
    by_id = {e.id: e for e in events}
    end_of: dict[str, str] = {}
    for e in events:
        about = e.fields.get("about")
        if e.kind == "outcome" and about in by_id and by_id[about].session == e.session:
            end_of.setdefault(about, e.time)
    spans = []
    sessions: dict[str, list[int]] = {}  # session -> [first start, last end] of its event spans
    for e in events:
        tid = trace_id(agent, branch, e.session)
        about = e.fields.get("about")
        refs = [r for r in e.sources() if r in by_id]  # a dangling id of a damaged trace has no span
        same = {r for r in refs if by_id[r].session == e.session}
        parent = about if about in same else next((r for r in e.uses if r in same), None)
        parent_span = span_id(agent, branch, parent) if parent is not None else session_span_id(agent, branch, e.session)
        links = [
            {
                "traceId": trace_id(agent, branch, by_id[ref].session),
                "spanId": span_id(agent, branch, ref),
                "attributes": _attrs({"halo.link": "about" if ref == about else "uses"}),
            }
            for ref in refs if ref != parent
        ]
        attrs: dict[str, Any] = {"gen_ai.agent.name": agent, "gen_ai.conversation.id": e.session, "session.id": e.session}
        attrs.update({f"halo.{k}": v for k, v in e.to_dict().items() if k != "time"})
        attrs["halo.branch"] = branch
        start = unix_nano(e.time)
        end = max(start, unix_nano(end_of[e.id])) if e.id in end_of else start
        window = sessions.setdefault(e.session, [start, end])
        window[0], window[1] = min(window[0], start), max(window[1], end)
        span: dict[str, Any] = {"traceId": tid, "spanId": span_id(agent, branch, e.id), "parentSpanId": parent_span}
        span.update({
            "name": span_name(e),
            "kind": SPAN_KIND_INTERNAL,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": _attrs(attrs),
        })
        if links:
            span["links"] = links
        spans.append(span)
    roots = [
        {
            "traceId": trace_id(agent, branch, session),
            "spanId": session_span_id(agent, branch, session),
            "name": f"{ROOT_OPERATION} {agent}",
            "kind": SPAN_KIND_INTERNAL,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": _attrs({"gen_ai.operation.name": ROOT_OPERATION, "gen_ai.agent.name": agent,
                                  "gen_ai.conversation.id": session, "session.id": session, "halo.session": session,
                                  "halo.branch": branch}),
        }
        for session, (start, end) in sessions.items()
    ]
    spans = roots + spans
    resource = {"service.name": agent, "halo.agent": agent, "halo.branch": branch}
    if head:
        resource["halo.head"] = head
    scope: dict[str, Any] = {"name": SCOPE_NAME}
    if exporter_version:
        scope["version"] = exporter_version
    return {"resourceSpans": [{"resource": {"attributes": _attrs(resource)}, "scopeSpans": [{"scope": scope, "spans": spans}]}]}
