"""The docs as executable truth: every shell and Python block in README.md and
docs/ marked runnable (an HTML comment ``<!-- runnable -->`` on the line before
its fence, invisible on GitHub and in the docs site) runs, in order per page,
against a temporary home folder, so ``~/.halo`` is a fresh root."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MARK = re.compile(r"^<!-- runnable(:.*)? -->$")
FENCE = re.compile(r"^```(\w+)\s*$")
LANGUAGES = {"bash": "bash", "sh": "bash", "python": "python"}
# pages that must keep at least this many runnable blocks (removing a marker fails)
EXPECTED = {"README.md": 1, "docs/api.md": 1, "docs/branches.md": 2, "docs/getting-started.md": 1}


def runnable_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line number, language, code) of every marked block, in page order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for i, line in enumerate(lines):
        if not MARK.match(line.strip()):
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        assert fence and fence.group(1) in LANGUAGES, f"{path.name}:{i + 1}: a runnable mark must sit right above a bash or python fence"
        end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
        found.append((i + 2, LANGUAGES[fence.group(1)], "\n".join(lines[i + 2 : end]) + "\n"))
    return found


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_the_marked_pages_keep_their_runnable_blocks():
    counts = {str(p.relative_to(REPO)): len(runnable_blocks(p)) for p in pages()}
    for page, least in EXPECTED.items():
        assert counts[page] >= least, page
    assert sum(counts.values()) >= sum(EXPECTED.values())


@pytest.mark.parametrize("page", [p for p in pages() if runnable_blocks(p)], ids=lambda p: p.name)
def test_runnable_blocks_run(page, tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("HALO_ROOT", "HALO_SCREEN")}
    env.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", COLUMNS="100")
    for line, language, code in runnable_blocks(page):
        cmd = ["bash", "-euo", "pipefail", "-c", code] if language == "bash" else [sys.executable, "-c", code]
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        where = f"{page.relative_to(REPO)}:{line} ({language})"
        assert r.returncode == 0, f"{where} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, f"{where}:\n{r.stderr[-2000:]}"
    assert (home / ".halo").is_dir()  # the blocks used the documented default root, not the machine's
