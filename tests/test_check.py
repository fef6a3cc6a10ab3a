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
    """Agent ``clean`` has no finding; agent ``demo`` revised itself without governance in s1 and is clean in s2."""
    with Halo(root) as h:
        log_clean(h)
        o = h.log("demo", "observe", "user said reminders come too late", session="s1")["id"]
        h.log("demo", "revise", "remind 10 minutes earlier", uses=[o], session="s1",
              target="reminder rule", made_by="agent", governance="none")
        m = h.log("demo", "remember", "kept with no source", session="s1")["id"]  # M1 medium: an act builds on it
        h.log("demo", "act", "said the rule changed", uses=[o, m], session="s1", trigger="request")  # A2 low
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
        "the user's approval nor a bound the user set. Next step: Have the user review the change to “reminder rule” "
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
    assert "HALO-A2 open-loop (low)::e4 “said the rule changed”: No outcome about it" in low[2]


def test_session_scope(checked_root):
    assert run_cli("check", "--agent", "demo", "--session", "s2", "--fail-on", "low", root=checked_root).returncode == 0
    assert run_cli("check", "--agent", "demo", "--session", "s1", root=checked_root).returncode == 1


def test_annotation_text_stays_on_one_line(root):
    with Halo(root) as h:
        h.log("x", "act", "acted blind", session="a%0A::error title=x::b,c", trigger="request")
    r = run_cli("check", "--agent", "x", "--fail-on", "medium", root=root)
    assert r.returncode == 1
    [line] = r.stdout.splitlines()
    assert line.startswith("::warning title=HALO-S2 acts-without-observation (medium)::e1 “acted blind”: Session “a%250A::error")


def test_annotation_names_at_most_20_ids(root):
    with Halo(root) as h:
        h.import_lines("x", [f'{{"kind": "act", "summary": "act {i}", "trigger": "request", "form": "silence"}}' for i in range(25)])
    [line] = run_cli("check", "--agent", "x", "--fail-on", "medium", root=root).stdout.splitlines()
    assert "::e1, e2, " in line and "e20 and 5 more “act 0”: Session “import” has 25 acts but no observation." in line


@pytest.mark.parametrize(
    "args, says",
    [
        (["--agent", "nobody"], "no agent 'nobody'"),
        (["--agent", "demo", "--session", "nope"], "has no session 'nope'"),
        (["--agent", "demo", "--branch", "nope"], "has no branch 'nope'"),
        (["--agent", "demo", "--fail-on", "info"], "invalid choice"),
        ([], "--agent"),
    ],
)
def test_usage_errors_exit_2(checked_root, args, says):
    r = run_cli("check", *args, root=checked_root)
    assert r.returncode == 2 and r.stdout == ""
    assert says in r.stderr
