"""The append's own writes: loose objects and the branch ref written with git's
protocol (lock file created exclusively, written, renamed; the ref fsynced),
checked by the real ``git`` binary, and the cases that leave that short path:
a ref that git packed, a fan-out folder that ``git prune`` removed, a ref lock
held by ``git`` itself."""

from __future__ import annotations

import os
import threading
import time
import zlib
from pathlib import Path

from halo_git import Halo
from halo_git.model import to_yaml
from halo_git.store import maintenance

from tests.conftest import git

AGENT = "writer"


def subjects(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s", "main").stdout.splitlines()


def test_loose_objects_and_ref_are_what_git_writes(root):
    with Halo(root, session="s") as h:
        for i in range(5):
            h.log(AGENT, "observe", f"step {i}")
        last = h.events(AGENT)[-1]
    repo = root / f"{AGENT}.git"
    assert (repo / "refs" / "heads" / "main").read_text() == git(repo, "rev-parse", "main").stdout
    assert not list(repo.rglob("*.lock"))
    fsck = git(repo, "fsck", "--full", "--strict", check=False)
    assert fsck.returncode == 0 and not fsck.stdout.strip() and not fsck.stderr.strip(), fsck.stdout + fsck.stderr
    blob = git(repo, "rev-parse", "main:events/00/00/e5.yaml").stdout.strip()
    data = to_yaml(last)
    assert git(repo, "cat-file", "blob", blob).stdout == data.decode()
    path = repo / "objects" / blob[:2] / blob[2:]
    assert zlib.decompress(path.read_bytes()) == b"blob %d\0" % len(data) + data
    assert path.stat().st_mode & 0o777 == 0o444  # read-only, as git and dulwich leave objects
    assert subjects(repo)[0] == "e5 observe: step 4" and len(subjects(repo)) == 5


def test_a_ref_packed_by_git_and_a_removed_fan_out_folder(root):
    with Halo(root, session="s") as h:
        for i in range(3):
            h.log(AGENT, "observe", f"before {i}")
    repo = root / f"{AGENT}.git"
    git(repo, "pack-refs", "--all")  # refs/heads/main now lives in packed-refs only
    assert not (repo / "refs" / "heads" / "main").exists()
    maintenance.run(repo)
    for i in range(256):  # git prune removes fan-out folders it emptied
        try:
            os.rmdir(repo / "objects" / f"{i:02x}")
        except OSError:
            pass
    assert not any((repo / "objects" / f"{i:02x}").exists() for i in range(256))
    with Halo(root, session="s") as h:
        for i in range(3):
            h.log(AGENT, "observe", f"after {i}")
    assert [s.split(" ", 1)[0] for s in subjects(repo)] == [f"e{i}" for i in range(6, 0, -1)]
    assert (repo / "refs" / "heads" / "main").read_text().strip() == git(repo, "rev-parse", "main").stdout.strip()
    fsck = git(repo, "fsck", "--full", "--strict", check=False)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stdout + fsck.stderr


def test_an_append_waits_for_a_ref_lock_git_holds(root):
    with Halo(root, session="s") as h:
        h.log(AGENT, "observe", "first")
    repo = root / f"{AGENT}.git"
    lock = repo / "refs" / "heads" / "main.lock"
    lock.write_bytes(b"")  # a live git update-ref holding the ref
    result = {}

    def append():
        with Halo(root, session="s") as h:
            result["id"] = h.log(AGENT, "observe", "second")["id"]

    t = threading.Thread(target=append)
    t.start()
    time.sleep(0.5)
    assert t.is_alive() and "id" not in result  # it waits, it does not write past the lock
    assert len(subjects(repo)) == 1
    lock.unlink()
    t.join(30)
    assert result == {"id": "e2"}
    assert subjects(repo)[0] == "e2 observe: second"


def test_a_ref_moved_between_read_and_swap_is_not_overwritten(root):
    """The compare under the lock: another writer moves the branch after this
    one read it; this one's swap fails and it builds again on the other's
    commit, so both events are in the history, numbered in commit order."""
    with Halo(root, session="s") as h, Halo(root, session="other") as other:
        h.log(AGENT, "observe", "first")
        agent_repo = h.store.repo(AGENT)
        real = agent_repo._swap_ref
        calls = []

        def swap(r, ref, old, new):
            if not calls:
                other.log(AGENT, "observe", "from the other writer")
            calls.append(old)
            return real(r, ref, old, new)

        agent_repo._swap_ref = swap
        reply = h.log(AGENT, "observe", "second")
    assert reply["id"] == "e3" and len(calls) == 2 and calls[0] != calls[1]
    repo = root / f"{AGENT}.git"
    assert subjects(repo) == ["e3 observe: second", "e2 observe: from the other writer", "e1 observe: first"]
    fsck = git(repo, "fsck", "--full", "--strict", check=False)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stdout + fsck.stderr


def test_where_rename_cannot_replace_a_file_dulwich_writes_as_before(root, monkeypatch):
    """Off POSIX (Windows) the append writes through dulwich, as it did before its
    own writes: the same repository, readable by git."""
    from halo_git.store import repo as repo_module

    with Halo(root, session="s") as h:
        h.log(AGENT, "observe", "written the short way")
    monkeypatch.setattr(repo_module, "_POSIX", False)
    with Halo(root, session="s") as h:
        for i in range(3):
            h.log(AGENT, "observe", f"through dulwich {i}")
    repo = root / f"{AGENT}.git"
    assert [s.split(":")[0] for s in subjects(repo)] == ["e4 observe", "e3 observe", "e2 observe", "e1 observe"]
    fsck = git(repo, "fsck", "--full", "--strict", check=False)
    assert fsck.returncode == 0 and not fsck.stderr.strip(), fsck.stdout + fsck.stderr
