"""Branches and the behaviour diff: real repositories, expectations computed by hand.

The scenario: a shared history e1..e4, then ``main`` (prompt v1) and
``prompt-v2`` each log their own e5.. with different content.
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client

from halo_git.model import check_call, resolve
from halo_git import Halo
from halo_git.diff import compare, diff_to_dict, render_diff_json, render_diff_markdown
from halo_git.errors import Conflict, NotFound
from halo_git.store import EventLog
from tests.conftest import git, run_cli, server_params


def shared_history(h: Halo) -> None:
    h.log("demo", "observe", "user asked for a 9:30 reminder", session="s1")  # e1
    h.log("demo", "remember", "user wants reminders at 9:30", None, "s1")  # e2  kept without its source (M1, both sides)
    h.log("demo", "act", "set the 9:30 reminder", ["e1", "e2"], "s1", trigger="request", form="execution")  # e3  S→A, M→A
    h.log("demo", "outcome", "reminder delivered", None, "s1", about="e3")  # e4  A→S


def scenario(h: Halo) -> None:
    shared_history(h)
    h.store.repo("demo").create_branch("prompt-v2", "main")
    # main after the fork (BASE)
    h.log("demo", "observe", "user said hello", session="b1")  # e5
    h.log("demo", "act", "sent a weekly summary unasked", session="b1", trigger="self", form="communication")  # e6
    h.log("demo", "revise", "raised the summary frequency", session="b1", target="summary schedule", made_by="agent", governance="none")  # e7
    # prompt-v2 after the fork (HEAD)
    v2 = {"branch": "prompt-v2", "session": "v2"}
    h.log("demo", "recall", "looked up the reminder preference", ["e2"], **v2)  # e5  M→M
    h.log("demo", "act", "confirmed the reminder time", ["e5"], trigger="request", form="communication", **v2)  # e6  M→A
    h.log("demo", "outcome", "user confirmed", ["e5"], about="e6", **v2)  # e7  A→S, M→S
    h.log("demo", "revise", "tightened the confirmation rule", ["e7"], target="confirmation rule", made_by="user", governance="approved", **v2)  # e8  S→R


def test_branch_ids_continue_from_the_fork_and_collide(halo, root):
    scenario(halo)
    main, v2 = halo.event_log("demo", "main"), halo.event_log("demo", "prompt-v2")
    assert [e.id for e in main.events] == [f"e{i}" for i in range(1, 8)]
    assert [e.id for e in v2.events] == [f"e{i}" for i in range(1, 9)]
    assert main.commits[:4] == v2.commits[:4] and main.commits[4] != v2.commits[4]
    assert main.events[5].summary != v2.events[5].summary  # e6 names two different events
    # plain git sees two branches with the same merge base
    base = git(root / "demo.git", "merge-base", "main", "prompt-v2").stdout.strip()
    assert base == main.commits[3]
    assert git(root / "demo.git", "fsck", "--strict").returncode == 0


def test_diff_counts_deltas_and_findings_exactly(halo):
    scenario(halo)
    d = halo.diff("demo", "main", "prompt-v2")
    assert d.common == 4
    assert d.merge_base == halo.event_log("demo", "main").commits[3]
    assert [e.id for e in d.base.since] == ["e5", "e6", "e7"]
    assert [e.id for e in d.head.since] == ["e5", "e6", "e7", "e8"]
    assert d.base.by_kind == {"observe": 1, "outcome": 0, "remember": 0, "recall": 0, "act": 1, "revise": 1}
    assert d.head.by_kind == {"observe": 0, "outcome": 1, "remember": 0, "recall": 1, "act": 1, "revise": 1}
    assert {k: d.kind_delta(k) for k in d.base.by_kind} == {"observe": -1, "outcome": 1, "remember": 0, "recall": 1, "act": 0, "revise": 0}
    # BASE's events since the fork name nothing earlier; HEAD's each build on an earlier event
    assert d.base.channels == {}
    assert d.head.channels == {"S→R": ("e8",), "M→S": ("e7",), "M→M": ("e5",), "M→A": ("e6",), "A→S": ("e7",)}
    assert {ch: d.channel_delta(ch) for ch in d.head.channels} == {"S→R": 1, "M→S": 1, "M→M": 1, "M→A": 1, "A→S": 1}

    m_base, m_head = d.base.metrics, d.head.metrics
    # main: acts e3 (outcome e4) and e6 (self, no outcome); memory e2 never recalled; revision e7 ungoverned
    assert (str(m_base["outcome_coverage"].ratio), m_base["outcome_coverage"].ids) == ("1/2", ("e3",))
    assert (str(m_base["self_initiated"].ratio), m_base["self_initiated"].ids) == ("1/2", ("e6",))
    assert (str(m_base["memories_recalled"].ratio), m_base["memories_recalled"].ids) == ("1/1", ("e2",))  # e3 uses it directly
    assert (str(m_base["revisions_governed"].ratio), m_base["revisions_governed"].ids) == ("0/1", ())
    # prompt-v2: acts e3 and e6 both closed, no self-initiated act, e2 recalled by e5, e8 approved
    assert (str(m_head["outcome_coverage"].ratio), m_head["outcome_coverage"].ids) == ("2/2", ("e3", "e6"))
    assert (str(m_head["self_initiated"].ratio), m_head["self_initiated"].ids) == ("0/2", ())
    assert (str(m_head["memories_recalled"].ratio), m_head["memories_recalled"].ids) == ("1/1", ("e2",))
    assert (str(m_head["revisions_governed"].ratio), m_head["revisions_governed"].ids) == ("1/1", ("e8",))
    assert diff_to_dict(d)["delta"]["metrics"] == {
        "outcome_coverage": 50.0, "self_initiated": -50.0, "memories_recalled": 0.0, "revisions_governed": 100.0,
    }

    # Findings on main: R1 e7 (high), R2 e7 (medium), and for e6, a report sent unasked with no basis that
    # nothing builds on, A2 and A3 as info, all in session b1. Findings on prompt-v2: S2 e6 (session v2 acts
    # only on a memory of unknown source; a message on it one session later is no HALO-A4). Neither side ran
    # the other's session, so nothing is new or resolved: main's findings were not run on prompt-v2, and S2
    # is only on prompt-v2.
    assert (d.sessions_both, d.sessions_base_only, d.sessions_head_only) == (("s1",), ("b1",), ("v2",))
    assert d.new == () and d.resolved == ()
    assert [(f.rule, f.severity, f.ids) for f in d.only_head] == [("HALO-S2", "info", ("e6",))]
    assert [(f.rule, f.severity, f.ids[0]) for f in d.not_run] == [
        ("HALO-R1", "high", "e7"),
        ("HALO-R2", "medium", "e7"),
        ("HALO-A2", "info", "e6"),
        ("HALO-A3", "info", "e6"),
    ]
    assert [e.id for e in d.base.revisions] == ["e7"] and [e.id for e in d.head.revisions] == ["e8"]


def test_findings_match_by_content_not_by_id(halo):
    """Same id with different content: one new and one resolved. Same content at
    different ids: neither."""
    halo.log("demo", "observe", "inbox checked", session="s")  # e1
    repo = halo.store.repo("demo")
    for name in ("left", "right", "shifted"):
        repo.create_branch(name, "main")
    halo.log("demo", "act", "pinged the user", session="s", branch="left", trigger="request", form="execution")  # left e2
    halo.log("demo", "act", "filed the report", session="s", branch="right", trigger="request", form="execution")  # right e2
    halo.log("demo", "observe", "calendar checked", session="s", branch="shifted")  # shifted e2
    halo.log("demo", "act", "pinged the user", session="s", branch="shifted", trigger="request", form="execution")  # shifted e3

    collide = halo.diff("demo", "left", "right")
    # both e2 draw A3 (request act without basis, low) and A2 (open loop), about different acts
    assert sorted((f.rule, f.ids) for f in collide.new) == [("HALO-A2", ("e2",)), ("HALO-A3", ("e2",))]
    assert sorted((f.rule, f.ids) for f in collide.resolved) == [("HALO-A2", ("e2",)), ("HALO-A3", ("e2",))]
    md = render_diff_markdown(collide)
    assert "HEAD right e2 “filed the report”: No outcome about it and no observation naming it" in md
    assert "BASE left e2 “pinged the user”: No outcome about it and no observation naming it" in md

    moved = halo.diff("demo", "left", "shifted")
    assert moved.new == () and moved.resolved == ()


def test_markdown_cites_ids_with_their_side_and_is_deterministic(halo):
    scenario(halo)
    d = halo.diff("demo", "main", "prompt-v2")
    md = render_diff_markdown(d)
    assert md == render_diff_markdown(halo.diff("demo", "main", "prompt-v2"))
    lines = md.splitlines()
    assert "| kind | BASE main | HEAD prompt-v2 | Δ |" in lines
    assert "| observe | 1 (e5) | 0 | -1 |" in lines
    assert "| recall | 0 | 1 (e5) | +1 |" in lines
    assert "| act | 1 (e6) | 1 (e6) | 0 |" in lines
    assert "| M→S | 0 | 1 (e7) | +1 |" in lines
    assert "| outcome coverage (acts other than silence with an outcome) | 1/2 (50%): e3 | 2/2 (100%): e3, e6 | +50 pts |" in lines
    assert "| self-initiated share (acts with trigger=self) | 1/2 (50%): e6 | 0/2 (0%) | -50 pts |" in lines
    assert "- **Sessions** matched by label: 1 on both sides (s1); only on BASE, not run on HEAD: b1; only on HEAD: v2. " \
        "New and resolved findings are counted only in sessions both sides ran." in lines
    # the PR-facing diff leads with the findings
    assert md.index("### Findings new on HEAD prompt-v2") < md.index("### Events since the merge base")
    new = md.split("### Findings new on HEAD prompt-v2")[1].split("###")[0].strip().splitlines()
    assert new == ["No finding on HEAD prompt-v2 that BASE main does not have, in the sessions both ran."]
    apart = md.split("### Findings of sessions only one side ran")[1].split("###")[0]
    not_run = apart.split("Not run on HEAD prompt-v2:")[1].split("Only on HEAD prompt-v2:")[0]
    assert [line.split(",")[0] for line in not_run.strip().splitlines() if line.startswith("- ")] == [
        "- **HALO-R1** ungoverned-self-revision (high)",
        "- **HALO-R2** revision-without-evidence (medium)",
        "- **HALO-A2** open-loop (info)",
        "- **HALO-A3** act-without-basis (info)",
    ]
    assert [line.split(":")[0] for line in not_run.strip().splitlines() if line.startswith("    - ")] == [
        "    - BASE main e7 “raised the summary frequency”", "    - BASE main e7 “raised the summary frequency”",
        "    - BASE main e6 “sent a weekly summary unasked”", "    - BASE main e6 “sent a weekly summary unasked”",
    ]
    only = apart.split("Only on HEAD prompt-v2:")[1].strip().splitlines()
    assert only[1] == "    - HEAD prompt-v2 e6 “confirmed the reminder time”: Session “v2” has 1 act but no observation."
    assert "- BASE main e7: target “summary schedule”, made_by=agent, governance=none: raised the summary frequency" in lines
    assert "- HEAD prompt-v2 e8: target “confirmation rule”, made_by=user, governance=approved: tightened the confirmation rule" in lines
    assert len(md) < 65536  # a GitHub comment's limit


def test_sessions_both_sides_ran_are_compared_and_the_others_listed_apart(halo):
    """prompt v1 on main and v2 on a branch each run the same sessions (by label): like is compared with like."""
    halo.log("demo", "observe", "user asked for the weekly summary", session="setup")  # e1, shared
    halo.store.repo("demo").create_branch("v2", "main")
    for branch, trigger in (("main", "self"), ("v2", "request")):
        o = halo.log("demo", "observe", "Friday 17:00", session="week1", branch=branch)["id"]
        halo.log("demo", "act", "sent the weekly summary", [o], "week1", branch=branch, trigger=trigger, form="execution")
    halo.log("demo", "act", "set a reminder", None, "week2", branch="main", trigger="request", form="execution")  # main only ran week2
    d = halo.diff("demo", "main", "v2")
    assert (d.sessions_both, d.sessions_base_only, d.sessions_head_only) == (("setup", "week1"), ("week2",), ())
    # week1: main's self-initiated execution is gone on v2; v2's request leaves an open loop
    assert [(f.rule, f.ids[0]) for f in d.resolved] == [("HALO-A1", "e3")]
    assert [(f.rule, f.ids[0]) for f in d.new] == [("HALO-A2", "e3")]
    # week2 was not run on v2: its findings are not "resolved"
    assert sorted(f.rule for f in d.not_run) == ["HALO-A2", "HALO-A3", "HALO-S2"] and d.only_head == ()
    md = render_diff_markdown(d)
    assert "### Findings resolved on HEAD v2 (present on BASE main)" in md and "Not run on HEAD v2:" in md
    assert "Only on HEAD v2:" not in md


def test_markdown_escapes_agent_text_and_links_ids_per_side(halo):
    shared_history(halo)
    halo.store.repo("demo").create_branch("v2", "main")
    evil = "<script>alert(1)</script> | *bold* [x](http://e.vil)\n# heading"
    halo.log("demo", "revise", evil, session="v2", branch="v2", target="rule | <b>", made_by="agent", governance="none")
    d = halo.diff("demo", "main", "v2")
    md = render_diff_markdown(d, link=lambda label, i: f"https://site/{label}/trace#{i}")
    assert "<script>" not in md and "<b>" not in md and "\n# heading" not in md
    assert "&lt;script&gt;" in md
    assert "[e5](https://site/v2/trace#e5)" in md
    revision = next(line for line in md.splitlines() if line.startswith("- HEAD v2"))
    assert revision.count("|") == 0  # a pipe in agent text cannot open a table cell


def test_diff_json_and_cli(root, halo):
    scenario(halo)
    expected = render_diff_json(halo.diff("demo", "main", "prompt-v2"))
    r = run_cli("diff", "--agent", "demo", "main", "prompt-v2", "--format", "json", root=root)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected
    data = json.loads(r.stdout)
    assert data["merge_base"]["common_events"] == 4
    assert data["sessions"] == {"both": ["s1"], "base_only": ["b1"], "head_only": ["v2"]}
    assert data["findings"]["new"] == [] and data["findings"]["resolved"] == []
    assert data["findings"]["only_on_head"][0] | {"remedy": None, "why": None, "next_step": None} == {
        "side": "HEAD", "label": "prompt-v2", "session": "v2", "rule": "HALO-S2", "name": "acts-without-observation",
        "severity": "info", "ids": ["e6"], "message": "Session “v2” has 1 act but no observation.",
        "quote": "confirmed the reminder time", "why": None, "next_step": None, "remedy": None,
    }
    assert {f["side"] for f in data["findings"]["not_run_on_head"]} == {"BASE"}
    # a commit id works as a side, and HEAD defaults to --branch
    tip = halo.event_log("demo", "main").commits[-1]
    r = run_cli("diff", "--agent", "demo", tip[:10], "--branch", "prompt-v2", root=root)
    assert r.returncode == 0, r.stderr
    assert f"BASE {tip[:10]}" in r.stdout and "HEAD prompt-v2" in r.stdout
    r = run_cli("diff", "--agent", "demo", "main", "nope", root=root)
    assert r.returncode == 1 and "no branch or commit 'nope'" in r.stderr


def test_same_commit_and_unrelated_histories(halo):
    shared_history(halo)
    same = halo.diff("demo", "main", "main")
    assert same.new == () and same.resolved == () and same.common == 4
    assert "Both sides are at the same commit" in render_diff_markdown(same)
    # the API refuses a missing branch; an unrelated history can still arrive (e.g. by pull)
    draft = check_call("observe", {"summary": "an orphan history", "session": "o"})
    halo.store.repo("demo").append("orphan", lambda n, kind_of: resolve(draft, n, "demo", "o", "2026-11-30T00:00:00Z", kind_of))
    apart = halo.diff("demo", "main", "orphan")
    assert apart.common == 0 and apart.merge_base is None
    assert len(apart.base.since) == 4 and len(apart.head.since) == 1
    assert "share no events" in render_diff_markdown(apart)


def test_branch_command(root, halo):
    shared_history(halo)
    tip = halo.event_log("demo").commits[1]
    r = run_cli("branch", "--agent", "demo", "from-e2", "--from", tip, root=root)
    assert r.returncode == 0, r.stderr
    assert "at " + tip[:12] + " (e2)" in r.stdout
    r = run_cli("branch", "--agent", "demo", "prompt-v2", root=root)
    assert r.returncode == 0 and "(e4)" in r.stdout
    r = run_cli("branch", "--agent", "demo", "prompt-v2", root=root)
    assert r.returncode == 1 and "already exists" in r.stderr
    r = run_cli("branch", "--agent", "demo", "bad..name", root=root)
    assert r.returncode == 2 and "invalid branch name" in r.stderr
    r = run_cli("log", "observe", "--agent", "demo", "--branch", "from-e2", "--summary", "third on from-e2", root=root)
    assert json.loads(r.stdout)["id"] == "e3"
    assert run_cli("branch", "--agent", "demo", root=root).stdout.split() == ["from-e2", "main", "prompt-v2"]
    assert git(root / "demo.git", "log", "--format=%s", "from-e2").stdout.splitlines() == [
        "e3 observe: third on from-e2", "e2 remember: user wants reminders at 9:30", "e1 observe: user asked for a 9:30 reminder",
    ]
    with pytest.raises(NotFound):
        halo.store.repo("nobody").create_branch("x", "main")
    with pytest.raises(Conflict):
        halo.store.repo("demo").create_branch("main", "prompt-v2")


def test_branch_option_on_every_command(root, tmp_path):
    run_cli("log", "observe", "--agent", "demo", "--summary", "on main", root=root, check=True)
    assert run_cli("branch", "--agent", "demo", "b", root=root).returncode == 0
    r = run_cli("log", "act", "--agent", "demo", "--branch", "b", "--summary", "on b", "--trigger", "request", "--uses", "e1", root=root)
    assert json.loads(r.stdout)["id"] == "e2"
    assert run_cli("trace", "--agent", "demo", "--branch", "b", root=root).stdout.splitlines()[-1].startswith("e2 [cli] act: on b")
    assert run_cli("trace", "--agent", "demo", root=root).stdout.splitlines() == ["e1 [cli] observe: on main"]
    assert "read from branch b at commit" in run_cli("report", "--agent", "demo", "--branch", "b", root=root).stdout
    exported = run_cli("export", "--agent", "demo", "--branch", "b", root=root).stdout
    assert [json.loads(line)["id"] for line in exported.splitlines()] == ["e1", "e2"]
    atif = run_cli("export", "--agent", "demo", "--branch", "b", "--format", "atif", root=root).stdout
    traj = json.loads(atif.splitlines()[0])
    assert traj["agent"]["version"] == "unrecorded" and traj["extra"]["halo"]["branch"] == "b"  # the branch is no version
    f = tmp_path / "more.jsonl"
    f.write_text('{"kind": "observe", "summary": "imported onto b"}\n')
    assert run_cli("import", "--agent", "demo", "--branch", "b", str(f), root=root).returncode == 0
    assert git(root / "demo.git", "log", "--format=%s", "-1", "b").stdout.strip() == "e3 observe: imported onto b"
    assert git(root / "demo.git", "rev-list", "--count", "main").stdout.strip() == "1"


def test_serve_branch_writes_and_reads_that_branch(root, halo):
    shared_history(halo)
    halo.store.repo("demo").create_branch("prompt-v2", "main")

    async def main():
        async with Client(server_params(root, "--branch", "prompt-v2", "--agent", "demo"), mode="legacy") as c:
            r = await c.call_tool("halo_act", {"summary": "asked before acting", "uses": ["e4"], "trigger": "request"})
            assert not r.is_error and json.loads(r.content[0].text)["id"] == "e5"
            trace = (await c.call_tool("halo_trace", {"limit": 2})).content[0].text
            report = (await c.call_tool("halo_report", {})).content[0].text
        return trace, report

    trace, report = anyio.run(main)
    assert trace.splitlines()[-1].startswith("e5 [") and "asked before acting" in trace
    assert "read from branch prompt-v2 at commit" in report and "from e1 to e5" in report
    repo = root / "demo.git"
    assert git(repo, "log", "--format=%s", "-1", "prompt-v2").stdout.strip() == "e5 act: asked before acting"
    assert git(repo, "rev-list", "--count", "main").stdout.strip() == "4"


def test_compare_is_pure_over_event_logs(halo):
    """``compare`` needs only events and commit ids: logs with made-up commit ids
    (no repository has them) give the merge base and deltas the scenario implies."""
    scenario(halo)
    a, b = halo.event_log("demo", "main"), halo.event_log("demo", "prompt-v2")
    fake = {c: f"{i:040x}" for i, c in enumerate(dict.fromkeys(a.commits + b.commits), 1)}

    def detached(log: EventLog) -> EventLog:
        commits = [fake[c] for c in log.commits]
        return EventLog(log.branch, commits[-1], list(log.events), commits)

    data = json.loads(render_diff_json(compare("demo", "main", detached(a), "prompt-v2", detached(b))))
    assert data["merge_base"] == {"commit": f"{4:040x}", "common_events": 4}
    assert data["base"]["since_merge_base"] == ["e5", "e6", "e7"] and data["head"]["since_merge_base"] == ["e5", "e6", "e7", "e8"]
    assert data["base"]["head"] == fake[a.commits[-1]] and data["head"]["head"] == fake[b.commits[-1]]
    assert data["base"]["metrics"]["self_initiated"] == {"numerator": 1, "denominator": 2, "value": 0.5, "ids": ["e6"]}
    assert [r["id"] for r in data["base"]["revisions"]] == ["e7"] and [r["id"] for r in data["head"]["revisions"]] == ["e8"]
    assert data["delta"]["by_kind"]["outcome"] == 1 and data["delta"]["by_kind"]["observe"] == -1


def test_long_finding_lists_are_capped_and_cite_the_rest(halo):
    halo.log("demo", "observe", "inbox checked", session="s")  # e1
    halo.store.repo("demo").create_branch("busy", "main")
    for i in range(12):  # busy e2..e13: twelve acts with a basis and no outcome, each awaiting its result
        halo.log("demo", "act", f"nudged the user ({i}), reply pending", ["e1"], "s", branch="busy", trigger="request",
                 form="execution")
    md = render_diff_markdown(halo.diff("demo", "main", "busy"))
    section = md.split("### Findings new on HEAD busy")[1].split("###")[0].strip().splitlines()
    assert section[0].startswith("- **HALO-A2** open-loop (medium), 12 on HEAD busy. *Remedy:*")
    assert section[1] == ("    - HEAD busy e2 “nudged the user (0), reply pending”: No outcome about it and no observation naming it "
                          "(trigger=request, form=execution).")
    assert len(section) == 1 + 10 + 1
    assert section[-1] == "    - 2 more on HEAD busy, about e12–e13"


def test_metric_delta_is_the_difference_of_the_rounded_percentages_shown(halo):
    halo.log("demo", "observe", "inbox checked", session="s")  # e1
    halo.store.repo("demo").create_branch("v2", "main")
    for trigger in ("self", "request", "request"):  # main: 1 of 3 acts self-initiated (33%)
        halo.log("demo", "act", f"acted on {trigger}", ["e1"], "s", trigger=trigger)
    for trigger in ("self", "request"):  # v2: 1 of 2 (50%)
        halo.log("demo", "act", f"acted on {trigger}", ["e1"], "s", branch="v2", trigger=trigger)
    md = render_diff_markdown(halo.diff("demo", "main", "v2"))
    row = next(line for line in md.splitlines() if line.startswith("| self-initiated share"))
    assert "1/3 (33%)" in row and "1/2 (50%)" in row and row.endswith("| +17 pts |"), row
    assert diff_to_dict(halo.diff("demo", "main", "v2"))["delta"]["metrics"]["self_initiated"] == 16.7  # JSON keeps the precise value
