"""Stages 4 and 5, write and build: Markdown files on disk, then MkDocs.

The only module of the site package that imports mkdocs (lazily, so the rest
stays importable and testable without it). ``site_template/`` at the top of
the repository is the source of the configuration, theme overrides, CSS and
the offline search polyfill; the wheel build (``setup.py``) copies it into
``halo_git/site_template`` so an installed wheel carries it, and a source
checkout or editable install reads the top-level folder itself.
"""

from __future__ import annotations

import html
import logging
import shutil
from importlib import resources
from pathlib import Path
from typing import Mapping

import yaml

from ..errors import HaloError, InvalidCall

MARKER = ".halo-site"  # marks a folder halo-git may wipe and rebuild


def template_dir() -> Path:
    """The packaged template (a wheel), else the checkout's top-level one."""
    packaged = Path(str(resources.files("halo_git") / "site_template"))
    if (packaged / "mkdocs.yml").is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "site_template"


def write(pages: Mapping[str, str], nav: list, src: Path, *, title: str) -> Path:
    """Write the docs folder, assets, overrides and ``mkdocs.yml`` under ``src``.

    Returns the path of the written ``mkdocs.yml``.
    """
    template = template_dir()
    docs = src / "docs"
    shutil.copytree(template / "assets", docs / "assets")
    shutil.copytree(template / "overrides", src / "overrides")
    folders: set[Path] = set()
    for rel, text in pages.items():
        path = docs / rel
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_text(text, encoding="utf-8")
    config = yaml.safe_load((template / "mkdocs.yml").read_text(encoding="utf-8"))
    # the theme prints site_name unescaped
    config.update(site_name=html.escape(title), nav=nav, docs_dir="docs")
    path = src / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def check_out(out: Path) -> None:
    """Refuse to build into a folder that holds anything but an earlier site:
    MkDocs empties its output folder first."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise InvalidCall(
            f"{out} exists and is not an earlier halo-git site; building would delete its contents. "
            "Pass an empty or new folder as --out"
        )


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def build(config_file: Path, out: Path) -> None:
    """Run MkDocs in strict mode; any warning fails the build with its text.

    Strict mode counts warnings on the ``mkdocs`` logger, so the logger must
    let WARNING through; it is lowered to WARNING if something raised it.

    Raises:
        HaloError: the build failed (broken link, bad config, …).
    """
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    # MkDocs keeps hidden files when it empties the folder: the marker written
    # first survives, so a failed build can be retried into the same folder.
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("Built by halo-git site; halo-git may delete and rebuild this folder.\n", encoding="utf-8")
    logger = logging.getLogger("mkdocs")
    if logger.getEffectiveLevel() > logging.WARNING:
        logger.setLevel(logging.WARNING)
    warnings = _Warnings()
    logger.addHandler(warnings)
    try:
        config = load_config(str(config_file), strict=True, site_dir=str(out.resolve()))
        mkdocs_build(config)
    except MkDocsException as e:
        shown = "; ".join(warnings.messages[:5]) + (" …" if len(warnings.messages) > 5 else "")
        raise HaloError(f"the site build failed: {e}" + (f" ({shown})" if shown else "")) from None
    finally:
        logger.removeHandler(warnings)
