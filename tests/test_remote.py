"""Agent repositories through Git remotes: push → clone → pull round trips against a
bare repository made by the real ``git`` binary, reached as a path, a ``file://``
URL and through ``git daemon`` on 127.0.0.1; diverged histories are refused and
nothing changes; ``git fsck`` stays clean."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.errors import Conflict, IntegrityError, NotFound
from halo_git.store import fetch_into_root, pull, push
from halo_git.store import remote as remote_module
from tests.conftest import git, run_cli

GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}


def make_bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(path)], check=True, env=GIT_ENV)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def daemon(tmp_path):
    """``git daemon`` serving tmp_path/served on a free 127.0.0.1 port, push enabled."""
    base = tmp_path / "served"
    base.mkdir()
    port = free_port()
    proc = subprocess.Popen(
        ["git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr", "--informative-errors",
         f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}", str(base)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**GIT_ENV, "HOME": str(tmp_path)},
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("git daemon did not start")
                time.sleep(0.05)
        yield base, f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(params=["path", "file-url", "git-daemon"])
def remote(request, tmp_path):
    """(bare repository on disk, the URL HALO is given for it)."""
    if request.param == "git-daemon":
        base, url = request.getfixturevalue("daemon")
        return make_bare(base / "demo.git"), f"{url}/demo.git"
    bare = make_bare(tmp_path / "remote" / "demo.git")
    return bare, str(bare) if request.param == "path" else bare.as_uri()


def cli(root: Path, *args: str):
    return run_cli(*args, root=root)


def log(root: Path, summary: str, branch: str = "main") -> str:
    r = cli(root, "log", "observe", "--agent", "demo", "--branch", branch, "--summary", summary)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["id"]


def refs(repo: Path) -> str:
    return git(repo, "show-ref", check=False).stdout


def objects(repo: Path) -> list[str]:
    return sorted(str(p.relative_to(repo)) for p in (repo / "objects").rglob("*") if p.is_file())


def fsck_clean(repo: Path) -> None:
    r = git(repo, "fsck", "--strict", "--no-progress", check=False)
    assert r.returncode == 0 and r.stdout == "" and "error" not in r.stderr, (r.stdout, r.stderr)


def summaries(root: Path, branch: str = "main") -> list[str]:
    with Halo(root) as h:
        return [f"{e.id} {e.summary}" for e in h.events("demo", branch)]


def test_push_clone_pull_round_trip(tmp_path, remote):
    bare, url = remote
    a, b = tmp_path / "a", tmp_path / "b"
    for s in ("first", "second", "third"):
        log(a, s)
    assert cli(a, "branch", "--agent", "demo", "v2").returncode == 0
    log(a, "only on v2", "v2")

    r = cli(a, "push", "--agent", "demo", url)
    assert r.returncode == 0, r.stderr
    assert "created with 3 event(s)" in r.stdout
    assert cli(a, "push", "--agent", "demo", url, "--branch", "v2").returncode == 0
    assert "already up to date" in cli(a, "push", "--agent", "demo", url).stdout
    assert git(bare, "log", "--format=%s", "main").stdout.splitlines() == ["e3 observe: third", "e2 observe: second", "e1 observe: first"]

    r = cli(b, "clone", url, "--agent", "demo")
    assert r.returncode == 0, r.stderr
    assert summaries(b) == summaries(a) and summaries(b, "v2") == summaries(a, "v2")
    assert git(b / "demo.git", "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"
    assert [p.name for p in b.iterdir()] == ["demo.git"]  # nothing left from the scratch copy

    log(b, "fourth, from b")
    log(b, "fifth, from b")
    r = cli(b, "push", "--agent", "demo", url)
    assert r.returncode == 0 and "fast-forwarded with 2 event(s)" in r.stdout, r.stderr

    r = cli(a, "pull", "--agent", "demo", url)
    assert r.returncode == 0 and "fast-forwarded with 2 event(s)" in r.stdout, r.stderr
    assert summaries(a) == summaries(b) and summaries(a)[-1] == "e5 fifth, from b"
    assert "already up to date" in cli(a, "pull", "--agent", "demo", url).stdout
    log(a, "sixth, from a")
    assert "already holds every event" in cli(a, "pull", "--agent", "demo", url).stdout  # local is ahead: nothing moves
    assert cli(a, "push", "--agent", "demo", url).returncode == 0
    assert git(bare, "rev-parse", "main").stdout == git(a / "demo.git", "rev-parse", "main").stdout

    assert not list((a / "demo.git" / "halo").glob("incoming-*"))
    for repo in (a / "demo.git", b / "demo.git", bare):
        fsck_clean(repo)
    assert git(b / "demo.git", "log", "--oneline", "v2").stdout.count("\n") == 4


def test_diverged_pull_and_push_are_refused_and_change_nothing(tmp_path, remote):
    bare, url = remote
    a, b = tmp_path / "a", tmp_path / "b"
    log(a, "shared one")
    log(a, "shared two")
    assert cli(a, "push", "--agent", "demo", url).returncode == 0
    assert cli(b, "clone", url, "--agent", "demo").returncode == 0
    log(a, "a three")  # a's e3
    log(b, "b three")  # b's e3: the same id, a different event
    log(b, "b four")
    assert cli(b, "push", "--agent", "demo", url).returncode == 0

    repo = a / "demo.git"
    before = (refs(repo), objects(repo), summaries(a))
    remote_before = refs(bare)
    r = cli(a, "pull", "--agent", "demo", url)
    assert r.returncode == 1
    assert "diverged since e2: here e3, on the remote e3..e4" in r.stderr
    assert "Nothing was changed" in r.stderr
    assert f"halo-git pull --agent demo {url} --branch main --into main-remote" in r.stderr
    assert "halo-git diff --agent demo main main-remote" in r.stderr
    assert (refs(repo), objects(repo), summaries(a)) == before
    assert not list((repo / "halo").glob("incoming-*"))

    r = cli(a, "push", "--agent", "demo", url)
    assert r.returncode == 1 and "Pull first" in r.stderr and "nothing was pushed" in r.stderr
    assert refs(bare) == remote_before
    fsck_clean(repo)
    fsck_clean(bare)

    # following the advice: the remote's history lands beside ours and the diff names both e3s
    r = cli(a, "pull", "--agent", "demo", url, "--into", "main-remote")
    assert r.returncode == 0, r.stderr
    assert summaries(a, "main-remote")[-2:] == ["e3 b three", "e4 b four"]
    assert summaries(a) == before[2]
    r = cli(a, "diff", "--agent", "demo", "main", "main-remote")
    assert r.returncode == 0, r.stderr
    assert "BASE main has 1 (e3); HEAD main-remote has 2 (e3–e4)" in r.stdout
    fsck_clean(repo)


def test_push_when_the_remote_is_ahead_says_pull_first(tmp_path):
    bare = make_bare(tmp_path / "r.git")
    a, b = tmp_path / "a", tmp_path / "b"
    log(a, "one")
    assert cli(a, "push", "--agent", "demo", str(bare)).returncode == 0
    assert cli(b, "clone", str(bare), "--agent", "demo").returncode == 0
    log(b, "two")
    assert cli(b, "push", "--agent", "demo", str(bare)).returncode == 0
    before = refs(bare)
    r = cli(a, "push", "--agent", "demo", str(bare))
    assert r.returncode == 1 and "Pull first: halo-git pull --agent demo" in r.stderr
    assert refs(bare) == before
    assert cli(a, "pull", "--agent", "demo", str(bare)).returncode == 0
    assert summaries(a) == ["e1 one", "e2 two"]


def test_refusals_say_what_to_do(tmp_path):
    a = tmp_path / "a"
    log(a, "one")
    missing = tmp_path / "nowhere.git"
    r = cli(a, "push", "--agent", "demo", str(missing))
    assert r.returncode == 1 and "git init --bare" in r.stderr
    assert not missing.exists()
    r = cli(a, "push", "--agent", "demo", str(make_bare(tmp_path / "r.git")), "--branch", "nope")
    assert r.returncode == 1 and "has no branch 'nope'" in r.stderr
    r = cli(a, "clone", str(tmp_path / "r.git"), "--agent", "demo")
    assert r.returncode == 1 and "already has a repository" in r.stderr and "halo-git pull" in r.stderr
    r = cli(tmp_path / "c", "clone", str(tmp_path / "r.git"), "--agent", "demo")
    assert r.returncode == 1 and "holds no branches" in r.stderr
    assert not (tmp_path / "c" / "demo.git").exists() and list((tmp_path / "c").iterdir()) == []
    r = cli(tmp_path / "d", "pull", "--agent", "demo", str(tmp_path / "r.git"))
    assert r.returncode == 1 and "halo-git clone" in r.stderr
    r = cli(a, "pull", "--agent", "demo", str(tmp_path / "r.git"))
    assert r.returncode == 1 and "has no branch 'main'" in r.stderr
    r = cli(a, "push", "--agent", "demo", "https://someone:s3cret@127.0.0.1:1/demo.git")
    assert r.returncode == 1 and "s3cret" not in r.stderr and "***@127.0.0.1" in r.stderr


def test_a_foreign_repository_is_refused(tmp_path):
    """A branch whose commits are not HALO event commits never enters the root."""
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "--initial-branch=main", str(work)], check=True, env=GIT_ENV)
    (work / "README").write_text("hello\n")
    env = {**GIT_ENV, "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x", "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x"}
    subprocess.run(["git", "-C", str(work), "add", "README"], check=True, env=env)
    subprocess.run(["git", "-C", str(work), "commit", "-q", "-m", "readme"], check=True, env=env)
    with pytest.raises(IntegrityError, match="not a HALO event commit"):
        fetch_into_root(tmp_path / "root", "demo", str(work))
    assert list((tmp_path / "root").iterdir()) == []

    with Halo(tmp_path / "a") as h:
        h.log("demo", "observe", "mine", session="s")
        with pytest.raises(IntegrityError):
            pull(h.store.repo("demo"), str(work), into="foreign")
        assert h.store.repo("demo").branches() == ["main"]


def test_fetch_into_root_clones_then_fast_forwards_every_branch(tmp_path):
    bare = make_bare(tmp_path / "r.git")
    with Halo(tmp_path / "a") as h:
        h.log("demo", "observe", "one", session="s")
        h.store.repo("demo").create_branch("v2", "main")
        h.log("demo", "observe", "two on v2", session="s", branch="v2")
        for branch in ("main", "v2"):
            push(h.store.repo("demo"), str(bare), branch)
    site = tmp_path / "site-root"
    first = fetch_into_root(site, "demo", str(bare))
    assert [(t.branch, t.status, t.events) for t in first] == [("main", "created", 1), ("v2", "created", 2)]
    with Halo(tmp_path / "a") as h:
        h.log("demo", "observe", "three", session="s")
        h.store.repo("demo").create_branch("v3", "main")
        for branch in ("main", "v3"):
            push(h.store.repo("demo"), str(bare), branch)
    again = fetch_into_root(site, "demo", str(bare))
    assert [(t.branch, t.status, t.events) for t in again] == [("main", "fast-forward", 1), ("v2", "up-to-date", 0), ("v3", "created", 2)]
    assert summaries(site) == ["e1 one", "e2 three"]
    fsck_clean(site / "demo.git")


def test_a_pull_never_overwrites_an_event_logged_while_it_ran(tmp_path, monkeypatch):
    """The branch is swapped by compare-and-swap, as appends are: an event logged
    between the fetch and the swap wins and the pull is refused."""
    bare = make_bare(tmp_path / "r.git")
    a, b = tmp_path / "a", tmp_path / "b"
    log(a, "one")
    assert cli(a, "push", "--agent", "demo", str(bare)).returncode == 0
    assert cli(b, "clone", str(bare), "--agent", "demo").returncode == 0
    log(a, "two")
    assert cli(a, "push", "--agent", "demo", str(bare)).returncode == 0

    adopt = remote_module._adopt

    def adopt_then_log(store, objects):
        adopt(store, objects)
        with Halo(b) as other:
            other.log("demo", "observe", "logged meanwhile", session="s")

    monkeypatch.setattr(remote_module, "_adopt", adopt_then_log)
    with Halo(b) as h, pytest.raises(Conflict, match="moved while pulling"):
        pull(h.store.repo("demo"), str(bare))
    assert summaries(b) == ["e1 one", "e2 logged meanwhile"]
    # the fetched objects stay unreferenced, as after a lost append retry; gc prunes them
    assert git(b / "demo.git", "fsck", "--strict", check=False).returncode == 0


def test_histories_without_common_events(tmp_path):
    bare = make_bare(tmp_path / "r.git")
    log(tmp_path / "a", "one")
    assert cli(tmp_path / "a", "push", "--agent", "demo", str(bare)).returncode == 0
    with Halo(tmp_path / "b") as h:
        h.log("demo", "observe", "another one", session="s")
        with pytest.raises(Conflict, match="diverged from the start"):
            pull(h.store.repo("demo"), str(bare))
        with pytest.raises(NotFound):
            pull(Halo(tmp_path / "c").store.repo("demo"), str(bare))


def new_pack_objects(repo: Path, before: set[str]) -> int:
    """Objects in the packs of ``repo`` that were not there in ``before``."""
    total = 0
    for idx in (repo / "objects" / "pack").glob("*.idx"):
        if idx.name not in before:
            with open(idx, "rb") as f:
                total += len(subprocess.run(["git", "show-index"], stdin=f, capture_output=True, text=True, check=True).stdout.splitlines())
    return total


def pack_names(repo: Path) -> set[str]:
    return {p.name for p in (repo / "objects" / "pack").glob("*.idx")}


def test_transfers_carry_the_new_events_not_the_history(tmp_path, daemon):
    """After a 60-event history, moving 2 more events moves about 2 × 6 objects
    (commit, blob, four trees), both ways."""
    base, url = daemon
    bare = make_bare(base / "demo.git")
    a, b = tmp_path / "a", tmp_path / "b"
    with Halo(a) as h:
        h.import_lines("demo", [json.dumps({"kind": "observe", "summary": f"event {i}"}) for i in range(60)])
    assert cli(a, "push", "--agent", "demo", str(bare)).returncode == 0
    assert cli(b, "clone", f"{url}/demo.git", "--agent", "demo").returncode == 0
    log(a, "sixty-one")
    log(a, "sixty-two")
    before = pack_names(bare)
    assert cli(a, "push", "--agent", "demo", str(bare)).returncode == 0  # path remote: HALO writes the pack
    assert new_pack_objects(bare, before) == 12
    before = pack_names(b / "demo.git")
    assert cli(b, "pull", "--agent", "demo", f"{url}/demo.git").returncode == 0  # git daemon sends the pack
    assert 12 <= new_pack_objects(b / "demo.git", before) <= 16  # a thin pack is completed with a few bases
    assert summaries(b)[-1] == "e62 sixty-two"
    fsck_clean(b / "demo.git")
