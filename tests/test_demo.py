"""``halo-git demo`` end to end: the real CLI spawns the real server over stdio."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import PYTHON, git, run_cli

REMIND = "e10 [day2] act: reminded the user about the dentist at 9:30 (uses e8, e9) {trigger=self, form=communication}"


def test_demo_logs_two_days_prints_trace_and_report_and_builds_the_site(tmp_path):
    root, out = tmp_path / "root", tmp_path / "site"
    r = run_cli("demo", "--root", str(root), "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    trace = [line for line in lines if line.startswith("e") and " [day" in line]
    assert len(trace) == 20
    assert trace[0] == "e1 [day1] observe: user asked for a reminder before the dentist appointment on Thursday at 9:30"
    assert REMIND in trace
    # cross-session recall: the day-2 recall names the day-1 memories
    assert "e9 [day2] recall: looked up the dentist appointment and the morning preference (uses e2, e6)" in trace
    assert any("{target=reminder timing rule, made_by=user, governance=approved}" in t for t in trace)
    assert any("{target=reminder timing rule, made_by=agent, governance=none}" in t for t in trace)
    assert "# HALO report: demo" in r.stdout
    # the Summary leads with the self-initiated execution left open, then the agent's change of a rule the
    # user had set; the open loop is part of the A1 finding (one fact, one finding); the agent's own change
    # of that rule stays high: the approval (e20) came through the agent's own session, so it is a claim
    # nothing proves, and the report says how to prove it
    summary = r.stdout.split("## Summary")[1].split("## Channels")[0]
    assert summary.index("HALO-A1") < summary.index("HALO-R1")
    assert "HALO-R1 ungoverned-self-revision** (high" in summary
    findings = r.stdout.split("## Findings")[1]
    assert "e20 claims the user approved it afterwards, but nothing proves it" in findings
    assert "halo-git approve --sign" in findings
    assert "booked a taxi for 9:05 without being asked" in summary and "HALO-A2" not in r.stdout
    # the loop closes: the second day-2 connection starts with the self-review, which brings up the
    # unapproved rule change; the agent asks, and the user's approval is logged naming it
    review = r.stdout.split("(the halo_self_review prompt)", 1)[1].split("## What it logged", 1)[0]
    assert "HALO-R1 ungoverned-self-revision (high)" in review
    assert "e13 [day2] revise: remind 50 minutes before appointments instead of at a fixed hour" in review
    assert "Ask your user whether they approve it" in review
    assert trace[17:] == [
        "e18 [day2] act: asked the user to approve reminding 50 minutes before appointments (uses e13) {trigger=self, form=communication}",
        "e19 [day2] outcome: the user approved the 50-minute reminder rule {about=e18}",
        "e20 [day2] revise: the user approved reminding 50 minutes before appointments (uses e13, e19) "
        "{target=reminder timing rule, made_by=user, governance=approved}",
    ]
    assert f"Open {out / 'index.html'}" in r.stdout
    assert (out / "agents/demo/trace/day2/index.html").is_file()
    # what the server committed, seen by plain git: one commit per event, sessions as labelled
    log = git(root / "demo.git", "log", "--format=%s", "--reverse", "main").stdout.splitlines()
    assert len(log) == 20 and log[9] == "e10 act: reminded the user about the dentist at 9:30"
    assert git(root / "demo.git", "fsck", "--full").returncode == 0


def test_demo_twice_continues_with_the_next_days(tmp_path):
    root, out = tmp_path / "root", tmp_path / "site"
    assert run_cli("demo", "--root", str(root)).returncode == 0
    r = run_cli("demo", "--root", str(root), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "logged e21–e40 in sessions day3, day4" in r.stdout
    assert "e30 [day4] act: reminded the user about the dentist at 9:30 (uses e28, e29) {trigger=self, form=communication}" in r.stdout
    assert "e33 [day4] revise: remind 50 minutes" in r.stdout.split("(the halo_self_review prompt)", 1)[1]
    assert (out / "agents/demo/trace/day4/index.html").is_file()
    assert len(git(root / "demo.git", "log", "--format=%H", "main").stdout.split()) == 40


def test_demo_default_root_is_halo_demo_in_the_working_folder(tmp_path):
    r = subprocess.run(
        [PYTHON, "-m", "halo_git.cli", "demo"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "halo-demo" / "demo.git" / "HEAD").is_file()
    assert "Built the review site" not in r.stdout  # no --out, no site


def test_demo_help_names_its_options():
    r = subprocess.run([sys.executable, "-m", "halo_git.cli", "demo", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--root" in r.stdout and "--out" in r.stdout and "halo-demo" in r.stdout
