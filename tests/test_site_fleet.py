"""The review site for a fleet of agents: a nav that does not grow with agents, the
agents index, the page bar of each agent, the home page's figures and the trend
since the previous build, ``--site-url``, the portable 404 page, and (slow) a
build that stays linear in agents."""

from __future__ import annotations

import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.errors import InvalidCall
from halo_git.site import build_site
from halo_git.site.fleet import SUMMARY_FILE, load_previous
from halo_git.site.home import SEARCH_DIAGNOSES
from halo_git.site.pages import model
from halo_git.site.render import nav, render_site
from tests.test_site import _data, _events, parse


def fill_fleet(root: Path, agents: int, *, start: int = 0) -> None:
    """``agents`` small agents; every third has an ungoverned revision after a self-initiated act."""
    with Halo(root, screen=None) as h:
        for i in range(start, start + agents):
            name = f"agent-{i:03d}"
            h.log(name, "observe", f"user {i} asked for a summary", session="s1")
            if i % 3 == 0:
                h.log(name, "act", f"sent summary {i} unasked", uses=["e1"], session="s2", trigger="self", form="execution")
                h.log(name, "revise", f"always send summaries ({i})", uses=["e2"], session="s2",
                      target="summary schedule", made_by="agent", governance="none")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fleet")
    root, out = tmp / "root", tmp / "out"
    fill_fleet(root, 30)
    build_site(root, out, site_url="https://example.org/traces/")
    return {"root": root, "out": out, "tmp": tmp}


def test_nav_is_the_same_for_one_agent_and_for_many():
    one = model([_data(_events(1, 3))], title="t", branch="main")
    many = _agents(50)
    assert nav(one) == nav(model(many, title="t", branch="main")) == [{"Home": "index.md"}, {"Agents": "agents/index.md"}]
    pages = render_site(model(many, title="t", branch="main"))
    assert len(pages) == 2 + 50 * 6  # home, index; overview, diagnosis, trace, revisions, beliefs and one session each


def _agents(n: int):
    base = _data(_events(1, 3))
    return [type(base)(f"a{i}", base.log, base.diagnosis) for i in range(n)]


def test_summary_pages_stay_out_of_search_and_diagnoses_too_for_a_large_fleet():
    excluded = "search:\n  exclude: true\n---"
    small = render_site(model(_agents(SEARCH_DIAGNOSES), title="t", branch="main"))
    large = render_site(model(_agents(SEARCH_DIAGNOSES + 1), title="t", branch="main"))
    for pages, diagnosis_searched in ((small, True), (large, False)):
        assert excluded in pages["agents/a1/index.md"] and excluded in pages["agents/a1/revisions.md"]
        assert excluded in pages["agents/a1/trace/index.md"] and excluded in pages["agents/index.md"]
        assert excluded not in pages["agents/a1/trace/s0/index.md"] and excluded not in pages["index.md"]
        assert (excluded not in pages["agents/a1/diagnosis.md"]) == diagnosis_searched
    assert "diagnosis pages are left out" in large["index.md"] and "left out" not in small["index.md"]


def test_no_page_lists_every_agent_but_the_index(fleet):
    out = fleet["out"]
    for path, most in (("agents/agent-004/diagnosis.html", 0), ("agents/agent-004/trace/s1/index.html", 0), ("index.html", 29)):
        links = {v for _, _, v in parse(out / path).links}
        listed = {m.group(1) for v in links for m in [re.search(r"agent-(\d{3})/index\.html$", v)] if m}
        assert len(listed) <= most, (path, len(listed))  # the home page: at most 20 in each of its two tables
    index = parse(out / "agents/index.html")
    listed = {v for _, _, v in index.links if re.fullmatch(r"agent-\d{3}/index\.html", v)}
    assert len(listed) == 30
    assert ("input", "class") not in index.links and 'class="halo-filter"' in (out / "agents/index.html").read_text()


def test_each_agent_page_links_to_its_siblings_and_the_index(fleet):
    out = fleet["out"]
    base = out / "agents/agent-003"
    for path, own in (("index.html", "Overview"), ("diagnosis.html", "Diagnosis"), ("revisions.html", "Revisions"),
                      ("trace/index.html", "Trace"), ("trace/s2/index.html", None)):
        page = parse(base / path)
        bar = re.search(r'<p class="halo-agent-bar"[^>]*>(.*?)</p>', (base / path).read_text(), re.S).group(1)
        hrefs = set(re.findall(r'href="([^"]+)"', bar))
        here = posixpath.dirname(path)
        expected = {posixpath.relpath(t, here) for t in ("index.html", "diagnosis.html", "trace/index.html", "revisions.html", "beliefs.html", "../index.html")}
        expected.discard(posixpath.basename(path) if here == "" else posixpath.relpath(path, here))
        if own:
            assert f"<strong>{own}</strong>" in bar
        assert hrefs == (expected if own else expected | {posixpath.relpath("trace/index.html", here)}), (path, hrefs)
        assert "agent-003" in page.all_text
    # the bar stays out of search results (every page would match the agent's name through it)
    docs = json.loads((out / "search/search_index.json").read_text())["docs"]
    assert docs and not any("Overview ·" in d["text"] or "Agents ›" in d["text"] for d in docs)


def test_home_page_shows_fleet_figures_and_what_needs_attention(fleet):
    home = parse(fleet["out"] / "index.html")
    text = home.all_text
    # 30 agents; 10 with a self-initiated act and an ungoverned revision (agent-000, -003, ...)
    assert re.search(r"Agents\s*Events\s*Sessions", text)
    row = re.search(r'<tbody>\s*<tr>(.*?)</tr>', (fleet["out"] / "index.html").read_text(), re.S).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert cells[0] == "30" and cells[1] == str(30 + 10 * 2) and cells[4] == "10"
    article = (fleet["out"] / "index.html").read_text()
    article = article[article.index("<article"):]
    attention = article[article.index('id="needs-attention"'): article.index('id="recently-active"')]
    assert "agent-000" in attention and "agent-001" not in attention
    assert "No earlier build to compare with" in text
    assert ("a", "href", "agents/index.html") in home.links


def test_the_next_build_shows_the_trend_and_the_summary_is_safe_to_read(fleet, tmp_path):
    root, out = fleet["root"], tmp_path / "out"
    build_site(root, out)
    summary = json.loads((out / SUMMARY_FILE).read_text())
    assert len(summary["agents"]) == 30 and summary["version"] == 1
    fill_fleet(root, 2, start=30)  # two new agents
    with Halo(root) as h:
        h.log("agent-003", "revise", "changed the schedule again", uses=["e3"], session="s3",
              target="summary schedule", made_by="agent", governance="none")
    build_site(root, out)
    home = parse(out / "index.html").all_text
    assert "Changes since the previous build of" in home and "2 new agents, 1 agent changed" in home
    assert "+1 events" in home and "+1 ungoverned" in home
    index = parse(out / "agents/index.html").all_text
    assert index.count("new") >= 2
    # a tampered summary: bad shapes are dropped, names never reach the page raw
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "built": "<script>x</script>", "agents": [
        {"name": "<img src=x onerror=alert(1)>", "events": 1, "sessions": 1, "ungoverned": 0,
         "findings": {"high": 0, "medium": 0, "low": 0, "info": 0}},
        {"name": "agent-000", "events": "many"},
    ]}))
    previous = load_previous(bad)
    assert previous is not None and previous.built is None and "agent-000" not in previous.agents
    build_site(root, tmp_path / "out2", previous=bad)
    page = (tmp_path / "out2/index.html").read_text()
    assert "<img src=x" not in page and "<script>x" not in page
    assert load_previous(tmp_path / "missing.json") is None


def test_site_url_gives_canonical_links_and_a_full_sitemap(fleet):
    out = fleet["out"]
    page = (out / "agents/agent-001/diagnosis.html").read_text()
    assert '<link rel="canonical" href="https://example.org/traces/agents/agent-001/diagnosis.html">' in page
    locs = re.findall(r"<loc>([^<]+)</loc>", (out / "sitemap.xml").read_text())
    assert "https://example.org/traces/index.html" in locs and "https://example.org/traces/agents/index.html" in locs
    assert len(locs) == 2 + 30 * 5 + 30 + 10  # home, index; 5 pages an agent (beliefs included); one or two sessions each
    for bad in ("ftp://x/", "example.org", "https://x/?a=1", 'https://x/"><script>'):
        with pytest.raises(InvalidCall, match="--site-url"):
            build_site(fleet["root"], fleet["tmp"] / "never", site_url=bad)


def test_404_page_links_relative_to_a_runtime_base(fleet):
    text = (fleet["out"] / "404.html").read_text()
    assert not re.search(r'(?:href|src)=\\?"/', text), "absolute links left in 404.html"
    assert 'href=\\"assets/stylesheets/halo.css\\"' in text and 'href="index.html"' in text
    assert not re.search(r'<link[^>]*stylesheet', re.sub(r"<script>document\.write\(.*?\)</script>", "", text))
    head = text[: text.index("<link")]
    assert "document.createElement(\"base\")" in head and "/traces/" in head  # the --site-url path is a candidate
    assert "window.__halo_base" in text[text.index('id="__config"'):]


@pytest.mark.slow
def test_site_build_is_linear_in_agents(tmp_path):
    """A fleet three times as large takes about three times as long (it was nine) and stays small in memory."""
    script = (
        "import json, resource, sys, time\n"
        "from halo_git.site import build_site\n"
        "t = time.process_time(); build_site(sys.argv[1], sys.argv[2]); t = time.process_time() - t\n"
        # the peak of this process's own memory: VmHWM is reset by exec, while ru_maxrss keeps
        # the forking parent's size (the test runner's, hundreds of MiB late in a suite)
        "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
        "print(json.dumps({'cpu': t, 'rss': hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))\n"
    )
    figures = {}
    for n in (60, 180):
        fill_fleet(tmp_path / f"root{n}", n)
        r = subprocess.run([sys.executable, "-c", script, str(tmp_path / f"root{n}"), str(tmp_path / f"out{n}")],
                           capture_output=True, text=True, check=True, timeout=600)
        figures[n] = json.loads(r.stdout.strip().splitlines()[-1])
    ratio = figures[180]["cpu"] / figures[60]["cpu"]
    assert ratio < 4.5, figures  # linear: 3; the nav that listed every agent made it 5.7 at these sizes
    assert figures[180]["rss"] < 512 * 1024, figures  # KiB
    assert figures[180]["cpu"] < 60, figures
    assert (tmp_path / "out180/index.html").stat().st_size < 200_000
