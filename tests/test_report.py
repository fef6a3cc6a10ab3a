"""The Markdown report: structure (parsed with markdown-it-py), escaping, links, caps, determinism.

Structure is asserted on the parsed token stream (headings in order, every table
row as wide as its header), not on string fragments. Escaping is checked with
two real renderers: markdown-it-py (CommonMark, as GitHub) and Python-Markdown
with the extensions MkDocs Material sites use.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from markdown_it import MarkdownIt

from halo_git import Halo
from halo_git.diagnosis import diagnose
from halo_git.markdown import escape_md, md_link, safe_url
from halo_git.model import one_line
from halo_git.report import SECTIONS, render_report

from bench.bench_report import synthetic_events

from .test_diagnosis import Trace

DOCS = Path(__file__).resolve().parent.parent / "docs"
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
MKDOCS_EXTENSIONS = [
    "tables", "attr_list", "admonition", "toc", "md_in_html", "pymdownx.tilde", "pymdownx.caret",
    "pymdownx.mark", "pymdownx.emoji", "pymdownx.arithmatex", "pymdownx.superfences", "pymdownx.betterem",
]
ID_RE = re.compile(r"\be[1-9][0-9]*\b")

HOSTILE = [
    "<script>window.__xss=1</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "a | b || c",
    "`code` and ``` fence",
    "*bold* _it_ **x** __y__",
    "{{ config }} {: onclick=alert(1) }",
    "line one\nline two\r\n# heading",
    "| --- | --- |",
    "~~strike~~ ==mark== ^sup^ $x$ :smile:",
    "&lt;b&gt; &amp; \\ \\* \\",
    "<!-- comment -->",
    "![img](http://x/y.png)",
    "<https://example.com> [ref]: /x",
]


def hostile_trace() -> Trace:
    """Every kind of event, each carrying hostile text, in a session whose label is hostile too."""
    t = Trace("s|<b>*1*")
    ids = []
    for n, text in enumerate(HOSTILE):
        o = t.observe(summary=text)
        m = t.remember([o], summary=text)
        r = t.recall([m], summary=text)
        a = t.act([r], trigger="self", form="execution" if n % 2 else "communication", summary=text)
        if n % 3:
            t.outcome(a, summary=text)
        ids.append(t.revise([o], target=one_line(text)[:200], made_by="agent", governance="none", summary=text))
    return t


def sections(tokens) -> dict[str, list]:
    """Tokens per level-2 heading, in document order."""
    out: dict[str, list] = {}
    current = None
    skip = 0
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2":
            current, skip = tokens[i + 1].content, 2
            out[current] = []
        elif skip:
            skip -= 1
        elif current is not None:
            out[current].append(tok)
    return out


def table_shapes(tokens) -> list[list[int]]:
    """Cells per row for each table."""
    shapes, rows, cells = [], None, 0
    for tok in tokens:
        if tok.type == "table_open":
            rows = []
        elif tok.type == "tr_open":
            cells = 0
        elif tok.type in ("th_open", "td_open"):
            cells += 1
        elif tok.type == "tr_close":
            rows.append(cells)
        elif tok.type == "table_close":
            shapes.append(rows)
    return shapes


def inline_texts(tokens) -> list[str]:
    """Plain text of every inline token (entities and escapes decoded)."""
    out = []
    for tok in tokens:
        if tok.type == "inline":
            out.append("".join(c.content for c in tok.children if c.type in ("text", "code_inline")))
    return out


def assert_well_formed(text: str) -> list:
    tokens = MD.parse(text)
    assert [t.content for i, t in enumerate(tokens) if i and tokens[i - 1].type == "heading_open" and tokens[i - 1].tag == "h1"] \
        == [tokens[1].content]
    h2 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert h2 == list(SECTIONS)
    h3 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag not in ("h1", "h2")]
    assert h3 in ([], ["Accepted"])
    for shape in table_shapes(tokens):
        assert len(set(shape)) == 1 and len(shape) >= 2, shape
    return tokens


def all_children(tokens):
    for tok in tokens:
        yield tok
        yield from tok.children or ()


# --- structure ------------------------------------------------------------------------


def test_sections_in_order_and_tables_rectangular():
    t = Trace("day1")
    o = t.observe()
    m = t.remember([o])
    r = t.recall([m], session="day2")
    a = t.act([o, r], trigger="self", form="execution", session="day2")
    t.revise([a], made_by="agent", governance="none", session="day2")
    d = diagnose(t.events, agent="a", branch="main", head="0123456789abcdef" * 2 + "01234567")
    text = render_report(d)
    tokens = assert_well_formed(text)
    assert tokens[1].content == "HALO report: a"
    assert "0123456789ab" in text and "0123456789abc" not in text  # short head id, cited once per place
    parts = sections(tokens)
    [sessions] = table_shapes(parts["Boundary and evidence"])
    assert sessions == [6] * 3  # header and two sessions
    assert "Events in scope: 5, from e1 to e5: 1 observe, 1 remember, 1 recall, 1 act, 1 revise" in inline_texts(parts["Boundary and evidence"])
    assert table_shapes(parts["Channels"]) == []  # few events: channels and metrics on one line each
    said = " ".join(inline_texts(parts["Channels"]))
    assert "S→M 1, S→A 1, M→M 1, M→A 1, A→R 1" in said
    assert "outcome coverage of acts (silence exempt) 0% (0/1); memories read back (recalled or used) 100% (1/1)" in said
    assert "revisions governed (approved or bounded) 0% (0/1); self-initiated acts 100% (1/1)." in said
    [self_acts] = table_shapes(parts["Actions"])
    assert self_acts == [5] * 2 and "1 self execution" in " ".join(inline_texts(parts["Actions"]))
    texts = inline_texts(parts["Behavioral-authority paths"])
    assert "e2 remember → e3 recall → e4 act" in texts  # the decisive chain: back to day1's memory
    assert "e2 remember → e3 recall → e4 act → e5 revise" in texts


def test_summary_opens_the_report_with_grouped_quoted_issues():
    t = Trace("day1")
    o = t.observe(summary="user asked for the weekly digest")
    draft = t.act([o], form="preparation", summary="drafted the digest")
    t.outcome(draft, summary="the digest was wrong about Tuesday")
    kept = t.remember([draft], summary="kept the digest draft")
    t.observe(session="day2", summary="Monday: digest due")
    send = t.act(["e5", t.recall([kept], session="day2")], form="execution", session="day2", summary="mailed the digest to the team")
    t.outcome(send, session="day2", summary="mail sent")
    t.revise(["e5"], made_by="agent", governance="none", target="digest schedule", session="day2")
    text = render_report(t.diagnose())
    parts = sections(assert_well_formed(text))
    summary = " ".join(inline_texts(parts["Summary"]))
    assert text.index("## Summary") < text.index("## Channels")
    first = inline_texts(parts["Summary"])[1]
    assert first.startswith("HALO-A4 retained-material-drives-act (high, 1 finding). e7 act “mailed the digest to the team”:")
    assert "e4 remember “kept the digest draft”" in first and "Why it matters:" in first and "Next step:" in first
    assert "On the same chain: HALO-M7 failed-material-retained (medium) on e4 remember “kept the digest draft”" in first
    assert "HALO-R1 ungoverned-self-revision (high" in summary
    assert 3 <= len([tok for tok in parts["Summary"] if tok.type == "list_item_open" and tok.level == 1]) <= 7  # 3–7 issues


def test_every_section_says_when_it_has_nothing():
    text = render_report(diagnose([], agent="a", branch="main", head=None))
    parts = sections(assert_well_formed(text))
    said = {name: " ".join(inline_texts(toks)) for name, toks in parts.items()}
    assert "Events in scope: none" in said["Boundary and evidence"]
    assert said["Summary"] == "No events, so no finding."
    for name in SECTIONS[2:9]:
        assert said[name] == "Nothing in this scope.", name
    assert "No open finding: no rule fired on this scope." in said["Findings"]
    assert "Self-report" in said["Limitations and checks"]
    assert len(text.splitlines()) < 60


def test_small_trace_sections_collapse_and_say_only_true_things():
    t = Trace()
    o = t.observe()
    a = t.act([o])
    t.outcome(a, summary="user said thanks")
    text = render_report(t.diagnose())
    said = {n: " ".join(inline_texts(toks)) for n, toks in sections(MD.parse(text)).items()}
    assert said["Write side"] == "No memory was written in this scope."
    assert said["Read-back"] == "No memory was kept or recalled in this scope."
    assert said["Mechanism"].startswith("No revision was logged in this scope")
    assert said["Behavioral-authority paths"].startswith("No execution, no self-initiated act, no revision")
    assert "No open finding: no rule fired on this scope." in said["Findings"]
    assert "approved or bounded" not in text  # it made no revision: no sentence about its revisions
    assert len(text.splitlines()) < 72  # it was 135 for five events


def test_clean_sections_say_no_problem():
    t = Trace()
    o = t.observe()
    m = t.remember([o])
    r = t.recall([m])
    a = t.act([o, r])
    t.revise([t.outcome(a)], made_by="user", governance="approved")
    said = {n: " ".join(inline_texts(toks)) for n, toks in sections(MD.parse(render_report(t.diagnose()))).items()}
    assert "Every memory names what it keeps." in said["Write side"]
    assert "No recall crossed sessions." in said["Read-back"]
    assert "No act was self-initiated" in said["Actions"]
    assert "No open loop" in said["Outcomes"]
    assert "No ungoverned self-revision: the user made every revision in this scope." in said["Mechanism"]
    assert "No open finding: no rule fired on this scope." in said["Findings"]


def test_findings_are_listed_one_by_one_when_few():
    t = Trace()
    o = t.observe()
    t.revise([o], made_by="agent", governance="none", target="tone", summary="made the tone *casual*")
    t.act([], trigger="self", form="execution", summary="deleted old drafts")
    parts = sections(MD.parse(render_report(t.diagnose())))
    texts = inline_texts(parts["Findings"])
    assert texts[0].startswith("3 open findings under 3 rules: 2 high, 1 medium, 0 low, 0 info")
    assert texts[1].startswith("high HALO-A1 self-initiated-execution: e3 act “deleted old drafts”: Executed on its own")
    assert "Why it matters:" in texts[1] and "Next step:" in texts[1]
    assert texts[2].startswith("high HALO-R1 ungoverned-self-revision: e2 revise “made the tone *casual*”")


def test_findings_at_scale_group_by_rule_and_never_hide_a_rule():
    events = synthetic_events(2_000)
    d = diagnose(events, agent="bench", branch="main", head="ab" * 20)
    text = render_report(d)
    lines = text.splitlines()
    assert len(lines) < 2_500
    first = next(n for n, line in enumerate(lines, 1) if re.match(r"1\. \*\*HALO-", line))
    assert first <= 60
    findings = text.split("## Findings")[1]
    for rule in {f.rule for f in d.findings}:
        assert f"| {rule} " in findings and f"**{rule} " in findings, rule
    [groups] = table_shapes(sections(MD.parse(text))["Findings"])
    assert len(groups) == 1 + len({(f.rule, f.severity) for f in d.findings})


def test_accepted_findings_are_listed_apart_with_their_reason():
    t = Trace()
    o = t.observe()
    t.revise([o], made_by="agent", governance="none", target="tone")
    t.act([o], trigger="self", form="execution")
    d = t.diagnose()
    r1 = next(f for f in d.findings if f.rule == "HALO-R1")
    text = render_report(d, accepted=[(r1, "the user signed off in the <weekly> review")])
    tokens = assert_well_formed(text)
    parts = sections(tokens)
    said = " ".join(inline_texts(parts["Findings"]))
    assert said.startswith("1 open finding under 1 rule: 1 high, 0 medium, 0 low, 0 info.")
    assert "1 accepted finding is listed apart under Accepted." in said
    assert "Accepted: the user signed off in the <weekly> review" in said
    assert "HALO-R1" not in " ".join(inline_texts(parts["Summary"]))  # accepted: out of the Summary
    only = render_report(d, accepted=[(f, "ok") for f in d.findings])
    assert "No open finding on this scope (2 accepted findings listed under Findings)" in only


# --- escaping ----------------------------------------------------------------------------


class _Html(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_escape_md_plain_cases():
    assert escape_md("9:30 and 09:30:00Z") == "9:30 and 09:30:00Z"
    assert escape_md("a|b") == "a&#124;b"
    assert escape_md("x\ny") == "x\\\\ny"
    assert escape_md(":rocket:") == "&#58;rocket:"
    assert safe_url("trace/day 2 (x).md#e1") == "trace/day%202%20%28x%29.md#e1"
    assert md_link("e<1>", "a b") == "[e&lt;1&gt;](a%20b)"


@pytest.mark.parametrize("text", HOSTILE)
def test_escape_md_renders_literally_in_both_renderers(text):
    cell = escape_md(text)
    src = f"| h |\n|---|\n| {cell} |\n\nbefore {cell} after\n"
    tokens = MD.parse(src)
    assert table_shapes(tokens) == [[1, 1]]
    assert not [t for t in all_children(tokens) if t.type in ("html_inline", "html_block", "link_open", "image", "s_open", "em_open", "strong_open", "code_inline")]
    assert inline_texts(tokens) == ["h", one_line(text), f"before {one_line(text)} after"]
    html = _Html()
    html.feed(markdown.markdown(src, extensions=MKDOCS_EXTENSIONS))
    assert [tag for tag, _ in html.tags] == ["table", "thead", "tr", "th", "tbody", "tr", "td", "p"]
    assert all(not attrs for _, attrs in html.tags)
    assert "".join(html.text).count(one_line(text)) == 2


def test_hostile_trace_report_is_structurally_intact():
    t = hostile_trace()
    for session in ("", "s|<b>*1*"):
        text = render_report(diagnose(t.events, agent="a", branch="main", head="ab" * 20, session=session))
        tokens = assert_well_formed(text)
        assert not [x for x in all_children(tokens) if x.type in ("html_inline", "html_block", "link_open", "image")]
        texts = "\n".join(inline_texts(tokens))
        for s in HOSTILE:
            assert one_line(s) in texts
        assert "s|<b>*1*" in texts
        html = _Html()
        html.feed(markdown.markdown(text, extensions=MKDOCS_EXTENSIONS))
        assert {tag for tag, _ in html.tags} <= {"h1", "h2", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "strong", "em", "code"}
        allowed = {"th": {"style"}, "td": {"style"}, "h1": {"id"}, "h2": {"id"}}
        assert all(set(attrs) <= allowed.get(tag, set()) for tag, attrs in html.tags)
        assert {a.get("style") for tag, a in html.tags if tag in ("th", "td")} <= {None, "text-align: right;"}
        page = "".join(html.text)
        for s in HOSTILE:
            assert one_line(s) in page


# --- links ----------------------------------------------------------------------------------


def test_links_wrap_every_cited_id():
    t = Trace("day1")
    o = t.observe()
    m = t.remember([o])
    r = t.recall([m], session="day 2")
    a = t.act([t.observe(session="day 2"), r], trigger="self", session="day 2")
    t.outcome(a, session="day 2")
    d = t.diagnose("day 2")

    def link(i: str) -> str:
        return f"trace/{d.evidence[i].session}.md#{i}"

    text = render_report(d, link)
    tokens = assert_well_formed(text)
    hrefs, outside_link = set(), []
    for tok in tokens:
        depth = 0
        for c in tok.children or ():
            if c.type == "link_open":
                depth += 1
                hrefs.add(c.attrs["href"])
            elif c.type == "link_close":
                depth -= 1
            elif c.type == "text" and not depth:
                outside_link += ID_RE.findall(c.content)
    assert outside_link == []
    assert hrefs == {f"trace/{'day%202' if i != 'e2' else 'day1'}.md#{i}" for i in ("e2", "e3", "e4", "e5", "e6")}
    assert "[e2](trace/day1.md#e2)†" in text  # the memory of another session, marked outside the scope


def test_without_link_no_links_at_all():
    text = render_report(hostile_trace().diagnose())
    assert not [x for x in all_children(MD.parse(text)) if x.type == "link_open"]


# --- caps, determinism, scale ----------------------------------------------------------------


def test_long_tables_are_cut_and_say_so():
    t = Trace()
    o = t.observe()
    for _ in range(120):
        t.remember([o])
    t.observe()
    text = render_report(t.diagnose(), max_rows=50)
    parts = sections(assert_well_formed(text))
    shapes = table_shapes(parts["Write side"])
    assert len(shapes[1]) == 51  # header and 50 memories
    said = " ".join(inline_texts(parts["Write side"]))
    assert "70 more rows not listed" in said
    assert "and 70 more" in " ".join(inline_texts(parts["Read-back"]))  # never-read-back list
    assert "left out here" in " ".join(inline_texts(parts["Limitations and checks"]))
    assert "120 open findings under 1 rule" in " ".join(inline_texts(parts["Findings"]))


def test_same_trace_same_bytes_across_roots(tmp_path):
    sys.path.insert(0, str(DOCS))
    try:
        import gen_report_example as story
    finally:
        sys.path.remove(str(DOCS))
    reports = []
    for name in ("one", "two"):
        with Halo(tmp_path / name) as h:
            story.build(h)
            reports.append((h.report("demo"), h.report("demo", session="day2")))
            assert h.report("demo") == reports[-1][0]
    assert reports[0] == reports[1]
    whole, day2 = reports[0]
    assert whole != day2 and "session day2" in day2
    head = h.event_log("demo").head
    assert f"`{head[:12]}`" in whole


def test_docs_page_is_up_to_date():
    sys.path.insert(0, str(DOCS))
    try:
        import gen_report_example as gen
    finally:
        sys.path.remove(str(DOCS))
    page = (DOCS / "report.md").read_text(encoding="utf-8")
    assert gen.render_page(page) == page, "run: python docs/gen_report_example.py"
    for section in SECTIONS:
        assert f"### {section}" in page  # described, and shown in the example


@pytest.mark.slow
def test_report_of_100k_events_grows_linearly_and_is_capped():
    """The 5 s figure is the benchmark's (bench/bench_report.py); a wall-clock bound here
    only measures how busy the runner is. What a test can hold on any runner: ten times
    the events costs some ten to twenty times the time, timed side by side in one
    process (a quadratic reading would cost a hundred and more), and the page stays
    capped."""
    import time

    def timed(n):
        events = synthetic_events(n)
        t0 = time.perf_counter()
        text = render_report(diagnose(events, agent="bench", branch="main", head="ab" * 20))
        return time.perf_counter() - t0, text

    small = min(timed(10_000)[0] for _ in range(2))
    elapsed, text = timed(100_000)
    assert elapsed / small < 50, (elapsed, small)  # 15 measured on a quiet machine
    assert len(text) < 200_000 and len(text.splitlines()) < 2_500
    assert_well_formed(text)


def test_accepted_findings_from_the_accept_file_render_apart():
    from halo_git.accept import Accepted, accepted_for

    t = Trace()
    o = t.observe()
    t.revise([o], made_by="agent", governance="none", target="tone", summary="made replies casual")
    t.act([o], trigger="self", form="execution", summary="archived old mail")
    d = t.diagnose()
    pairs = accepted_for(d, [Accepted("HALO-R1", "made replies casual", "owner approved it", "Jane")])
    assert [f.rule for f, _ in pairs] == ["HALO-R1"]
    text = render_report(d, accepted=pairs)
    findings = text.split("## Findings")[1]
    assert "1 open finding under 1 rule" in findings and "### Accepted" in findings
    assert "owner approved it" in findings.split("### Accepted")[1]
    assert "HALO-R1" not in text.split("## Summary")[1].split("## Channels")[0]
