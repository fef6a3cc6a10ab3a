"""The built review site in real headless Chromium (the system package, never a download).

The site is served from 127.0.0.1 by a local HTTP server; every request the
browser makes is observed, and anything leaving 127.0.0.1 is blocked and fails
the test. Hostile summaries set ``window.__xss`` if they ever run.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from halo_git import Halo
from halo_git.site import build_site
from tests.test_site import HOSTILE, HOSTILE_SESSION, HOSTILE_TARGET, PAGE_SIZE, SEARCH_WORD, V2, fill_root

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium():
    """The system Chromium through Playwright; fails (never skips) when it is missing."""
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        pytest.fail(
            "the browser tests need the system Chromium at /usr/bin/chromium: install the Debian package "
            "'chromium' (scripts/test.sh does this when it is missing); never download a browser"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    ids = fill_root(tmp / "root")
    out = tmp / "out"
    build_site(tmp / "root", out, page_size=PAGE_SIZE, compare=[f"demo:main...{V2}"])
    with Halo(tmp / "root") as h:
        channels = sum(1 for n in h.diagnosis("demo").channels.values() if n)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": f"http://127.0.0.1:{server.server_address[1]}", "out": out, "ids": ids, "channels": channels, "tmp": tmp}
    server.shutdown()
    server.server_close()


class Watch:
    """Every request a page makes; requests that leave 127.0.0.1 (or file://) are blocked."""

    def __init__(self, context):
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.errors: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        self.requests.append(url)
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "file") or (parts.scheme == "http" and parts.hostname == "127.0.0.1"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def page(self, context):
        page = context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page


@pytest.fixture
def browse(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    watch = Watch(context)
    yield context, watch
    context.close()
    assert watch.blocked == [], f"requests left 127.0.0.1: {watch.blocked}"


def _xss(page) -> str:
    return page.evaluate("typeof window.__xss")


def test_diagnosis_and_trace_pages_render_and_screenshot(site, browse, tmp_path):
    context, watch = browse
    page = watch.page(context)
    for name, path in (("diagnosis", "agents/demo/diagnosis.html"), ("trace", "agents/demo/trace/day1/index.html")):
        page.goto(f"{site['url']}/{path}")
        page.wait_for_load_state("networkidle")
        shot = tmp_path / f"{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    # the trace page shows event e3 at its anchor, with its badge and a working link to what it uses
    page.goto(f"{site['url']}/agents/demo/trace/day1/index.html#{site['ids']['plan']}")
    assert page.locator(f"h3#{site['ids']['plan']} .halo-badge").inner_text() == "act"
    page.locator(f"a[href='#{site['ids']['keep']}']").first.click()
    assert page.url.endswith(f"#{site['ids']['keep']}")
    assert watch.errors == []
    assert watch.requests and all(urlsplit(u).hostname == "127.0.0.1" for u in watch.requests)


def test_search_box_returns_a_known_event(site, browse):
    context, watch = browse
    page = watch.page(context)
    page.goto(f"{site['url']}/index.html")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    box = page.locator("input.md-search__input")
    box.press_sequentially(SEARCH_WORD, delay=40)  # Material reacts to keystrokes, not fill()
    event = site["ids"]["ask"]
    # results link to the event's anchor (with the theme's ?h= highlight query before it)
    hit = page.locator(f"a.md-search-result__link[href*='trace/day1/index.html'][href$='#{event}']").first
    hit.wait_for(state="attached", timeout=15_000)
    assert f"{event} observe" in hit.text_content() and SEARCH_WORD in hit.text_content()
    page.goto(hit.get_attribute("href"))
    assert page.locator(f"h3#{event}").is_visible()
    assert watch.errors == []


def test_channel_graph_is_drawn_inline(site, browse):
    context, watch = browse
    page = watch.page(context)
    page.goto(f"{site['url']}/agents/demo/index.html")
    graph = page.locator("svg#halo-channels")
    assert graph.is_visible()
    box = graph.bounding_box()
    assert box["width"] > 200 and box["height"] > 150
    assert page.locator("svg#halo-channels g.halo-graph-edge").count() == site["channels"]
    assert page.locator("svg#halo-channels g.halo-graph-node").count() == 4


def test_hostile_text_shows_as_text_and_never_runs(site, browse):
    context, watch = browse
    page = watch.page(context)
    out = site["out"]
    pages = [p.relative_to(out).as_posix() for p in sorted((out / "agents").rglob("*.html"))] + ["index.html"]
    for path in pages:
        page.goto(f"{site['url']}/{path}")  # waits for the load event: inline handlers would have run
        assert _xss(page) == "undefined", path
    shown = ""
    for name in ("index.html", "page-2.html", "page-3.html"):
        page.goto(f"{site['url']}/agents/demo/trace/day2/{name}")
        shown += page.locator("article").inner_text()
    for text in HOSTILE:
        assert text.replace("\n", "\\n") in shown, text
    page.goto(f"{site['url']}/agents/demo/revisions.html")
    assert HOSTILE_TARGET in page.locator("article").inner_text()
    assert page.locator("article img, article svg[onload], article a[href^='javascript']").count() == 0
    page.goto(f"{site['url']}/agents/demo/trace/index.html")
    assert HOSTILE_SESSION in page.locator("article").inner_text()
    # search results are rendered as HTML by the theme: hostile text must stay text there too
    page.locator(".md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("xss onerror", delay=40)
    page.locator(".md-search-result__item").first.wait_for(timeout=15_000)
    page.wait_for_timeout(300)
    assert _xss(page) == "undefined"
    assert watch.errors == []


def test_search_works_from_file_url_without_any_network(site, browse):
    """The offline plugin and the local iframe-worker polyfill: search from file://."""
    context, watch = browse
    page = watch.page(context)
    page.goto((site["out"] / "index.html").as_uri())
    page.locator(".md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially(SEARCH_WORD, delay=40)
    page.locator("a.md-search-result__link").first.wait_for(timeout=15_000)
    assert SEARCH_WORD in page.locator(".md-search-result").text_content()
    assert all(urlsplit(u).scheme in ("file", "data", "blob") for u in watch.requests), watch.requests


# --- the 404 page wherever the site is hosted, and the agents index -----------------


def pages_host(out: Path, prefix: str):
    """A host like GitHub Pages: the site under ``prefix``, and ``404.html`` with
    status 404 for any missing address, at any depth."""

    class Host(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kw):
            super().__init__(*args, directory=str(out), **kw)

        def log_message(self, *args):
            pass

        def translate_path(self, path):
            clean = urlsplit(path).path
            if not clean.startswith(prefix):
                return str(out / ".not-here")
            return super().translate_path("/" + clean[len(prefix):])

        def send_error(self, code, message=None, explain=None):
            if code != 404:
                return super().send_error(code, message, explain)
            body = (out / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Host)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{prefix}"


def _styled(page) -> None:
    """The theme's and our stylesheets apply: the header sticks and is coloured, the logo is icon-sized."""
    style = page.evaluate(
        """() => {
            const h = getComputedStyle(document.querySelector('header.md-header'));
            const logo = document.querySelector('.md-header__button.md-logo svg').getBoundingClientRect();
            return {position: h.position, background: h.backgroundColor, logo: logo.height,
                    halo: getComputedStyle(document.documentElement).getPropertyValue('--halo-S').trim()};
        }"""
    )
    assert style["position"] == "sticky" and style["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), style
    assert 0 < style["logo"] <= 48, style
    assert style["halo"] == "#00897b", style


@pytest.mark.parametrize("prefix", ["/", "/halo-review/"])
def test_404_page_is_styled_and_its_links_resolve_at_any_depth(site, browse, prefix):
    import urllib.request

    server, base = pages_host(site["out"], prefix)
    try:
        context, watch = browse
        for missing in ("nope.html", "agents/ghost/trace/x.html", "deep/er/path/"):
            page = watch.page(context)
            failed: list[str] = []
            # HEAD requests are the 404 page asking where the site root is (deepest folder first)
            page.on("response", lambda r: failed.append(f"{r.status} {r.url}")
                    if r.status >= 400 and r.url != base + missing and r.request.method != "HEAD" else None)
            response = page.goto(base + missing)
            assert response.status == 404
            page.wait_for_load_state("networkidle")
            _styled(page)
            assert "404" in page.locator("article h1").inner_text()
            assert failed == [], failed
            hrefs = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
            targets = {h.split("#")[0] for h in hrefs if h.startswith("http")}
            assert base + "index.html" in targets and base + "agents/index.html" in targets
            for url in targets:
                assert url.startswith(base), url
                with urllib.request.urlopen(url) as r:
                    assert r.status == 200, url
            page.close()
        # from the 404 page the site works: home through the logo, search results under the subpath
        page = watch.page(context)
        page.goto(base + "agents/ghost/x.html")
        page.locator("a.md-header__button.md-logo").click()
        page.wait_for_load_state()
        assert page.url == base + "index.html"
        page.goto(base + "agents/ghost/x.html")
        page.locator(".md-search__input").first.click()
        page.locator("input.md-search__input").press_sequentially(SEARCH_WORD, delay=40)
        hit = page.locator("a.md-search-result__link").first
        hit.wait_for(timeout=15_000)
        assert hit.get_attribute("href").startswith(base + "agents/demo/trace/day1/index.html")
        assert watch.errors == []
    finally:
        server.shutdown()
        server.server_close()


def test_404_page_is_styled_from_file_url(site, browse):
    context, watch = browse
    page = watch.page(context)
    page.goto((site["out"] / "404.html").as_uri())
    page.wait_for_load_state("load")
    _styled(page)
    home = page.evaluate("() => document.querySelector('a.md-header__button.md-logo').href")
    assert home == (site["out"] / "index.html").as_uri()
    assert watch.errors == []


def test_agents_index_filters_as_you_type(site, browse):
    context, watch = browse
    page = watch.page(context)
    page.goto(f"{site['url']}/agents/index.html")
    rows = page.locator("article table tbody tr")
    assert rows.count() == 2
    page.locator("input.halo-filter").press_sequentially("help", delay=20)
    assert [rows.nth(i).is_visible() for i in range(2)] == [False, True]
    assert page.locator(".halo-filter-count").inner_text() == "1 of 2 agents"
    page.locator("input.halo-filter").fill("")
    page.locator("input.halo-filter").press_sequentially("high", delay=20)  # a severity: only demo has high findings
    assert [rows.nth(i).is_visible() for i in range(2)] == [True, False]
    page.goto(f"{site['url']}/agents/index.html?filter=helper")  # a link can carry the filter
    assert page.locator("input.halo-filter").input_value() == "helper"
    assert [rows.nth(i).is_visible() for i in range(2)] == [False, True]
    page.locator("input.halo-filter").fill("")
    page.locator("input.halo-filter").press("Backspace")
    # the agent's pages link to one another from the bar at their top
    rows.nth(0).locator("a").first.click()
    page.locator(".halo-agent-bar a", has_text="Revisions").click()
    assert page.url.endswith("/agents/demo/revisions.html")
    page.locator(".halo-agent-bar a", has_text="Agents").click()
    assert page.url.endswith("/agents/index.html")
    assert watch.errors == []


def test_revisions_page_targets_timeline_and_links(site, browse):
    """The audit trail: a table of targets linking to a section each, versions with
    approval badges, and event links that land on the trace anchor."""
    context, watch = browse
    page = watch.page(context)
    ids = site["ids"]
    page.goto(f"{site['url']}/agents/demo/revisions.html")
    assert page.locator("article table").first.locator("tbody tr").count() == 2
    page.locator("article table").first.locator("a[href='#target-2']").click()
    assert page.url.endswith("#target-2")
    section = page.locator("h2#target-2")
    assert section.is_visible() and section.inner_text().startswith("Target 2")  # a hostile name never reaches a heading
    version = page.locator(f"h3#rev-{ids['self_rule']}")
    assert version.is_visible()
    assert page.locator(".halo-approval-none").first.is_visible() and page.locator(".halo-approval-claimed").count() >= 1
    body = page.locator("article").inner_text()
    assert f"Target “{HOSTILE_TARGET}”" in body and "impact: no earlier session (after: day2)" in body
    page.locator(f"h3#rev-{ids['self_rule']} ~ ul a[href$='#{ids['self_rule']}']").first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith(f"trace/day2/index.html#{ids['self_rule']}")
    assert page.locator(f"h3#{ids['self_rule']}").is_visible()
    assert _xss(page) == "undefined" and watch.errors == []
