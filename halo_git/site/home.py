"""Render stage, the fleet's pages: home, the agents index, each agent's page bar, the nav.

Called by ``render.render_site`` (pure, deterministic). The navigation lists
the home page and the agents index only: Material renders the whole nav into
every page, so a nav listing each agent's pages made the build quadratic in
agents. Each agent's pages are reached from the index (which filters as you
type) and link to one another through the bar at the top of each of them.

Pages that summarise what the diagnosis and the session pages hold (an
agent's overview, trace index and revisions, the agents index) are kept out of
the search index: a search then finds each event and finding once, on the page
that holds it, and the theme's indexer (which parses every page) has less to do.
Above ``SEARCH_DIAGNOSES`` agents the diagnosis pages are left out too.
"""

from __future__ import annotations

import html
from typing import Sequence

from ..diagnosis import SEVERITIES
from ..markdown import escape_md, md_table
from .fleet import Figures, Previous, changes, delta, gone, previous_totals, totals
from .pages import AgentSite, Site, rel

HOME_ROWS = 20  # agents in each table of the home page; the index lists all
# Above this many agents the diagnosis pages stay out of the search index: the
# same finding explanations for hundreds of agents drowned the results, and
# made up 80 % of a 10 MB index the browser loads whole (1,000 agents).
SEARCH_DIAGNOSES = 100


def _when(iso: str) -> str:
    """A time as the events store it (UTC ISO 8601): the one format the report,
    the YAML files and every site page show."""
    return iso or "—"


def _code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _sev(findings: dict[str, int]) -> str:
    parts = [f'<span class="halo-sev halo-sev-{s}">{findings[s]} {s}</span>' for s in SEVERITIES if findings.get(s)]
    return " ".join(parts) or "none"


def _front(title: str, body: str, hide: Sequence[str] = ()) -> str:
    from .render import front  # render imports this module

    return front(title, body, hide=hide)


def _agent_link(source: str, row: Figures) -> str:
    return f"[{escape_md(row.name)}]({rel(source, f'agents/{row.name}/index.md')})"


def _diagnosis_link(source: str, row: Figures) -> str:
    return f"{_sev(row.findings)} ([report]({rel(source, f'agents/{row.name}/diagnosis.md')}))"


def _trend(row: Figures, previous: Previous | None) -> str:
    if previous is None:
        return "—"
    return ", ".join(changes(row, previous.agents.get(row.name))) or "no change"


def render_home(site: Site, rows: Sequence[Figures], previous: Previous | None = None) -> str:
    page = site.home
    total = totals(rows)
    before = previous_totals(previous)

    def figure(key: str) -> str:
        change = delta(total[key], before[key]) if before else ""
        return f"{total[key]}" + (f" ({change})" if change else "")

    fleet_row = [
        figure("agents"),
        figure("events"),
        figure("sessions"),
        " ".join(f'<span class="halo-sev halo-sev-{s}">{figure(s)} {s}</span>' for s in SEVERITIES[:3]),
        figure("ungoverned"),
        _when(max(r.last for r in rows)),
    ]
    body = [
        f"# {escape_md(site.title)}",
        "",
        f"Agents' event traces on branch {_code(site.branch)}, read from their Git repositories. "
        "A trace is the agent's own account of what it did, not observed behaviour; every page pins its "
        "evidence to the head commit shown.",
        "",
        *md_table(["Agents", "Events", "Sessions", "Open findings", "Ungoverned revisions", "Last activity"], [fleet_row], "rrrlrl"),
        "",
        _since(previous, rows),
        "",
        "## Needs attention",
        "",
    ]
    urgent = sorted((r for r in rows if any(r.attention)), key=lambda r: (tuple(-x for x in r.attention), r.name))
    if urgent:
        shown = urgent[:HOME_ROWS]
        body += md_table(
            ["Agent", "Open findings", "Ungoverned", "Events", "Last activity", "Since previous build"],
            [[_agent_link(page, r), _diagnosis_link(page, r), str(r.ungoverned), str(r.events), _when(r.last), _trend(r, previous)] for r in shown],
            "llrrll",
        )
        if len(urgent) > len(shown):
            body += ["", f"{_n(len(urgent) - len(shown), 'more agent')} with high, medium or low findings or ungoverned revisions: see the [agents index]({rel(page, site.agents_index)})."]
    else:
        body.append("No agent has high, medium or low findings or ungoverned revisions.")
    recent = sorted(rows, key=lambda r: (r.last, r.name), reverse=True)[:HOME_ROWS]
    body += [
        "",
        "## Recently active",
        "",
        *md_table(
            ["Agent", "Last activity", "Events", "Sessions", "Open findings"],
            [[_agent_link(page, r), _when(r.last), str(r.events), str(r.sessions), _sev(r.findings)] for r in recent],
            "llrrl",
        ),
        "",
        ("The agent" if len(rows) == 1 else f"All {len(rows)} agents") + f", with a filter: [agents index]({rel(page, site.agents_index)}).",
    ]
    compares = [(a, c) for a in site.agents for c in a.compares]
    if compares:
        body += ["", "## Compare pages", ""] + [
            f"- [{escape_md(a.name)}: {escape_md(c.diff.base.label)} → {escape_md(c.diff.head.label)}]({rel(page, c.path)})"
            for a, c in compares
        ]
    if len(rows) > SEARCH_DIAGNOSES:
        body += [
            "",
            f"Search finds events on the session pages. With more than {SEARCH_DIAGNOSES} agents the diagnosis pages are "
            "left out of it (they repeat the same explanations for every agent); filter the agents index by severity instead.",
        ]
    # no page title: the tab shows the site name alone, not "name - name"
    return _front("", "\n".join(body), hide=["navigation", "toc"])


def _since(previous: Previous | None, rows: Sequence[Figures]) -> str:
    if previous is None:
        return "No earlier build to compare with: the next build into the same folder (or one given `--previous FILE`) shows what changed."
    when = f" of {escape_md(_when(previous.built))}" if previous.built else ""
    new = sum(1 for r in rows if r.name not in previous.agents)
    changed = sum(1 for r in rows if r.name in previous.agents and changes(r, previous.agents[r.name]))
    missing = gone(rows, previous)
    text = f"Changes since the previous build{when} are shown in brackets: {_n(new, 'new agent')}, {_n(changed, 'agent')} changed"
    if missing:
        text += f", {_n(len(missing), 'agent')} no longer shown ({', '.join(escape_md(n) for n in missing[:10])}{' …' if len(missing) > 10 else ''})"
    return text + "."


def render_agents_index(site: Site, rows: Sequence[Figures], previous: Previous | None = None) -> str:
    page = site.agents_index
    table = md_table(
        ["Agent", "Events", "Sessions", "Last activity", "Open findings", "Ungoverned", "Since previous build"],
        [
            [_agent_link(page, r), str(r.events), str(r.sessions), _when(r.last), _diagnosis_link(page, r), str(r.ungoverned), _trend(r, previous)]
            for r in sorted(rows, key=lambda r: r.name)
        ],
        "lrrllrl",
    )
    body = [
        "# Agents",
        "",
        f"{_n(len(rows), 'agent')} with events on branch {_code(site.branch)}. Type to keep the rows that contain every word "
        "you type (a name, a severity such as <code>high</code>, a date); each agent's pages link to one another from the bar at their top.",
        "",
        '<input type="search" class="halo-filter" placeholder="Filter agents" aria-label="Filter agents" autocomplete="off">',
        '<p class="halo-filter-count"></p>',
        "",
        *table,
    ]
    return _front("Agents", "\n".join(body), hide=["toc"])


def agent_bar(site: Site, a: AgentSite, page: str, extra: Sequence[tuple[str, str]] = ()) -> str:
    """The line at the top of each agent page: back to the index, then the agent's pages
    (``extra``: more (label, path) pairs after Revisions, labels safe Markdown)."""
    items = [("Overview", a.overview), ("Diagnosis", a.diagnosis), ("Trace", a.trace), ("Revisions", a.revisions), *extra]
    items += [(f"Compare {escape_md(c.diff.base.label)} → {escape_md(c.diff.head.label)}", c.path) for c in a.compares]
    sessions = a.trace.rsplit("/", 1)[0] + "/"  # the session pages live under the trace index's folder

    def here(label: str, target: str) -> bool:
        return target == page or (target == a.trace and page.startswith(sessions))

    links = [f"**{label}**" if here(label, target) else f"[{label}]({rel(page, target)})" for label, target in items]
    return f"[Agents]({rel(page, site.agents_index)}) › {escape_md(a.name)}: " + " · ".join(links) + "\n{ .halo-agent-bar data-search-exclude }\n"


def with_bar(text: str, bar: str, *, searched: bool = True) -> str:
    """Insert ``bar`` right after the page's front matter; ``searched=False``
    keeps the page out of the search index."""
    end = text.index("\n---\n", 3)
    meta = "" if searched else "\nsearch:\n  exclude: true"
    return text[:end] + meta + text[end : end + 5] + "\n" + bar + text[end + 5 :]


def unsearched(text: str) -> str:
    """The page, kept out of the search index (its front matter says so)."""
    end = text.index("\n---\n", 3)
    return text[:end] + "\nsearch:\n  exclude: true" + text[end:]


def nav(site: Site) -> list:
    """Home and the agents index: the same two entries whatever the fleet's size."""
    return [{"Home": site.home}, {"Agents": site.agents_index}]
