"""The review site: each stage alone, then a real strict MkDocs build parsed back.

The root holds a small story, hostile agent text (summaries, a target and a
session label that try HTML, script, links, templates, attribute lists and
table breaks) and a session long enough to paginate.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from halo_git import Halo, HaloError, InvalidCall
from halo_git.diagnosis import diagnose
from halo_git.model import Event
from halo_git.site import build_site
from halo_git.site.collect import AgentData
from halo_git.site.graph import channel_svg
from halo_git.site.output import build, check_out, template_dir, write
from halo_git.site.pages import model, rel, slugify
from halo_git.site.render import nav, render_site
from halo_git.store import EventLog
from tests.conftest import git, run_cli

SEARCH_WORD = "zebracorn"
HOSTILE = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "[click](javascript:window.__xss=1)",
    "{{ config }}",
    "a | b | c",
    'ok {: onclick="window.__xss=1" }',
    "</title><script>window.__xss=1</script>",
    "line one\n# not a heading\n| x | y |",
    "<svg onload=window.__xss=1>",
]
HOSTILE_SESSION = '<img src=x onerror="window.__xss=1">'
V2 = "prompt_v2.1"  # a branch name with a character Markdown escapes
HOSTILE_TARGET = "{{ config }} </title><script>window.__xss=1</script> | x"
PAGE_SIZE = 5
REPO = Path(__file__).resolve().parent.parent


def fill_root(root: Path) -> dict[str, str]:
    """Log the test story; returns names -> event ids."""
    ids: dict[str, str] = {}
    with Halo(root) as h:

        def log(name, kind, summary, session, uses=(), **fields):
            ids[name] = h.log("demo", kind, summary, uses=[ids[u] for u in uses], session=session, **fields)["id"]

        log("ask", "observe", f"user asked for a {SEARCH_WORD} reminder at 9:30", "day1")
        log("keep", "remember", "reminder at 9:30", "day1", ("ask",))
        log("plan", "act", "scheduled the reminder", "day1", ("keep",), trigger="request", form="preparation")
        log("planned", "outcome", "the user confirmed", "day1", about=ids["plan"])
        log("rule", "revise", "remind in the morning", "day1", ("ask",), target="reminder rule", made_by="user", governance="approved")
        log("recall", "recall", "looked up the reminder", "day2", ("keep",))
        log("taxi", "act", "booked a taxi on my own", "day2", ("recall",), trigger="self", form="execution")
        log("self_rule", "revise", "changed the rule myself", "day2", ("recall",), target=HOSTILE_TARGET, made_by="agent", governance="none")
        for i, text in enumerate(HOSTILE):
            log(f"hostile{i}", "observe", text, "day2")
        log("odd", "observe", "a session label that is HTML", HOSTILE_SESSION)
        log("collide", "observe", "a label with the same slug as day2", "Day2")
        for i in range(12):
            log(f"long{i}", "observe" if i % 2 == 0 else "remember", f"long session step {i}", "long", (f"long{i - 1}",) if i else ("keep",))
        h.log("helper", "observe", "the second agent's first step", session="s1")
        # prompt v2: a branch from main that acts on its own and revises without approval
        h.store.repo("demo").create_branch(V2, "main")
        for summary in ("v2 acted alone", "v2 acted alone again"):
            h.log("demo", "act", summary, uses=[ids["recall"]], session="v2run", branch=V2, trigger="self", form="execution")
        h.log("demo", "revise", "v2 changed the rule", uses=[ids["recall"]], session="v2run", branch=V2,
              target=HOSTILE_TARGET, made_by="agent", governance="none")
    return ids


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    root = tmp / "root"
    ids = fill_root(root)
    out = tmp / "out"
    result = build_site(root, out, page_size=PAGE_SIZE, title="Review <b>&</b>", src=tmp / "src", compare=[f"demo:main...{V2}"])
    return {"root": root, "out": out, "src": tmp / "src", "ids": ids, "result": result}


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    """Ids, links, scripts, event-handler attributes and text of one HTML file."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.handlers: list[tuple[str, str]] = []
        self.inline_scripts: list[str] = []
        self.text: list[str] = []
        self.title = ""
        self._in: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self._in.append(tag)
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name.startswith("on"):
                self.handlers.append((tag, name))
            if name in ("href", "src", "srcset", "action", "formaction", "poster", "data", "xlink:href") and value is not None:
                self.links.append((tag, name, value))

    def handle_endtag(self, tag):
        if tag in self._in:
            while self._in.pop() != tag:
                pass

    def handle_data(self, data):
        top = self._in[-1] if self._in else ""
        if top == "script":
            self.inline_scripts.append(data)
        elif top == "title":
            self.title += data
        else:
            self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def parse(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def html_files(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


# --- stages alone ---------------------------------------------------------------


def _events(n_sessions: int, per_session: int) -> list[Event]:
    events, n = [], 0
    for s in range(n_sessions):
        for i in range(per_session):
            n += 1
            uses = (f"e{n - 1}",) if n > 1 else ()
            events.append(Event(f"e{n}", "observe", "a", f"s{s}", "2026-01-01T00:00:00Z", f"step {n}", uses, {}, ("S→S",) if uses else ()))
    return events


def _data(events: list[Event]) -> AgentData:
    log = EventLog("main", "f" * 40, events, [f"{i:040x}" for i in range(1, len(events) + 1)])
    return AgentData("a", log, diagnose(events, agent="a", branch="main", head=log.head))


def test_pages_grow_with_sessions_and_pages_not_events():
    small = render_site(model([_data(_events(2, 10))], title="t", branch="main"))
    big = render_site(model([_data(_events(2, 500))], title="t", branch="main"))
    assert len(small) == 2 + 5 + 2  # home, agents index, 5 agent pages (beliefs included), one page per session
    assert len(big) == 2 + 5 + 2 * 3  # 500 events a session at 200 a page
    assert "agents/a/trace/s1/page-3.md" in big
    # the nav lists index pages only, however many trace pages there are
    assert nav(model([_data(_events(2, 500))], title="t", branch="main")) == nav(model([_data(_events(2, 10))], title="t", branch="main"))


def test_model_locates_every_event_and_who_uses_it():
    site = model([_data(_events(2, 7))], title="t", branch="main", page_size=3)
    a = site.agents[0]
    assert [p.path for p in a.sessions[0].pages] == [
        "agents/a/trace/s0/index.md",
        "agents/a/trace/s0/page-2.md",
        "agents/a/trace/s0/page-3.md",
    ]
    assert a.location["e4"] == "agents/a/trace/s0/page-2.md"
    assert a.location["e8"] == "agents/a/trace/s1/index.md"
    assert a.used_by["e7"] == ("e8",)
    assert rel("agents/a/trace/s1/index.md", a.location["e7"], "e7") == "../s0/page-3.md#e7"
    assert rel("agents/a/diagnosis.md", "agents/a/diagnosis.md", "x") == "#x"


def test_session_slugs_are_safe_distinct_and_stable():
    assert slugify("Day 2 / ../../etc") == "day-2-etc"
    assert slugify("<>") == ""
    events = [
        Event("e1", "observe", "a", "day2", "2026-01-01T00:00:00Z", "x"),
        Event("e2", "observe", "a", "Day2", "2026-01-01T00:00:00Z", "x"),
        Event("e3", "observe", "a", "<&>", "2026-01-01T00:00:00Z", "x"),
    ]
    a = model([_data(events)], title="t", branch="main").agents[0]
    slugs = [s.slug for s in a.sessions]
    assert slugs[0] == "day2" and slugs[1].startswith("day2-") and slugs[2] == "session"
    assert len(set(slugs)) == 3
    assert [s.name for s in a.sessions] == ["day2", "Day2", "session 3"]  # unsafe labels never reach titles


def test_render_is_deterministic_and_escapes_agent_text(built):
    with Halo(built["root"]) as h:
        from halo_git.site.collect import collect

        first = render_site(model(collect(h), title="t", branch="main", page_size=PAGE_SIZE))
        second = render_site(model(collect(h), title="t", branch="main", page_size=PAGE_SIZE))
    assert first == second
    markdown = "\n".join(first.values())
    assert "<script>" not in markdown and "<img" not in markdown and "{{" not in markdown
    assert not re.search(r"(?<!\\)\]\(javascript:", markdown)


def test_channel_svg_draws_each_channel_once_and_is_deterministic():
    channels = {("S", "M"): 3, ("M", "A"): 2, ("A", "M"): 1, ("M", "M"): 4, ("R", "S"): 0}
    svg = channel_svg(channels)
    assert svg == channel_svg(dict(reversed(list(channels.items()))))
    assert re.findall(r'data-channel="([^"]+)"', svg) == ["A→M", "M→A", "M→M", "S→M"]
    assert "\n\n" not in svg  # one raw HTML block for Markdown
    assert "http" not in svg  # no namespace URL, no external reference


def test_template_is_found_and_offline_by_configuration():
    t = template_dir()
    config = (t / "mkdocs.yml").read_text()
    assert "font: false" in config and "offline" in config
    polyfills = re.findall(r"^\s+- (assets/javascripts/[^\s]+)", config, re.M)
    assert any("iframe-worker" in p for p in polyfills)
    assert all((t / p).is_file() for p in polyfills)
    # a checkout reads the top-level source itself; a wheel carries a byte-for-byte copy
    top = REPO / "site_template"
    # pip byte-compiles the template's hook when it installs the wheel: its __pycache__ is pip's, not ours
    files = lambda d: {p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*")
                       if p.is_file() and "__pycache__" not in p.relative_to(d).parts}
    assert files(t) == files(top)


def test_strict_build_fails_on_a_broken_link(tmp_path):
    config = write({"index.md": "# Home\n\n[gone](nowhere.md#e1)\n"}, [{"Home": "index.md"}], tmp_path / "src", title="t")
    with pytest.raises(HaloError, match="nowhere.md"):
        build(config, tmp_path / "out")
    check_out(tmp_path / "out")  # a failed build leaves a folder the next build may replace
    config = write({"index.md": "# Home\n\n### e1 { #e1 }\n\n[e2](#e2)\n"}, [{"Home": "index.md"}], tmp_path / "src2", title="t")
    with pytest.raises(HaloError, match="e2"):
        build(config, tmp_path / "out")  # a missing anchor fails too


def test_src_folder_must_be_new(built, tmp_path):
    (tmp_path / "src").mkdir()
    with pytest.raises(InvalidCall, match="--src"):
        build_site(built["root"], tmp_path / "out", src=tmp_path / "src")


def test_out_folder_with_other_files_is_refused(built, tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(InvalidCall, match="not an earlier halo-git site"):
        build_site(built["root"], precious)
    assert (precious / "notes.txt").read_text() == "keep me"


# --- the built site ----------------------------------------------------------------


def test_pages_exist(built):
    out = built["out"]
    for rel_path in (
        "index.html",
        "agents/demo/index.html",
        "agents/demo/diagnosis.html",
        "agents/demo/revisions.html",
        "agents/demo/trace/index.html",
        "agents/demo/trace/day1/index.html",
        "agents/demo/trace/day2/index.html",
        "agents/demo/trace/long/index.html",
        "agents/demo/trace/long/page-2.html",
        "agents/demo/trace/long/page-3.html",
        "agents/demo/trace/img-src-x-onerror-window-xss-1/index.html",
        "agents/helper/index.html",
        "agents/helper/trace/s1/index.html",
        "search/search_index.json",
        "search/search_index.js",
    ):
        assert (out / rel_path).is_file(), rel_path
    home = parse(out / "index.html")
    assert "demo" in home.all_text and "helper" in home.all_text
    assert ("a", "href", "agents/demo/index.html") in home.links


def test_every_event_has_one_anchor_with_kind_fields_and_commit(built):
    out, root, ids = built["out"], built["root"], built["ids"]
    anchors: dict[str, list[str]] = {}
    for path in sorted((out / "agents/demo/trace").rglob("*.html")):
        for i in parse(path).ids:
            if re.fullmatch(r"e\d+", i):
                anchors.setdefault(i, []).append(str(path.relative_to(out)))
    total = len(ids)
    assert sorted(anchors, key=lambda i: int(i[1:])) == [f"e{n}" for n in range(1, total + 1)]
    assert all(len(v) == 1 for v in anchors.values())
    commits = git(root / "demo.git", "log", "--format=%H", "--reverse", "main").stdout.split()
    day1 = (out / "agents/demo/trace/day1/index.html").read_text()
    block = day1[day1.index('id="e3"') : day1.index('id="e4"')]
    assert "halo-badge" in block and ">act<" in block
    assert "trigger" in block and "preparation" in block
    assert commits[2][:10] in block and f'title="{commits[2]}"' in block
    # findings about an event are shown on it and lead to the diagnosis
    day2 = (out / "agents/demo/trace/day2/index.html").read_text()
    taxi = day2[day2.index(f'id="{ids["taxi"]}"') : day2.index(f'id="{ids["self_rule"]}"')]
    assert 'href="../../diagnosis.html#findings"' in taxi and "HALO-A1" in taxi
    assert "HALO-A1" not in block


def test_links_to_used_and_using_events_resolve_across_pages(built):
    out, ids = built["out"], built["ids"]
    day1 = parse(out / "agents/demo/trace/day1/index.html")
    hrefs = {v for t, a, v in day1.links if t == "a"}
    assert f"#{ids['ask']}" in hrefs  # e2 uses e1 on the same page
    assert f"../day2/index.html#{ids['recall']}" in hrefs  # e2 is used by the recall of day2
    page3 = parse(out / "agents/demo/trace/long/page-3.html")
    assert f"page-2.html#{ids['long9']}" in {v for _, _, v in page3.links}  # uses across pages
    assert "../day1/index.html#" + ids["keep"] in {v for _, _, v in parse(out / "agents/demo/trace/long/index.html").links}


def test_every_internal_link_and_anchor_resolves(built):
    """Every page but 404.html, whose links are root-absolute by design (a server serves it anywhere)."""
    out = built["out"]
    parsed = {p: parse(p) for p in html_files(out) if p.name != "404.html"}
    checked = 0
    for path, page in parsed.items():
        for tag, attr, value in page.links:
            if EXTERNAL.match(value) or value.startswith("data:"):
                continue
            parts = urlsplit(value)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            assert target.exists(), f"{path.relative_to(out)}: {value}"
            if parts.fragment and target.suffix == ".html" and tag == "a":
                assert parts.fragment in parsed[target].ids, f"{path.relative_to(out)}: {value}"
            checked += 1
    assert checked > 100


def test_no_external_url_is_loaded_or_linked(built):
    out = built["out"]
    for path in html_files(out):
        page = parse(path)
        for tag, attr, value in page.links:
            assert not EXTERNAL.match(value) or value.startswith("data:"), f"{path.relative_to(out)}: <{tag} {attr}={value}>"
    for path in out.rglob("*.css"):
        text = path.read_text(encoding="utf-8")
        for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", text) + re.findall(r"@import\s+['\"]([^'\"]+)", text):
            assert not EXTERNAL.match(url) or url.startswith("data:"), f"{path.relative_to(out)}: {url}"
    assert "<loc>" not in (out / "sitemap.xml").read_text()  # no site_url: the site works wherever it is served


def test_diagnosis_page_links_every_cited_event_to_its_anchor(built):
    out, ids = built["out"], built["ids"]
    page = parse(out / "agents/demo/diagnosis.html")
    links = {v for t, _, v in page.links if t == "a" and "trace/" in v}
    assert f"trace/day2/index.html#{ids['taxi']}" in links  # the open self-initiated execution
    assert f"trace/day2/index.html#{ids['self_rule']}" in links  # the ungoverned revision
    assert "HALO-R1" in page.all_text and "HALO-A1" in page.all_text
    with Halo(built["root"]) as h:
        plain = h.report("demo")
    for i in re.findall(r"\be\d+\b", plain):
        assert any(v.endswith(f"#{i}") for v in links), i


def test_revisions_audit_trail_flags_ungoverned_with_commit_ids(built):
    out, root, ids = built["out"], built["root"], built["ids"]
    commits = git(root / "demo.git", "log", "--format=%H", "--reverse", "main").stdout.split()
    html_text = (out / "agents/demo/revisions.html").read_text()
    targets_table = re.search(r"<table>.*?</table>", html_text, re.S).group()  # the first table lists the targets
    rows = re.findall(r"<tr>.*?</tr>", targets_table, re.S)[1:]
    assert len(rows) == 2
    approved, ungoverned = rows
    assert commits[int(ids["rule"][1:]) - 1][:10] in approved and "halo-flag" not in approved
    assert commits[int(ids["self_rule"][1:]) - 1][:10] in ungoverned and "halo-flag" in ungoverned
    assert "agent · none" in ungoverned and "user · approved" in approved
    assert "halo-approval-claimed" in approved and "halo-approval-none" in ungoverned  # no signature: nothing proven
    page = parse(out / "agents/demo/revisions.html")
    assert HOSTILE_TARGET in page.all_text
    # a section per target (safe heading, the hostile name shown as text in the body), a version anchor each
    assert {"target-1", "target-2", f"rev-{ids['rule']}", f"rev-{ids['self_rule']}"} <= page.ids
    assert f"#target-2" in {v for t, _, v in page.links if t == "a"}
    assert f"trace/day2/index.html#{ids['self_rule']}" in {v for t, _, v in page.links if t == "a"}
    # the impact of the day-1 rule: day2 is the session after it; there is no session before it
    assert "no earlier session (after: day2)" in page.all_text


def test_hostile_text_renders_as_text_everywhere(built):
    out = built["out"]
    ours = [p for p in html_files(out) if "agents" in p.parts or p.name == "index.html"]
    for path in ours:
        page = parse(path)
        assert page.handlers == [], f"{path.relative_to(out)}: {page.handlers}"
        assert not [v for _, _, v in page.links if v.lower().startswith("javascript:")]
        assert "window.__xss" not in "".join(page.inline_scripts), path
        assert "<script" not in page.title and "<img" not in page.title
    day2 = "".join(parse(p).all_text for p in sorted((out / "agents/demo/trace/day2").glob("*.html")))
    for text in HOSTILE:
        assert text.replace("\n", "\\n") in day2, text  # shown literally, line breaks as \n
    odd = parse(out / "agents/demo/trace/img-src-x-onerror-window-xss-1/index.html")
    assert HOSTILE_SESSION in odd.all_text and odd.title.startswith("demo · session")
    # the hostile target reaches the diagnosis, the revisions page and the trace as text
    for rel_path in ("agents/demo/diagnosis.html", "agents/demo/revisions.html", "agents/demo/trace/day2/index.html", "agents/demo/compare/main...prompt-v2-1.html"):
        assert "</title><script>window.__xss=1</script>" in parse(out / rel_path).all_text, rel_path


def test_site_title_is_escaped(built):
    page = parse(built["out"] / "index.html")
    assert "Review <b>&</b>" in page.title and "Review <b>&</b>" in page.all_text
    assert "<b>&</b>" not in (built["out"] / "index.html").read_text()


def test_search_index_holds_each_event_as_a_section(built):
    out, ids = built["out"], built["ids"]
    index = json.loads((out / "search/search_index.json").read_text())
    docs = {d["location"]: d for d in index["docs"]}
    hit = docs[f"agents/demo/trace/day1/index.html#{ids['ask']}"]
    assert SEARCH_WORD in hit["text"]
    assert (out / "search/search_index.js").read_text().startswith("var __index =")


def test_generated_markdown_is_kept_with_src(built):
    src = built["src"]
    assert (src / "mkdocs.yml").is_file()
    assert (src / "docs/agents/demo/trace/long/page-2.md").is_file()
    config = (src / "mkdocs.yml").read_text()
    assert "agents/demo/trace/long" not in config  # bulk pages stay out of the nav


def test_compare_page_diffs_branches_and_links_only_shared_events(built):
    out, ids = built["out"], built["ids"]
    path = out / "agents/demo/compare/main...prompt-v2-1.html"
    page = parse(path)
    assert "Behaviour diff of agent demo" in page.all_text
    assert "HALO-A1" in page.all_text  # the new self-initiated executions on v2
    links = {v for t, _, v in page.links if t == "a" and "#e" in v}
    n = len(ids)
    # v2's own events (e{n+1}, e{n+2}) are not on main: plain ids, never links to main's trace
    assert not any(v.endswith((f"#e{n + 1}", f"#e{n + 2}")) for v in links)
    assert f"e{n + 1}" in page.all_text
    # shared history (the base side's open act, the ungoverned revision) links to main's trace
    assert f"../trace/day2/index.html#{ids['taxi']}" in links
    overview = parse(out / "agents/demo/index.html")
    assert ("a", "href", "compare/main...prompt-v2-1.html") in overview.links
    home = (out / "index.html").read_text(encoding="utf-8")
    assert "Compare pages" in home and 'href="agents/demo/compare/main...prompt-v2-1.html"' in home


def test_agent_bar_marks_trace_on_session_pages(built):
    out = built["out"]
    bar = re.compile(r'class="halo-agent-bar[^"]*"[^>]*>(.*?)</p>', re.S)
    session = bar.search((out / "agents/demo/trace/day2/index.html").read_text(encoding="utf-8")).group(1)
    assert re.search(r'<strong><a href="\.\./index\.html">Trace</a></strong>', session), session
    assert "<strong>Overview</strong>" not in session
    overview = bar.search((out / "agents/demo/index.html").read_text(encoding="utf-8")).group(1)
    assert "<strong>Overview</strong>" in overview and "<strong>Trace</strong>" not in overview


# --- the command -------------------------------------------------------------------------


def test_site_command_builds_and_says_where(built, tmp_path):
    out = tmp_path / "site"
    r = run_cli("site", "--root", str(built["root"]), "--out", str(out), "--agent", "helper", "--title", "Helper")
    assert r.returncode == 0, r.stderr
    assert f"Open {out / 'index.html'}" in r.stdout and "http.server" in r.stdout
    assert (out / "agents/helper/index.html").is_file() and not (out / "agents/demo").exists()
    # a second build into the same folder replaces the first
    r = run_cli("site", "--root", str(built["root"]), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert (out / "agents/demo/index.html").is_file()


def test_site_of_another_branch_skips_agents_without_it(built, tmp_path):
    out = tmp_path / "v2"
    r = run_cli("site", "--root", str(built["root"]), "--out", str(out), "--branch", V2)
    assert r.returncode == 0, r.stderr
    assert (out / "agents/demo/trace/v2run/index.html").is_file() and not (out / "agents/helper").exists()
    assert "v2 acted alone" in parse(out / "agents/demo/trace/v2run/index.html").all_text
    assert f"on branch {V2}," in parse(out / "index.html").all_text
    assert f"Branch {V2} at commit" in parse(out / "agents/demo/index.html").all_text


def test_site_command_refusals(built, tmp_path):
    r = run_cli("site", "--root", str(built["root"]), "--out", str(tmp_path / "a"), "--compare", "demo:main...nope")
    assert r.returncode == 1 and "nope" in r.stderr and not (tmp_path / "a").exists()
    r = run_cli("site", "--root", str(built["root"]), "--out", str(tmp_path / "b"), "--compare", "demo-main")
    assert r.returncode == 2 and "AGENT:BASE...HEAD" in r.stderr
    r = run_cli("site", "--root", str(built["root"]), "--out", str(tmp_path / "b"), "--agent", "helper", "--compare", f"demo:main...{V2}")
    assert r.returncode == 2 and "--agent demo" in r.stderr
    r = run_cli("site", "--root", str(built["root"]), "--out", str(tmp_path / "c"), "--agent", "nobody")
    assert r.returncode == 1 and "nobody" in r.stderr
    (tmp_path / "empty").mkdir()  # a root with no agent (a missing one: tests/test_papercuts.py)
    r = run_cli("site", "--root", str(tmp_path / "empty"), "--out", str(tmp_path / "d"))
    assert r.returncode == 1 and "halo-git demo" in r.stderr
    r = run_cli("site", "--root", str(tmp_path / "missing"), "--out", str(tmp_path / "e"))
    assert r.returncode == 1 and "the folder does not exist" in r.stderr and not (tmp_path / "e").exists()


def test_paths_stay_inside_the_output(built):
    out = built["out"].resolve()
    for path in out.rglob("*"):
        assert out in path.resolve().parents
        assert PurePosixPath(path.relative_to(out).as_posix()).parts[0] in {"agents", "assets", "search", "index.html", "404.html", "sitemap.xml", "sitemap.xml.gz", ".halo-site", "halo-summary.json"}


# --- the publishing workflow ---------------------------------------------------------------


def test_review_site_workflow_steps_build_a_site_from_cloned_repositories(built, tmp_path):
    """Run the workflow's own shell steps: clone agent repositories by path, build the site."""
    workflow = yaml.safe_load((REPO / ".github/workflows/review-site.yml").read_text())
    steps = {s.get("name"): s for s in workflow["jobs"]["build"]["steps"]}
    uses = [s["uses"].split("@")[0] for job in workflow["jobs"].values() for s in job["steps"] if "uses" in s]
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= set(uses)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "AGENTS": f"{built['root'] / 'demo.git'} {built['root'] / 'helper.git'}",
        "BRANCH": "main",
        "COMPARE": f"demo:main...{V2}",
        "TITLE": "Team <review>",
        "HALO_ROOT": str(tmp_path / "root"),
        "SITE_DIR": str(tmp_path / "site"),
    }
    for name in ("Clone the agent repositories into one root", "Build the site"):
        r = subprocess.run(["bash", "-c", steps[name]["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "site/agents/demo/compare/main...prompt-v2-1.html").is_file()
    assert (tmp_path / "site/agents/helper/index.html").is_file()
    assert workflow["jobs"]["build"]["steps"][-1]["with"]["path"].endswith("/review-site")


def test_review_site_workflow_without_traces_says_where_to_put_them(tmp_path):
    """The default `halo/*.git` in a repository without traces: one error naming the pattern and
    what to do, not "invalid agent name '*'" from the clone."""
    workflow = yaml.safe_load((REPO / ".github/workflows/review-site.yml").read_text())
    step = next(s for s in workflow["jobs"]["build"]["steps"] if s.get("name") == "Clone the agent repositories into one root")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "AGENTS": workflow["jobs"]["build"]["env"]["AGENTS"].split("'")[1], "HALO_ROOT": str(tmp_path / "root")}
    assert env["AGENTS"] == "halo/*.git"
    r = subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "invalid agent name" not in r.stderr
    assert r.stdout.startswith("::error::no agent repository at 'halo/*.git': commit the agents' repositories under halo/")
    assert "pages" in workflow["jobs"]["build"]["permissions"]  # configure-pages reads the Pages settings


def test_tests_workflow_runs_the_test_script():
    workflow = yaml.safe_load((REPO / ".github/workflows/tests.yml").read_text())
    runs = [s.get("run", "") for s in workflow["jobs"]["test"]["steps"]]
    assert "bash scripts/test.sh" in runs
    ci = (REPO / ".ci/run").read_text()
    assert "scripts/test.sh" in ci


def test_site_builds_from_remotes(tmp_path):
    """``--remote A=URL`` clones into the root, then fast-forwards on the next build."""
    origin = tmp_path / "origin"
    with Halo(origin) as h:
        h.log("remote-agent", "observe", "seen on another machine", session="far")
    bare = tmp_path / "hosted" / "remote-agent.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(origin / "remote-agent.git"), str(bare)], check=True)
    root = tmp_path / "root"
    out = tmp_path / "site"
    r = run_cli("site", "--out", str(out), "--remote", f"remote-agent={bare}", root=root)
    assert r.returncode == 0, r.stderr
    assert (out / "agents" / "remote-agent" / "index.html").is_file()
    with Halo(origin) as h:
        h.log("remote-agent", "observe", "one more", session="far")
    subprocess.run(["git", "--git-dir", str(bare), "fetch", "-q", str(origin / "remote-agent.git"), "main:main"], check=True)
    r = run_cli("site", "--out", str(out), "--remote", f"remote-agent={bare}", root=root)
    assert r.returncode == 0, r.stderr
    assert "fast-forwarded with 1 event(s)" in r.stderr
    with Halo(root) as h:
        assert [e.summary for e in h.events("remote-agent")] == ["seen on another machine", "one more"]
    bad = run_cli("site", "--out", str(out), "--remote", "no-equals-sign", root=root)
    assert bad.returncode == 2 and "AGENT=URL" in bad.stderr
