"""Merging diverged copies of one agent's trail (``halo-git merge``, ``pull --merge``).

Two clones diverge from three common events by 50 and 70 events (a signed
approval on one side, the same session label on both); the merged branch is
checked by content against the originals, by ``verify``, by ``git fsck
--strict`` and by ``git verify-commit`` on the original approval; a second
merge adds only what is new, merging back fast-forwards, and bad sources are
refused with nothing changed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.errors import IntegrityError, InvalidCall, NotFound
from halo_git.store import clone, pull, verify_branch

from tests.conftest import git, run_cli

AGENT = "fleet"


@pytest.fixture
def keys(tmp_path):
    d = tmp_path / "keys"
    d.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(d / "alice")], check=True)
    allowed = d / "allowed_signers"
    allowed.write_text(f'alice@example.com namespaces="git" {(d / "alice.pub").read_text().strip()}\n')
    return {"alice": d / "alice", "allowed": allowed}


def base(root: Path) -> None:
    with Halo(root, screen=None) as h:
        h.log(AGENT, "observe", "user asked for a 9:30 reminder", session="day1", time="2026-02-01T09:00:00Z")
        h.log(AGENT, "remember", "user wants reminders at 9:30", uses=["e1"], session="day1", time="2026-02-01T09:01:00Z")
        h.log(AGENT, "recall", "looked up the reminder time", uses=["e2"], session="day1", time="2026-02-01T09:02:00Z")


def grow(h: Halo, side: str, count: int, day: int, start: int = 0, branch: str | None = None) -> list[str]:
    """``count`` events on one side, each naming earlier ones (base and its own), all summaries unique."""
    ids = []
    last_act = None
    for i in range(start, start + count):
        t = f"2026-02-{day:02d}T{10 + i // 60:02d}:{i % 60:02d}:00Z"
        kind = ("observe", "remember", "recall", "act", "outcome")[i % 5]
        prev = ids[-1:] or ["e3"]
        kw: dict = {}
        if kind == "act":
            kw = {"trigger": "self" if i % 2 else "request"}
        if kind == "outcome":
            kw = {"about": last_act}
        uses = [] if kind == "outcome" else prev + (["e2"] if kind == "remember" else [])
        r = h.log(AGENT, kind, f"{side} step {i}", uses=uses, session="day2", time=t, branch=branch, **kw)
        ids.append(r["id"])
        if kind == "act":
            last_act = r["id"]
    return ids


@pytest.fixture
def copies(tmp_path, keys):
    """Root ``a`` (50 new events) and its clone ``b`` (68 new events, a revision and its signed approval: 70)."""
    a, b = tmp_path / "a", tmp_path / "b"
    base(a)
    clone(b, AGENT, str(a / f"{AGENT}.git"))
    with Halo(a, screen=None) as h:
        grow(h, "laptop", 50, 3)
    with Halo(b, screen=None) as h:
        grow(h, "ci", 60, 4)
        rev = h.log(AGENT, "revise", "remind at 9:00 instead", uses=["e63"], session="day2", target="reminder rule",
                    made_by="agent", governance="none", time="2026-02-04T12:00:00Z")
        approval = h.approve(AGENT, rev["id"], name="Alice", email="alice@example.com", sign="ssh", key=str(keys["alice"]),
                             session="day2", time="2026-02-04T12:01:00Z")
        grow(h, "ci", 8, 5, start=60)
    return {"a": a, "b": b, "approval": approval, "revision": rev["id"], **keys}


def events_of(root: Path, branch: str = "main"):
    with Halo(root, screen=None) as h:
        log = h.event_log(AGENT, branch)
        return list(log.events), list(log.commits)


def assert_same_meaning(merged, originals) -> None:
    """Every merged event points at the events whose summaries its original pointed at."""
    by_id = {e.id: e for e in merged}
    orig = {e.summary: e for e in originals}
    orig_by_id = {e.id: e for e in originals}
    copied = [e for e in merged if e.merged_from]
    assert copied
    for e in copied:
        o = orig[e.summary]
        assert (e.kind, e.time, e.fields.get("trigger"), e.fields.get("target")) == (o.kind, o.time, o.fields.get("trigger"), o.fields.get("target"))
        assert [by_id[u].summary for u in e.uses] == [orig_by_id[u].summary for u in o.uses]
        if o.about:
            assert by_id[e.about].summary == orig_by_id[o.about].summary
        assert e.merged_from.split(" ")[-2] == o.id


def verify_commit(repo: Path, sha: str, allowed: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(repo), "-c", "gpg.format=ssh", "-c", f"gpg.ssh.allowedSignersFile={allowed}",
                           "verify-commit", sha], capture_output=True, text=True, env={**os.environ, "HOME": str(repo.parent)})


def test_merge_keeps_meaning_signatures_and_history(copies):
    a, b = copies["a"], copies["b"]
    repo = a / f"{AGENT}.git"
    with Halo(a, screen=None) as h:
        assert pull(h.store.repo(AGENT), str(b / f"{AGENT}.git"), "main", into="ci").status == "created"
        before = h.event_log(AGENT).head
        r = run_cli("merge", "--agent", AGENT, "ci", "--format", "json", root=a)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["status"], out["appended"], out["held"], out["first"], out["last"]) == ("merged", 70, 3, "e54", "e123")
    assert out["renamed"] == {"day2": "day2@ci"}
    merged, commits = events_of(a)
    ci, ci_commits = events_of(a, "ci")
    assert len(merged) == 3 + 50 + 70
    assert [e.summary for e in merged[:53]] == [e.summary for e in events_of(a)[0][:53]]  # the branch's own events unchanged
    assert_same_meaning(merged, ci)
    assert {e.session for e in merged} == {"day1", "day2", "day2@ci"}
    assert all(e.session == "day2@ci" for e in merged[53:])
    # the first merged event's commit: first parent the old head, second the source's head
    parents = git(repo, "rev-list", "--parents", "-n", "1", commits[53]).stdout.split()[1:]
    assert parents == [before, ci_commits[-1]]
    assert git(repo, "rev-list", "--first-parent", "--count", "main").stdout.strip() == "123"
    assert git(repo, "fsck", "--strict").returncode == 0
    # the original signed approval is in the history, and git still accepts its signature
    original = ci_commits[int(copies["approval"]["id"][1:]) - 1]
    assert git(repo, "merge-base", "--is-ancestor", original, "main", check=False).returncode == 0
    ok = verify_commit(repo, original, copies["allowed"])
    assert ok.returncode == 0 and "Good" in ok.stderr, ok.stderr
    v = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(copies["allowed"]), root=a)
    assert v.returncode == 0, v.stderr
    with Halo(a, screen=None) as h:
        assert verify_branch(h.store.repo(AGENT), "main").events == 123
        # the merged approval is proven by its original commit
        copy_of_approval = next(e for e in merged if e.merged_from and e.fields.get("made_by") == "user")
        blame = h.blame(AGENT, "reminder rule", allowed_signers=str(copies["allowed"]))
        assert [(v["id"], v["approval"], v["approved_by"]) for v in blame["versions"]] == [(copy_of_approval.uses[0], "proven", [copy_of_approval.id])]


def test_second_merge_adds_only_new_events_and_merging_back_fast_forwards(copies):
    a, b = copies["a"], copies["b"]
    url = str(b / f"{AGENT}.git")
    with Halo(a, screen=None) as h:
        pull(h.store.repo(AGENT), url, "main", into="ci")
        assert h.merge(AGENT, "ci").appended == 70
    with Halo(b, screen=None) as h:
        grow(h, "ci", 5, 6, start=100)
    with Halo(a, screen=None) as h:
        assert pull(h.store.repo(AGENT), url, "main", into="ci").status == "fast-forward"
        again = h.merge(AGENT, "ci")
        assert (again.status, again.appended, again.held, again.first, again.last) == ("merged", 5, 73, "e124", "e128")
        assert h.merge(AGENT, "ci").status == "up-to-date"
        sealed = run_cli("seal", "--agent", AGENT, "--branch", "ci", root=a)  # a reviewer saw ci's own head
        assert sealed.returncode == 0, sealed.stderr
        back = h.merge(AGENT, "main", into="ci")
        assert back.status == "fast-forward"
        assert h.event_log(AGENT, "ci").head == h.event_log(AGENT).head
        v = verify_branch(h.store.repo(AGENT), "ci")
        assert v.events == 128 and [x.events for x in v.evidence.seals] == [78]  # the seal holds through the merge
    merged, _ = events_of(a)
    assert_same_meaning(merged, events_of(b)[0])
    assert git(a / f"{AGENT}.git", "fsck", "--strict").returncode == 0


def test_pull_merge_from_the_other_copy(copies):
    a, b = copies["a"], copies["b"]
    r = run_cli("pull", "--merge", "--agent", AGENT, str(a / f"{AGENT}.git"), root=b)
    assert r.returncode == 0, r.stderr
    assert "merged 50 event(s)" in r.stdout and "as e74..e123" in r.stdout
    merged, _ = events_of(b)
    assert len(merged) == 123
    assert_same_meaning(merged, events_of(a)[0])
    assert len({e.session for e in merged}) == 3  # day1, day2 and laptop's day2 with its origin
    assert run_cli("verify", "--agent", AGENT, "--allowed-signers", str(copies["allowed"]), root=b).returncode == 0
    assert git(b / f"{AGENT}.git", "fsck", "--strict").returncode == 0
    again = run_cli("pull", "--merge", "--agent", AGENT, str(a / f"{AGENT}.git"), root=b)
    assert again.returncode == 0 and "already holds every event" in again.stdout, again.stdout + again.stderr


def test_refusals_change_nothing(copies, tmp_path):
    a, b = copies["a"], copies["b"]
    repo = a / f"{AGENT}.git"
    with Halo(a, screen=None) as h:
        pull(h.store.repo(AGENT), str(b / f"{AGENT}.git"), "main", into="ci")
        head = h.event_log(AGENT).head
    # a source that does not verify: one commit on it adds a second file
    tip = git(repo, "rev-parse", "ci").stdout.strip()
    env = {**os.environ, "GIT_AUTHOR_NAME": AGENT, "GIT_AUTHOR_EMAIL": f"{AGENT}@halo", "GIT_COMMITTER_NAME": AGENT,
           "GIT_COMMITTER_EMAIL": f"{AGENT}@halo", "HOME": str(tmp_path)}
    blob = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-w", "--stdin"], input="x\n", capture_output=True, text=True, check=True, env=env).stdout.strip()
    index = tmp_path / "index"
    genv = {**env, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "--git-dir", str(repo), "read-tree", tip], check=True, env=genv)
    subprocess.run(["git", "--git-dir", str(repo), "update-index", "--add", "--cacheinfo", f"100644,{blob},notes.txt"], check=True, env=genv)
    tree = subprocess.run(["git", "--git-dir", str(repo), "write-tree"], capture_output=True, text=True, check=True, env=genv).stdout.strip()
    bad = subprocess.run(["git", "--git-dir", str(repo), "commit-tree", tree, "-p", tip, "-m", "e74 observe: sneaked"],
                         capture_output=True, text=True, check=True, env=env).stdout.strip()
    git(repo, "update-ref", "refs/heads/bad", bad)
    r = run_cli("merge", "--agent", AGENT, "bad", root=a)
    assert r.returncode == 1 and "does not verify" in r.stderr and bad[:12] in r.stderr and "Traceback" not in r.stderr, r.stderr
    # into itself, an unknown source, an unknown target branch
    assert "into itself" in run_cli("merge", "--agent", AGENT, "main", root=a).stderr
    r = run_cli("merge", "--agent", AGENT, "nope", root=a)
    assert r.returncode == 1 and "no branch or commit 'nope'" in r.stderr
    r = run_cli("merge", "--agent", AGENT, "ci", "--into", "nope", root=a)
    assert r.returncode == 1 and "no branch 'nope'" in r.stderr, r.stderr
    # another agent's copy
    other = tmp_path / "other"
    with Halo(other, screen=None) as h:
        h.log("someone", "observe", "not the fleet", session="x")
    r = run_cli("pull", "--merge", "--agent", AGENT, str(other / "someone.git"), root=a)
    assert r.returncode == 1 and "holds the trace of agent 'someone'" in r.stderr and "Traceback" not in r.stderr, r.stderr
    with Halo(a, screen=None) as h:
        assert h.event_log(AGENT).head == head
        with pytest.raises(InvalidCall):
            h.merge(AGENT, "main")
    assert verify_branch(Halo(a).store.repo(AGENT), "main").events == 53


def test_verify_catches_a_merged_event_that_differs_from_its_original(copies, tmp_path):
    """A forged copy: the merged event's summary changed, rewritten consistently with git."""
    a = copies["a"]
    with Halo(a, screen=None) as h:
        pull(h.store.repo(AGENT), str(copies["b"] / f"{AGENT}.git"), "main", into="ci")
        h.merge(AGENT, "ci")
        log = h.event_log(AGENT)
        last, parent = log.commits[-1], log.commits[-2]
        e = log.events[-1]
    repo = a / f"{AGENT}.git"
    path = f"events/00/01/e{e.number}.yaml"
    text = git(repo, "show", f"{last}:{path}").stdout.replace(e.summary, "ci step 999")
    env = {**os.environ, "GIT_AUTHOR_NAME": AGENT, "GIT_AUTHOR_EMAIL": f"{AGENT}@halo", "GIT_COMMITTER_NAME": AGENT,
           "GIT_COMMITTER_EMAIL": f"{AGENT}@halo", "HOME": str(tmp_path), "GIT_INDEX_FILE": str(tmp_path / "idx"),
           "GIT_AUTHOR_DATE": f"{e.time} +0000", "GIT_COMMITTER_DATE": f"{e.time} +0000"}
    blob = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-w", "--stdin"], input=text, capture_output=True, text=True, check=True, env=env).stdout.strip()
    subprocess.run(["git", "--git-dir", str(repo), "read-tree", last], check=True, env=env)
    subprocess.run(["git", "--git-dir", str(repo), "update-index", "--cacheinfo", f"100644,{blob},{path}"], check=True, env=env)
    tree = subprocess.run(["git", "--git-dir", str(repo), "write-tree"], capture_output=True, text=True, check=True, env=env).stdout.strip()
    forged = subprocess.run(["git", "--git-dir", str(repo), "commit-tree", tree, "-p", parent, "-m", f"e{e.number} {e.kind}: ci step 999"],
                            capture_output=True, text=True, check=True, env=env).stdout.strip()
    git(repo, "update-ref", "refs/heads/main", forged)
    with pytest.raises(IntegrityError, match="differs from its original"):
        verify_branch(Halo(a).store.repo(AGENT), "main")


def test_report_of_the_merged_branch_is_the_union_of_both_sides(tmp_path):
    """Hand-computed: side A acts on its own with nothing behind it, side B changes its own rule
    ungoverned; the merged branch has both findings, on the merged ids, and nothing else new."""
    a, b = tmp_path / "a", tmp_path / "b"
    base(a)
    clone(b, AGENT, str(a / f"{AGENT}.git"))
    with Halo(a, screen=None) as h:
        h.log(AGENT, "act", "deleted the old reminders", trigger="self", form="execution", session="day2", time="2026-02-02T10:00:00Z")
    with Halo(b, screen=None) as h:
        h.log(AGENT, "observe", "user missed the reminder", session="day2", time="2026-02-02T11:00:00Z")
        h.log(AGENT, "revise", "remind at 9:00 from now on", uses=["e4"], target="reminder rule", made_by="agent", governance="none",
              session="day2", time="2026-02-02T11:01:00Z")
    with Halo(a, screen=None) as h:
        side_a = {(f.rule, f.ids) for f in h.diagnosis(AGENT).findings}
        h.merge(AGENT, "main", remote=str(b / f"{AGENT}.git"))
        merged = {(f.rule, f.ids) for f in h.diagnosis(AGENT).findings}
        ids = [e.id for e in h.events(AGENT)]
    with Halo(b, screen=None) as h:
        side_b = {(f.rule, f.ids) for f in h.diagnosis(AGENT).findings}
    assert ids == [f"e{n}" for n in range(1, 7)]
    mapping = {"e4": "e5", "e5": "e6"}  # B's own events after the merge
    expected = side_a | {(rule, tuple(mapping.get(i, i) for i in found)) for rule, found in side_b}
    assert merged == expected
    rules = {rule for rule, _ in merged}
    assert any(found[0] == "e4" for _, found in side_a)  # the self-initiated execution with no basis
    assert any(found[0] == "e6" and rule.startswith("HALO-R") for rule, found in merged)  # the ungoverned self-revision
    assert rules


def test_a_fleet_shares_one_remote(tmp_path):
    """Laptop and CI clone one remote; CI's push is refused once the laptop pushed first;
    CI pulls with --merge and pushes (a fast-forward of the remote through the merge);
    the laptop's plain pull then fast-forwards to the very same head."""
    remote = tmp_path / "remote" / f"{AGENT}.git"
    remote.parent.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)], check=True)
    laptop, ci = tmp_path / "laptop", tmp_path / "ci"
    base(laptop)
    assert run_cli("push", "--agent", AGENT, str(remote), root=laptop).returncode == 0
    assert run_cli("clone", str(remote), "--agent", AGENT, root=ci).returncode == 0
    with Halo(laptop, screen=None) as h:
        grow(h, "laptop", 5, 3)
    with Halo(ci, screen=None) as h:
        grow(h, "ci", 7, 4)
    assert run_cli("push", "--agent", AGENT, str(remote), root=laptop).returncode == 0
    refused = run_cli("push", "--agent", AGENT, str(remote), root=ci)
    assert refused.returncode == 1 and "holds events this branch does not" in refused.stderr and "--merge" in refused.stderr
    merged = run_cli("pull", "--merge", "--agent", AGENT, str(remote), root=ci)
    assert merged.returncode == 0 and "merged 5 event(s)" in merged.stdout, merged.stderr
    pushed = run_cli("push", "--agent", AGENT, str(remote), root=ci)
    assert pushed.returncode == 0 and "fast-forwarded" in pushed.stdout, pushed.stderr
    assert git(remote, "fsck", "--strict").returncode == 0
    pulled = run_cli("pull", "--agent", AGENT, str(remote), root=laptop)
    assert pulled.returncode == 0 and "fast-forwarded" in pulled.stdout, pulled.stderr
    heads = {git(r / f"{AGENT}.git", "rev-parse", "main").stdout for r in (laptop, ci)} | {git(remote, "rev-parse", "main").stdout}
    assert len(heads) == 1
    for r in (laptop, ci):
        assert run_cli("verify", "--agent", AGENT, root=r).returncode == 0
    assert len(events_of(laptop)[0]) == 3 + 7 + 5


def test_diff_across_a_merge_compares_like_with_like(copies):
    """The merged copies of the source's events are the source's events: shared, not new."""
    a = copies["a"]
    with Halo(a, screen=None) as h:
        pull(h.store.repo(AGENT), str(copies["b"] / f"{AGENT}.git"), "main", into="ci")
        before = h.diff(AGENT, "ci", "main")
        assert (len(before.base.since), len(before.head.since)) == (70, 50)
        h.merge(AGENT, "ci")
        d = h.diff(AGENT, "ci", "main")
    assert d.common == 3 and len(d.base.since) == 0
    assert [e.summary for e in d.head.since] == [f"laptop step {i}" for i in range(50)]
    assert not [r for r in d.head.revisions]  # the revision and its approval came from ci: not "only on HEAD"
    r = run_cli("diff", "--agent", AGENT, "ci", "main", "--format", "json", root=a)
    assert r.returncode == 0, r.stderr


def test_verify_checks_the_signatures_of_merged_commits(copies, tmp_path):
    """With allowed signers, the original signed approval on the merged line is checked too:
    proven by alice's key, refused when only another key is allowed."""
    a = copies["a"]
    with Halo(a, screen=None) as h:
        h.merge(AGENT, "main", remote=str(copies["b"] / f"{AGENT}.git"))
        repo = h.store.repo(AGENT)
        assert verify_branch(repo, "main", allowed_signers=str(copies["allowed"])).signed == 1
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bob", "-f", str(tmp_path / "bob")], check=True)
        other = tmp_path / "other_signers"
        other.write_text(f'bob@example.com namespaces="git" {(tmp_path / "bob.pub").read_text().strip()}\n')
        with pytest.raises(IntegrityError, match="merged into branch 'main'"):
            verify_branch(repo, "main", allowed_signers=str(other))


def test_an_export_of_a_merged_branch_imports_elsewhere(copies, tmp_path):
    a = copies["a"]
    with Halo(a, screen=None) as h:
        h.merge(AGENT, "main", remote=str(copies["b"] / f"{AGENT}.git"))
    exported = run_cli("export", "--agent", AGENT, root=a)
    assert exported.returncode == 0 and '"merged_from"' in exported.stdout
    r = run_cli("import", "--agent", "copy", "-", root=tmp_path / "elsewhere", input=exported.stdout)
    assert r.returncode == 0, r.stderr
    with Halo(tmp_path / "elsewhere", screen=None) as h:
        events = h.events("copy")
    assert len(events) == 123 and all(e.merged_from is None for e in events)
    assert [e.uses for e in events] == [e.uses for e in events_of(a)[0]]


def test_three_copies_merge_in_any_order_without_repeating_an_event(tmp_path):
    """c into b, b into main (c's events arrive through b), c again (nothing new), one more
    event on c (exactly one), then b and c fast-forward to main: one history everywhere."""
    root = tmp_path / "root"
    with Halo(root, screen=None) as h:
        h.log(AGENT, "observe", "start", session="s0", time="2026-02-01T00:00:00Z")
        repo = h.store.repo(AGENT)
        repo.create_branch("b", "main")
        repo.create_branch("c", "main")
        for br in ("main", "b", "c"):
            for i in range(3):
                h.log(AGENT, "remember", f"{br} {i}", uses=["e1"], session="x", branch=br, time=f"2026-02-01T0{i + 1}:00:00Z")
        assert h.merge(AGENT, "c", into="b").appended == 3
        assert h.merge(AGENT, "b").appended == 6
        assert h.merge(AGENT, "c").status == "up-to-date"
        h.log(AGENT, "recall", "c later", uses=["e2"], session="x", branch="c", time="2026-02-02T00:00:00Z")
        again = h.merge(AGENT, "c")
        assert (again.appended, again.first) == (1, "e11")
        assert [h.merge(AGENT, "main", into=br).status for br in ("b", "c")] == ["fast-forward", "fast-forward"]
        assert {verify_branch(repo, br).head for br in ("main", "b", "c")} == {h.event_log(AGENT).head}
        events = h.events(AGENT)
        assert len(events) == 11 and len({e.summary for e in events}) == 11
        assert h.events(AGENT)[-1].uses == ("e8",)  # c's e2 ("c 0") is e8 here, merged through b
        assert events[7].summary == "c 0"
    assert git(root / f"{AGENT}.git", "fsck", "--strict").returncode == 0
