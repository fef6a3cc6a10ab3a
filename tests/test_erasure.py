"""Verifiable erasure: ``halo-git redact``, its signed record, and what verify, push and pull make of it.

Everything runs against real repositories with the real CLI and the real
``git`` binary: ``git cat-file --batch-all-objects`` must find the erased text
nowhere (packs and loose objects), ``git fsck --strict`` must stay clean,
``verify`` must accept a rewrite only when an allowed signer's record covers
it, ``verify --against`` an old copy must list exactly the redacted events,
push and pull must carry the erasure (with a lease), and a redaction killed
after any step must leave the old or the new history and finish when run again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from halo_git import Halo

from tests.conftest import git, run_cli

AGENT = "care"
SECRET = "Jane Doe told us about her diabetes"


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    for name in ("alice", "mallory"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(d / name)], check=True)
    allowed = d / "allowed_signers"
    allowed.write_text(f'alice@example.com namespaces="git" {(d / "alice.pub").read_text().strip()}\n')
    return {"alice": d / "alice", "mallory": d / "mallory", "allowed": allowed}


def build(root: Path, keys, n: int, secret_at: int) -> None:
    """``n`` events (an import), a revise at e10, the secret at ``secret_at``, three signed approvals after it."""
    def line(i: int) -> str:
        if i == 10:
            return json.dumps({"kind": "revise", "summary": "tone: shorter replies", "target": "tone", "made_by": "agent",
                               "governance": "none", "session": "s1", "time": "2026-11-01T08:00:00Z"})
        text = SECRET if i == secret_at else f"routine observation {i}"
        return json.dumps({"kind": "observe", "summary": text, "session": f"s{i // 100}", "time": "2026-11-01T08:00:00Z"})

    half = n // 2
    with Halo(root) as h:
        h.import_lines(AGENT, [line(i) for i in range(1, half + 1)], allow_duplicates=True)
        for k in range(3):
            h.approve(AGENT, "e10", name="Alice", email="alice@example.com", sign="ssh", key=str(keys["alice"]),
                      note=f"approval {k}", time="2026-11-02T08:00:00Z")
        h.import_lines(AGENT, [line(i) for i in range(half + 4, n + 1)], allow_duplicates=True)


def repo(root: Path) -> Path:
    return root / f"{AGENT}.git"


def all_objects(path: Path) -> bytes:
    return subprocess.run(["git", "--git-dir", str(path), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def text_anywhere(path: Path) -> bool:
    """The secret in any object, or in any plain file of the repository (cache file, refs, logs)."""
    if SECRET.encode() in all_objects(path):
        return True
    return any(SECRET.encode() in p.read_bytes() for p in path.rglob("*") if p.is_file() and "objects" not in p.parts)


def redact(root: Path, keys, *extra: str, signer: str = "alice", env: dict | None = None) -> subprocess.CompletedProcess:
    args = ["redact", "--agent", AGENT, *extra, "--by", "Alice", "--email", "alice@example.com"]
    if signer:
        args += ["--sign", "ssh", "--key", str(keys[signer])]
    cmd = [os.sys.executable, "-m", "halo_git.cli", *args, "--root", str(root)]
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)


def fsck_clean(path: Path) -> None:
    r = git(path, "fsck", "--strict", "--no-dangling", check=False)
    assert r.returncode == 0 and "missing" not in r.stdout + r.stderr and "broken" not in r.stdout + r.stderr, r.stdout + r.stderr


@pytest.fixture
def small(tmp_path, keys):
    root = tmp_path / "root"
    build(root, keys, 60, 20)
    return root


def test_redaction_removes_the_text_and_verify_accepts_the_signed_record(small, keys, tmp_path):
    root = small
    old_copy = tmp_path / "old.git"
    shutil.copytree(repo(root), old_copy)
    assert run_cli("seal", "--agent", AGENT, "--by", "Alice", "--email", "alice@example.com", "--sign", "ssh", "--key",
                   str(keys["alice"]), root=root).returncode == 0
    old_head = git(repo(root), "rev-parse", "main").stdout.strip()
    r = redact(root, keys, "e20", "--reason", "erasure request of the person")
    assert r.returncode == 0, r.stderr
    assert "redacted e20" in r.stdout and "rebuild every site" in r.stderr
    assert not text_anywhere(repo(root))
    fsck_clean(repo(root))
    shown = run_cli("trace", "--agent", AGENT, "--limit", "200", root=root).stdout.splitlines()[19]
    assert shown.startswith("e20 [s0] observe: [redacted ") and "by Alice: erasure request of the person]" in shown
    exported = [json.loads(line) for line in run_cli("export", "--agent", AGENT, root=root).stdout.splitlines()]
    assert exported[19]["summary"] == shown.split("observe: ", 1)[1] and exported[19]["id"] == "e20"
    report = run_cli("report", "--agent", AGENT, root=root).stdout
    assert SECRET not in report
    # the branch holds the re-created history (verify --against below compares it tree by tree)
    new_head = git(repo(root), "rev-parse", "main").stdout.strip()
    assert new_head != old_head
    record = git(repo(root), "for-each-ref", "--format=%(refname)", "refs/halo/erasures/main").stdout.split()
    assert len(record) == 1
    git(repo(root), "-c", f"gpg.ssh.allowedSignersFile={keys['allowed']}", "verify-commit", record[0])  # plain git accepts it
    data = json.loads(git(repo(root), "cat-file", "-p", f"{record[0]}:record.json").stdout)
    assert data["events"] == ["e20"] and data["old_head"] == old_head and data["new_head"] == new_head
    assert len(data["map"]) == 41 and [a["event"] for a in data["approvals"]] == ["e31", "e32", "e33"]
    v = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=root)
    assert v.returncode == 0, v.stderr
    assert "signature good (alice@example.com)" in v.stdout
    for e in ("e31", "e32", "e33"):
        assert f"approval {e} proven before erasure" in v.stdout and "attested by Alice <alice@example.com>" in v.stdout
    w = run_cli("verify", "--agent", AGENT, "--against", str(old_copy), root=root)
    assert w.returncode == 0, w.stderr
    assert "the copies differ only in e20, redacted by erasure" in w.stdout
    # the old copy's view: verify of the old copy itself still passes (it never synced)
    assert SECRET.encode() in all_objects(old_copy)


def test_unsigned_record_and_record_by_unknown_key_fail_verify(tmp_path, keys):
    for signer, needle in ((None, "unsigned"), ("mallory", "unknown-signer")):
        root = tmp_path / f"root-{signer}"
        build(root, keys, 40, 12)
        assert run_cli("seal", "--agent", AGENT, "--by", "Alice", "--email", "alice@example.com", root=root).returncode == 0
        r = redact(root, keys, "e12", "--reason", "asked", signer=signer)
        assert r.returncode == 0, r.stderr
        v = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=root)
        assert v.returncode == 1, v.stdout
        assert ("seal refs/halo/seals/main/" in v.stderr) if signer is None else (needle in v.stderr and "erasure record" in v.stderr)


def test_push_replaces_the_remote_with_a_lease_and_pull_erases_a_second_clone(small, keys, tmp_path):
    root = small
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)], check=True)
    assert run_cli("push", "--agent", AGENT, str(remote), root=root).returncode == 0
    second = tmp_path / "second"
    assert run_cli("clone", str(remote), "--agent", AGENT, root=second).returncode == 0
    moved = tmp_path / "moved"
    assert run_cli("clone", str(remote), "--agent", AGENT, root=moved).returncode == 0
    assert redact(root, keys, "e20", "--reason", "erasure request").returncode == 0

    # lease: a remote that moved on since (here: a copy of the remote with one more event) is never replaced
    ahead = tmp_path / "ahead.git"
    shutil.copytree(remote, ahead)
    with Halo(moved) as h:
        h.log(AGENT, "observe", "one more", session="x")
    assert run_cli("push", "--agent", AGENT, str(ahead), root=moved).returncode == 0
    refused = run_cli("push", "--agent", AGENT, str(ahead), root=root)
    assert refused.returncode == 1 and "nothing is ever forced" in refused.stderr
    assert SECRET.encode() in all_objects(ahead)

    p = run_cli("push", "--agent", AGENT, str(remote), root=root)
    assert p.returncode == 0, p.stderr
    assert "replaced by the history after an erasure" in p.stdout
    assert not text_anywhere(remote)
    fsck_clean(remote)
    q = run_cli("pull", "--agent", AGENT, str(remote), root=second)
    assert q.returncode == 0, q.stderr
    assert "replaced" in q.stdout
    assert not text_anywhere(repo(second))
    fsck_clean(repo(second))
    assert git(repo(second), "rev-parse", "main").stdout == git(repo(root), "rev-parse", "main").stdout
    assert run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=second).returncode == 0


def test_pull_refuses_a_replaced_branch_without_a_signed_record(small, keys, tmp_path):
    root = small
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)], check=True)
    assert run_cli("push", "--agent", AGENT, str(remote), root=root).returncode == 0
    second = tmp_path / "second"
    assert run_cli("clone", str(remote), "--agent", AGENT, root=second).returncode == 0
    assert redact(root, keys, "e20", "--reason", "asked", signer=None).returncode == 0
    assert run_cli("push", "--agent", AGENT, str(remote), root=root).returncode == 0  # the remote is the owner's to judge
    q = run_cli("pull", "--agent", AGENT, str(remote), root=second)
    assert q.returncode == 1 and "different histories" in q.stderr
    assert SECRET.encode() in all_objects(repo(second))


STEPS = ("plan", "record", "swap", "caches", "prune")


@pytest.mark.parametrize("step", STEPS)
def test_kill_at_every_step_leaves_old_or_new_history_and_a_rerun_completes(small, keys, step):
    root = small
    old_head = git(repo(root), "rev-parse", "main").stdout.strip()
    r = redact(root, keys, "e20", "--reason", "erasure request", env={"HALO_ERASURE_STOP_AT": step})
    assert r.returncode == -9, (r.returncode, r.stderr)
    head = git(repo(root), "rev-parse", "main").stdout.strip()
    records = git(repo(root), "for-each-ref", "--format=%(objectname)", "refs/halo/erasures/main").stdout.split()
    if step == "plan":
        assert head == old_head and not records
    else:
        new_head = json.loads(git(repo(root), "cat-file", "-p", f"{records[0]}:record.json").stdout)["new_head"]
        assert head in (old_head, new_head)
        assert head == (old_head if step == "record" else new_head)
    fsck_clean(repo(root))
    again = redact(root, keys, "e20", "--reason", "erasure request")
    assert again.returncode == 0 or "already hold a tombstone" in again.stderr, again.stderr
    assert not text_anywhere(repo(root))
    fsck_clean(repo(root))
    v = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=root)
    assert v.returncode == 0, v.stderr
    assert len(git(repo(root), "for-each-ref", "refs/halo/erasures/main").stdout.splitlines()) == 1


def test_bad_calls_are_refused_with_one_line(small, keys):
    r = redact(small, keys, "e999", "--reason", "x")
    assert r.returncode == 1 and "has no e999" in r.stderr and "Traceback" not in r.stderr
    r = redact(small, keys, "e20")
    assert r.returncode == 2 and "--reason" in r.stderr
    r = redact(small, keys, "e020", "--reason", "x")
    assert r.returncode == 2 and "invalid event id" in r.stderr
    assert git(repo(small), "for-each-ref", "refs/halo/erasures").stdout == ""
    assert SECRET.encode() in all_objects(repo(small))


@pytest.mark.slow
def test_two_thousand_events_three_signed_approvals(tmp_path, keys):
    root = tmp_path / "root"
    build(root, keys, 2000, 50)
    old_copy = tmp_path / "old.git"
    shutil.copytree(repo(root), old_copy)
    with Halo(root) as h:  # publish the travelling cache and the cache file, which quote the secret
        h.events(AGENT)
    assert SECRET.encode() in all_objects(repo(root))
    r = redact(root, keys, "e50", "--reason", "erasure request")
    assert r.returncode == 0, r.stderr
    assert not text_anywhere(repo(root))
    assert git(repo(root), "for-each-ref", "refs/halo/cache/main").stdout  # rebuilt
    fsck_clean(repo(root))
    v = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=root)
    assert v.returncode == 0, v.stderr
    assert v.stdout.count("proven before erasure") == 3
    w = run_cli("verify", "--agent", AGENT, "--against", str(old_copy), root=root)
    assert w.returncode == 0, w.stderr
    assert "differ only in e50," in w.stdout


def test_retention_policy_dry_run_lists_then_apply_redacts(tmp_path, keys):
    root = tmp_path / "root"
    with Halo(root) as h:
        h.log(AGENT, "observe", "user-1 said her address is 5 Elm Street", session="user-1", time="2026-01-01T09:00:00Z")
        h.log(AGENT, "remember", "prefers mornings", session="user-1", time="2026-01-01T09:01:00Z")
        h.log(AGENT, "observe", "ops check passed", session="ops", time="2026-01-01T09:02:00Z")
        h.log(AGENT, "observe", "user-2 said hello", session="user-2", time="2099-01-01T09:00:00Z")
    policy = tmp_path / "halo-retention.yaml"
    policy.write_text("reason: retention of user sessions (30 days)\nrules:\n  - kind: observe\n    session: 'user-*'\n    after: 30d\n")
    head = git(repo(root), "rev-parse", "main").stdout
    dry = run_cli("redact", "--agent", AGENT, "--policy", str(policy), root=root)
    assert dry.returncode == 0, dry.stderr
    assert "1 event(s) of branch 'main' of agent 'care' are due" in dry.stdout and "e1" in dry.stdout
    assert "dry run: 1 event(s) would be redacted" in dry.stdout
    assert git(repo(root), "rev-parse", "main").stdout == head  # nothing changed
    done = redact(root, keys, "--policy", str(policy), "--apply")
    assert done.returncode == 0, done.stderr
    with Halo(root) as h:
        summaries = [e.summary for e in h.events(AGENT)]
    assert summaries[0].startswith("[redacted ") and "retention of user sessions (30 days)]" in summaries[0]
    assert summaries[1:] == ["prefers mornings", "ops check passed", "user-2 said hello"]
    assert b"5 Elm Street" not in all_objects(repo(root))
    again = run_cli("redact", "--agent", AGENT, "--policy", str(policy), root=root)
    assert "nothing on branch 'main' of agent 'care' is due" in again.stdout


def test_retention_policy_problems_are_reported_at_once(tmp_path):
    root = tmp_path / "root"
    with Halo(root) as h:
        h.log(AGENT, "observe", "x", session="s")
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - kind: nap\n    after: soon\n  - sesion: x\n    after: 3d\n")
    r = run_cli("redact", "--agent", AGENT, "--policy", str(bad), root=root)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "kind must be one or a list of" in r.stderr and "after must be an age" in r.stderr and "unknown key(s) sesion" in r.stderr


def test_a_history_shared_with_another_branch_or_across_a_merge_is_refused(tmp_path, keys):
    root = tmp_path / "root"
    with Halo(root) as h:
        for i in range(1, 4):
            h.log(AGENT, "observe", f"main {i}", session="s")
        h.store.repo(AGENT).create_branch("copy", "main")
        h.log(AGENT, "observe", "copy 4", session="c", branch="copy")
        h.log(AGENT, "observe", "main 4", session="s")
    r = redact(root, keys, "e2", "--reason", "asked")
    assert r.returncode == 2 and "branch 'copy' of agent 'care' also holds e2" in r.stderr
    with Halo(root) as h:
        h.merge(AGENT, "copy", "main")
    git(repo(root), "update-ref", "-d", "refs/heads/copy")
    git(repo(root), "update-ref", "-d", "refs/halo/cache/copy", check=False)
    head = git(repo(root), "rev-parse", "main").stdout
    r = redact(root, keys, "e2", "--reason", "asked")
    assert r.returncode == 2 and "is a merge" in r.stderr, r.stderr
    assert git(repo(root), "rev-parse", "main").stdout == head
    assert git(repo(root), "for-each-ref", "refs/halo/erasures").stdout == ""


def test_removing_objects_from_a_pack_repoints_deltas_and_stores_whole_those_whose_base_goes(tmp_path):
    """The shared pack rewrite (``maintenance.remove_objects``, which ``prune`` uses): with the
    newest version of a tree path gone (the base of its older versions' deltas) and every other
    commit gone (so offset deltas after them move by other distances), every other object reads
    back byte for byte with ``git``, and ``git verify-pack`` accepts the new pack."""
    from dulwich.repo import Repo

    from halo_git.store import maintenance

    root = tmp_path / "root"
    with Halo(root) as h:
        h.import_lines(AGENT, [json.dumps({"kind": "observe", "summary": f"event {i}", "session": "s"}) for i in range(1, 301)])
    path = repo(root)
    pack_dir = path / "objects" / "pack"
    [pack] = maintenance.packs(pack_dir)
    listing = git(path, "verify-pack", "-v", str(pack_dir / f"{pack.name}.idx")).stdout.splitlines()
    rows = [line.split() for line in listing if line[:40].isalnum() and len(line.split()) >= 5]
    bases = {r[6] for r in rows if len(r) == 7}
    commits = [r[0] for r in rows if r[1] == "commit"]
    assert bases and len(commits) == 300
    doomed = set(sorted(bases)[:3]) | set(commits[::2])
    kept = sorted(r[0] for r in rows if r[0] not in doomed)
    before = read_objects(path, kept)
    assert len(before) == pack.count - len(doomed)

    def whole(sha: bytes):
        with Repo(str(path)) as r:
            return r.object_store.get_raw(sha.hex().encode())

    with open(path / maintenance.LOCK_FILE, "a"):
        removed = maintenance.remove_objects(pack_dir, {bytes.fromhex(d) for d in doomed}, whole)
    assert removed == len(doomed)
    [new] = maintenance.packs(pack_dir)
    assert new.name != pack.name and new.count == pack.count - len(doomed)
    git(path, "verify-pack", str(pack_dir / f"{new.name}.idx"))
    assert read_objects(path, kept) == before
    assert read_objects(path, sorted(doomed)) == {}


def read_objects(path: Path, ids: list[str]) -> dict[str, bytes]:
    """Type and content of each object ``git cat-file --batch`` finds (missing ones left out)."""
    out = subprocess.run(["git", "--git-dir", str(path), "cat-file", "--batch"], input="\n".join(ids).encode() + b"\n",
                         capture_output=True, check=True).stdout
    found, pos = {}, 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        head = out[pos:end].split()
        if head[-1] == b"missing":
            pos = end + 1
            continue
        size = int(head[2])
        found[head[0].decode()] = head[1] + b" " + out[end + 1:end + 1 + size]
        pos = end + 1 + size + 1
    return found


def test_redaction_of_a_history_holding_legacy_form_event_files(tmp_path, keys):
    """Event files an earlier version wrote where PyYAML had no libyaml (characters beyond U+FFFF
    written raw, not escaped) are taken as the tree holds them: the redacted one goes, a later one
    stays byte for byte, the rebuilt cache binds it to its own blob and the next reader accepts it."""
    from halo_git.model import legacy_yaml, to_yaml

    root = tmp_path / "root"
    secret = SECRET + " \U0001F44D"
    with Halo(root) as h:
        for i in range(1, 9):
            summary = secret if i == 3 else ("thumbs up \U0001F44D" if i == 5 else f"routine observation {i}")
            h.log(AGENT, "observe", summary, session="s", time="2026-11-01T08:00:00Z")
        events = h.events(AGENT)
    legacy = {n: legacy_yaml(events[n - 1]) for n in (3, 5)}
    assert all(legacy[n] != to_yaml(events[n - 1]) for n in legacy)
    for n, data in legacy.items():
        (tmp_path / f"e{n}.yaml").write_bytes(data)
    work = tmp_path / "work"
    env = {**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "clone", "-q", str(repo(root)), str(work)], check=True, env=env)
    swap = " && ".join(f"(test ! -f events/00/00/e{n}.yaml || cp {tmp_path}/e{n}.yaml events/00/00/e{n}.yaml)" for n in legacy)
    subprocess.run(["git", "filter-branch", "-f", "--tree-filter", swap, "main"], cwd=work, check=True, capture_output=True, env=env)
    subprocess.run(["git", "push", "-q", "-f", str(repo(root)), "main:main"], cwd=work, check=True, env=env)
    git(repo(root), "update-ref", "-d", "refs/halo/cache/main", check=False)
    for cache in (repo(root) / "halo").glob("events-*.jsonl"):
        cache.unlink()
    git(repo(root), "reflog", "expire", "--expire=now", "--all")
    git(repo(root), "gc", "-q", "--prune=now")  # the history as if written so: no canonical copy left behind
    assert all_objects(repo(root)).count(SECRET.encode()) == 2  # the legacy file and its commit's message
    assert git(repo(root), "cat-file", "blob", "main:events/00/00/e5.yaml").stdout.encode() == legacy[5]
    assert run_cli("verify", "--agent", AGENT, root=root).returncode == 0
    with Halo(root) as h:
        assert [e.summary for e in h.events(AGENT)][2:5] == [secret, "routine observation 4", "thumbs up \U0001F44D"]  # caches written
    r = redact(root, keys, "e3", "--reason", "erasure request")
    assert r.returncode == 0, r.stderr
    assert not text_anywhere(repo(root))
    fsck_clean(repo(root))
    assert git(repo(root), "cat-file", "blob", "main:events/00/00/e5.yaml").stdout.encode() == legacy[5]
    assert run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=root).returncode == 0
    with Halo(root) as h:
        summaries = [e.summary for e in h.events(AGENT)]
        assert h.store.repo(AGENT).cache_problem("main") is None  # the rebuilt cache file passed its check
    assert summaries[2].startswith("[redacted ") and summaries[4] == "thumbs up \U0001F44D"


def test_a_history_whose_intermediate_tree_holds_more_than_its_events_is_refused(tmp_path, keys):
    """Every rewritten commit's old tree must be the one HALO's write path builds (else a tree the
    rewrite would re-create without the extra file would no longer be byte-identical): a file that
    one commit in the range holds and the next drops is found, and nothing is changed."""
    root = tmp_path / "root"
    with Halo(root) as h:
        for i in range(1, 7):
            h.log(AGENT, "observe", SECRET if i == 2 else f"routine observation {i}", session="s")
    work = tmp_path / "work"
    env = {**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "clone", "-q", str(repo(root)), str(work)], check=True, env=env)
    subprocess.run(["git", "filter-branch", "-f", "--tree-filter",
                    "if [ -f events/00/00/e4.yaml ] && [ ! -f events/00/00/e5.yaml ]; then echo note > events/00/00/notes.txt; fi",
                    "main"], cwd=work, check=True, capture_output=True, env=env)
    subprocess.run(["git", "push", "-q", "-f", str(repo(root)), "main:main"], cwd=work, check=True, env=env)
    git(repo(root), "update-ref", "-d", "refs/halo/cache/main", check=False)
    for cache in (repo(root) / "halo").glob("events-*.jsonl"):
        cache.unlink()
    head = git(repo(root), "rev-parse", "main").stdout
    packs = sorted((repo(root) / "objects" / "pack").iterdir())
    r = redact(root, keys, "e2", "--reason", "asked")
    assert r.returncode != 0 and "the tree of e4" in r.stderr and "Nothing was changed" in r.stderr, r.stderr
    assert git(repo(root), "rev-parse", "main").stdout == head
    assert git(repo(root), "for-each-ref", "refs/halo/erasures").stdout == ""
    assert sorted((repo(root) / "objects" / "pack").iterdir()) == packs  # no pack of new objects left behind
