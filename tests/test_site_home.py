"""The fleet's pages as text (site/home.py), from plain figures: no repository, no
MkDocs. The home page and the agents index are compared whole, so a change of a
figure, a link, a sort order or an escape shows; hostile titles and branch names
stay text."""

from __future__ import annotations

from types import SimpleNamespace as NS

from halo_git.site.fleet import Figures, Previous
from halo_git.site.home import HOME_ROWS, SEARCH_DIAGNOSES, agent_bar, nav, render_agents_index, render_home, unsearched, with_bar
from halo_git.site.pages import Site


def row(name, events, sessions, last, high=0, medium=0, low=0, info=0, ungoverned=0):
    return Figures(name, events, sessions, last, {"high": high, "medium": medium, "low": low, "info": info}, ungoverned, "h" + name)


ROWS = [row("alpha", 12, 2, "2026-01-02T10:00:00Z", high=1, low=2, ungoverned=1),
        row("beta", 3, 1, "2026-01-03T09:00:00Z", info=4),
        row("gamma", 7, 3, "2026-01-01T08:00:00Z", medium=2)]
PREVIOUS = Previous("2025-12-31T00:00:00Z", "main", {"alpha": row("alpha", 10, 2, "2026-01-01T10:00:00Z", high=1, low=1),
                                                      "gone-agent": row("gone-agent", 1, 1, "2025-01-01T00:00:00Z")})
SITE = Site("Team <b>review</b>", "<svg/onload=alert(1)>", ())

HOME = """\
---
hide: [navigation, toc]
---

# Team &lt;b&gt;review&lt;/b&gt;

Agents' event traces on branch <code>&lt;svg/onload=alert(1)&gt;</code>, read from their Git repositories. A trace is the agent's own account of what it did, not observed behaviour; every page pins its evidence to the head commit shown.

| Agents | Events | Sessions | Open findings | Ungoverned revisions | Last activity |
|---:|---:|---:|---|---:|---|
| 3 | 22 | 6 | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-medium">2 medium</span> <span class="halo-sev halo-sev-low">2 low</span> | 1 | 2026-01-03T09:00:00Z |

No earlier build to compare with: the next build into the same folder (or one given `--previous FILE`) shows what changed.

## Needs attention

| Agent | Open findings | Ungoverned | Events | Last activity | Since previous build |
|---|---|---:|---:|---|---|
| [alpha](agents/alpha/index.md) | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-low">2 low</span> ([report](agents/alpha/diagnosis.md)) | 1 | 12 | 2026-01-02T10:00:00Z | — |
| [gamma](agents/gamma/index.md) | <span class="halo-sev halo-sev-medium">2 medium</span> ([report](agents/gamma/diagnosis.md)) | 0 | 7 | 2026-01-01T08:00:00Z | — |

## Recently active

| Agent | Last activity | Events | Sessions | Open findings |
|---|---|---:|---:|---|
| [beta](agents/beta/index.md) | 2026-01-03T09:00:00Z | 3 | 1 | <span class="halo-sev halo-sev-info">4 info</span> |
| [alpha](agents/alpha/index.md) | 2026-01-02T10:00:00Z | 12 | 2 | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-low">2 low</span> |
| [gamma](agents/gamma/index.md) | 2026-01-01T08:00:00Z | 7 | 3 | <span class="halo-sev halo-sev-medium">2 medium</span> |

All 3 agents, with a filter: [agents index](agents/index.md).
"""

HOME_SINCE = """\
---
hide: [navigation, toc]
---

# Team &lt;b&gt;review&lt;/b&gt;

Agents' event traces on branch <code>&lt;svg/onload=alert(1)&gt;</code>, read from their Git repositories. A trace is the agent's own account of what it did, not observed behaviour; every page pins its evidence to the head commit shown.

| Agents | Events | Sessions | Open findings | Ungoverned revisions | Last activity |
|---:|---:|---:|---|---:|---|
| 3 (+1) | 22 (+11) | 6 (+3) | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-medium">2 (+2) medium</span> <span class="halo-sev halo-sev-low">2 (+1) low</span> | 1 (+1) | 2026-01-03T09:00:00Z |

Changes since the previous build of 2025-12-31T00:00:00Z are shown in brackets: 2 new agents, 1 agent changed, 1 agent no longer shown (gone-agent).

## Needs attention

| Agent | Open findings | Ungoverned | Events | Last activity | Since previous build |
|---|---|---:|---:|---|---|
| [alpha](agents/alpha/index.md) | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-low">2 low</span> ([report](agents/alpha/diagnosis.md)) | 1 | 12 | 2026-01-02T10:00:00Z | +2 events, +1 low, +1 ungoverned |
| [gamma](agents/gamma/index.md) | <span class="halo-sev halo-sev-medium">2 medium</span> ([report](agents/gamma/diagnosis.md)) | 0 | 7 | 2026-01-01T08:00:00Z | new |

## Recently active

| Agent | Last activity | Events | Sessions | Open findings |
|---|---|---:|---:|---|
| [beta](agents/beta/index.md) | 2026-01-03T09:00:00Z | 3 | 1 | <span class="halo-sev halo-sev-info">4 info</span> |
| [alpha](agents/alpha/index.md) | 2026-01-02T10:00:00Z | 12 | 2 | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-low">2 low</span> |
| [gamma](agents/gamma/index.md) | 2026-01-01T08:00:00Z | 7 | 3 | <span class="halo-sev halo-sev-medium">2 medium</span> |

All 3 agents, with a filter: [agents index](agents/index.md).
"""

INDEX = """\
---
title: "Agents"
hide: [toc]
---

# Agents

3 agents with events on branch <code>&lt;svg/onload=alert(1)&gt;</code>. Type to keep the rows that contain every word you type (a name, a severity such as <code>high</code>, a date); each agent's pages link to one another from the bar at their top.

<input type="search" class="halo-filter" placeholder="Filter agents" aria-label="Filter agents" autocomplete="off">
<p class="halo-filter-count"></p>

| Agent | Events | Sessions | Last activity | Open findings | Ungoverned | Since previous build |
|---|---:|---:|---|---|---:|---|
| [alpha](alpha/index.md) | 12 | 2 | 2026-01-02T10:00:00Z | <span class="halo-sev halo-sev-high">1 high</span> <span class="halo-sev halo-sev-low">2 low</span> ([report](alpha/diagnosis.md)) | 1 | +2 events, +1 low, +1 ungoverned |
| [beta](beta/index.md) | 3 | 1 | 2026-01-03T09:00:00Z | <span class="halo-sev halo-sev-info">4 info</span> ([report](beta/diagnosis.md)) | 0 | new |
| [gamma](gamma/index.md) | 7 | 3 | 2026-01-01T08:00:00Z | <span class="halo-sev halo-sev-medium">2 medium</span> ([report](gamma/diagnosis.md)) | 0 | new |
"""


def test_home_page_whole():
    assert render_home(SITE, ROWS) == HOME


def test_home_page_against_a_previous_build_whole():
    assert render_home(SITE, ROWS, PREVIOUS) == HOME_SINCE


def test_agents_index_whole():
    assert render_agents_index(SITE, ROWS, PREVIOUS) == INDEX


def test_hostile_title_and_branch_stay_text():
    page = render_home(SITE, ROWS) + render_agents_index(SITE, ROWS)
    assert "<svg" not in page and "<b>" not in page
    assert "<code>&lt;svg/onload=alert(1)&gt;</code>" in page


def test_home_page_cuts_each_table_at_home_rows_and_points_to_the_index():
    rows = [row(f"a{n:02d}", n + 1, 1, f"2026-01-01T00:00:{n:02d}Z", low=1) for n in range(HOME_ROWS + 2)]
    page = render_home(SITE, rows)
    attention, recent = page.split("## Needs attention")[1].split("## Recently active")
    assert attention.count("\n| [a") == HOME_ROWS and recent.count("\n| [a") == HOME_ROWS
    assert "[a21](agents/a21/index.md)" in recent and "[a00](" not in recent  # the most recent first
    assert "2 more agents with high, medium or low findings or ungoverned revisions: see the [agents index](agents/index.md)." in attention
    exactly = render_home(SITE, rows[:HOME_ROWS])
    assert "more agent" not in exactly and "All 20 agents" in exactly
    one = render_home(SITE, rows[:1])
    assert "The agent, with a filter" in one and "1 agent" not in one.split("## Recently")[0].split("|")[0]
    assert render_agents_index(SITE, rows).count("\n| [a") == HOME_ROWS + 2  # the index lists all


def test_home_page_with_nothing_urgent_says_so():
    page = render_home(SITE, [row("calm", 1, 1, "2026-01-01T00:00:00Z", info=3)])
    assert "No agent has high, medium or low findings or ungoverned revisions." in page
    assert "| Agent | Open findings | Ungoverned" not in page
    assert "| [calm](agents/calm/index.md) | 2026-01-01T00:00:00Z | 1 | 1 | <span class=\"halo-sev halo-sev-info\">3 info</span> |" in page


def test_needs_attention_sorts_by_severity_then_ungoverned_then_name():
    rows = [row("b-low", 1, 1, "2026-01-01T00:00:00Z", low=5), row("a-ungoverned", 1, 1, "2026-01-01T00:00:00Z", ungoverned=1),
            row("c-medium", 1, 1, "2026-01-01T00:00:00Z", medium=1), row("d-high", 1, 1, "2026-01-01T00:00:00Z", high=1),
            row("a-high", 1, 1, "2026-01-01T00:00:00Z", high=1)]
    attention = render_home(SITE, rows).split("## Needs attention")[1].split("## Recently")[0]
    order = [line.split("]")[0][3:] for line in attention.splitlines() if line.startswith("| [")]
    assert order == ["a-high", "d-high", "c-medium", "b-low", "a-ungoverned"]


def test_large_fleets_say_why_search_leaves_diagnoses_out():
    assert SEARCH_DIAGNOSES == 100  # docs/site.md gives the figure
    rows = [row(f"a{n:03d}", 1, 1, "2026-01-01T00:00:00Z") for n in range(101)]
    assert "With more than 100 agents the diagnosis pages are left out" in render_home(SITE, rows)
    assert "left out of it" not in render_home(SITE, rows[:100])


def test_home_lists_compare_pages_escaped():
    diff = NS(base=NS(label="main"), head=NS(label="v2_*x*"))
    agent = NS(name="alpha", compares=(NS(diff=diff, path="agents/alpha/compare/main...v2.md"),))
    page = render_home(Site("t", "main", (agent,)), ROWS)
    assert "## Compare pages\n\n- [alpha: main → v2\\_\\*x\\*](agents/alpha/compare/main...v2.md)" in page
    assert "## Compare pages" not in render_home(SITE, ROWS)


def agent(name="alpha", compares=()):
    base = f"agents/{name}"
    return NS(name=name, overview=f"{base}/index.md", diagnosis=f"{base}/diagnosis.md", trace=f"{base}/trace/index.md",
              revisions=f"{base}/revisions.md", compares=compares)


def test_agent_bar_marks_the_page_and_links_the_rest():
    a = agent()
    site = Site("t", "main", (a,))
    assert agent_bar(site, a, a.diagnosis) == (
        "[Agents](../index.md) › alpha: [Overview](index.md) · **Diagnosis** · [Trace](trace/index.md) · "
        "[Revisions](revisions.md)\n{ .halo-agent-bar data-search-exclude }\n")
    session = "agents/alpha/trace/s1-1.md"  # a session page: Trace is marked and still a link
    assert "· **[Trace](index.md)** ·" in agent_bar(site, a, session)
    assert "· [Trace](trace/index.md) ·" in agent_bar(site, a, "agents/alpha/observed.md")
    extra = agent_bar(site, a, a.overview, [("Observed calls", "agents/alpha/observed.md")])
    assert "[Revisions](revisions.md) · [Observed calls](observed.md)" in extra and "**Overview**" in extra
    c = NS(diff=NS(base=NS(label="main"), head=NS(label="v_2")), path="agents/alpha/compare/x.md")
    assert agent_bar(site, agent(compares=(c,)), a.overview).endswith("· [Compare main → v\\_2](compare/x.md)\n{ .halo-agent-bar data-search-exclude }\n")


def test_with_bar_and_unsearched_edit_the_front_matter_only():
    page = "---\ntitle: \"x\"\n---\n\n# Body\n"
    assert with_bar(page, "BAR\n") == "---\ntitle: \"x\"\n---\n\nBAR\n\n# Body\n"
    assert with_bar(page, "BAR\n", searched=False) == "---\ntitle: \"x\"\nsearch:\n  exclude: true\n---\n\nBAR\n\n# Body\n"
    assert unsearched(page) == "---\ntitle: \"x\"\nsearch:\n  exclude: true\n---\n\n# Body\n"


def test_nav_is_home_and_the_agents_index():
    assert nav(SITE) == [{"Home": "index.md"}, {"Agents": "agents/index.md"}]


def test_empty_figures_show_a_dash_none_and_no_change():
    quiet = row("quiet", 0, 0, "")
    previous = Previous(None, "main", {"quiet": quiet})
    index = render_agents_index(SITE, [quiet], previous)
    assert "| [quiet](quiet/index.md) | 0 | 0 | — | none ([report](quiet/diagnosis.md)) | 0 | no change |" in index
    home = render_home(SITE, [quiet], previous)
    assert "Changes since the previous build are shown in brackets: 0 new agents, 0 agents changed." in home


def test_only_pages_under_the_trace_folder_mark_trace():
    a = agent()
    site = Site("t", "main", (a,))
    assert "· [Trace](trace/index.md) ·" in agent_bar(site, a, "agents/alpha/traced.md")  # a sibling named trace…, not a session page


def test_with_bar_finds_an_empty_front_matter():
    assert with_bar("---\n---\n\n# Body\n", "BAR\n") == "---\n---\n\nBAR\n\n# Body\n"
    assert unsearched("---\n---\n\n# Body\n") == "---\nsearch:\n  exclude: true\n---\n\n# Body\n"


def test_agents_gone_since_the_previous_build_are_named_up_to_ten():
    def since(gone: int) -> str:
        previous = Previous(None, "main", {f"old{n:02d}": row(f"old{n:02d}", 1, 1, "2025-01-01T00:00:00Z") for n in range(gone)})
        return render_home(SITE, ROWS, previous).split("## Needs attention")[0]

    ten = ", ".join(f"old{n:02d}" for n in range(10))
    assert f"3 new agents, 0 agents changed, 10 agents no longer shown ({ten})." in since(10)
    assert f"11 agents no longer shown ({ten} …)." in since(11)
