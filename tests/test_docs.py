"""The project's own docs: they build strictly and stay in step with the code."""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

from halo_git.server import GUIDE

REPO = Path(__file__).resolve().parent.parent


def test_project_docs_build_strict(tmp_path):
    logging.getLogger("mkdocs").setLevel(logging.WARNING)  # strict mode counts warnings
    config = load_config(str(REPO / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
    build(config)
    for page in ("tools", "report", "storage", "cli", "api", "security", "branches", "site", "ci", "interop", "auditing"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page
    assert not list((tmp_path / "site").rglob("*.py"))


def test_tools_page_quotes_the_guide():
    page = (REPO / "docs" / "tools.md").read_text(encoding="utf-8")
    quoted = "\n".join(line[2:] if line.startswith("> ") else line[1:] for line in page.splitlines() if line.startswith(">"))
    assert GUIDE in quoted


def test_readme_commands_and_ci_entry():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install '.[site]' && .venv/bin/halo-git demo --out demo-site" in readme
    assert "\nbash scripts/test.sh\n" in readme
    ci = (REPO / ".ci" / "run").read_text()
    assert ci.rstrip().endswith("exec bash scripts/test.sh")
