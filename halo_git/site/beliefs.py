"""Stage 3, render: an agent's Beliefs page, the memories and rules in force at the head.

Room: the site's renderer (pure, deterministic), called by ``render.render_site``
for each agent (the agent bar links it after Revisions) and by ``render_event``
for the note on each memory and rule. It formats ``lineage.beliefs`` of the very
log the other pages show: each memory and rule in force with its age, when it
was last read and whether it was reviewed, and the memories withdrawn. Agent
text goes through ``escape_md``; ids link to their trace anchors.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import lineage
from ..markdown import escape_md, md_table
from ..model import Event
from .pages import AgentSite, rel
from .render import _ref, _when, event_link, front

_KEPT: dict[int, tuple[Any, dict[str, Any], dict[str, str]]] = {}  # id(log) -> (log, beliefs, superseded), one build


def path(a: AgentSite) -> str:
    return f"{a.base}/beliefs.md"


def _approvals(a: AgentSite) -> dict[str, str]:
    """Approval event id -> proven/claimed, as the revisions page reads them."""
    out: dict[str, str] = {}
    audit = a.data.audit
    for t in getattr(audit, "targets", ()) or ():
        for v in t.versions:
            for ap in v.approvals:
                if ap.event != v.id:
                    out[ap.event] = ap.status
    return out


def _beliefs(a: AgentSite) -> tuple[dict[str, Any], dict[str, str]]:
    """The beliefs at the head and, for each memory or rule no longer in force, the event that replaced it."""
    log = a.data.log
    kept = _KEPT.get(id(log))
    if kept is not None and kept[0] is log:
        return kept[1], kept[2]
    b = lineage.beliefs(log.events, _approvals(a))
    by_id = {e.id: e for e in log.events}
    superseded: dict[str, str] = {}
    latest: dict[str, str] = {}
    for e in log.events:
        for s in e.sources():
            x = by_id.get(s)
            if x is not None and x.kind == "remember" and e.kind in ("remember", "revise") and s not in superseded and not lineage.is_approval(e, by_id):
                superseded[s] = e.id
        if e.kind == "revise" and not lineage.is_approval(e, by_id):
            key = lineage.target_key(e.fields["target"])
            if key in latest:
                superseded[latest[key]] = e.id
            latest[key] = e.id
    if len(_KEPT) > 8:
        _KEPT.clear()
    _KEPT[id(log)] = (log, b, superseded)
    return b, superseded


def belief_note(a: AgentSite, page: str, e: Event, link: Callable[[str], str | None]) -> str | None:
    """The line an event's entry on a trace page gets when it is a memory or a rule."""
    if e.kind not in ("remember", "revise"):
        return None
    b, superseded = _beliefs(a)
    if e.id in superseded:
        return f"- belief: superseded by {_ref(superseded[e.id], link)}"
    held = {x["id"] for x in b["memories"]} | {x["id"] for x in b["rules"]}
    if e.id in held:
        return f"- belief: in force at the head ([Beliefs]({rel(page, path(a))}))"
    return None


def render_beliefs(a: AgentSite) -> str:
    page = path(a)
    link = event_link(a, page)
    b, _ = _beliefs(a)
    body = [
        f"# Beliefs of {escape_md(a.name)}",
        "",
        f"The memories and rules in force at {b['at'] or 'the start'} ({_when(b['time'] or '')}), the head of branch "
        f"<code>{escape_md(a.data.log.branch)}</code>: a memory is in force until a later remember or revise names it, "
        "a rule is the latest revision of its target. Age is counted to the head's last event; *last read* is the last "
        "event naming it. `halo-git beliefs --agent NAME --at eN` shows them at an earlier point.",
        "",
        "## Memories",
        "",
    ]
    if b["memories"]:
        rows = [[_ref(m["id"], link), escape_md(m["summary"]), escape_md(m["session"]), m["age"],
                 _ref(m["last_read"], link) if m["last_read"] else "never",
                 ("yes: " + ", ".join(_ref(i, link) for i in m["reviewed_by"])) if m["reviewed"] else "no"] for m in b["memories"]]
        body += md_table(["event", "memory", "session", "age", "last read", "reviewed"], rows) + [""]
    else:
        body += ["No memory is in force.", ""]
    body += ["## Rules", ""]
    if b["rules"]:
        rows = [[escape_md(r["target"]), _ref(r["id"], link), escape_md(r["summary"]), f"{r['made_by']} / {r['governance']}",
                 r["approval"] + ("" if not r["approved_by"] else " (" + ", ".join(_ref(i, link) for i in r["approved_by"]) + ")"),
                 r["age"], _ref(r["last_read"], link) if r["last_read"] else "never"] for r in b["rules"]]
        body += md_table(["target", "event", "rule", "made by / governance", "approval", "age", "last read"], rows) + [""]
    else:
        body += ["No rule was logged (no revise event).", ""]
    if b["withdrawn"]:
        body += ["## Withdrawn", "", "Memories a later event withdrew (it names them and says so):", ""]
        body += [f"- {_ref(w['id'], link)} by {_ref(w['by'], link)}" for w in b["withdrawn"]] + [""]
    return front(f"{a.name} · Beliefs", "\n".join(body))
