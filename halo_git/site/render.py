"""Stage 3, render: page objects to Markdown strings (pure, deterministic).

Every piece of agent text goes through ``escape_md`` (shared with the report),
or ``html.escape`` inside raw HTML. Titles are set in front matter from safe
text only, because the theme prints page titles unescaped. Cross-page links are
Markdown links so a strict build checks every one of them, anchors included.
"""

from __future__ import annotations

import dataclasses
import html
import json
from typing import Callable, Iterable

from ..diagnosis import SEVERITIES, issues as summary_issues, severity_counts
from ..diff import Side, render_diff_markdown
from ..markdown import escape_md, md_table
from ..model import KINDS, Event
from ..report import render_report
from .fleet import Previous, fleet
from .graph import channel_svg
from .home import SEARCH_DIAGNOSES, agent_bar, nav, render_agents_index, render_home, unsearched, with_bar  # nav: re-exported
from .observed import has_observed, observed_path, render_observed
from .pages import AgentSite, ComparePage, Session, Site, TracePage, rel

TOP_FINDINGS = 5  # issues (findings grouped by rule) listed on an agent's overview
DIAGNOSIS_PER_GROUP = 50  # findings shown in full per rule on the diagnosis page (the report shows 3)


def front(title: str, body: str, *, hide: Iterable[str] = ()) -> str:
    """A page: YAML front matter + body. The theme prints titles unescaped, so
    the title is HTML-escaped here (JSON is valid YAML). No title (the home
    page): the browser tab shows the site name alone, not "name - name"."""
    meta = [f"title: {json.dumps(html.escape(title), ensure_ascii=False)}"] if title else []
    hidden = list(hide)
    if hidden:
        meta.append("hide: [" + ", ".join(hidden) + "]")
    head = "---\n" + "\n".join(meta) + "\n---\n\n" if meta else ""
    return head + body.rstrip("\n") + "\n"


def _code(text: str) -> str:
    """Inline code for agent text: a Markdown code span would show escapes literally."""
    return f"<code>{html.escape(text)}</code>"


def _short(sha: str | None) -> str:
    return f'<code title="{sha}">{sha[:10]}</code>' if sha else "none"


def _badge(kind: str) -> str:
    return f'<span class="halo-badge halo-cat-{KINDS[kind].letter}">{kind}</span>'


def _when(iso: str) -> str:
    """A time as the events store it (UTC ISO 8601), the one format the report,
    the YAML files and the site all show."""
    return iso


def _severity_text(a: AgentSite) -> str:
    counts = severity_counts(a.data.open_findings)
    parts = [f'<span class="halo-sev halo-sev-{s}">{counts[s]} {s}</span>' for s in SEVERITIES if counts[s]]
    return " ".join(parts) or "none"


def event_link(agent: AgentSite, source: str) -> Callable[[str], str | None]:
    """``id -> link`` from page ``source`` to the event's anchor on its trace page
    (None for an id the branch does not hold, which then stays plain text)."""

    def link(event_id: str) -> str | None:
        target = agent.location.get(event_id)
        return rel(source, target, event_id) if target else None

    return link


def _ref(event_id: str, link: Callable[[str], str | None]) -> str:
    url = link(event_id)
    return f"[{event_id}]({url})" if url else event_id


def _id_links(ids: Iterable[str], link: Callable[[str], str | None], agent: AgentSite) -> str:
    return ", ".join(f"{_ref(i, link)} {agent.kinds.get(i, '')}".rstrip() for i in ids)


# --- pages -------------------------------------------------------------------


def render_overview(a: AgentSite) -> str:
    d, log, page = a.data.diagnosis, a.data.log, a.overview
    events = log.events
    link = event_link(a, page)
    by_kind = [[_badge(k), KINDS[k].category, str(d.by_kind.get(k, 0))] for k in KINDS]
    sessions = [
        [f"[{escape_md(s.label)}]({rel(page, s.pages[0].path)})", str(s.events), str(len(s.pages)), _when(s.first.time), _when(s.last.time)]
        for s in a.sessions
    ]
    open_findings = a.data.open_findings
    issues = summary_issues(open_findings, TOP_FINDINGS)
    top = []
    for issue in issues:  # the report's Summary: grouped by rule, quoted, with why and a next step
        f = issue.first
        n = len(issue.findings)
        top.append(
            f'- <span class="halo-sev halo-sev-{issue.severity}">{issue.severity}</span> **{f.rule} {f.name}** '
            f"({n} finding{'s' if n != 1 else ''}: {', '.join(_ref(x.ids[0], link) for x in issue.findings[:5] if x.ids)}"
            f"{' …' if n > 5 else ''}). {_ref(f.ids[0], link) if f.ids else 'no logged event'}"
            f"{' “' + escape_md(f.quote) + '”' if f.quote else ''}: {escape_md(f.message)} "
            f"*Next step:* {escape_md(f.next_step)}"
        )
    more = len(open_findings) - sum(len(i.findings) for i in issues)
    n_accepted = len(a.data.accepted)
    body = [
        f"# {escape_md(a.name)}",
        "",
        f"Branch {_code(log.branch)} at commit {_short(log.head)}: {len(events)} events in "
        f"{len(a.sessions)} sessions, from {_when(events[0].time)} to {_when(events[-1].time)}.",
        "",
        f"[Diagnosis]({rel(page, a.diagnosis)}) · [Trace]({rel(page, a.trace)}) · [Revisions]({rel(page, a.revisions)})"
        + "".join(f" · [Compare {escape_md(c.diff.base.label)} → {escape_md(c.diff.head.label)}]({rel(page, c.path)})" for c in a.compares),
        "",
        "## Findings",
        "",
        f"{_severity_text(a)}" + (f"; {more} more in the [diagnosis]({rel(page, a.diagnosis)})." if more > 0 else
                                  f"; the [diagnosis]({rel(page, a.diagnosis)}) lists each one." if open_findings else ".")
        + (f" {n_accepted} accepted finding{'s' if n_accepted != 1 else ''} (not counted) "
           f"{'is' if n_accepted == 1 else 'are'} listed apart in the diagnosis." if n_accepted else ""),
        "",
        *top,
        "",
        "## Channels",
        "",
        '<div class="halo-graph-box">',
        channel_svg(d.channels, "halo-channels"),
        "</div>",
        "",
        "An edge X→Y counts events of category Y that name an event of category X in `uses` "
        "(an outcome also names its act).",
        "",
        "## Events by kind",
        "",
        *md_table(["Kind", "Category", "Events"], by_kind, "llr"),
        "",
        "## Loop metrics",
        "",
        *render_metrics(a),
        "",
        "## Sessions",
        "",
        *md_table(["Session", "Events", "Pages", "First event", "Last event"], sessions, "lrrll"),
    ]
    return front(f"{a.name} · overview", "\n".join(body))


def render_metrics(a: AgentSite) -> list[str]:
    """Every loop metric of the diagnosis, named after its field."""
    metrics = a.data.diagnosis.metrics
    rows = []
    for f in dataclasses.fields(metrics):
        ratio = getattr(metrics, f.name)
        share = "—" if ratio.value is None else f"{round(100 * ratio.value)}%"
        rows.append([f.name.replace("_", " "), share, str(ratio)])
    return md_table(["Metric", "Share", "Counts"], rows, "lrr")


def render_diagnosis(a: AgentSite) -> str:
    report = render_report(a.data.diagnosis, link=event_link(a, a.diagnosis), per_group=DIAGNOSIS_PER_GROUP,
                           audit=a.data.audit, accepted=a.data.accepted)
    return front(f"{a.name} · diagnosis", report)


def render_sessions(a: AgentSite) -> str:
    page = a.trace
    rows = []
    for s in a.sessions:
        pages = " ".join(f"[{p.number}]({rel(page, p.path)})" for p in s.pages)
        rows.append([
            f"[{escape_md(s.label)}]({rel(page, s.pages[0].path)})",
            str(s.events),
            f"{s.first.id}–{s.last.id}",
            _when(s.first.time),
            pages,
        ])
    body = [
        f"# Trace of {escape_md(a.name)}",
        "",
        f"{len(a.data.log.events)} events in {len(a.sessions)} sessions, in order of each session's first event. "
        "Each page lists one session's events oldest first; every event has an anchor such as `#e7`.",
        "",
        *md_table(["Session", "Events", "Ids", "Started", "Pages"], rows, "lrlll"),
    ]
    return front(f"{a.name} · trace", "\n".join(body))


def _pager(session: Session, page: TracePage) -> str:
    if len(session.pages) == 1:
        return ""
    items = [
        f"**{p.number}**" if p is page else f"[{p.number}]({rel(page.path, p.path)})"
        for p in session.pages
    ]
    return "Pages: " + " · ".join(items)


def render_event(a: AgentSite, page: TracePage, e: Event) -> str:
    link = event_link(a, page.path)
    lines = [f"### {e.id} {_badge(e.kind)} {{ #{e.id} }}", "", escape_md(e.summary), ""]
    own = KINDS[e.kind].fields
    if own:
        parts = []
        for name in own:
            value = e.fields[name]
            parts.append(f"{name} {_ref(value, link)}" if name == "about" else f"{name} **{escape_md(value)}**")
        lines.append("- " + " · ".join(parts))
    if e.uses:
        lines.append("- uses " + _id_links(e.uses, link, a))
    used_by = a.used_by.get(e.id)
    if used_by:
        lines.append("- used by " + _id_links(used_by, link, a))
    findings = a.findings.get(e.id)
    if findings:
        report = rel(page.path, a.diagnosis, "findings")
        lines.append("- findings " + " ".join(
            f'[<span class="halo-sev halo-sev-{f.severity}">{f.rule} {f.name}</span>]({report})' for f in findings
        ))
    from .beliefs import belief_note  # it builds on this module's helpers

    note = belief_note(a, page.path, e, link)
    if note:
        lines.append(note)
    channels = f" · channels {', '.join(e.channels)}" if e.channels else ""
    lines.append(f"- {_when(e.time)}{channels} · commit {_short(a.commit(e.id))}")
    return "\n".join(lines) + "\n"


def render_trace_page(a: AgentSite, session: Session, page: TracePage) -> str:
    of = f" (page {page.number} of {len(session.pages)})" if len(session.pages) > 1 else ""
    pager = _pager(session, page)
    head = [
        f"# {escape_md(a.name)} · {escape_md(session.name)}{of}",
        "",
        f"Session {escape_md(session.label)} of agent {escape_md(a.name)}: events {page.events[0].id}–{page.events[-1].id} "
        f"of {session.events}. [All sessions]({rel(page.path, a.trace)}) · [Diagnosis]({rel(page.path, a.diagnosis)})",
        "",
    ]
    if pager:
        head += [pager, ""]
    body = "\n".join(head) + "\n".join(render_event(a, page, e) for e in page.events)
    if pager:
        body += "\n" + pager + "\n"
    return front(f"{a.name} · {session.name}{of}", body)


def _side_link(a: AgentSite, source: str, sides: tuple[Side, Side]) -> Callable[[str, str], str | None]:
    """Link a diff's event to the trace when the site's branch holds that very event.

    Above the merge base the same id names different events on each side, so
    an id links only if the event on that side equals the site's event.
    """
    events = a.data.log.events

    def link(label: str, event_id: str) -> str | None:
        side = sides[0] if label == sides[0].label else sides[1]
        n = int(event_id[1:])
        if n <= min(len(events), len(side.events)) and events[n - 1] == side.events[n - 1]:
            return rel(source, a.location[event_id], event_id)
        return None

    return link


def render_compare(site: Site, a: AgentSite, c: ComparePage) -> str:
    d = c.diff
    body = [
        f"# {escape_md(a.name)}: {escape_md(d.base.label)} → {escape_md(d.head.label)}",
        "",
        f"How the agent behaves on {escape_md(d.head.label)} compared with {escape_md(d.base.label)}. Event ids link "
        f"to the trace where branch {_code(site.branch)} of this site holds the same event.",
        "",
        render_diff_markdown(d, link=_side_link(a, c.path, (d.base, d.head))),
    ]
    return front(f"{a.name} · {c.name}", "\n".join(body))


def render_site(site: Site, previous: Previous | None = None) -> dict[str, str]:
    """Every page of the site: docs-relative path -> Markdown.

    ``previous``: the figures of an earlier build, for the trend on the home
    page and the agents index.
    """
    from . import beliefs  # it builds on this module's helpers
    from .revisions import audit_of, render_revisions_page

    rows = fleet(site.agents)
    pages = {site.home: render_home(site, rows, previous), site.agents_index: unsearched(render_agents_index(site, rows, previous))}
    for a in site.agents:
        own = {
            a.overview: render_overview(a),
            a.diagnosis: render_diagnosis(a),
            a.trace: render_sessions(a),
            a.revisions: render_revisions_page(a, a.data.audit or audit_of(a.data)),
        }
        own[beliefs.path(a)] = beliefs.render_beliefs(a)
        extra = [("Beliefs", beliefs.path(a))]
        if has_observed(a):  # observed evidence: site/observed.py
            own[observed_path(a)] = render_observed(a)
            extra.append(("Observed calls", observed_path(a)))
        for c in a.compares:
            own[c.path] = render_compare(site, a, c)
        for s in a.sessions:
            for p in s.pages:
                own[p.path] = render_trace_page(a, s, p)
        summaries = {a.overview, a.trace, a.revisions}  # what the diagnosis and session pages hold
        if len(site.agents) > SEARCH_DIAGNOSES:
            summaries.add(a.diagnosis)
        for path, text in own.items():
            pages[path] = with_bar(text, agent_bar(site, a, path, extra), searched=path not in summaries)
    return pages
