"""Repository files changed outside HALO by hand or by a hostile remote: a cache
line nested too deep for any parser, damaged refs, packed-refs and config, a
branch deleted under its caches, a forged push-state file, bidirectional controls.
Every read gives Git's truth or one clear message, never a traceback or a lie."""

from __future__ import annotations

import json
import subprocess

import pytest

from halo_git import Halo, InvalidCall
from tests.conftest import git, run_cli

AGENT = "a"
READS = (["trace"], ["report"], ["export"], ["check"], ["revisions"], ["verify"])


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "root"
    with Halo(root) as h:
        o = h.log(AGENT, "observe", "user asked for a reminder", session="s1")["id"]
        h.log(AGENT, "revise", "moved the reminder rule", [o], "s1", target="reminder rule", made_by="agent", governance="none")
        # past one cache chunk (1,000 events): the local cache and refs/halo/cache/main are both written
        h.import_lines(AGENT, [json.dumps({"kind": "observe", "summary": f"inbox checked {i}", "session": "s2"}) for i in range(1100)])
    assert run_cli("report", "--agent", AGENT, root=root).returncode == 0  # a cold read writes the caches
    assert list((root / f"{AGENT}.git" / "halo").glob("events-*.jsonl"))
    assert git(root / f"{AGENT}.git", "for-each-ref", "refs/halo/cache").stdout
    return root


def reads(root) -> dict[str, subprocess.CompletedProcess]:
    return {args[0]: run_cli(*args, "--agent", AGENT, root=root) for args in READS}


def test_a_cache_line_nested_too_deep_is_ignored_and_verify_names_it(root):
    [cache] = (root / f"{AGENT}.git" / "halo").glob("events-*.jsonl")
    truth = {k: r.stdout for k, r in reads(root).items() if k != "verify"}
    lines = cache.read_text(encoding="utf-8").splitlines(True)
    commit, blob, event = json.loads(lines[2])
    lines[2] = json.dumps([commit, blob, {**event, "summary": json.loads("[" * 900 + "]" * 900)}]) + "\n"
    lines[3] = "[" * 100_000 + "]" * 100_000 + "\n"
    cache.write_text("".join(lines), encoding="utf-8")
    bad = run_cli("verify", "--agent", AGENT, root=root)
    assert bad.returncode == 1
    assert "is intact" in bad.stderr and "is not an entry HALO writes" in bad.stderr and "Traceback" not in bad.stderr
    after = reads(root)
    for k, r in after.items():
        assert "Traceback" not in r.stderr, (k, r.stderr[-500:])
        if k != "verify":
            assert r.stdout == truth[k], k
    assert after["verify"].returncode == 0  # the first read rewrote the cache from Git


@pytest.mark.parametrize("damage", [
    "git pack-refs --all && printf 'garbage line\\n' >> packed-refs",
    "echo 'not a sha' > refs/heads/main",
    "echo 'ref: refs/heads/main' > refs/heads/main",
    "git rev-parse main^{tree} > refs/heads/main.new && mv refs/heads/main.new refs/heads/main",
    "echo '[[[' >> config",
], ids=["packed-refs", "ref-text", "ref-loop", "ref-to-tree", "config"])
def test_damaged_repository_files_give_one_message(root, damage):
    subprocess.run(["bash", "-c", damage], cwd=root / f"{AGENT}.git", check=True, env={"GIT_DIR": ".", "PATH": "/usr/bin:/bin"})
    for k, r in reads(root).items():
        assert r.returncode in (1, 2) and "Traceback" not in r.stderr, (k, r.stderr[-800:])
        assert r.stderr.startswith("halo-git: error: "), (k, r.stderr)
        if k == "check":
            assert r.returncode == 2  # a trace that cannot be read is never "findings"


def test_a_branch_deleted_under_its_caches_is_not_an_empty_trace(root):
    git(root / f"{AGENT}.git", "update-ref", "-d", "refs/heads/main")
    for k, r in reads(root).items():
        assert r.returncode in (1, 2) and "was deleted or changed outside HALO" in r.stderr, (k, r.stdout, r.stderr)
    logged = run_cli("log", "observe", "--agent", AGENT, "--summary", "a new e1?", root=root)
    assert logged.returncode == 1 and "outside HALO" in logged.stderr  # no new history started in its place
    assert git(root / f"{AGENT}.git", "for-each-ref", "refs/heads").stdout == ""


def test_a_hand_edited_push_state_reads_as_never_pushed_or_escaped(root):
    state = root / f"{AGENT}.git" / "halo-push.json"
    state.write_text(json.dumps({"branches": {"main": {"agent": AGENT, "branch": "main", "remote": "x", "status": "pushed", "commit": 5}}}))
    r = run_cli("agents", root=root)
    assert r.returncode == 0 and "never pushed" in r.stdout
    state.write_text(json.dumps({"branches": {"main": {"agent": AGENT, "branch": "main", "remote": "x\x1b[31m\nfake row",
                                                      "status": "failing", "error": "e"}}}))
    r = run_cli("agents", root=root)
    assert "\x1b" not in r.stdout and "x\\x1b[31m\\nfake row" in r.stdout and len(r.stdout.splitlines()) == 2


@pytest.mark.parametrize("field", ["summary", "session", "target"])
def test_bidirectional_controls_are_refused(root, field):
    args = {"summary": "moved the rule", "session": "s3", "target": "reminder rule"}
    args[field] = args[field][:3] + "\u202e" + args[field][3:]
    with Halo(root) as h, pytest.raises(InvalidCall, match="bidirectional control U[+]202E"):
        h.log(AGENT, "revise", args["summary"], session=args["session"], target=args["target"], made_by="user", governance="approved")
