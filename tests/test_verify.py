"""``halo-git verify`` against histories tampered with by the real ``git`` binary.

Each test writes a genuine history through ``Halo``, rewrites it with plain git
(fast-export/fast-import, interactive rebase, commit-tree, update-ref), and
expects verify to exit 1 naming the first commit HALO could not have written.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from halo_git import Halo
from halo_git.errors import IntegrityError
from halo_git.store import verify_branch

from tests.conftest import git, run_cli

AGENT = "demo"
IDENT = {"GIT_AUTHOR_NAME": AGENT, "GIT_AUTHOR_EMAIL": f"{AGENT}@halo", "GIT_COMMITTER_NAME": AGENT, "GIT_COMMITTER_EMAIL": f"{AGENT}@halo"}


def make_history(root: Path) -> Path:
    """Six events of every kind, with uses and about, at fixed times."""
    with Halo(root, session="day1") as h:
        t = iter(f"2026-11-30T09:{m:02d}:00Z" for m in range(10, 60))
        h.log(AGENT, "observe", "apples counted: 12", time=next(t))
        h.log(AGENT, "remember", "user likes pears", uses=["e1"], time=next(t))
        h.log(AGENT, "recall", "looked up the pears note", uses=["e2"], time=next(t))
        h.log(AGENT, "act", "suggested pears at 9:30", uses=["e1", "e3"], trigger="self", time=next(t))
        h.log(AGENT, "outcome", "the user said yes", about="e4", time=next(t))
        h.log(AGENT, "revise", "suggest fruit daily", uses=["e5"], target="daily plan", made_by="agent", governance="bounded", time=next(t))
    return root / f"{AGENT}.git"


def commits(repo: Path) -> list[str]:
    """Commit ids from the root commit to the head of main."""
    return git(repo, "rev-list", "--reverse", "main").stdout.split()


def verify(root: Path) -> subprocess.CompletedProcess:
    return run_cli("verify", "--agent", AGENT, root=root)


def assert_refused_at(root: Path, commit: str, *phrases: str) -> str:
    r = verify(root)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"commit {commit[:12]} " in r.stderr, r.stderr
    for phrase in phrases:
        assert phrase in r.stderr, r.stderr
    return r.stderr


def run_git(repo: Path, *args: str, input: bytes | None = None, env: dict | None = None, cwd: Path | None = None) -> bytes:
    cmd = ["git", "--git-dir", str(repo), *args] if cwd is None else ["git", *args]
    return subprocess.run(
        cmd, input=input, capture_output=True, check=True, cwd=cwd,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent), **(env or {})},
    ).stdout


def fast_rewrite(repo: Path, edit_blob: Callable[[bytes], bytes]) -> None:
    """Export the history, let ``edit_blob`` change file contents, import it over main."""
    stream = run_git(repo, "fast-export", "--reencode=no", "main")
    out, pos, last_command = [], 0, b""
    while pos < len(stream):
        end = stream.index(b"\n", pos)
        line = stream[pos:end]
        if line.startswith(b"data "):
            n = int(line[5:])
            data = stream[end + 1 : end + 1 + n]
            if last_command == b"blob":
                data = edit_blob(data)
            out.append(b"data %d\n" % len(data) + data)
            pos = end + 1 + n
            continue
        if line in (b"blob", b"commit refs/heads/main", b"reset refs/heads/main"):
            last_command = line.split()[0]
        out.append(line + b"\n")
        pos = end + 1
    run_git(repo, "fast-import", "--force", "--quiet", input=b"".join(out))


def rebase(tmp: Path, repo: Path, edit_todo: str) -> None:
    """Clone, ``git rebase -i --root`` with ``edit_todo`` (a Python expression over
    ``lines``), keep HALO's identity and dates, force-push back."""
    work = tmp / "work"
    subprocess.run(["git", "clone", "-q", str(repo), str(work)], check=True, capture_output=True)
    editor = tmp / "edit_todo.py"
    editor.write_text(
        "import sys\np = sys.argv[1]\nlines = [l for l in open(p) if l.startswith('pick')]\n"
        f"lines = {edit_todo}\nopen(p, 'w').write(''.join(lines))\n"
    )
    env = {**IDENT, "GIT_SEQUENCE_EDITOR": f"{sys.executable} {editor}"}
    run_git(repo, "rebase", "-q", "-i", "--root", "--committer-date-is-author-date", env=env, cwd=work)
    run_git(repo, "push", "-q", "--force", "origin", "HEAD:main", cwd=work)


def commit_tree_on_main(repo: Path, index_edit: list[list[str]], message: str, parent: str = "main", base: str = "main", date: str = "1796032800 +0000") -> str:
    """Build a commit with plumbing: the tree of ``base`` changed by ``update-index`` calls."""
    index = repo.parent / "tamper.index"
    env = {**IDENT, "GIT_INDEX_FILE": str(index), "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    run_git(repo, "read-tree", base, env=env)
    for args in index_edit:  # ["--index-info", lines] feeds lines on stdin
        if args[0] == "--index-info":
            run_git(repo, "update-index", "--index-info", input=args[1].encode(), env=env)
        else:
            run_git(repo, "update-index", *args, env=env)
    tree = run_git(repo, "write-tree", env=env).decode().strip()
    parents = [a for p in parent.split() for a in ("-p", p)] if parent else []
    commit = run_git(repo, "commit-tree", tree, *parents, "-m", message, env=env).decode().strip()
    run_git(repo, "update-ref", "refs/heads/main", commit)
    index.unlink()
    return commit


def blob(repo: Path, text: str) -> str:
    return run_git(repo, "hash-object", "-w", "--stdin", input=text.encode()).decode().strip()


# --- a genuine history passes ---------------------------------------------------------------


def test_genuine_history_verifies(root):
    repo = make_history(root)
    r = verify(root)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"ok: 6 events on branch 'main' of agent 'demo' verified, e1..e6, head {commits(repo)[-1]}"


def test_an_identity_rewrite_keeps_every_commit_id_and_still_verifies(root):
    """The fast-export/fast-import round trip itself changes nothing, so the
    failures below come from the edits, not from the tool."""
    repo = make_history(root)
    before = commits(repo)
    fast_rewrite(repo, lambda data: data)
    assert commits(repo) == before
    assert verify(root).returncode == 0


def test_packed_history_verifies(root):
    repo = make_history(root)
    git(repo, "gc", "-q", "--aggressive", "--prune=now")
    assert not list((repo / "objects").glob("??/*"))
    assert verify(root).returncode == 0


def test_empty_branch_and_missing_agent(root):
    assert verify(root).returncode == 1  # no repository for the agent
    make_history(root)
    r = run_cli("verify", "--agent", AGENT, "--branch", "nope", root=root)
    assert r.returncode == 1 and "no branch 'nope'" in r.stderr
    git(root / f"{AGENT}.git", "branch", "side", "main~2")
    r = run_cli("verify", "--agent", AGENT, "--branch", "side", root=root)
    assert r.returncode == 0 and "ok: 4 events" in r.stdout


# --- edited events -----------------------------------------------------------------------------


def test_edited_summary_is_caught_at_its_commit(root):
    repo = make_history(root)
    original = commits(repo)
    fast_rewrite(repo, lambda d: d.replace(b"summary: user likes pears", b"summary: user likes plums"))
    rewritten = commits(repo)
    assert rewritten[0] == original[0] and rewritten[1] != original[1]
    assert_refused_at(root, rewritten[1], "position e2", "message does not match", "expected 'e2 remember: user likes plums'")


def test_edited_summary_with_matching_message_is_caught_as_noncanonical(root, tmp_path):
    """An editor who also fixes the message: the YAML is re-derived, so a
    hand-made file (here: a comment) still fails, at the first changed commit."""
    repo = make_history(root)
    fast_rewrite(repo, lambda d: d.replace(b"summary: the user said yes\n", b"summary: the user said yes  # edited\n"))
    assert_refused_at(root, commits(repo)[4], "position e5", "canonical YAML form")


@pytest.mark.parametrize(
    "old, new, phrase",
    [
        (b"id: e3\n", b"id: e7\n", "holds id 'e7', expected e3"),
        (b"kind: recall\ncategory: Memory", b"kind: act\ncategory: Action", "'trigger' is required"),
        (b"uses:\n- e2\nchannels:\n- M\xe2\x86\x92M", b"uses:\n- e9\nchannels:\n- M\xe2\x86\x92M", "unknown event id(s) e9"),
        (b"channels:\n- M\xe2\x86\x92M\n", b"channels:\n- S\xe2\x86\x92M\n", "differs from the event its fields imply in: channels"),
        (b"agent: demo\nsession: day1\ntime: '2026-11-30T09:12:00Z'", b"agent: mallory\nsession: day1\ntime: '2026-11-30T09:12:00Z'", "names agent 'mallory'"),
        (b"time: '2026-11-30T09:12:00Z'", b"time: 'yesterday at noon'", "is not ISO 8601"),
        (b"time: '2026-11-30T09:12:00Z'", b"time: '2026-11-30T09:13:00Z'", "commit time differs"),
        (b"session: day1\ntime: '2026-11-30T09:12:00Z'", b"session: 'day1 [x]'\ntime: '2026-11-30T09:12:00Z'", "square brackets"),
        (b"uses:\n- e2\n", b"uses: e2\nextra: 1\n", "does not validate"),
        (b"id: e3\n", b"id: e3\n  bad: [\n", "not valid YAML"),
    ],
)
def test_edited_event_fields_are_caught(root, old, new, phrase):
    repo = make_history(root)
    fast_rewrite(repo, lambda d: d.replace(old, new) if b"id: e3\n" in d else d)
    assert_refused_at(root, commits(repo)[2], "position e3", phrase)


def test_edit_by_a_later_commit_is_caught(root):
    repo = make_history(root)
    edited = git(repo, "show", "main:events/00/00/e2.yaml").stdout.replace("pears", "plums")
    bad = commit_tree_on_main(repo, [["--add", "--cacheinfo", f"100644,{blob(repo, edited)},events/00/00/e2.yaml"]], "e7 observe: fixed a typo")
    assert_refused_at(root, bad, "position e7", "modify events/00/00/e2.yaml")


# --- deleted, extra, reordered ---------------------------------------------------------------


def test_dropped_event_commit_is_caught(root, tmp_path):
    repo = make_history(root)
    before = commits(repo)
    rebase(tmp_path, repo, "lines[:2] + lines[3:]")  # drop e3
    after = commits(repo)
    assert len(after) == 5 and after[2] != before[3]  # rebase rewrites e4 onto e2
    assert_refused_at(root, after[2], "position e3", "add events/00/00/e4.yaml; the next event commit adds events/00/00/e3.yaml")


def test_deleted_event_file_is_caught(root):
    repo = make_history(root)
    bad = commit_tree_on_main(repo, [["--index-info", f"0 {'0' * 40}\tevents/00/00/e3.yaml\n"]], "e7 observe: cleanup")
    assert_refused_at(root, bad, "position e7", "delete events/00/00/e3.yaml")


def test_extra_file_in_an_event_commit_is_caught(root):
    """The last commit rebuilt with its event plus a README, same message and date."""
    repo = make_history(root)
    last = commits(repo)[-1]
    message = git(repo, "log", "-1", "--format=%B", last).stdout
    date = git(repo, "log", "-1", "--format=%at +0000", last).stdout.strip()
    bad = commit_tree_on_main(
        repo, [["--add", "--cacheinfo", f"100644,{blob(repo, 'notes')},README.md"]], message.rstrip("\n"), parent="main~1", date=date
    )
    assert_refused_at(root, bad, "position e6", "changes 2 files", "add README.md")


def test_extra_commit_with_a_stray_file_is_caught(root):
    repo = make_history(root)
    bad = commit_tree_on_main(repo, [["--add", "--cacheinfo", f"100644,{blob(repo, 'x')},events/00/00/e7.yml"]], "e7 observe: x")
    assert_refused_at(root, bad, "position e7", "add events/00/00/e7.yml; the next event commit adds events/00/00/e7.yaml")


def test_reordered_commits_are_caught(root, tmp_path):
    repo = make_history(root)
    before = commits(repo)
    rebase(tmp_path, repo, "lines[:2] + [lines[3], lines[2]] + lines[4:]")  # e4 before e3
    after = commits(repo)
    assert len(after) == 6 and after[2] not in before
    assert git(repo, "log", "-1", "--format=%s", after[2]).stdout.strip() == "e4 act: suggested pears at 9:30"
    assert_refused_at(root, after[2], "position e3", "add events/00/00/e4.yaml")


def test_merge_commit_is_caught(root):
    repo = make_history(root)
    tree = git(repo, "rev-parse", "main^{tree}").stdout.strip()
    env = {**os.environ, **IDENT, "HOME": str(root)}
    merge = subprocess.run(["git", "--git-dir", str(repo), "commit-tree", tree, "-p", "main", "-p", "main~1", "-m", "e7 observe: merge"],
                           capture_output=True, text=True, check=True, env=env).stdout.strip()
    git(repo, "update-ref", "refs/heads/main", merge)
    # a commit with two parents is only the first event a merge appended: one file, the next event, merged_from
    assert_refused_at(root, merge, "it changes no file")
    hand = subprocess.run(["git", "--git-dir", str(repo), "commit-tree", tree, "-p", "main~1", "-p", "main~2", "-m", "Merge branch 'x'"],
                          capture_output=True, text=True, check=True, env=env).stdout.strip()
    git(repo, "update-ref", "refs/heads/main", hand)
    assert_refused_at(root, hand, "merge of 2 commits")


def test_corrupted_object_is_caught_by_verify_and_by_git(root):
    """Swap one loose object's file for another's: same ids, wrong contents."""
    repo = make_history(root)
    e3 = git(repo, "rev-parse", "main~3:events/00/00/e3.yaml").stdout.strip()
    e2 = git(repo, "rev-parse", "main~4:events/00/00/e2.yaml").stdout.strip()
    target = repo / "objects" / e3[:2] / e3[2:]
    target.chmod(0o644)
    target.write_bytes((repo / "objects" / e2[:2] / e2[2:]).read_bytes())
    assert_refused_at(root, commits(repo)[2], "position e3", "corrupt")
    assert git(repo, "fsck", "--full", check=False).returncode != 0


def test_verify_api_names_the_commit(root):
    repo = make_history(root)
    fast_rewrite(repo, lambda d: d.replace(b"counted: 12", b"counted: 13"))
    with Halo(root) as h, pytest.raises(IntegrityError) as e:
        verify_branch(h.store.repo(AGENT), "main")
    assert e.value.commit == commits(repo)[0]
    assert re.search(r"commit [0-9a-f]{12} \(position e1", str(e.value))


def test_empty_commit_and_wrong_file_mode_are_caught(root):
    repo = make_history(root)
    empty = commit_tree_on_main(repo, [], "e7 observe: nothing")
    assert_refused_at(root, empty, "position e7", "changes no file")
    git(repo, "update-ref", "refs/heads/main", "main~1")
    content = git(repo, "show", "main:events/00/00/e6.yaml").stdout
    bad = commit_tree_on_main(repo, [["--add", "--cacheinfo", f"100755,{blob(repo, content)},events/00/00/e7.yaml"]], "e7 observe: x")
    assert_refused_at(root, bad, "position e7", "has mode 100755")


def _recommit_tip(repo: Path, **ident: str) -> str:
    """Replace the tip of main by a commit with the same tree, parent, message and
    times, but the identity given (plain git plumbing, as a hand edit would)."""
    raw = run_git(repo, "cat-file", "commit", "main")
    header, message = raw.split(b"\n\n", 1)
    stamp = next(line for line in header.split(b"\n") if line.startswith(b"author ")).rsplit(b" ", 2)
    date = (stamp[1] + b" " + stamp[2]).decode()
    env = {**IDENT, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, **ident}
    tree = run_git(repo, "rev-parse", "main^{tree}").decode().strip()
    commit = run_git(repo, "commit-tree", tree, "-p", "main~1", "-F", "-", input=message, env=env).decode().strip()
    run_git(repo, "update-ref", "refs/heads/main", commit)
    return commit


@pytest.mark.parametrize("ident", [
    {"GIT_AUTHOR_NAME": "mallory"},
    {"GIT_AUTHOR_EMAIL": "mallory@example.com"},
    {"GIT_COMMITTER_NAME": "mallory"},
    {"GIT_COMMITTER_EMAIL": "mallory@example.com"},
])
def test_a_commit_by_another_identity_is_caught(root, ident):
    repo = make_history(root)
    commit = _recommit_tip(repo, **ident)
    assert_refused_at(root, commit, f"its author or committer is not the agent ({AGENT} <{AGENT}@halo>)")


def test_the_same_identity_recommitted_still_verifies(root):
    """The control for the test above: the plumbing alone changes nothing verify checks."""
    repo = make_history(root)
    _recommit_tip(repo)
    r = verify(root)
    assert r.returncode == 0, r.stderr
