"""Seals: a head a reviewer saw, under refs/halo/seals/<branch>/, checked by verify.

Real repositories, the real CLI in subprocesses and the real ``git`` binary: a
consistent rewrite (``git filter-branch``; a chain built by HALO itself in
another root and forced in), a branch moved back and a truncation all fail
``verify`` naming the seal; a signed seal survives push -> clone -> pull, plain
``git verify-tag`` accepts it, and ``git clone --mirror`` carries it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from halo_git import Halo

from tests.conftest import git, run_cli

AGENT = "rev"


def fill(root: Path, n: int = 6, changed: dict[int, str] | None = None) -> None:
    with Halo(root) as h:
        for i in range(1, n + 1):
            text = (changed or {}).get(i, f"step {i} of the review")
            h.log(AGENT, "observe", text, session="s1", time=f"2026-11-01T09:00:{i:02d}Z")


def repo(root: Path) -> Path:
    return root / f"{AGENT}.git"


def seal(root: Path, *extra: str) -> str:
    r = run_cli("seal", "--agent", AGENT, "--by", "Alice", "--email", "alice@example.com", *extra, root=root)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()[1].rstrip(":")


def verify(root: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli("verify", "--agent", AGENT, *extra, root=root)


@pytest.fixture
def keys(tmp_path):
    d = tmp_path / "keys"
    d.mkdir()
    for name in ("alice", "mallory"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(d / name)], check=True)
    allowed = d / "allowed_signers"
    allowed.write_text(f'alice@example.com namespaces="git" {(d / "alice.pub").read_text().strip()}\n')
    return {"alice": d / "alice", "mallory": d / "mallory", "allowed": allowed}


def test_seal_is_a_tag_on_a_claim_and_verify_lists_it(root):
    fill(root)
    ref = seal(root, "--message", "reviewed the first session")
    assert ref.startswith("refs/halo/seals/main/e6-")
    tag = git(repo(root), "cat-file", "-p", ref).stdout
    assert "type blob" in tag and "tagger Alice <alice@example.com>" in tag and "reviewed the first session" in tag
    claim = git(repo(root), "cat-file", "-p", ref + "^{blob}").stdout
    head = git(repo(root), "rev-parse", "main").stdout.strip()
    assert claim == f"halo-seal 1\nagent {AGENT}\nbranch main\nhead {head}\nevents 6\n"
    git(repo(root), "fsck", "--strict")
    r = verify(root)
    assert r.returncode == 0, r.stderr
    assert f"seal {ref} (e1..e6, head {head[:12]}" in r.stdout
    # more events after a seal are fine
    with Halo(root) as h:
        h.log(AGENT, "observe", "later", session="s2")
    assert verify(root).returncode == 0


def test_branch_moved_back_and_truncated_fail_naming_the_seal(root):
    fill(root)
    ref = seal(root)
    e4 = git(repo(root), "rev-parse", "main~2").stdout.strip()
    git(repo(root), "update-ref", "refs/heads/main", e4)
    for cache in (repo(root) / "halo").glob("events-*.jsonl"):
        cache.unlink()  # a careful rewriter removes the caches too
    git(repo(root), "update-ref", "-d", "refs/halo/cache/main", check=False)
    r = verify(root)
    assert r.returncode == 1
    assert f"seal {ref}" in r.stderr and "holds only 4 events now" in r.stderr


def test_filter_branch_rewrite_fails_naming_the_seal(root, tmp_path):
    fill(root)
    ref = seal(root)
    work = tmp_path / "work"
    env = {**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "clone", "-q", str(repo(root)), str(work)], check=True, env=env)
    subprocess.run(
        ["git", "filter-branch", "-f", "--tree-filter", "test ! -f events/00/00/e3.yaml || sed -i 's/step 3 of the review/step 3 was changed/' events/00/00/e3.yaml",
         "--msg-filter", "sed 's/step 3 of the review/step 3 was changed/'", "main"],
        cwd=work, check=True, capture_output=True, env=env)
    subprocess.run(["git", "push", "-q", "-f", str(repo(root)), "main:main"], cwd=work, check=True, env=env)
    git(repo(root), "update-ref", "-d", "refs/halo/cache/main", check=False)
    for cache in (repo(root) / "halo").glob("events-*.jsonl"):
        cache.unlink()
    # the rewrite is consistent: without the seal verify would pass
    r = verify(root)
    assert r.returncode == 1, r.stdout
    assert f"seal {ref}" in r.stderr and "not the sealed" in r.stderr
    git(repo(root), "update-ref", "-d", ref)
    assert verify(root).returncode == 0  # what the seal adds: the same rewrite passes without it


def test_hand_built_chain_forced_in_fails_naming_the_seal(root, tmp_path):
    fill(root)
    ref = seal(root)
    other = tmp_path / "other"
    other.mkdir()
    fill(other, changed={2: "step 2, as someone would rather remember it"})
    git(repo(root), "fetch", "-q", str(repo(other)), "+main:main")
    git(repo(root), "update-ref", "-d", "refs/halo/cache/main", check=False)
    for cache in (repo(root) / "halo").glob("events-*.jsonl"):
        cache.unlink()
    r = verify(root)
    assert r.returncode == 1 and f"seal {ref}" in r.stderr


def test_signed_seal_travels_push_clone_pull_and_git_verifies_it(root, tmp_path, keys):
    fill(root)
    ref = seal(root, "--sign", "ssh", "--key", str(keys["alice"]))
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)], check=True)
    assert run_cli("push", "--agent", AGENT, str(remote), root=root).returncode == 0
    copy = tmp_path / "copy"
    assert run_cli("clone", str(remote), "--agent", AGENT, root=copy).returncode == 0
    assert git(repo(copy), "rev-parse", ref).stdout.strip() == git(repo(root), "rev-parse", ref).stdout.strip()
    git(repo(copy), "-c", f"gpg.ssh.allowedSignersFile={keys['allowed']}", "verify-tag", ref)
    r = verify(copy, "--allowed-signers", str(keys["allowed"]))
    assert r.returncode == 0, r.stderr
    assert "signature good (alice@example.com)" in r.stdout
    # a second seal after new events reaches the copy with pull
    with Halo(root) as h:
        h.log(AGENT, "observe", "step 7", session="s2")
    ref2 = seal(root, "--sign", "ssh", "--key", str(keys["alice"]))
    assert run_cli("push", "--agent", AGENT, str(remote), root=root).returncode == 0
    assert run_cli("pull", "--agent", AGENT, str(remote), root=copy).returncode == 0
    git(repo(copy), "-c", f"gpg.ssh.allowedSignersFile={keys['allowed']}", "verify-tag", ref2)
    mirror = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(remote), str(mirror)], check=True)
    assert {ref, ref2} <= set(git(mirror, "for-each-ref", "--format=%(refname)").stdout.split())
    git(repo(copy), "fsck", "--strict")


def test_seal_by_a_key_not_allowed_fails_verify(root, keys):
    fill(root)
    ref = seal(root, "--sign", "ssh", "--key", str(keys["mallory"]))
    assert verify(root).returncode == 0  # no trust file given: the signature is only unchecked
    r = verify(root, "--allowed-signers", str(keys["allowed"]))
    assert r.returncode == 1 and f"seal {ref}" in r.stderr and "unknown-signer" in r.stderr


def test_seal_refusals_are_one_clear_line(root):
    r = run_cli("seal", "--agent", "nobody", root=root)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    fill(root)
    r = run_cli("seal", "--agent", AGENT, "--sign", "ssh", "--key", "/no/such/key", "--by", "A", "--email", "a@b", root=root)
    assert r.returncode == 2 and "is not a file" in r.stderr
    assert git(repo(root), "for-each-ref", "refs/halo/seals").stdout == ""


def test_verify_against_a_witness_shows_a_rewrite_on_either_side(root, tmp_path):
    fill(root)
    witness = tmp_path / "witness.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(repo(root)), str(witness)], check=True)
    r = verify(root, "--against", str(witness))
    assert r.returncode == 0, r.stderr
    assert "6 position(s) hold the same commit" in r.stdout
    # the witness sealed what it saw; then this copy was rewritten consistently
    seal(root)
    subprocess.run(["git", "--git-dir", str(witness), "fetch", "-q", str(repo(root)), "+refs/halo/*:refs/halo/*"], check=True)
    for ref in git(repo(root), "for-each-ref", "--format=%(refname)", "refs/halo/seals").stdout.split():
        git(repo(root), "update-ref", "-d", ref)  # the rewriter removes the local seals too
    other = tmp_path / "other"
    other.mkdir()
    fill(other, changed={2: "step 2, as someone would rather remember it"})
    git(repo(root), "fetch", "-q", str(repo(other)), "+main:main")
    git(repo(root), "update-ref", "-d", "refs/halo/cache/main", check=False)
    for cache in (repo(root) / "halo").glob("events-*.jsonl"):
        cache.unlink()
    assert verify(root).returncode == 0  # alone, the rewritten copy looks intact
    r = verify(root, "--against", str(witness))
    assert r.returncode == 1
    assert "part at e2" in r.stderr and "no signed erasure record maps one to the other" in r.stderr


def test_serve_seals_every_session_end_and_on_shutdown(root, tmp_path, keys):
    from tests.raw_mcp import RawServer, result_payload

    server = RawServer(root, "--agent", AGENT, "--seal-every-session", "--seal-sign", "ssh", "--seal-key", str(keys["alice"]),
                       "--seal-by", "Alice", "--seal-email", "alice@example.com", stderr=tmp_path / "serve.log")
    assert server.initialize() is not None
    for session, n in (("morning", 2), ("evening", 3)):
        for i in range(n):
            is_error, reply = result_payload(server.call("halo_observe", {"summary": f"{session} {i}", "session": session}))
            assert not is_error, reply
    assert server.close() == 0
    refs = git(repo(root), "for-each-ref", "--format=%(refname)", "refs/halo/seals/main").stdout.split()
    assert [r.split("/")[-1].split("-")[0] for r in refs] == ["e2", "e5"], (refs, (tmp_path / "serve.log").read_text())
    for ref in refs:
        git(repo(root), "-c", f"gpg.ssh.allowedSignersFile={keys['allowed']}", "verify-tag", ref)
    r = verify(root, "--allowed-signers", str(keys["allowed"]))
    assert r.returncode == 0 and r.stdout.count("signature good (alice@example.com)") == 2, r.stdout + r.stderr
    assert "end of session morning" in git(repo(root), "cat-file", "-p", refs[0]).stdout
