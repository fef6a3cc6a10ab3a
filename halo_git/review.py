"""What an agent reads back about itself: pure views over events and the diagnosis.

This room sits beside ``report`` (the Markdown for people): it turns the same
``Diagnosis`` and events into the plain data and texts the MCP server hands to
agents — an event as structured data (``event_data``), findings as JSON
(``findings_data``), which findings are still *open* (``open_findings``), and
the texts of the two prompts (``self_review_text``, ``log_step_text``). The
MCP shell (``mcp_resources``) and the tools call it; nothing here touches Git
or MCP.

A finding is *answered*, and no longer open, once a later revision made by the
user with governance ``approved`` or ``bounded`` names the finding's event in
``uses``: that is how an agent logs its user's decision about it.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Iterable, Sequence

from .diagnosis import RULES, SEVERITY_RANK, Diagnosis, Finding
from .model import KINDS, Event, trace_line

#: the severities the session-start self-review brings up
REVIEW_SEVERITIES = ("high", "medium")
MAX_REVIEW_FINDINGS = 20  # findings quoted in one self-review; the rest are counted
MAX_REVIEW_EVENTS = 5  # events quoted per finding

# Field names of ``Finding`` shown under the names the resources document.
_RENAMED = {"ids": "events", "remedy": "next_step"}


def event_data(event: Event) -> dict[str, Any]:
    """One event as ``halo_trace``'s structured content: id, session, kind, summary,
    uses, then the kind's own fields (trigger/form, about, target/made_by/governance)."""
    d: dict[str, Any] = {
        "id": event.id,
        "session": event.session,
        "kind": event.kind,
        "summary": event.summary,
        "uses": list(event.uses),
    }
    for name in KINDS[event.kind].fields:
        d[name] = event.fields[name]
    return d


def _plain(value: Any) -> Any:
    if type(value) is str:  # (nearly every field of a finding: skip the checks below)
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


@functools.lru_cache(maxsize=None)
def _keys(cls: type) -> tuple[tuple[str, str], ...]:
    """(attribute, key shown) for each field of a finding class: ``ids`` shown as ``events``, and
    ``remedy`` as ``next_step`` unless a real field already has that name. Worked out once per class,
    as a findings resource lists tens of thousands of findings."""
    names = {f.name for f in dataclasses.fields(cls)}
    out = []
    for f in dataclasses.fields(cls):
        key = _RENAMED.get(f.name, f.name)
        out.append((f.name, f.name if key != f.name and key in names else key))
    return tuple(out)


def finding_data(finding: Finding, evidence: dict[str, Event] | None = None) -> dict[str, Any]:
    """A finding as JSON: every field of ``Finding`` (so fields added later appear
    too), ``ids`` shown as ``events`` and ``remedy`` as ``next_step``, plus the
    rule's name and the cited events' summaries when ``evidence`` holds them."""
    d: dict[str, Any] = {key: _plain(getattr(finding, name)) for name, key in _keys(type(finding))}
    rule = RULES.get(finding.rule)
    if rule is not None:
        d.setdefault("name", rule.name)
    if evidence is not None:
        d["summaries"] = {i: evidence[i].summary for i in finding.ids if i in evidence}
    return d


def findings_data(diagnosis: Diagnosis) -> dict[str, Any]:
    """The findings resource: what was diagnosed (agent, branch, head, scope) and every finding."""
    return {
        "agent": diagnosis.agent,
        "branch": diagnosis.branch,
        "head": diagnosis.head,
        "scope": diagnosis.scope,
        "events": len(diagnosis.events),
        "findings": [finding_data(f, diagnosis.evidence) for f in diagnosis.findings],
    }


def findings_fingerprint(diagnosis: Diagnosis) -> tuple:
    """What a findings subscription compares: rule, severity and events of each finding."""
    return tuple((f.rule, f.severity, f.ids) for f in diagnosis.findings)


def answered(events: Iterable[Event]) -> dict[str, str]:
    """event id -> id of the later user-made approved/bounded revision that names it."""
    out: dict[str, str] = {}
    for e in events:
        if e.kind == "revise" and e.fields["made_by"] == "user" and e.fields["governance"] in ("approved", "bounded"):
            for i in e.uses:
                out.setdefault(i, e.id)
    return out


def open_findings(diagnosis: Diagnosis, events: Sequence[Event], severities: Sequence[str] = REVIEW_SEVERITIES) -> list[Finding]:
    """The diagnosis' findings at ``severities`` that no user approval answers yet
    (``events``: the whole branch, so an answer in a later session counts)."""
    done = answered(events)
    return [f for f in diagnosis.findings if f.severity in severities and f.ids[0] not in done]


def _approval(f: Finding, evidence: dict[str, Event]) -> str:
    """What the user has to decide about a finding, and how to log the decision."""
    first = evidence.get(f.ids[0])
    if f.rule == "HALO-R1" and first is not None:
        target = first.fields["target"]
        return (
            f"the change to “{target}” you made on your own ({first.id}). Ask your user whether they approve it "
            f"(log the question with halo_act, trigger self, uses [\"{first.id}\"]) and log their answer with "
            f"halo_outcome about that act. If they approve, log halo_revise with target “{target}”, made_by user, "
            f"governance approved and uses [\"{first.id}\", <the outcome's id>]; if they do not, undo the change "
            "and log that revision instead."
        )
    if f.rule == "HALO-A1" and first is not None:
        return (
            f"executions you start on your own, such as {first.id}. Ask your user to approve them or set limits for "
            f"them (halo_act, trigger self, uses [\"{first.id}\"]), log their answer with halo_outcome about that "
            "act and, if they approve or set limits, halo_revise with made_by user, governance approved or bounded "
            f"and uses [\"{first.id}\", <the outcome's id>]."
        )
    if f.rule == "HALO-R3" and first is not None:
        return (
            f"how “{first.fields.get('target', '')}” should work, since it keeps being revised. Settle it with your "
            "user and log their decision as halo_revise with made_by user, governance approved and the revisions in uses."
        )
    return "nothing; fix how you log such steps from now on."


def self_review_text(diagnosis: Diagnosis, events: Sequence[Event]) -> str:
    """The session-start self-review: the agent's open high/medium findings with the
    summaries of their events and what the user must approve; deterministic."""
    scope = diagnosis.scope
    head = (diagnosis.head or "")[:12] or "none"
    lines = [
        f"Self-review for agent '{diagnosis.agent}' before you start this session "
        f"({scope}, branch {diagnosis.branch}, head {head}, {len(diagnosis.events)} events).",
        "",
    ]
    found = open_findings(diagnosis, events)
    if not found:
        lines.append(
            "HALO's diagnosis of your trace has no open finding of high or medium severity: nothing needs your "
            "user's approval before you rely on your earlier steps. Log this session's steps as they happen."
        )
        return "\n".join(lines)
    n = len(found)
    lines.append(
        f"HALO's diagnosis of your trace has {n} open finding{'s' if n != 1 else ''} of high or medium severity. "
        "Before you rely on the steps they concern, tell your user about them, ask for the approvals below, "
        "and log what your user answers. Do not treat an unapproved change as settled."
    )
    for k, f in enumerate(sorted(found, key=lambda f: (SEVERITY_RANK[f.severity], f.rule))[:MAX_REVIEW_FINDINGS], 1):
        name = RULES[f.rule].name if f.rule in RULES else f.rule
        lines += ["", f"{k}. {f.rule} {name} ({f.severity}): {f.message}"]
        for i in f.ids[:MAX_REVIEW_EVENTS]:
            ev = diagnosis.evidence.get(i)
            if ev is not None:
                lines.append(f"   {trace_line(ev)}")
        if len(f.ids) > MAX_REVIEW_EVENTS:
            lines.append(f"   … and {len(f.ids) - MAX_REVIEW_EVENTS} more events")
        lines.append(f"   Your user must approve: {_approval(f, diagnosis.evidence)}")
        lines.append(f"   Next step: {f.remedy}")
    if n > MAX_REVIEW_FINDINGS:
        lines += ["", f"… and {n - MAX_REVIEW_FINDINGS} more open findings; read halo://agents/{diagnosis.agent}/findings."]
    return "\n".join(lines)


def log_step_text(step: str, guide: str) -> str:
    """The log-this-step prompt: which HALO tool fits ``step``, from the guide's own words."""
    when = guide[guide.index("When to call each tool:"):guide.index("How to use uses:")].strip()
    uses = guide[guide.index("How to use uses:"):].split("\n\n")[0].strip()
    return "\n".join([
        f"You are about to log this step with HALO: {step.strip()}",
        "",
        "Decide, in this order:",
        "1. Which tool: the kind of step (observe, remember, recall, act, outcome, revise), from the list below.",
        "2. For halo_act: trigger (request if your user asked for it or set it up, self only if you decided on "
        "your own) and form (silence, communication, preparation or execution).",
        "3. For halo_outcome: about, the id of the act it is about. For halo_revise: target, made_by and governance.",
        "4. uses: the ids of the earlier events this step relied on (call halo_trace if you lost track of them).",
        "5. summary: a few words, without secrets or raw personal data.",
        "Then make the one call.",
        "",
        when,
        "",
        uses,
    ])
