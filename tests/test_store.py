"""The Git store, checked with the real ``git`` binary."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import yaml

from halo_git import Halo, InvalidCall, UnknownEvents
from halo_git.model import from_yaml
from halo_git.store import event_path
from tests.conftest import git


def fill(h: Halo, n: int, agent: str = "demo") -> None:
    h.log(agent, "observe", "first", session="s1")
    for i in range(2, n + 1):
        kind = ("remember", "recall", "act", "outcome", "observe")[i % 5]
        if kind == "act":
            h.log(agent, "act", f"act {i}", uses=[f"e{i - 1}"], trigger="self", session="s1")
        elif kind == "outcome":
            h.log(agent, "outcome", f"outcome {i}", about=f"e{i - 1}", session="s2")
        else:
            h.log(agent, kind, f"{kind} {i}: yes/no # {'🎉' if i % 2 else ''}", uses=[f"e{i - 1}"], session="s1")


def test_one_commit_per_event_each_adding_exactly_one_parsable_file(halo, root):
    fill(halo, 130)
    repo = root / "demo.git"
    assert git(repo, "fsck", "--full", "--strict").returncode == 0
    assert git(repo, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"
    shas = git(repo, "rev-list", "--reverse", "main").stdout.split()
    assert len(shas) == 130
    events = halo.events("demo")
    for n, sha in enumerate(shas, 1):
        changed = git(repo, "diff-tree", "--root", "--no-commit-id", "-r", "--name-status", sha).stdout.splitlines()
        assert changed == [f"A\t{event_path(n)}"], (n, changed)
        blob = git(repo, "show", f"{sha}:{event_path(n)}").stdout
        assert from_yaml(blob) == events[n - 1]
        assert yaml.safe_load(blob)["id"] == f"e{n}"
    fmt = git(repo, "log", "-1", "--format=%an|%s|%at", shas[-1]).stdout.strip().split("|")
    assert fmt[0] == "demo" and fmt[1].startswith("e130 ")
    assert [e.id for e in events] == [f"e{i}" for i in range(1, 131)]


def test_trees_stay_small(halo, root):
    fill(halo, 250)
    repo = root / "demo.git"
    out = git(repo, "ls-tree", "-r", "-t", "main").stdout.splitlines()
    trees = [line.split("\t")[1] for line in out if " tree " in line]
    for t in trees + [""]:
        spec = f"main:{t}" if t else "main"
        assert len(git(repo, "ls-tree", spec).stdout.splitlines()) <= 100


def test_clone_and_log_with_plain_git(halo, root, tmp_path):
    fill(halo, 12)
    subprocess.run(["git", "clone", "-q", str(root / "demo.git"), str(tmp_path / "wc")], check=True)
    files = sorted((tmp_path / "wc" / "events").rglob("*.yaml"))
    assert len(files) == 12
    assert from_yaml(files[0].read_bytes()).id in {f"e{i}" for i in range(1, 13)}


def test_reads_follow_the_head_when_another_process_appends(halo, root):
    fill(halo, 5)
    assert len(halo.events("demo")) == 5
    other = textwrap.dedent(
        f"""
        from halo_git import Halo
        with Halo({str(root)!r}) as h:
            for i in range(3):
                h.log("demo", "observe", f"from another process {{i}}", uses=["e5"])
        """
    )
    subprocess.run([sys.executable, "-c", other], check=True)
    events = halo.events("demo")
    assert [e.id for e in events][-3:] == ["e6", "e7", "e8"]
    assert events[-1].summary == "from another process 2"
    assert halo.trace("demo", limit=2).splitlines()[0].startswith("e7 ")


def test_two_processes_appending_at_once_lose_nothing(root):
    script = textwrap.dedent(
        f"""
        import sys
        from halo_git import Halo
        with Halo({str(root)!r}) as h:
            for i in range(150):
                h.log("demo", "observe", f"writer {{sys.argv[1]}} event {{i}}")
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(w)]) for w in range(2)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    with Halo(root) as h:
        events = h.events("demo")
    assert [e.id for e in events] == [f"e{i}" for i in range(1, 301)]
    assert sorted(e.summary for e in events) == sorted(f"writer {w} event {i}" for w in range(2) for i in range(150))
    assert git(root / "demo.git", "fsck", "--full").returncode == 0


def test_refused_call_writes_nothing(halo, root):
    halo.log("demo", "observe", "ok")
    before = git(root / "demo.git", "count-objects", "-v").stdout
    for bad, error, says in (
        (lambda: halo.log("demo", "act", "x", uses=["e2"], trigger="self"), UnknownEvents, "unknown event id(s) e2 for agent 'demo'"),
        (lambda: halo.log("demo", "outcome", "x", about="e1"), InvalidCall, "'about' must name an earlier act event, but e1 is an observe event"),
        (lambda: halo.log("demo", "observe", ""), InvalidCall, "summary"),
    ):
        with pytest.raises(error) as refused:  # a refusal, not any exception (a crash would pass "except Exception")
            bad()
        assert says in str(refused.value)
    assert git(root / "demo.git", "rev-list", "--count", "main").stdout.strip() == "1"
    assert git(root / "demo.git", "count-objects", "-v").stdout == before


def test_snapshot_cache_is_used_and_never_stale(root):
    with Halo(root) as h:
        fill(h, 520)
        assert len(h.events("demo")) == 520  # writes the parsed-event snapshot
    snapshots = list((root / "demo.git" / "halo").glob("events-*.jsonl"))
    assert len(snapshots) == 1
    with Halo(root) as h:
        h.log("demo", "observe", "after the snapshot")
    with Halo(root) as h:
        events = h.events("demo")
        assert len(events) == 521 and events[-1].summary == "after the snapshot"


def test_refused_first_call_creates_no_repository(halo, root):
    for bad in (
        lambda: halo.log("fresh", "act", "x", uses=["e1"], trigger="self"),
        lambda: halo.log("fresh", "outcome", "x", about="e1"),
    ):
        try:
            bad()
        except Exception as e:
            assert "unknown event id(s) e1 for agent 'fresh'" in str(e)
        else:
            raise AssertionError("call was accepted")
    assert list(root.iterdir()) == []


def test_a_missing_branch_is_refused_not_started_afresh(halo, root):
    halo.log("demo", "observe", "on main")
    for call in (
        lambda: halo.log("demo", "observe", "typo branch", branch="prompt-v3"),
        lambda: halo.trace("demo", branch="prompt-v3"),
        lambda: halo.import_lines("demo", ['{"kind": "observe", "summary": "x"}'], branch="prompt-v3"),
    ):
        try:
            call()
        except Exception as e:
            assert "has no branch 'prompt-v3'" in str(e) and "halo-git branch --agent demo prompt-v3 --from main" in str(e)
        else:
            raise AssertionError("accepted")
    assert git(root / "demo.git", "for-each-ref", "--format=%(refname)").stdout.split() == ["refs/heads/main"]
    with Halo(root, branch="first") as h:  # a new agent may start on any branch
        h.log("other", "observe", "starts on branch first")
    assert git(root / "other.git", "rev-parse", "first").returncode == 0
