"""Cold reads without any cache: a plain ``git clone --bare`` (no
``refs/halo/cache``, no ``halo/`` folder) is read straight from its packs by
HALO's bulk reader (``store/packread.py``) and its canonical-form parser, and
answers exactly what the origin answers, whatever packing ``git`` chose
(HALO's own packs, ``git gc --aggressive`` deltas, loose objects)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from halo_git import Halo
from tests.conftest import git, run_cli

AGENT = "cold"
N = 300  # above the bulk path's threshold (repo.BULK_READ)


def _lines(n: int) -> list[str]:
    out = []
    for i in range(1, n + 1):
        summary = ["user sent 👍", "checked the calendar: 9:30 free", "it's 'quoted'", "tab\there", "e\u0301 café 漢字 𠀀"][i % 5]
        d = {"id": f"e{i}", "kind": "observe" if i % 3 else "remember", "summary": f"{summary} #{i}", "session": f"s{i // 50}",
             "time": f"2026-02-01T10:{(i // 60) % 60:02d}:{i % 60:02d}Z"}
        if i > 1 and i % 7 == 0:
            d["uses"] = [f"e{i - 1}"]
        out.append(json.dumps(d, ensure_ascii=False))
    return out


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    root = tmp_path_factory.mktemp("cold-origin")
    with Halo(root) as h:
        h.import_lines(AGENT, _lines(N))
        h.events(AGENT)
    return root


def _answers(root: Path) -> tuple[str, str]:
    export = run_cli("export", "--agent", AGENT, root=root)
    report = run_cli("report", "--agent", AGENT, root=root)
    assert export.returncode == 0 and report.returncode == 0, (export.stderr, report.stderr)
    return export.stdout, report.stdout


@pytest.mark.parametrize("packing", ["as-cloned", "gc-aggressive", "loose"])
def test_a_plain_bare_clone_reads_back_exactly_the_origin(tmp_path, origin, packing):
    root = tmp_path / "root"
    root.mkdir()
    repo = root / f"{AGENT}.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-local", str(origin / f"{AGENT}.git"), str(repo)], check=True)
    assert git(repo, "for-each-ref", "refs/halo").stdout == "" and not (repo / "halo").exists()
    if packing == "gc-aggressive":
        git(repo, "gc", "-q", "--aggressive")
    elif packing == "loose":
        for pack in (repo / "objects" / "pack").glob("*.pack"):
            moved = pack.with_suffix(".old")
            pack.rename(moved)
            pack.with_suffix(".idx").unlink()
            subprocess.run(["git", "--git-dir", str(repo), "unpack-objects", "-q"], stdin=open(moved, "rb"), check=True)
            moved.unlink()
    assert _answers(root) == _answers(origin)
    assert run_cli("verify", "--agent", AGENT, root=root).returncode == 0
