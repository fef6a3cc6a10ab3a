"""Export to ATIF, the Agent Trajectory Interchange Format of the Harbor project.

Pure: events in, plain JSON data out. The field list follows Harbor RFC 0001
"Agent Trajectory Interchange Format (ATIF) Specification", v1.8 by default
and v1.7 on request (``rfcs/0001-trajectory-format.md`` in the
harbor-framework/harbor repository, summarised at
harborframework.com/docs/trajectory-format), and the validators of its
reference Pydantic models (``harbor.models.trajectories``, harbor 0.25): step
ids run 1, 2, 3, … within a trajectory, and every ``source_call_id`` in a
step's observation names a ``tool_call_id`` of that same step. v1.8 only adds
audio content parts, which HALO never writes, so both versions hold the same
fields here.

Harbor's tools read one trajectory per ``trajectory.json`` file:
``session_dirname`` names a safe folder per session for ``export --format
atif --out DIR``.

Mapping, one trajectory per session (sessions in order of their first event):

* root: ``schema_version`` (``SCHEMA_VERSION`` unless asked for another of ``SCHEMA_VERSIONS``), ``session_id`` (the
  session label), ``agent`` with ``name`` (the agent) and ``version``
  ``unrecorded`` (a HALO event does not say which version of the agent wrote
  it; the branch, one setup of the agent such as ``prompt-v2``, is under
  ``extra.halo``),
  ``notes``, ``final_metrics.total_steps`` and ``extra.halo`` (agent, branch,
  head commit, session, the event ids exported);
* every event is one step whose ``message`` is the summary and whose
  ``timestamp`` is the event time; its ``source`` is what the event says: an
  ``observe`` that reports what a person said or asked (``diagnosis.reading``'s
  ``says_speech``: "user asked: …", "Maren: …") is ``user``, every other step
  ``agent`` (the agent's own steps, and its account of everything else); the HALO fields (id, kind,
  category, uses, channels and the kind's own fields) go under ``extra.halo``;
* an ``act`` also carries one tool call whose ``tool_call_id`` is the event id,
  ``function_name`` is ``halo_act`` and ``arguments`` are trigger and form;
* an ``outcome`` about an act of the same session is folded into that act's
  step as an observation result (``source_call_id`` = the act's id, ``content``
  = the outcome's summary, its HALO fields and time under the result's
  ``extra.halo``).
  An outcome about an act of another session stays a step of its own, with
  ``about`` under ``extra.halo``, since a ``source_call_id`` may only name a
  call of its own step.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Iterable, Sequence

from .diagnosis.reading import says_speech
from .errors import InvalidCall
from .model import KINDS, Event

SCHEMA_VERSION = "ATIF-v1.8"
UNRECORDED = "unrecorded"  # agent.version: no HALO event says which version of the agent wrote it
SCHEMA_VERSIONS = ("ATIF-v1.8", "ATIF-v1.7")
_SAFE_DIR = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_STEP_ORDER = ("step_id", "timestamp", "source", "message", "tool_calls", "observation", "extra")


def trajectories(events: Sequence[Event], *, agent: str, branch: str, head: str | None, exporter: str = "halo-git",
                 schema_version: str = SCHEMA_VERSION) -> list[dict[str, Any]]:
    """One ATIF trajectory per session of ``events`` (a branch, in commit order)."""
    if schema_version not in SCHEMA_VERSIONS:
        raise InvalidCall(f"ATIF schema version {schema_version!r} is not supported; use one of {', '.join(SCHEMA_VERSIONS)}")
    sessions: dict[str, list[Event]] = {}
    for e in events:
        sessions.setdefault(e.session, []).append(e)
    return [_trajectory(evs, agent=agent, branch=branch, head=head, exporter=exporter, version=schema_version)
            for evs in sessions.values()]


def session_dirname(session: str, taken: Iterable[str] = ()) -> str:
    """A folder name for one session's ``trajectory.json``: the label itself when it is a
    safe file name not yet ``taken`` (compared case-insensitively, for case-blind file
    systems), else its safe characters plus a hash of the label."""
    lower = {t.casefold() for t in taken}
    if _SAFE_DIR.fullmatch(session) and session not in (".", "..") and session.casefold() not in lower:
        return session
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", session).strip("-.")[:40] or "session"
    return f"{slug}-{hashlib.sha256(session.encode()).hexdigest()[:8]}"


def _trajectory(events: list[Event], *, agent: str, branch: str, head: str | None, exporter: str,
                version: str) -> dict[str, Any]:
    session = events[0].session
    steps: list[dict[str, Any]] = []
    act_steps: dict[str, dict[str, Any]] = {}
    for e in events:
        about = e.fields.get("about")
        if e.kind == "outcome" and about in act_steps:
            act_steps[about].setdefault("observation", {"results": []})["results"].append(
                {"source_call_id": about, "content": e.summary, "extra": {"halo": _halo_fields(e, "time")}}
            )
            continue
        step: dict[str, Any] = {
            "step_id": len(steps) + 1,
            "timestamp": e.time,
            "source": "user" if e.kind == "observe" and says_speech(e.summary) else "agent",
            "message": e.summary,
        }
        if e.kind == "act":
            step["tool_calls"] = [
                {"tool_call_id": e.id, "function_name": KINDS["act"].tool, "arguments": {k: e.fields[k] for k in KINDS["act"].fields}}
            ]
            act_steps[e.id] = step
        step["extra"] = {"halo": _halo_fields(e)}
        steps.append(step)
    commit = f" at commit {head[:12]}" if head else ""
    return {
        "schema_version": version,
        "session_id": session,
        "agent": {"name": agent, "version": UNRECORDED},
        "notes": (
            f"HALO trace of agent {agent}, branch {branch}{commit}, session {session}: the agent's own account of its "
            "steps, one step per event. Acts are tool calls named by their event id; outcomes about an act of this "
            "session are that act's observation results. HALO fields are under extra.halo."
        ),
        "final_metrics": {"total_steps": len(steps)},
        "extra": {"halo": {"agent": agent, "branch": branch, "head": head, "session": session,
                           "events": [e.id for e in events], "exporter": exporter}},
        "steps": [{k: s[k] for k in _STEP_ORDER if k in s} for s in steps],
    }


def _halo_fields(e: Event, *keep: str) -> dict[str, Any]:
    """The event's YAML mapping without what ATIF already holds (summary, time,
    agent, session), except the names in ``keep``."""
    drop = {"summary", "time", "agent", "session"} - set(keep)
    return {k: v for k, v in e.to_dict().items() if k not in drop}

