"""``halo-git check`` in a fresh process against real repositories: annotations and exit codes."""

from __future__ import annotations

import pytest

from halo_git import Halo

from .conftest import run_cli


def log_clean(h: Halo, agent: str = "clean", session: str = "s1") -> None:
    o = h.log(agent, "observe", "user asked for a reminder", session=session)["id"]
    a = h.log(agent, "act", "set the reminder", uses=[o], session=session, trigger="request")["id"]
    h.log(agent, "outcome", "the user confirmed", session=session, about=a)


@pytest.fixture
def checked_root(root):
    """Agent ``clean`` has no finding; agent ``demo`` revised itself without governance in s1 (and has a medium and
    a low finding there) and is clean in s2."""
    with Halo(root) as h:
        log_clean(h)
        o = h.log("demo", "observe", "user said reminders come too late", session="s1")["id"]
        h.log("demo", "revise", "remind 10 minutes earlier", uses=[o], session="s1",
              target="reminder rule", made_by="agent", governance="none")
        h.log("demo", "act", "asked the user to confirm the new rule, reply pending", uses=[o], session="s1", trigger="self",
              form="communication")  # A2 info: a message awaiting an answer (listed, raised by what follows)
        m = h.log("demo", "remember", "kept with no source", session="s1")["id"]  # M1 medium: an act builds on it
        h.log("demo", "act", "read the note back", uses=[o, m], session="s1", trigger="request")  # a requested reply: no A2
        old = h.log("demo", "remember", "quiet hours end at 07:00", uses=[o], session="s1")["id"]
        h.log("demo", "remember", "quiet hours end at 06:30, replaces the 07:00 note", uses=[o, old], session="s1")
        h.log("demo", "recall", "looked up the quiet hours", uses=[old], session="s1")  # M6 low: the replaced note, no act
        log_clean(h, "demo", "s2")
    return root


def test_clean_agent_passes(checked_root):
    r = run_cli("check", "--agent", "clean", "--fail-on", "low", root=checked_root)
    assert (r.returncode, r.stdout) == (0, "")
    assert "0 finding(s) at or above low" in r.stderr


def test_ungoverned_revision_fails_with_an_error_annotation(checked_root):
    r = run_cli("check", "--agent", "demo", root=checked_root)
    assert r.returncode == 1, r.stderr
    assert r.stdout.splitlines() == [
        "::error title=HALO-R1 ungoverned-self-revision (high)::e2 “remind 10 minutes earlier”: Revised “reminder "
        "rule” on its own with governance=none. Why it matters: A durable change to how the agent works, with neither "
        "the user's approval nor a bound the user set. Next step: Have the user approve or undo the change to “reminder rule” "
        "and log the decision (halo_revise with made_by=user or governance=approved).",
    ]


def test_threshold_selects_severities(checked_root):
    r = run_cli("check", "--agent", "demo", "--fail-on", "medium", root=checked_root)
    assert r.returncode == 1
    assert [line.split("::")[1] for line in r.stdout.splitlines()] == [
        "error title=HALO-R1 ungoverned-self-revision (high)",
        "warning title=HALO-M1 memory-without-source (medium)",
    ]
    low = run_cli("check", "--agent", "demo", "--fail-on", "low", root=checked_root).stdout.splitlines()
    assert [line.split(" ")[0] for line in low] == ["::error", "::warning", "::notice"]
    assert "HALO-M6 superseded-memory-recalled (low)::e8, e6, e7 “looked up the quiet hours”" in low[2]


def test_session_scope(checked_root):
    assert run_cli("check", "--agent", "demo", "--session", "s2", "--fail-on", "low", root=checked_root).returncode == 0
    assert run_cli("check", "--agent", "demo", "--session", "s1", root=checked_root).returncode == 1


def test_annotation_text_stays_on_one_line(root):
    with Halo(root) as h:
        m = h.log("x", "remember", "kept blind", uses=[h.log("x", "act", "drafted a note", session="a%0A::error title=x::b,c",
                                                             trigger="request", form="preparation")["id"]],
                  session="a%0A::error title=x::b,c")["id"]
        h.log("x", "act", "acted on the note", uses=[m], session="s2", trigger="request", form="execution")
    r = run_cli("check", "--agent", "x", "--fail-on", "medium", root=root)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert all(line.startswith("::") for line in lines)  # a session name with a newline in it breaks no line
    [a4] = [line for line in lines if "HALO-A4" in line]
    assert a4.startswith("::error title=HALO-A4 retained-material-drives-act (high)::e3, e2 “acted on the note”: ")
    assert "kept in session “a%250A::error title=x::b,c”" in a4


def test_annotation_names_at_most_20_ids(root):
    with Halo(root) as h:  # an approval only the agent claims, and the 25 acts that build on it
        h.import_lines("x", ['{"id": "e1", "kind": "revise", "summary": "send reminders twice a day", "target": "reminders", '
                             '"made_by": "agent", "governance": "approved"}']
                       + [f'{{"id": "e{i + 2}", "kind": "act", "summary": "act {i}", "uses": ["e1"], "trigger": "request", '
                          f'"form": "silence"}}' for i in range(25)])
    [line] = [x for x in run_cli("check", "--agent", "x", "--fail-on", "medium", root=root).stdout.splitlines() if "HALO-R6" in x]
    assert "::e1, e2, " in line and "e20 and 6 more “send reminders twice a day”: Logged as made_by=agent" in line


@pytest.mark.parametrize(
    "args, code, says",
    [
        (["--agent", "nobody"], 2, "no agent 'nobody'"),
        (["--agent", "demo", "--session", "nope"], 2, "has no session 'nope'"),
        (["--agent", "demo", "--branch", "nope"], 2, "has no branch 'nope'"),
        (["--agent", "demo", "--fail-on", "info"], 2, "invalid choice"),
        ([], 2, "--agent"),
    ],
)
def test_every_error_exits_2_never_as_findings(checked_root, args, code, says):
    """check's exit-code table (docs/ci.md): 1 is findings only; what does not exist is an error, 2."""
    r = run_cli("check", *args, root=checked_root)
    assert r.returncode == code and r.stdout == ""
    assert says in r.stderr


# --- baseline, formats, accepted findings (end to end through the CLI) ----------------------

import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402

from .conftest import git  # noqa: E402


@pytest.fixture
def pr_root(checked_root):
    """``demo`` main has R1 on e2; ``pr-bad`` adds a second ungoverned revision, ``pr-ok`` adds
    clean steps and closes the open loop of e3 (its A2 is resolved)."""
    with Halo(checked_root) as h:
        repo = h.store.repo("demo")
        repo.create_branch("pr-bad", "main")
        repo.create_branch("pr-ok", "main")
        o = h.log("demo", "observe", "user wants quieter reminders", session="pr", branch="pr-bad")["id"]
        h.log("demo", "revise", "muted every reminder", uses=[o], session="pr", branch="pr-bad",
              target="reminder volume", made_by="agent", governance="none")
        oc = h.log("demo", "outcome", "the user saw the rule change", session="pr", branch="pr-ok", about="e3")["id"]
        h.log("demo", "remember", "the user noticed the change", uses=[oc], session="pr", branch="pr-ok")
    return checked_root


def test_baseline_fails_on_a_branch_that_adds_an_ungoverned_revision(pr_root):
    r = run_cli("check", "--agent", "demo", "--branch", "pr-bad", "--baseline", "main", root=pr_root)
    assert r.returncode == 1, r.stderr
    [line] = r.stdout.splitlines()  # only the new one; the R1 main already had is not repeated
    assert line.startswith("::error title=HALO-R1 ungoverned-self-revision (high)::e") and "reminder volume" in line
    assert "1 new finding(s) at or above high relative to baseline main" in r.stderr
    without = run_cli("check", "--agent", "demo", "--branch", "pr-bad", root=pr_root)
    assert without.returncode == 1 and len(without.stdout.splitlines()) == 2  # both R1 without a baseline


def test_baseline_passes_on_a_branch_that_adds_nothing_new_and_lists_resolved(pr_root):
    r = run_cli("check", "--agent", "demo", "--branch", "pr-ok", "--baseline", "main", root=pr_root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == [
        "::notice title=Resolved on baseline main%3A HALO-A2 open-loop (info)::e3 “asked the user to confirm the new rule, reply pending”: No outcome "
        "about it and no observation naming it (trigger=self, form=communication). Why it matters: Nothing in the "
        "trace shows whether it worked. Next step: Have the agent check how e3 went (read the result back, or ask) "
        "before anything relies on it, and log what it saw (halo_outcome about=e3, or halo_observe naming e3).",
    ]
    # at --fail-on low it passes too: the branch's outcome reports no problem, so it is no ignored feedback
    low = run_cli("check", "--agent", "demo", "--branch", "pr-ok", "--baseline", "main", "--fail-on", "low", root=pr_root)
    assert low.returncode == 0 and "HALO-S1" not in low.stdout
    text = run_cli("check", "--agent", "demo", "--branch", "pr-ok", "--baseline", "main", "--format", "text", root=pr_root)
    assert "resolved HALO-A2 open-loop (info) on main e3:" in text.stdout
    assert text.stdout.rstrip().endswith("passed: 0 new finding(s) at or above high relative to baseline main that nobody accepted")
    # a commit id works as the baseline too
    main = git(pr_root / "demo.git", "rev-parse", "main").stdout.strip()
    assert run_cli("check", "--agent", "demo", "--branch", "pr-bad", "--baseline", main[:10], root=pr_root).returncode == 1


def test_baseline_not_found_and_usage_errors_exit_2(pr_root):
    r = run_cli("check", "--agent", "demo", "--baseline", "nope", root=pr_root)
    assert r.returncode == 2 and "no branch or commit 'nope'" in r.stderr  # could not check, per docs/ci.md
    r = run_cli("check", "--agent", "demo", "--baseline", "main", "--session", "s1", root=pr_root)
    assert r.returncode == 2 and "leave out --session" in r.stderr
    r = run_cli("check", "--agent", "demo", "--output", "xml=out.xml", root=pr_root)
    assert r.returncode == 2 and "FORMAT=FILE" in r.stderr


def test_sarif_locations_are_files_of_the_agent_repository(pr_root, tmp_path):
    r = run_cli("check", "--agent", "demo", "--branch", "pr-bad", "--baseline", "main", "--format", "sarif",
                "--output", f"junit={tmp_path / 'out/junit.xml'}", "--output", f"md={tmp_path / 'summary.md'}", root=pr_root)
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["version"] == "2.1.0"
    [run] = doc["runs"]
    assert {x["ruleId"] for x in run["results"]} <= {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    states = sorted((x["ruleId"], x["baselineState"]) for x in run["results"])
    assert ("HALO-R1", "new") in states and ("HALO-R1", "unchanged") in states
    for res in run["results"]:
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        shown = git(pr_root / "demo.git", "show", f"pr-bad:{uri}").stdout  # the real file at that path
        assert f"id: {res['properties']['ids'][0]}\n" in shown
    cases = ET.parse(tmp_path / "out/junit.xml").getroot().iter("testcase")
    assert sum(1 for c in cases if c.find("failure") is not None) == 1
    assert (tmp_path / "summary.md").read_text().startswith("### HALO check of agent demo: ❌ failed")


def test_json_format(pr_root):
    r = run_cli("check", "--agent", "demo", "--format", "json", "--fail-on", "medium", root=pr_root)
    d = json.loads(r.stdout)
    assert r.returncode == 1 and d["failed"] is True and d["baseline"] is None
    assert [(f["rule"], f["status"], f["failing"]) for f in d["findings"] if f["failing"]] == [
        ("HALO-R1", "open", True), ("HALO-M1", "open", True)]


def run_in(cwd, *args, root):
    return subprocess.run([sys.executable, "-m", "halo_git.cli", *args, "--root", str(root)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_accepted_findings_from_the_working_directory(pr_root, tmp_path):
    (tmp_path / "halo-accept.yaml").write_text(
        "accepted:\n"
        "  - rule: HALO-R1\n"
        "    summary: remind 10 minutes earlier\n"
        "    reason: the user approved it by phone\n"
        "    by: Jane Doe\n"
        "  - rule: HALO-M1\n"
        "    summary: a memory nobody logs any more\n"
        "    reason: old\n"
        "    by: Joe\n",
        encoding="utf-8",
    )
    r = run_in(tmp_path, "check", "--agent", "demo", root=pr_root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == [
        "::warning file=halo-accept.yaml,line=6,title=Stale accepted finding::HALO-M1 about “a memory nobody logs any more” "
        "(accepted by Joe: old) matches no finding of agent demo any more; remove the entry or update its summary",
    ]
    assert "1 accepted, 1 stale entry in halo-accept.yaml" in r.stderr
    # accepted on main, so also on a branch where the same revision sits at another id
    sarif = json.loads(run_in(tmp_path, "check", "--agent", "demo", "--branch", "pr-bad", "--format", "sarif", root=pr_root).stdout)
    suppressed = [x for x in sarif["runs"][0]["results"] if x.get("suppressions")]
    assert [x["ruleId"] for x in suppressed] == ["HALO-R1"] and "approved it by phone" in suppressed[0]["suppressions"][0]["justification"]
    # --accept names another file; a missing or broken one is a usage error, never a pass
    r = run_in(tmp_path, "check", "--agent", "demo", "--accept", "missing.yaml", root=pr_root)
    assert r.returncode == 2 and "no accept file missing.yaml" in r.stderr
    (tmp_path / "bad.yaml").write_text("accepted:\n  - rule: HALO-R1\n", encoding="utf-8")
    r = run_in(tmp_path, "check", "--agent", "demo", "--accept", "bad.yaml", root=pr_root)
    assert r.returncode == 2 and "bad.yaml:2: missing summary, reason, by" in r.stderr


def test_report_and_site_list_accepted_findings_apart(pr_root, tmp_path):
    """What check accepts, the report and the review site do not count as open either."""
    (tmp_path / "halo-accept.yaml").write_text(
        "accepted:\n  - rule: HALO-R1\n    summary: remind 10 minutes earlier\n    reason: the user approved it by phone\n"
        "    by: Jane Doe\n", encoding="utf-8")
    plain = run_cli("report", "--agent", "demo", root=pr_root).stdout
    assert "HALO-R1" in plain.split("## Summary")[1].split("\n## ")[0] and "### Accepted" not in plain
    r = run_in(tmp_path, "report", "--agent", "demo", root=pr_root)
    assert r.returncode == 0, r.stderr
    summary = r.stdout.split("## Summary")[1].split("\n## ")[0]
    assert "HALO-R1" not in summary and "1 accepted finding" in summary
    accepted = r.stdout.split("### Accepted")[1]
    assert "remind 10 minutes earlier" in accepted and "the user approved it by phone (accepted by Jane Doe)" in accepted
    out = tmp_path / "site"
    built = run_in(tmp_path, "site", "--agent", "demo", "--out", str(out), root=pr_root)
    assert built.returncode == 0, built.stderr
    overview = (out / "agents" / "demo" / "index.html").read_text(encoding="utf-8")
    assert "1 accepted finding (not counted) is listed apart in the diagnosis" in overview
    assert "HALO-R1 ungoverned-self-revision" not in overview  # not among the top issues any more
    diagnosis = (out / "agents" / "demo" / "diagnosis.html").read_text(encoding="utf-8")
    assert "Accepted" in diagnosis and "the user approved it by phone" in diagnosis
    summary_json = json.loads((out / "halo-summary.json").read_text(encoding="utf-8"))
    [row] = [a for a in summary_json["agents"] if a["name"] == "demo"]
    assert row["findings"]["high"] == 0  # the home page's counts leave the accepted finding out
    # a broken accept file stops the report and the site with a usage error
    (tmp_path / "halo-accept.yaml").write_text("accepted:\n  - rule: HALO-R1\n", encoding="utf-8")
    for cmd in (["report", "--agent", "demo"], ["site", "--out", str(tmp_path / "site2")]):
        r = run_in(tmp_path, *cmd, root=pr_root)
        assert r.returncode == 2 and "halo-accept.yaml:2: missing summary, reason, by" in r.stderr, cmd


def test_observed_evidence_cannot_be_compared_with_a_baseline(pr_root, tmp_path):
    from .test_observed import atif, write

    path = write(tmp_path, atif())
    r = run_cli("check", "--agent", "demo", "--baseline", "main", "--observed", str(path), root=pr_root)
    assert r.returncode == 2 and "--observed describes one run of one branch" in r.stderr
