"""The parsed-event cache travels with the repository (``refs/halo/cache/<branch>``):
a plain ``git clone --mirror`` gets it, a fresh clone's first read uses it, and
a forged cache ref can never change an answer (``verify`` reports it).

Real repositories, the real ``git`` binary, the real CLI in fresh processes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from halo_git import Halo
from halo_git.model import Event
from halo_git.store import snapshot
from tests.conftest import git, run_cli
from tests.test_integrity import AGENT, _answers, _lines

N = 2_050  # two full chunks of the travelling cache, and a few events after them
REF = "refs/halo/cache/main"


def _git(repo: Path, *args: str, input: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent), "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x",
           "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x"}
    return subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True, check=True, input=input, env=env).stdout


def _origin(root: Path) -> Path:
    with Halo(root) as h:
        h.import_lines(AGENT, _lines(N))
        assert len(h.events(AGENT)) == N  # a read publishes the travelling cache
    return root / f"{AGENT}.git"


def _mirror(origin: Path, root: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", "--mirror", str(origin), str(root / f"{AGENT}.git")], check=True, capture_output=True)
    assert not (root / f"{AGENT}.git" / snapshot.CACHE_DIR).exists()  # git does not carry halo/
    return root / f"{AGENT}.git"


def _cache_file(repo: Path) -> list[str]:
    [path] = (repo / snapshot.CACHE_DIR).glob("events-*.jsonl")
    return path.read_text(encoding="utf-8").splitlines()


def test_a_plain_git_mirror_clone_carries_the_cache_and_its_first_read_uses_it(tmp_path):
    origin = _origin(tmp_path / "origin")
    refs = git(origin, "for-each-ref", "--format=%(refname) %(objecttype)").stdout.split("\n")
    assert f"{REF} commit" in refs
    assert git(origin, "fsck", "--strict", "--no-dangling").returncode == 0
    tree = git(origin, "ls-tree", "--name-only", REF).stdout.split()
    assert tree == ["c000000.jsonl", "c000001.jsonl", "format"]
    truth = _answers(tmp_path / "origin")

    clone = _mirror(origin, tmp_path / "clone")
    assert _answers(tmp_path / "clone") == truth
    # the clone's cache file came from the ref's two chunks (a parse from Git
    # would have written all N events): the first read did not parse them
    lines = _cache_file(clone)
    assert len(lines) == 1 + 2 * snapshot.CHUNK
    assert json.loads(lines[-1])[2]["id"] == f"e{2 * snapshot.CHUNK}"
    verify = run_cli("verify", "--agent", AGENT, root=tmp_path / "clone")
    assert verify.returncode == 0 and f"matches Git ({2 * snapshot.CHUNK} events)" in verify.stdout, verify.stderr
    assert f"the travelling cache refs/halo/cache/main matches Git ({2 * snapshot.CHUNK} events)" in verify.stdout


def _forge_ref(repo: Path, change) -> None:
    """Rewrite chunk c000000.jsonl of the cache ref with ``change(lines)`` using git plumbing."""
    chunk = git(repo, "cat-file", "blob", f"{REF}:c000000.jsonl").stdout
    lines = [json.loads(x) for x in chunk.splitlines()]
    change(lines)
    text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    path = repo.parent / "forged.jsonl"
    path.write_text(text, encoding="utf-8")
    blob = git(repo, "hash-object", "-w", str(path)).stdout.strip()
    entries = git(repo, "ls-tree", REF).stdout.replace(git(repo, "rev-parse", f"{REF}:c000000.jsonl").stdout.strip(), blob)
    tree = _git(repo, "mktree", input=entries).strip()
    message = git(repo, "log", "-1", "--format=%B", REF).stdout.strip() + "\n"
    commit = _git(repo, "commit-tree", tree, "-m", message).strip()
    git(repo, "update-ref", REF, commit)


def _approved(lines) -> None:
    lines[1][2]["governance"] = "approved"  # e2, the unapproved self-revision


def _approved_with_its_blob_id(lines) -> None:
    _approved(lines)
    lines[1][1] = snapshot.blob_id(Event.from_dict(lines[1][2]))


def test_a_forged_cache_ref_never_changes_an_answer_and_verify_reports_it(tmp_path):
    for n, forge in enumerate([_approved, _approved_with_its_blob_id]):
        root = tmp_path / f"origin{n}"
        origin = _origin(root)
        truth = _answers(root)
        _forge_ref(origin, forge)
        forged = git(origin, "rev-parse", REF).stdout.strip()
        clone_root = tmp_path / f"clone{n}"
        clone = _mirror(origin, clone_root)  # the fresh clone has only the forged ref to go by

        verify = run_cli("verify", "--agent", AGENT, root=clone_root)
        assert verify.returncode == 1, verify.stdout
        assert f"travelling parsed-event cache {REF}" in verify.stderr and "changed outside HALO" in verify.stderr
        assert "entry e2" in verify.stderr and f"({N} events verified" in verify.stderr, verify.stderr
        assert git(clone, "rev-parse", REF).stdout.strip() == forged  # verify only reads

        check = run_cli("check", "--agent", AGENT, "--fail-on", "high", root=clone_root)
        assert check.returncode == 1 and "HALO-R1" in check.stdout, check.stdout
        assert _answers(clone_root) == truth
        assert all('"approved"' not in line for line in _cache_file(clone))
        # the first read rewrote the ref from Git: verify is green again
        assert git(clone, "rev-parse", REF).stdout.strip() != forged
        verify = run_cli("verify", "--agent", AGENT, root=clone_root)
        assert verify.returncode == 0, verify.stderr


def test_a_cache_ref_that_is_no_cache_commit_is_ignored_and_reported(tmp_path):
    origin = _origin(tmp_path / "origin")
    truth = _answers(tmp_path / "origin")
    git(origin, "update-ref", REF, "refs/heads/main")  # an event commit, not a cache commit
    clone_root = tmp_path / "clone"
    _mirror(origin, clone_root)
    verify = run_cli("verify", "--agent", AGENT, root=clone_root)
    assert verify.returncode == 1 and "not a HALO cache commit" in verify.stderr, verify.stderr
    assert _answers(clone_root) == truth
    assert run_cli("verify", "--agent", AGENT, root=clone_root).returncode == 0


def test_appends_never_write_the_cache_ref(tmp_path):
    with Halo(tmp_path) as h:
        for i in range(snapshot.CHUNK + 10):
            h.log(AGENT, "observe", f"step {i}")
    repo = tmp_path / f"{AGENT}.git"
    assert REF not in git(repo, "for-each-ref", "--format=%(refname)").stdout
    with Halo(tmp_path) as h:
        h.events(AGENT)
    assert REF in git(repo, "for-each-ref", "--format=%(refname)").stdout


def test_halo_push_clone_and_pull_carry_the_cache_ref(tmp_path):
    origin = _origin(tmp_path / "a")
    cache = git(origin, "rev-parse", REF).stdout.strip()
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
    r = run_cli("push", "--agent", AGENT, str(bare), root=tmp_path / "a")
    assert r.returncode == 0, r.stderr
    assert git(bare, "rev-parse", REF).stdout.strip() == cache
    assert git(bare, "fsck", "--strict", "--no-dangling").returncode == 0

    r = run_cli("clone", str(bare), "--agent", AGENT, root=tmp_path / "b")
    assert r.returncode == 0, r.stderr
    clone = tmp_path / "b" / f"{AGENT}.git"
    assert git(clone, "rev-parse", REF).stdout.strip() == cache
    assert _answers(tmp_path / "b") == _answers(tmp_path / "a")
    assert len(_cache_file(clone)) == 1 + 2 * snapshot.CHUNK  # read from the ref, not parsed

    # a thousand more events at a, published by a read there, pushed, pulled into b
    with Halo(tmp_path / "a") as h:
        h.import_lines(AGENT, [json.dumps({"kind": "observe", "summary": f"more {i}", "time": "2026-01-02T00:00:00Z"}) for i in range(1_000)])
        h.events(AGENT)
    newer = git(origin, "rev-parse", REF).stdout.strip()
    assert newer != cache and "e3000," in git(origin, "log", "-1", "--format=%B", REF).stdout
    assert run_cli("push", "--agent", AGENT, str(bare), root=tmp_path / "a").returncode == 0
    assert git(bare, "rev-parse", REF).stdout.strip() == newer
    r = run_cli("pull", "--agent", AGENT, str(bare), root=tmp_path / "b")
    assert r.returncode == 0, r.stderr
    assert git(clone, "rev-parse", REF).stdout.strip() == newer
    assert git(clone, "fsck", "--strict", "--no-dangling").returncode == 0
    assert _answers(tmp_path / "b") == _answers(tmp_path / "a")
    # b's cache file held 2,000 events, the pulled ref 3,000: the first read took the ref
    assert len(_cache_file(clone)) == 1 + 3 * snapshot.CHUNK


# -- the compact form (format 4) and refs an earlier version wrote (format 3) ---------------


def _chunk_rows(repo: Path, name: str = "c000000.jsonl") -> list:
    return [json.loads(x) for x in git(repo, "cat-file", "blob", f"{REF}:{name}").stdout.splitlines()]


def test_the_cache_ref_stores_no_ids_but_each_chunk_s_last_commit(tmp_path):
    origin = _origin(tmp_path / "origin")
    commits = git(origin, "rev-list", "--reverse", "main").stdout.split()
    assert git(origin, "cat-file", "blob", f"{REF}:format").stdout.encode() == snapshot.TRAVEL_FORMAT
    for i in range(2):
        rows = _chunk_rows(origin, f"c00000{i}.jsonl")
        assert [r[2]["id"] for r in rows] == [f"e{k}" for k in range(i * 1000 + 1, i * 1000 + 1001)]
        assert all(r[0] == "" and r[1] == "" for r in rows[:-1]) and rows[-1][1] == ""
        assert rows[-1][0] == commits[(i + 1) * 1000 - 1]  # the chunk's last event's commit, nothing else
    # the clone's cache file is the chunks as they travelled; its answers and verify as before
    clone = _mirror(origin, tmp_path / "clone")
    assert _answers(tmp_path / "clone") == _answers(tmp_path / "origin")
    lines = _cache_file(clone)
    assert json.loads(lines[0]) == {"format": snapshot.FORMAT, "branch": "main"}
    assert json.loads(lines[1]) [:2] == ["", ""] and json.loads(lines[-1])[0]
    with Halo(tmp_path / "clone") as h:
        log = h.event_log(AGENT)
        assert log.commits == commits  # read from Git on demand, never from the hints
    assert run_cli("verify", "--agent", AGENT, root=tmp_path / "clone").returncode == 0


def _old_format_ref(repo: Path, change=None) -> str:
    """Replace the cache ref by one an earlier version wrote (format 3: every line
    ``[commit, blob, event]``), built with git plumbing; returns its commit."""
    commits = git(repo, "rev-list", "--reverse", "main").stdout.split()
    fmt = json.dumps({"format": 3, "what": "HALO parsed-event cache"}) + "\n"
    entries = []
    for i in range(2):
        rows = _chunk_rows(repo, f"c00000{i}.jsonl")
        for k, r in enumerate(rows):
            n = i * 1000 + k
            r[0] = commits[n]
            r[1] = git(repo, "rev-parse", f"main:events/00/{(n + 1) // 100 % 100:02d}/e{n + 1}.yaml").stdout.strip() if k in (1, 999) \
                else snapshot.blob_id(Event.from_dict(r[2]))
        if change is not None and i == 0:
            change(rows)
        path = repo.parent / f"old{i}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        entries.append(f"100644 blob {git(repo, 'hash-object', '-w', str(path)).stdout.strip()}\tc00000{i}.jsonl")
    path = repo.parent / "old-format"
    path.write_text(fmt, encoding="utf-8")
    entries.append(f"100644 blob {git(repo, 'hash-object', '-w', str(path)).stdout.strip()}\tformat")
    tree = _git(repo, "mktree", input="\n".join(entries) + "\n").strip()
    message = git(repo, "log", "-1", "--format=%B", REF).stdout.strip() + "\n"
    commit = _git(repo, "commit-tree", tree, "-m", message).strip()
    git(repo, "update-ref", REF, commit)
    return commit


def test_a_cache_ref_of_the_earlier_format_is_read_checked_and_rewritten_compact(tmp_path):
    origin = _origin(tmp_path / "origin")
    truth = _answers(tmp_path / "origin")
    old = _old_format_ref(origin)
    clone = _mirror(origin, tmp_path / "clone")
    verify = run_cli("verify", "--agent", AGENT, root=tmp_path / "clone")  # an earlier version's ref verifies as before
    assert verify.returncode == 0 and f"refs/halo/cache/main matches Git ({2 * snapshot.CHUNK} events)" in verify.stdout, verify.stderr
    assert git(clone, "rev-parse", REF).stdout.strip() == old

    assert _answers(tmp_path / "clone") == truth
    lines = _cache_file(clone)
    # the first read took the old chunks as they are (it did not parse the events): ids on every line
    assert len(lines) == 1 + 2 * snapshot.CHUNK and all(len(json.loads(x)[1]) == 40 for x in lines[1:])
    # and rewrote the ref in the compact form, which verifies too
    assert git(clone, "rev-parse", REF).stdout.strip() != old
    assert git(clone, "cat-file", "blob", f"{REF}:format").stdout.encode() == snapshot.TRAVEL_FORMAT
    assert all(r[:2] == ["", ""] for r in _chunk_rows(clone)[:-1])
    assert git(clone, "fsck", "--strict", "--no-dangling").returncode == 0
    assert run_cli("verify", "--agent", AGENT, root=tmp_path / "clone").returncode == 0
    assert _answers(tmp_path / "clone") == truth


def test_a_forged_cache_ref_of_the_earlier_format_never_changes_an_answer(tmp_path):
    origin = _origin(tmp_path / "origin")
    truth = _answers(tmp_path / "origin")
    _old_format_ref(origin, _approved_with_its_blob_id)
    _mirror(origin, tmp_path / "clone")
    verify = run_cli("verify", "--agent", AGENT, root=tmp_path / "clone")
    assert verify.returncode == 1 and "entry e2 names blob" in verify.stderr, verify.stderr
    assert _answers(tmp_path / "clone") == truth
    assert run_cli("verify", "--agent", AGENT, root=tmp_path / "clone").returncode == 0


def test_a_branch_moved_back_inside_a_chunk_reads_the_last_whole_chunk_and_verify_names_it(tmp_path):
    """Compact chunks name one commit each: a branch moved back to e1500 takes
    e1..e1000 from the ref (the commit it names is the branch's), reads the
    rest from Git, and verify says the branch was moved back."""
    origin = _origin(tmp_path / "origin")
    clone = _mirror(origin, tmp_path / "clone")
    commits = git(clone, "rev-list", "--reverse", "main").stdout.split()
    git(clone, "update-ref", "refs/heads/main", commits[1499])
    bare = tmp_path / "bare"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(clone), str(bare / f"{AGENT}.git")], check=True, capture_output=True)
    assert _answers(tmp_path / "clone") == _answers(bare)
    assert len(_cache_file(clone)) == 1 + 1500
    verify = run_cli("verify", "--agent", AGENT, root=tmp_path / "clone")
    assert verify.returncode == 1 and "was moved back outside HALO" in verify.stderr and "e1501..e2000" in verify.stderr, verify.stderr


def test_an_earlier_version_s_cache_file_is_read_and_a_compact_one_checked_like_it(tmp_path):
    """A format-3 cache file (every id on every line) is still read; an entry of a
    compact file whose event was edited is refused like any other."""
    root = tmp_path / "root"
    _origin(root)
    repo = root / f"{AGENT}.git"
    truth = _answers(root)
    [path] = (repo / snapshot.CACHE_DIR).glob("events-*.jsonl")
    commits = git(repo, "rev-list", "--reverse", "main").stdout.split()
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    old = [json.dumps({"format": 3, "branch": "main"}) + "\n"] + [
        json.dumps([commits[i], snapshot.blob_id(Event.from_dict(r[2])), r[2]], ensure_ascii=False) + "\n" for i, r in enumerate(rows)]
    path.write_text("".join(old), encoding="utf-8")
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 0 and f"matches Git ({N} events)" in verify.stdout, verify.stderr
    with Halo(root) as h:
        assert [e.to_dict() for e in h.events(AGENT)] == [r[2] for r in rows]

    rows[1][2]["governance"] = "approved"  # e2, in a compact file
    path.write_text(json.dumps({"format": snapshot.FORMAT, "branch": "main"}) + "\n" + "".join(
        json.dumps(["", "", r[2]] if i < len(rows) - 1 else [commits[-1], "", r[2]], ensure_ascii=False) + "\n"
        for i, r in enumerate(rows)), encoding="utf-8")
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 1 and "entry e2 is not the event in blob" in verify.stderr, verify.stderr
    assert _answers(root) == truth
