"""Smaller defects, each a clean refusal instead of a traceback or a silent surprise:
branch names Git refuses, option-looking remotes, a read-only or full disk (on
real tmpfs mounts), a site build next to data it did not create, shell-quoted
hint commands, and the site title in attributes."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import Client

from halo_git import Halo
from halo_git.errors import InvalidCall
from halo_git.store.repo import MAX_BRANCH, branch_ref
from tests.conftest import git, run_cli, server_params

AGENT = "demo"

# -- branch names ---------------------------------------------------------------------

NAMES = ["main", "prompt-v2", "feature/x", "ü-branch", "a#b", "a$b", "a+b", "a..b", "a//b", "a/", "a.", ".a", "a/.b",
         "a.lock", "x@{y", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[b", "a\\b", "-x", "HEAD", "a\x01b", "x" * MAX_BRANCH]


def _cli(root: Path, command: str, *args: str) -> subprocess.CompletedProcess:
    """``run_cli`` with --root right after the command, so a trailing ``-- -x`` stays positional."""
    return run_cli(command, "--root", str(root), *args)


def _git_accepts(name: str) -> bool:
    return subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True).returncode == 0


@pytest.mark.parametrize("name", NAMES)
def test_branch_names_follow_git_exactly(name):
    try:
        branch_ref(name)
        ours = True
    except InvalidCall as e:
        ours = False
        assert "git check-ref-format --branch" in str(e) and "not HEAD or @" in str(e)
    assert ours == _git_accepts(name), name


@pytest.mark.parametrize("name", ["HEAD", "@", "x" * 300, "-x"])
def test_refused_branch_names_give_a_clean_error_and_create_nothing(root, name):
    with Halo(root) as h:
        h.log(AGENT, "observe", "on main")
    before = git(root / f"{AGENT}.git", "for-each-ref").stdout
    for args in (("branch", "--agent", AGENT, name), ("log", "observe", "--agent", AGENT, "--summary", "x", "--branch", name)):
        r = _cli(root, *_args_with(args, name))
        assert r.returncode == 2 and "invalid branch name" in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr) < 1000
    assert git(root / f"{AGENT}.git", "for-each-ref").stdout == before


def _args_with(args: tuple[str, ...], name: str) -> list[str]:
    """``name`` passed as NEW or --branch without argparse reading '-x' as an option."""
    if args[0] == "branch":
        return ["branch", "--agent", AGENT, "--", name] if name.startswith("-") else list(args)
    return [a for a in args if a not in ("--branch", name)] + [f"--branch={name}"]


# -- remotes that look like options ------------------------------------------------------


@pytest.mark.parametrize("url", ["ssh://-oProxyCommand=touch${IFS}PWNED/x", "ssh://user@-oProxyCommand=x/y", "-u/x", "-oProxyCommand=x:path",
                                 "ssh://-oProxyCommand=touch PWNED/x"])
def test_option_looking_remotes_are_refused_cleanly(tmp_path, root, url):
    with Halo(root) as h:
        h.log(AGENT, "observe", "x")
    for args in (("pull", "--agent", AGENT, url), ("push", "--agent", AGENT, url), ("clone", url, "--agent", "other"),
                 ("site", "--remote", f"other={url}", "--out", str(tmp_path / "site"))):
        r = _cli(root, *_dashed(args, url))
        assert r.returncode in (1, 2) and "Traceback" not in r.stderr, r.stderr
        assert "refused remote" in r.stderr and "option" in r.stderr, r.stderr
    assert not (root / "other.git").exists() and not (tmp_path / "site").exists()
    assert not list(tmp_path.rglob("PWNED")) and not Path("PWNED").exists()


def _dashed(args: tuple[str, ...], url: str) -> list[str]:
    """Pass a URL starting with '-' as a positional (after --) or as A=URL."""
    if args[0] == "site":
        return list(args)
    rest = [a for a in args[1:] if a != url]
    return [args[0], *rest, "--", url]


# -- read-only and full disks (real tmpfs mounts) ----------------------------------------


def fill(mount: Path) -> Path:
    """Fill the mounted file system to the last byte with one file; returns it (unlink to free)."""
    filler = mount / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    return filler


@pytest.fixture
def mount(tmp_path):
    """A tmpfs mounted at tmp_path/mnt (size 2 MiB); skipped where mounting is not permitted."""
    point = tmp_path / "mnt"
    point.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(point)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip() or 'not permitted'})")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def _mcp_observe(root: Path) -> tuple[bool, str]:
    async def main():
        async with Client(server_params(root), mode="legacy") as c:
            r = await c.call_tool("halo_observe", {"summary": "after the disk changed", "agent": AGENT})
            return r.is_error, r.content[0].text

    return anyio.run(main)


def test_a_read_only_root_says_so(mount):
    root = mount / "root"
    with Halo(root) as h:
        h.log(AGENT, "observe", "before")
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    try:
        r = run_cli("log", "observe", "--agent", AGENT, "--summary", "x", root=root)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"the HALO root {root} is on a read-only file system" in r.stderr and "Nothing was logged" in r.stderr
        r = run_cli("log", "observe", "--agent", "fresh", "--summary", "x", root=root)  # creating a repository
        assert r.returncode == 1 and "read-only file system" in r.stderr, r.stderr
        r = run_cli("branch", "--agent", AGENT, "v2", root=root)
        assert r.returncode == 1 and "read-only file system" in r.stderr and "Branch 'v2' was not created" in r.stderr
        is_error, reply = _mcp_observe(root)
        assert is_error and "read-only file system" in json.loads(reply)["error"] and "internal error" not in reply
        assert run_cli("trace", "--agent", AGENT, root=root).returncode == 0  # reading still works
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(mount)], check=True)
    git(root / f"{AGENT}.git", "fsck", "--full")
    assert git(root / f"{AGENT}.git", "rev-list", "--count", "main").stdout.strip() == "1"


def test_a_full_disk_says_so_and_leaves_the_repository_sound(mount):
    root = mount / "root"
    with Halo(root) as h:
        h.log(AGENT, "observe", "before")
    filler = fill(mount)
    r = run_cli("log", "observe", "--agent", AGENT, "--summary", "x" * 5000, root=root)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "no space left on the device" in r.stderr and "Nothing was logged" in r.stderr
    is_error, reply = _mcp_observe(root)
    assert is_error and "no space left" in json.loads(reply)["error"]
    filler.unlink()
    git(root / f"{AGENT}.git", "fsck", "--full")
    assert run_cli("verify", "--agent", AGENT, root=root).returncode == 0
    r = run_cli("log", "observe", "--agent", AGENT, "--summary", "after", root=root)
    assert r.returncode == 0 and json.loads(r.stdout)["id"] == "e2", r.stderr


# -- hint commands are shell-quoted ------------------------------------------------------


def test_hint_commands_are_shell_quoted(tmp_path, root):
    with Halo(root) as h:
        h.log(AGENT, "observe", "on main")
    odd = "x$(id)&y"
    r = run_cli("log", "observe", "--agent", AGENT, "--summary", "x", f"--branch={odd}", root=root)
    assert r.returncode == 1 and shlex.join(["halo-git", "branch", "--agent", AGENT, odd, "--from", "main"]) in r.stderr, r.stderr
    url = str(tmp_path / "my remote")
    r = run_cli("pull", "--agent", "nobody", url, root=root)
    assert shlex.join(["halo-git", "clone", url, "--agent", "nobody"]) in r.stderr, r.stderr
    r = run_cli("branch", "--agent", AGENT, "v#2", root=root)
    assert r.returncode == 0 and "--branch 'v#2'" in r.stdout, r.stdout


# -- the site never deletes what it did not create ------------------------------------------


def test_a_site_build_never_deletes_data_it_did_not_create(tmp_path, root):
    with Halo(root) as h:
        h.log(AGENT, "observe", "x")
    out = tmp_path / "site"
    assert run_cli("site", "--out", str(out), root=root).returncode == 0
    assert run_cli("site", "--out", str(out), root=root).returncode == 0  # rebuilding its own output is fine
    # someone keeps a HALO root (and a note) inside the earlier output folder
    inner = out / "traces"
    with Halo(inner) as h:
        h.log("keep", "observe", "precious")
    (out / "notes.txt").write_text("mine\n")
    r = run_cli("site", "--out", str(out), root=root)
    assert r.returncode == 2 and "did not create" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert (out / "notes.txt").read_text() == "mine\n" and (inner / "keep.git" / "HEAD").exists()
    # building from the root kept inside it is refused too
    r = run_cli("site", "--out", str(out), root=inner)
    assert r.returncode == 2 and (inner / "keep.git" / "HEAD").exists()


def test_the_site_title_is_escaped_once_everywhere(tmp_path, root):
    with Halo(root) as h:
        h.log(AGENT, "observe", "x")
    out = tmp_path / "site"
    title = 'Tom & Jerry\'s "<b>traces</b>"'
    r = run_cli("site", "--out", str(out), "--title", title, root=root)
    assert r.returncode == 0, r.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<b>traces</b>" not in page and "&amp;amp;" not in page and "&amp;lt;" not in page and "&amp;#34;" not in page
    assert "Tom &amp; Jerry" in page
