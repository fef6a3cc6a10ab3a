"""A hostile remote cannot exhaust memory: a YAML alias bomb in one field of one
event (half a kilobyte, in ``kind``, whose refusal used to quote the expanded value) and an event file of 128 MiB that packs into a few
hundred kilobytes, both committed with the real ``git`` binary on top of a
genuine HALO history, are refused by ``pull``, ``clone``, ``site --remote`` and
``verify`` (a plain ``git clone --bare`` into the root) with one clean line, in
bounded time and with the peak resident set of the ``halo-git`` process
(``wait4``'s ``ru_maxrss``) under ``RSS_BOUND`` (docs/security.md, "Hostile
remotes", records the figures)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.model import Event, to_yaml
from tests.conftest import PYTHON, run_cli

AGENT = "demo"
T2 = "2026-01-01T00:00:10Z"
RSS_BOUND = 200 << 20  # bytes; a clean run of these commands peaks near 80 MiB
TIME_BOUND = 60.0  # seconds, on a loaded 2-core machine (the refusal itself takes ~1 s)
BIG = 128 << 20  # the oversized summary's bytes (the attack measured 400 MiB; any size over the limits takes the same path)

_LEVELS = "abcdefghi"
BOMB = "[" + ", ".join(
    f"&{name} [" + ", ".join(["lol"] * 9 if i == 0 else [f"*{_LEVELS[i - 1]}"] * 9) + "]" for i, name in enumerate(_LEVELS)
) + "]"  # 9**9 strings once expanded


def _env(cwd: Path) -> dict:
    return {
        **os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd),
        "GIT_AUTHOR_NAME": AGENT, "GIT_AUTHOR_EMAIL": f"{AGENT}@halo", "GIT_COMMITTER_NAME": AGENT,
        "GIT_COMMITTER_EMAIL": f"{AGENT}@halo", "GIT_AUTHOR_DATE": f"{T2[:-1]}+0000", "GIT_COMMITTER_DATE": f"{T2[:-1]}+0000",
    }


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=_env(cwd)).stdout.strip()


def _write_event(path: Path, field: str, writer) -> None:
    """e2 as HALO writes it, with the value of ``field`` produced by ``writer(f)``."""
    text = to_yaml(Event("e2", "observe", AGENT, "s1", T2, "looked around")).decode()
    line = next(x for x in text.splitlines() if x.startswith(f"{field}: "))
    before, after = text.split(line + "\n")
    before += f"{field}: "
    after = "\n" + after
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(before)
        writer(f)
        f.write(after)


def _bomb(f) -> None:
    f.write(BOMB)


def _big(f) -> None:
    block = "a" * (1 << 20)
    for _ in range(BIG >> 20):
        f.write(block)


def _list(f) -> None:
    f.write("[observe]")


# (field, what it holds); the last is no memory attack, but it once gave a traceback the same way
ATTACKS = {"alias-bomb": ("kind", _bomb), "huge-summary": ("summary", _big), "kind-list": ("kind", _list)}


@pytest.fixture(scope="module")
def remotes(tmp_path_factory):
    """One bare remote per attack: e1 written by HALO, then e2 carrying the attack."""
    base = tmp_path_factory.mktemp("hostile-limits")
    origin = base / "origin"
    with Halo(origin) as h:
        h.log(AGENT, "observe", "user asked for a reminder", session="s1", time="2026-01-01T00:00:00Z")
    out = {}
    for name, (field, writer) in ATTACKS.items():
        bare = base / name / f"{AGENT}.git"
        subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
        assert run_cli("push", "--agent", AGENT, str(bare), root=origin).returncode == 0
        wt = base / f"wt-{name}"
        _git(base, "clone", "-q", str(bare), str(wt))
        _write_event(wt / "events/00/00/e2.yaml", field, writer)
        _git(wt, "add", "-A")
        _git(wt, "commit", "-q", "-m", "e2 observe: innocent")
        _git(wt, "push", "-q", "origin", "HEAD:main")
        out[name] = (bare, _git(wt, "rev-parse", "HEAD"))
    assert len(BOMB) < 600
    packed = sum(p.stat().st_size for p in (out["huge-summary"][0] / "objects").rglob("*") if p.is_file())
    assert packed < 2 << 20  # the 128 MiB file travels as well under 2 MiB
    return out


# A small wrapper runs the command as its own child and writes that child's peak RSS: a process's peak
# counts the memory of whatever it was forked from, and a late test runner is hundreds of MiB.
_CAPPED = ("import os, resource, subprocess, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
           "p = subprocess.Popen([sys.executable, *sys.argv[2:]]); _, status, usage = os.wait4(p.pid, 0); "
           "open(sys.argv[1], 'w').write(str(usage.ru_maxrss)); sys.exit(os.waitstatus_to_exitcode(status))")


def _measured(*args: str, root: Path) -> tuple[subprocess.CompletedProcess, int, float]:
    """Run ``halo-git`` like ``run_cli`` and return (result, its peak RSS in bytes, seconds)."""
    out, err = root.parent / "cli.out", root.parent / "cli.err"
    start = time.monotonic()
    with open(out, "wb") as o, open(err, "wb") as e:
        peak = root.parent / "cli.peak"
        p = subprocess.Popen([PYTHON, "-c", _CAPPED, str(peak), "-m", "halo_git.cli", *args, "--root", str(root)],
                             stdout=o, stderr=e)
        try:
            _pid, status, usage = os.wait4(p.pid, 0)
        except BaseException:
            p.kill()
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    rss = int(peak.read_text()) * (1 if sys.platform == "darwin" else 1024)
    assert usage
    result = subprocess.CompletedProcess(p.args, p.returncode, out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8"))
    return result, rss, seconds


def _clean_refusal(r: subprocess.CompletedProcess, rss: int, seconds: float, *needles: str) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr[-2000:]
    assert len(r.stderr) < 1000, r.stderr[:1000]
    for needle in needles:
        assert needle in r.stderr, r.stderr
    assert rss < RSS_BOUND, f"peak RSS {rss >> 20} MiB"
    assert seconds < TIME_BOUND, f"{seconds:.1f} s"
    print(f"{' '.join(r.args[5:7])}: peak RSS {rss / (1 << 20):.0f} MiB, {seconds:.2f} s")


def _why(attack: str) -> str:
    return {"alias-bomb": "anchors or aliases", "huge-summary": "HALO writes none larger than", "kind-list": "has kind"}[attack]


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_pull_refuses_the_attack_in_bounded_memory(tmp_path, remotes, attack):
    bare, sha = remotes[attack]
    local = tmp_path / "local"
    with Halo(local) as h:
        h.log(AGENT, "observe", "user asked for a reminder", session="s1", time="2026-01-01T00:00:00Z")
    before = subprocess.run(["git", "--git-dir", str(local / f"{AGENT}.git"), "rev-parse", "main"], capture_output=True, text=True).stdout
    r, rss, seconds = _measured("pull", "--agent", AGENT, str(bare), root=local)
    _clean_refusal(r, rss, seconds, "refused", _why(attack))
    if attack != "huge-summary":  # (that one is refused before any commit is looked at)
        assert f"commit {sha[:12]}" in r.stderr
    after = subprocess.run(["git", "--git-dir", str(local / f"{AGENT}.git"), "rev-parse", "main"], capture_output=True, text=True).stdout
    assert after == before
    assert run_cli("verify", "--agent", AGENT, root=local).returncode == 0


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_clone_refuses_the_attack_in_bounded_memory_and_creates_nothing(tmp_path, remotes, attack):
    bare, _sha = remotes[attack]
    local = tmp_path / "local"
    r, rss, seconds = _measured("clone", str(bare), "--agent", AGENT, root=local)
    _clean_refusal(r, rss, seconds, "refused", _why(attack))
    assert not (local / f"{AGENT}.git").exists()


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_site_remote_refuses_the_attack_in_bounded_memory(tmp_path, remotes, attack):
    bare, _sha = remotes[attack]
    r, rss, seconds = _measured("site", "--remote", f"{AGENT}={bare}", "--out", str(tmp_path / "site"), root=tmp_path / "local")
    _clean_refusal(r, rss, seconds, "refused", _why(attack))
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_verify_and_report_of_a_plain_bare_clone_refuse_the_attack_in_bounded_memory(tmp_path, remotes, attack):
    bare, sha = remotes[attack]
    root = tmp_path / "root"
    root.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(bare), str(root / f"{AGENT}.git")], check=True)
    r, rss, seconds = _measured("verify", "--agent", AGENT, root=root)
    _clean_refusal(r, rss, seconds, f"commit {sha[:12]}", {"alias-bomb": "anchors or aliases", "huge-summary": "bytes"}.get(attack, "has kind"))
    r, rss, seconds = _measured("report", "--agent", AGENT, root=root)
    _clean_refusal(r, rss, seconds, sha[:12])


def test_a_forged_cache_ref_with_a_huge_chunk_is_never_inflated(tmp_path, remotes):
    """A travelling cache (``refs/halo/cache/main``) whose chunk is 128 MiB,
    cloned with plain ``git clone --mirror``: reads ignore it without inflating
    it, ``verify`` names it, both in bounded memory."""
    from halo_git.store import snapshot

    base = tmp_path / "forge"
    base.mkdir()
    origin = base / "origin"
    with Halo(origin) as h:
        h.log(AGENT, "observe", "user asked for a reminder", session="s1", time="2026-01-01T00:00:00Z")
        h.log(AGENT, "observe", "looked around", session="s1", time="2026-01-01T00:00:05Z")
    repo = origin / f"{AGENT}.git"
    huge = base / "chunk"
    with open(huge, "w") as f:
        _big(f)

    def plumbing(*args: str, data: bytes | None = None) -> str:
        return subprocess.run(["git", "--git-dir", str(repo), *args], input=data, capture_output=True, check=True,
                              env=_env(base)).stdout.decode().strip()

    fmt = plumbing("hash-object", "-w", "--stdin", data=snapshot.TRAVEL_FORMAT)
    chunk = plumbing("hash-object", "-w", str(huge))
    tree = plumbing("mktree", data=f"100644 blob {fmt}\tformat\n100644 blob {chunk}\tc000000.jsonl\n".encode())
    head = plumbing("rev-parse", "main")
    commit = plumbing("commit-tree", tree, "-m", snapshot.travel_message("main", 1000, head).decode().strip())
    plumbing("update-ref", "refs/halo/cache/main", commit)
    root = tmp_path / "root"
    root.mkdir()
    subprocess.run(["git", "clone", "-q", "--mirror", str(repo), str(root / f"{AGENT}.git")], check=True)
    r, rss, seconds = _measured("trace", "--agent", AGENT, root=root)
    assert r.returncode == 0 and "looked around" in r.stdout, r.stderr
    assert rss < RSS_BOUND and seconds < TIME_BOUND, (rss >> 20, seconds)
    r, rss, seconds = _measured("verify", "--agent", AGENT, root=root)
    assert rss < RSS_BOUND and seconds < TIME_BOUND, (rss >> 20, seconds)
    assert "Traceback" not in r.stderr
