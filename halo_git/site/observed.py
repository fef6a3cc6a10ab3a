"""Stage 3, render (one page): the observed calls of an agent beside its trace.

Called by ``render.render_site`` and ``render.nav`` when the site was built with
``--observed`` for the agent. One table, every observed tool call in time order,
each next to the logged step that reports it (a link into the trace) or marked
unreported; then the logged executions no call matched. Pure, like the rest of
the render stage; agent and observed text goes through ``escape_md``.
"""

from __future__ import annotations

from ..markdown import escape_md, md_table, shorten
from ..observed import Alignment
from .pages import AgentSite, rel

MAX_ROWS = 2000  # calls listed; the report counts them all


def observed_path(a: AgentSite) -> str:
    return f"{a.base}/observed.md"


def has_observed(a: AgentSite) -> bool:
    return a.data.diagnosis.observed is not None


def render_observed(a: AgentSite) -> str:
    from .render import _ref, _when, event_link, front  # the render stage's own helpers

    al: Alignment = a.data.diagnosis.observed
    path = observed_path(a)
    link = event_link(a, path)
    by_call = {id(c): i for c, i in al.reported}
    rows = []
    read_order = {id(c): i for i, c in enumerate(al.observed.calls)}
    calls = sorted([c for c, _ in al.reported + al.unreported] + [c for cs in al.unmatched.values() for c in cs],
                   key=lambda c: (c.epoch, read_order[id(c)]))
    for c in calls[:MAX_ROWS]:
        step = by_call.get(id(c))
        if step is not None:
            ev = a.data.diagnosis.evidence.get(step)
            kind = f" {ev.kind}" if ev else ""
            reported = f"{_ref(step, link)}{kind}"
        elif c.session is not None and c.session in al.unmatched:
            reported = "**not reported** (session matches no logged session)"
        else:
            reported = "**not reported**"
        rows.append([escape_md(_when(c.time)), escape_md(shorten(c.tool, 60)), reported, c.effect,
                     escape_md(c.session or "—"), escape_md(c.args) or "—"])
    total = al.total
    body = [
        f"# {escape_md(a.name)}: observed calls",
        "",
        f"What the agent was seen doing, beside what it logged: {len(al.reported)} of {total} observed tool calls are "
        f"reported by a logged observe or act within ±{al.window:g} s (see the "
        f"[diagnosis]({rel(path, a.diagnosis, 'boundary-and-evidence')}) for the sources and what was not aligned).",
        "",
    ]
    if rows:
        body += md_table(["time", "tool", "reported by", "looks", "session", "arguments"], rows)
        body.append("")
        if len(calls) > MAX_ROWS:
            body += [f"{len(calls) - MAX_ROWS} more calls not listed (the first {MAX_ROWS} are shown).", ""]
    else:
        body += ["No observed tool call with a timestamp in this evidence.", ""]
    if al.unobserved_acts:
        body += ["Logged executions no observed call matches: "
                 + ", ".join(_ref(i, link) for i in al.unobserved_acts) + ".", ""]
    return front(f"{a.name} · observed calls", "\n".join(body))
