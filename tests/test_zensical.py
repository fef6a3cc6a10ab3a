"""The review site built with Zensical (the maintained successor of MkDocs Material),
which reads the same mkdocs.yml but ignores ``hooks:``: the title must be safe without
the MkDocs hook. scripts/test.sh installs the pinned Zensical into its own virtual
environment under .ci-tools/ when the package index has it; without it this test skips,
naming the version."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.site import build_site
from tests.conftest import CI_TOOLS

ZENSICAL = "0.0.73"  # scripts/test.sh installs this version
BIN = CI_TOOLS / "zensical" / "bin" / "zensical"
HOSTILE_TITLE = "<img src=x onerror=alert(1)> & co"
REPO = Path(__file__).resolve().parent.parent


def test_test_script_pins_the_same_zensical():
    assert f"ZENSICAL={ZENSICAL}\n" in (REPO / "scripts/test.sh").read_text(encoding="utf-8")


@pytest.mark.skipif(not BIN.exists(), reason=f"Zensical {ZENSICAL} is not installed in {BIN.parent.parent} "
                    "(scripts/test.sh installs it when the package index has it)")
def test_zensical_builds_the_review_site_and_the_title_stays_text(tmp_path):
    root = tmp_path / "root"
    with Halo(root) as h:
        o = h.log("demo", "observe", "user asked for a reminder", session="day1")["id"]
        h.log("demo", "revise", "remind earlier", [o], "day1", target="reminder rule", made_by="agent", governance="none")
    src = tmp_path / "src"
    build_site(root, tmp_path / "mkdocs-out", src=src, title=HOSTILE_TITLE)  # the Markdown and mkdocs.yml, kept
    version = subprocess.run([str(BIN), "--version"], capture_output=True, text=True, timeout=60).stdout
    assert ZENSICAL in version
    r = subprocess.run([str(BIN), "build", "-f", "mkdocs.yml"], cwd=src, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    site = src / "site"
    for page in (site / "index.html", site / "agents/demo/index.html", site / "agents/demo/diagnosis.html"):
        text = page.read_text(encoding="utf-8")
        assert "<img src=x" not in text, page  # Zensical printed the title it was given, escaped by halo-git
        assert "&lt;img src=x onerror=alert(1)&gt; &amp; co" in text, page
    assert "reminder rule" in (site / "agents/demo/revisions.html").read_text(encoding="utf-8")
    # MkDocs, with the hook, shows the same title escaped once (no &amp;lt; in its pages)
    mk = (tmp_path / "mkdocs-out/index.html").read_text(encoding="utf-8")
    assert "&amp;lt;" not in mk and re.search(r"<title>&lt;img src=x onerror=alert\(1\)&gt; &amp; co</title>", mk)
