"""Hostile Git remotes: commits HALO would never write, made with the real ``git``
binary on top of a genuine HALO history, are refused by ``pull``, ``clone`` and
``site --remote`` before any ref moves, naming the first bad commit; the local
branch stays where it was (or no repository appears), ``git fsck`` stays clean,
and every read afterwards still works."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.model import Event, to_yaml
from tests.conftest import git, run_cli

AGENT = "demo"
T2 = "2026-01-01T00:00:10Z"


def _git(cwd: Path, *args: str, when: str = T2) -> str:
    env = {
        **os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd.parent),
        "GIT_AUTHOR_NAME": AGENT, "GIT_AUTHOR_EMAIL": f"{AGENT}@halo", "GIT_COMMITTER_NAME": AGENT,
        "GIT_COMMITTER_EMAIL": f"{AGENT}@halo", "GIT_AUTHOR_DATE": f"{when[:-1]}+0000", "GIT_COMMITTER_DATE": f"{when[:-1]}+0000",
    }
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def _yaml(number: int, summary: str | None = None) -> str:
    """HALO's own YAML of an observation e<number>, with the summary line replaced."""
    text = to_yaml(Event(f"e{number}", "observe", AGENT, "s1", T2, "looked around")).decode()
    return text if summary is None else text.replace("summary: looked around", f"summary: {summary}")


def _write(wt: Path, rel: str, text: str) -> None:
    p = wt / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


HOSTILE = {
    # name: (files to add, commit message, what the refusal must say)
    "yaml-tag": ({"events/00/00/e2.yaml": _yaml(2, summary='!!python/object/apply:os.system ["touch PWNED"]')},
                 "e2 observe: innocent", "is not valid YAML"),
    "two-files": ({"events/00/00/e2.yaml": _yaml(2), "README.md": "hello\n"}, "e2 observe: looked around",
                  "changes 2 files"),
    "id-gap": ({"events/00/00/e3.yaml": _yaml(3)}, "e3 observe: looked around", "e2"),
    "wrong-path": ({"events/00/00/e3.yaml": _yaml(3)}, "e2 observe: looked around", "the next event commit adds events/00/00/e2.yaml"),
    "uses-forward": ({"events/00/00/e2.yaml": _yaml(2).replace("uses: []", "uses:\n- e3")}, "e2 observe: looked around",
                     "unknown event id(s) e3"),
}


@pytest.fixture
def remote(tmp_path):
    """A bare remote holding e1 written by HALO; returns (bare, a function that
    adds one hostile commit there and returns its id)."""
    origin = tmp_path / "origin"
    with Halo(origin) as h:
        h.log(AGENT, "observe", "user asked for a reminder", session="s1", time="2026-01-01T00:00:00Z")
    bare = tmp_path / "remote" / f"{AGENT}.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
    assert run_cli("push", "--agent", AGENT, str(bare), root=origin).returncode == 0

    def add_hostile(kind: str) -> str:
        files, message, _ = HOSTILE[kind]
        wt = tmp_path / f"wt-{kind}"
        _git(tmp_path, "clone", "-q", str(bare), str(wt))
        for rel, text in files.items():
            _write(wt, rel, text)
        _git(wt, "add", "-A")
        _git(wt, "commit", "-q", "-m", message)
        _git(wt, "push", "-q", "origin", "HEAD:main")
        return _git(wt, "rev-parse", "HEAD")

    return bare, add_hostile


def _refused(r: subprocess.CompletedProcess, sha: str, kind: str) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert f"commit {sha[:12]}" in r.stderr, r.stderr
    assert HOSTILE[kind][2] in r.stderr, r.stderr


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_pull_refuses_a_hostile_commit_and_leaves_the_branch(tmp_path, remote, kind):
    bare, add_hostile = remote
    local = tmp_path / "local"
    assert run_cli("clone", str(bare), "--agent", AGENT, root=local).returncode == 0
    repo = local / f"{AGENT}.git"
    before = git(repo, "rev-parse", "main").stdout
    packs = sorted(os.listdir(repo / "objects" / "pack"))
    sha = add_hostile(kind)
    r = run_cli("pull", "--agent", AGENT, str(bare), root=local)
    _refused(r, sha, kind)
    assert "Nothing was transferred" in r.stderr or "Nothing was changed" in r.stderr
    assert git(repo, "rev-parse", "main").stdout == before
    assert sorted(os.listdir(repo / "objects" / "pack")) == packs  # the incoming pack was dropped
    git(repo, "fsck", "--full")
    assert run_cli("verify", "--agent", AGENT, root=local).returncode == 0
    assert run_cli("report", "--agent", AGENT, root=local).returncode == 0
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_clone_refuses_a_hostile_history_and_creates_nothing(tmp_path, remote, kind):
    bare, add_hostile = remote
    sha = add_hostile(kind)
    local = tmp_path / "local"
    r = run_cli("clone", str(bare), "--agent", AGENT, root=local)
    _refused(r, sha, kind)
    assert not (local / f"{AGENT}.git").exists()
    assert [p.name for p in local.iterdir()] == [] if local.exists() else True


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_site_remote_refuses_a_hostile_history(tmp_path, remote, kind):
    bare, add_hostile = remote
    existing = tmp_path / "existing"
    assert run_cli("clone", str(bare), "--agent", AGENT, root=existing).returncode == 0
    before = git(existing / f"{AGENT}.git", "rev-parse", "main").stdout
    sha = add_hostile(kind)
    fresh = tmp_path / "fresh"
    for root in (fresh, existing):
        out = tmp_path / f"site-{root.name}"
        r = run_cli("site", "--root", str(root), "--remote", f"{AGENT}={bare}", "--out", str(out))
        _refused(r, sha, kind)
        assert not out.exists()
    assert not (fresh / f"{AGENT}.git").exists()
    assert git(existing / f"{AGENT}.git", "rev-parse", "main").stdout == before


def test_a_bad_event_committed_in_place_gives_clean_errors_and_check_never_reads_findings(tmp_path, remote):
    """A hostile commit pushed straight into the local repository (no pull to
    stop it): reads fail with a message naming the commit, not a YAML traceback,
    and ``check`` exits 2, never 1 (findings) or 0."""
    bare, add_hostile = remote
    sha = add_hostile("yaml-tag")
    local = tmp_path / "local"
    local.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(bare), str(local / f"{AGENT}.git")], check=True)
    for args in (("trace",), ("report",), ("export",)):
        r = run_cli(*args, "--agent", AGENT, root=local)
        assert r.returncode == 1 and "Traceback" not in r.stderr and f"commit {sha[:12]}" in r.stderr, r.stderr
    r = run_cli("check", "--agent", AGENT, root=local)
    assert r.returncode == 2 and f"commit {sha[:12]}" in r.stderr, (r.stdout, r.stderr)
    r = run_cli("verify", "--agent", AGENT, root=local)
    assert r.returncode == 1 and "is not valid YAML" in r.stderr


def test_a_remote_branch_named_head_is_refused_by_clone(tmp_path, remote):
    bare, _ = remote
    subprocess.run(["git", "--git-dir", str(bare), "update-ref", "refs/heads/HEAD", "refs/heads/main"], check=True)
    local = tmp_path / "local"
    r = run_cli("clone", str(bare), "--agent", AGENT, root=local)
    assert r.returncode == 2 and "invalid branch name 'HEAD'" in r.stderr and "no repository was created" in r.stderr, r.stderr
    assert not (local / f"{AGENT}.git").exists()
