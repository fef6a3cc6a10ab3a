"""History of one event, blame of a target, beliefs in force: a hand-computed
30-event trace read through the real CLI (text and JSON), and the demo."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from halo_git import Halo
from halo_git import lineage

from tests.conftest import run_cli

AGENT = "reports"
T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)

# (session, kind, summary, uses, fields) -- e1..e30; the expected answers below are worked out by hand
STORY = [
    ("s1", "observe", "user asked for a weekly report on Mondays", [], {}),
    ("s1", "remember", "report due Mondays", ["e1"], {}),
    ("s1", "recall", "looked up the report day", ["e2"], {}),
    ("s1", "act", "drafted the report outline", ["e3"], {"trigger": "request", "form": "preparation"}),
    ("s1", "outcome", "user liked the outline", [], {"about": "e4"}),
    ("s1", "remember", "user likes short outlines", ["e5"], {}),
    ("s1", "revise", "keep reports short", ["e6"], {"target": "report style", "made_by": "agent", "governance": "none"}),
    ("s1", "observe", "user: please include charts", [], {}),
    ("s1", "remember", "include charts in reports", ["e8", "e2"], {}),
    ("s1", "revise", "approved short reports", ["e7"], {"target": "report style", "made_by": "user", "governance": "approved"}),
    ("s2", "recall", "looked up the report preferences", ["e9", "e6"], {}),
    ("s2", "act", "sent the report with charts", ["e11", "e7"], {"trigger": "self", "form": "execution"}),
    ("s2", "outcome", "user said the charts were wrong", [], {"about": "e12"}),
    ("s2", "revise", "add a chart check step", ["e13"], {"target": "report style", "made_by": "agent", "governance": "none"}),
    ("s2", "observe", "user: stop sending on Mondays, use Tuesdays", [], {}),
    ("s2", "remember", "withdraw: the report is no longer due Mondays", ["e15", "e9"], {}),
    ("s2", "remember", "report due Tuesdays", ["e15"], {}),
    ("s2", "recall", "looked up the report day again", ["e17"], {}),
    ("s2", "act", "scheduled the Tuesday report", ["e18"], {"trigger": "request", "form": "execution"}),
    ("s2", "outcome", "the schedule is confirmed", [], {"about": "e19"}),
    ("s3", "revise", "send reports on Tuesdays within working hours", ["e20"], {"target": "schedule policy", "made_by": "agent", "governance": "bounded"}),
    ("s3", "observe", "user asked for a summary line", [], {}),
    ("s3", "remember", "add a summary line at the top", ["e22"], {}),
    ("s3", "revise", "add the summary line to the report style", ["e23", "e14"], {"target": "Report  Style", "made_by": "user", "governance": "none"}),
    ("s3", "recall", "looked up the report style", ["e24", "e23"], {}),
    ("s3", "act", "told the user about the new style", ["e25"], {"trigger": "self", "form": "communication"}),
    ("s3", "outcome", "user acknowledged", [], {"about": "e26"}),
    ("s3", "revise", "approved the summary line", ["e24"], {"target": "report style", "made_by": "user", "governance": "approved"}),
    ("s3", "recall", "re-read the Tuesday schedule", ["e17"], {}),
    ("s3", "act", "sent the Tuesday report", ["e29", "e21"], {"trigger": "request", "form": "execution"}),
]


def at(n: int) -> str:
    return (T0 + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def story(root):
    with Halo(root, screen=None) as h:
        for n, (session, kind, summary, uses, fields) in enumerate(STORY, 1):
            h.log(AGENT, kind, summary, uses=uses, session=session, time=at(n), **fields)
    return root


def cli_json(root, *args, agent=AGENT):
    r = run_cli(*args, "--agent", agent, "--format", "json", root=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def shape(nodes):
    """A rests-on tree as nested (id, children) pairs; a repeated event as (id, 'seen')."""
    return [(n["id"], "seen") if n.get("seen") else (n["id"], shape(n["rests_on"])) for n in nodes]


def test_history_tree_what_rests_on_it_versions_and_approvals(story):
    h = cli_json(story, "history", "e14")
    assert h["event"]["id"] == "e14" and h["event"]["uses"] == ["e13"] and len(h["event"]["commit"]) == 40
    assert shape(h["rests_on"]) == [
        ("e13", [("e12", [
            ("e11", [("e9", [("e8", []), ("e2", [("e1", [])])]), ("e6", [("e5", [("e4", [("e3", [("e2", "seen")])])])])]),
            ("e7", [("e6", "seen")]),
        ])]),
    ]
    assert [(n["id"], n["via"]) for n in h["rested_on_by"]] == [("e24", "e14"), ("e25", "e24"), ("e26", "e25"), ("e27", "e26"), ("e28", "e24")]
    assert [v["id"] for v in h["target_versions"]] == ["e7", "e14", "e24"]
    assert h["approvals"] == []
    assert h["rests_on"][0]["rests_on"][0]["rests_on"][1]["made_by"] == "agent"  # who made each revision in the tree
    # e7: approved by e10 (the agent's account: claimed); used later by e12 and e10
    h7 = cli_json(story, "history", "e7")
    assert [(a["id"], a["approval"]) for a in h7["approvals"]] == [("e10", "claimed")]
    assert [n["id"] for n in h7["rested_on_by"]][:3] == ["e10", "e12", "e13"]
    assert h["seals"] == []
    sealed = run_cli("seal", "--agent", AGENT, root=story)
    assert sealed.returncode == 0, sealed.stderr
    seals = cli_json(story, "history", "e14")["seals"]
    assert [(s["events"], s["on_branch"]) for s in seals] == [(30, True)]
    with Halo(story, screen=None) as hh:
        hh.log(AGENT, "observe", "one more", session="s3", time=at(31))
    assert cli_json(story, "history", "e31")["seals"] == [] and len(cli_json(story, "history", "e30")["seals"]) == 1
    text = run_cli("history", "--agent", AGENT, "e14", root=story).stdout
    assert text.splitlines()[0] == "e14 [s2] revise: add a chart check step"
    assert "seals: e30-" in text
    assert "      - e2 [s1] remember: report due Mondays (see above)" in text
    assert "  - e28 [s3] revise: approved the summary line (via e24)" in text


def test_blame_lists_each_version(story):
    b = cli_json(story, "blame", "--target", "REPORT style")
    assert b["target"] == "report style"
    rows = [(v["version"], v["id"], v["made_by"], v["governance"], v["approval"], v["approved_by"], v["used_by"], v["in_force"]) for v in b["versions"]]
    assert rows == [
        (1, "e7", "agent", "none", "claimed", ["e10"], ["e12"], False),
        (2, "e14", "agent", "none", "none", [], ["e24"], False),
        (3, "e24", "user", "none", "claimed", ["e28"], ["e25"], True),
    ]
    text = run_cli("blame", "--agent", AGENT, "--target", "report style", root=story).stdout.splitlines()
    assert text[0] == "report style: 3 version(s) on branch 'main'"
    assert text[3].startswith("v3 e24 ") and "approval=claimed by e28; used by e25 (in force)" in text[3]
    r = run_cli("blame", "--agent", AGENT, "--target", "nothing", root=story)
    assert r.returncode == 1 and "no revision of target 'nothing'" in r.stderr and "report style" in r.stderr


def test_beliefs_in_force_at_head_and_at_a_point(story):
    b = cli_json(story, "beliefs")
    assert b["at"] == "e30"
    assert [(m["id"], m["age"], m["last_read"], m["read_by"], m["reviewed"]) for m in b["memories"]] == [
        ("e16", "14h", None, [], False),
        ("e17", "13h", "e29", ["e18", "e29"], False),
    ]
    assert [(r["id"], r["target"], r["approval"], r["approved_by"], r["last_read"], r["age"]) for r in b["rules"]] == [
        ("e21", "schedule policy", "none", [], "e30", "9h"),
        ("e24", "Report  Style", "claimed", ["e28"], "e28", "6h"),
    ]
    assert b["withdrawn"] == [{"id": "e9", "by": "e16"}]
    early = cli_json(story, "beliefs", "--at", "e12")
    assert [(m["id"], m["last_read"], m["age"]) for m in early["memories"]] == [("e9", "e11", "3h")]
    assert [(r["id"], r["approval"], r["last_read"]) for r in early["rules"]] == [("e7", "claimed", "e12")]
    with Halo(story) as h:
        commit = h.event_log(AGENT).commits[11]
    assert cli_json(story, "beliefs", "--at", commit[:10])["memories"] == early["memories"]
    text = run_cli("beliefs", "--agent", AGENT, root=story).stdout.splitlines()
    assert text[0] == f"beliefs in force at e30 ({at(30)})"
    assert "  - e17 [s2] report due Tuesdays (age 13h, last read e29, not reviewed)" in text
    r = run_cli("beliefs", "--agent", AGENT, "--at", "e31", root=story)
    assert r.returncode == 1 and "no event e31" in r.stderr


def test_bad_calls_get_one_message(story):
    r = run_cli("history", "--agent", AGENT, "e99", root=story)
    assert r.returncode == 1 and "no event e99" in r.stderr and "e1..e30" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("history", "--agent", AGENT, "E3", root=story)
    assert r.returncode == 2 and "ids look like e1" in r.stderr
    r = run_cli("history", "--agent", "nobody", "e1", root=story)
    assert r.returncode == 1 and "Traceback" not in r.stderr


def test_on_the_demo(tmp_path):
    root = tmp_path / "demo"
    assert run_cli("demo", root=root).returncode == 0
    h = cli_json(root, "history", "e13", agent="demo")
    assert h["event"]["summary"] == "remind 50 minutes before appointments instead of at a fixed hour"
    assert shape(h["rests_on"]) == [("e11", [("e10", [("e8", []), ("e9", [("e2", [("e1", [])]), ("e6", [("e5", [])])])])])]
    assert [(n["id"], n["via"]) for n in h["rested_on_by"]] == [("e18", "e13"), ("e19", "e18"), ("e20", "e13")]
    assert [v["id"] for v in h["target_versions"]] == ["e7", "e13"]  # e20 approves e13 (it names the user's answer, e19)
    assert [(a["id"], a["approval"]) for a in h["approvals"]] == [("e20", "claimed")]
    b = cli_json(root, "beliefs", agent="demo")
    assert [m["id"] for m in b["memories"]] == ["e2", "e17"]  # e6 became the rule e7
    assert [(r["id"], r["approval"], r["approved_by"]) for r in b["rules"]] == [("e13", "claimed", ["e20"])]
    blame = cli_json(root, "blame", "--target", "reminder timing rule", agent="demo")
    assert [(v["id"], v["approved_by"]) for v in blame["versions"]] == [("e7", []), ("e13", ["e20"])]  # the same rule as history


def test_pure_functions_need_no_git():
    from halo_git.model import Event

    events = [
        Event("e1", "observe", "a", "s", at(1), "seen"),
        Event("e2", "remember", "a", "s", at(2), "kept", ("e1",)),
        Event("e3", "remember", "a", "s", at(3), "forget that: kept no longer holds", ("e2",)),
    ]
    g = lineage.Graph(events)
    assert [n["id"] for n in lineage.history(g, "e1")["rested_on_by"]] == ["e2", "e3"]
    b = lineage.beliefs(events)
    assert [m["id"] for m in b["memories"]] == ["e3"] and b["withdrawn"] == [{"id": "e2", "by": "e3"}]


def test_mcp_resources_history_and_beliefs(story):
    """Through the official MCP client over stdio: the same JSON the CLI prints."""
    import anyio
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from halo_git.mcp_resources import BELIEFS, HISTORY
    from tests.conftest import server_params

    async def main():
        async with Client(server_params(story, "--agent", AGENT)) as c:
            templates = {t.uri_template: t for t in (await c.list_resource_templates()).resource_templates}
            assert templates[HISTORY].mime_type == templates[BELIEFS].mime_type == "application/json"
            history = (await c.read_resource(f"halo://agents/{AGENT}/events/e14/history")).contents[0]
            beliefs = (await c.read_resource(f"halo://agents/{AGENT}/beliefs")).contents[0]
            with pytest.raises(MCPError, match="no event e99"):
                await c.read_resource(f"halo://agents/{AGENT}/events/e99/history")
            return json.loads(history.text), json.loads(beliefs.text)

    history, beliefs = anyio.run(main)
    assert history == cli_json(story, "history", "e14")
    assert beliefs == cli_json(story, "beliefs")


def test_site_beliefs_page_in_the_agent_bar_and_notes_on_event_entries(story, tmp_path):
    """A real mkdocs build (strict: every link checked): the Beliefs page lists what is in force;
    memory and rule entries on the trace say whether they are in force or what replaced them."""
    out = tmp_path / "out"
    r = run_cli("site", "--out", str(out), "--agent", AGENT, root=story)
    assert r.returncode == 0, r.stderr
    page = (out / f"agents/{AGENT}/beliefs.html").read_text(encoding="utf-8")
    assert "Beliefs of reports" in page and "report due Tuesdays" in page and "withdraw: the report is no longer due Mondays" in page
    assert "include charts in reports" not in page.split("Withdrawn")[0]  # e9 was withdrawn by e16
    bar = re.search(r'<p class="halo-agent-bar"[^>]*>(.*?)</p>', page, re.S).group(1)
    assert "<strong>Beliefs</strong>" in bar
    overview = (out / f"agents/{AGENT}/index.html").read_text(encoding="utf-8")
    assert 'href="beliefs.html">Beliefs</a>' in re.search(r'<p class="halo-agent-bar"[^>]*>(.*?)</p>', overview, re.S).group(1)
    trace = "".join(p.read_text(encoding="utf-8") for p in (out / f"agents/{AGENT}/trace").rglob("*.html"))
    assert re.search(r'belief: superseded by <a href="[^"]*#e16">e16</a>', trace)
    assert re.search(r'belief: in force at the head \(<a href="[^"]*beliefs\.html">Beliefs</a>\)', trace)


def test_a_long_chain_keeps_every_ancestor_without_recursion():
    """3,000 events each naming the one before: the tree stops at MAX_DEPTH levels and says
    so, the flat ancestry holds all 2,999, and the JSON and the text are built."""
    from halo_git.model import Event

    events = [Event("e1", "observe", "a", "s", at(1), "first")]
    events += [Event(f"e{i}", "remember", "a", "s", at(1), f"step {i}", (f"e{i - 1}",)) for i in range(2, 3001)]
    h = lineage.history(lineage.Graph(events), "e3000")
    assert len(h["ancestry"]) == 2999 and h["ancestry"][:2] == ["e1", "e2"]
    node, depth = h["rests_on"][0], 1
    while node["rests_on"]:
        node, depth = node["rests_on"][0], depth + 1
    assert (depth, node["id"], node.get("deeper")) == (lineage.MAX_DEPTH, f"e{3000 - lineage.MAX_DEPTH}", True)
    assert json.loads(json.dumps(h))["event"]["id"] == "e3000"
    assert any("(rests on more: see ancestry)" in line for line in lineage.history_lines(h))
    assert [n["id"] for n in lineage.history(lineage.Graph(events), "e1")["rested_on_by"]][-1] == "e3000"
