"""A newcomer's papercuts, through the real CLI: what --branch means on each command,
site on a missing root, diff given one side, branch --from an event id, and a
revision approved twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from halo_git import Halo
from tests.conftest import git, run_cli

READERS = ["trace", "report", "diff", "check", "verify", "export", "revisions", "agents", "site"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    with Halo(r) as h:
        o = h.log("demo", "observe", "user asked for a reminder", session="s1")["id"]
        a = h.log("demo", "act", "set the reminder", [o], "s1", trigger="request")["id"]
        h.log("demo", "outcome", "the user confirmed", session="s1", about=a)
        h.log("demo", "revise", "remind earlier", [o], "s1", target="reminder rule", made_by="agent", governance="none")
    return r


@pytest.mark.parametrize("command", READERS)
def test_read_only_commands_say_branch_to_read(command):
    r = run_cli(command, "--help")
    assert r.returncode == 0
    assert "branch to read (default: main)" in " ".join(r.stdout.split())
    assert "write to" not in r.stdout


def test_writing_commands_keep_write_and_read_and_branch_explains_from():
    assert "branch to write to and read from" in " ".join(run_cli("log", "observe", "--help").stdout.split())
    assert "branch to push" in " ".join(run_cli("push", "--help").stdout.split())
    help_ = " ".join(run_cli("branch", "--help").stdout.split())
    assert "event id (e12: after that event of --branch)" in help_


def test_site_on_a_missing_root_says_the_root_does_not_exist(tmp_path):
    missing, out = tmp_path / "nowhere", tmp_path / "site"
    r = run_cli("site", "--out", str(out), root=missing)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"halo-git: error: no HALO root at {missing}: the folder does not exist")
    assert not out.exists() and not missing.exists()


def test_diff_given_one_side_says_which_two_it_compared(root):
    with Halo(root) as h:
        h.store.repo("demo").create_branch("v2", "main")
    r = run_cli("diff", "--agent", "demo", "v2", root=root)
    assert r.returncode == 0, r.stderr
    assert "compared BASE v2 with HEAD main (--branch, as no HEAD was given)" in r.stderr
    r = run_cli("diff", "--agent", "demo", "v2", "main", root=root)
    assert r.returncode == 0 and "compared" not in r.stderr  # both sides named: nothing to say


def test_branch_from_an_event_id_starts_after_that_event(root):
    r = run_cli("branch", "--agent", "demo", "v2", "--from", "e2", root=root)
    assert r.returncode == 0, r.stderr
    assert "(e2)" in r.stdout
    repo = root / "demo.git"
    # the real git binary: v2's head is the commit that added e2
    assert git(repo, "log", "-1", "--format=%s", "v2").stdout.startswith("e2 act: set the reminder")
    r = run_cli("log", "observe", "--agent", "demo", "--branch", "v2", "--summary", "a different third step", root=root)
    assert json.loads(r.stdout)["id"] == "e3"
    r = run_cli("branch", "--agent", "demo", "v3", "--from", "e9", root=root)
    assert r.returncode == 1 and "no event e9 on branch 'main' of agent 'demo' (its last is e4)" in r.stderr
    assert "v3" not in git(repo, "branch", "--list").stdout
    # a branch literally named like an event id is still a branch
    run_cli("branch", "--agent", "demo", "e1", "--from", "e3", root=root)
    r = run_cli("branch", "--agent", "demo", "v4", "--from", "e1", root=root)
    assert "(e3)" in r.stdout


def test_approving_an_approved_revision_says_so(root):
    first = run_cli("approve", "--agent", "demo", "e4", "--by", "Ann", "--email", "ann@example.com", root=root)
    assert first.returncode == 0 and "already approved" not in first.stderr, first.stderr
    second = run_cli("approve", "--agent", "demo", "e4", "--by", "Bob", "--email", "bob@example.com", root=root)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["id"] == "e6"
    assert ("halo-git approve: e4 was already approved with halo-git approve: e5 by Ann <ann@example.com> (unsigned); "
            "e6 is one more approval") in second.stderr
