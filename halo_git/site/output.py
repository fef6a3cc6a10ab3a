"""Stages 4 and 5, write and build: Markdown files on disk, then MkDocs.

The only module of the site package that imports mkdocs (lazily, so the rest
stays importable and testable without it). ``site_template/`` at the top of
the repository is the source of the configuration, theme overrides, CSS and
the offline search polyfill; ``halo_git/site_template`` links to it so an
installed wheel carries a copy.
"""

from __future__ import annotations

import html
import logging
import shutil
from importlib import resources
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit

import yaml

from ..errors import HaloError, InvalidCall
from .notfound import portable_404

MARKER = ".halo-site"  # marks a folder halo-git may wipe and rebuild


def template_dir() -> Path:
    return Path(str(resources.files("halo_git") / "site_template"))


def check_site_url(url: str) -> str:
    """``--site-url``: an absolute http(s) address, ending in ``/``.

    Raises:
        InvalidCall: anything else.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment or any(c in url for c in "\"'<> \t\n"):
        raise InvalidCall(
            f"--site-url {url!r} is not an http(s) address without query or fragment; pass where the site is published, "
            "e.g. --site-url https://org.github.io/repo/"
        )
    return url if url.endswith("/") else url + "/"


def write(pages: Mapping[str, str], nav: list, src: Path, *, title: str, site_url: str | None = None, markdown: bool = True) -> Path:
    """Write the docs folder, assets, overrides and ``mkdocs.yml`` under ``src``.

    With ``markdown=False`` the pages themselves are not written: ``build``
    then hands them to MkDocs from memory (a fleet's site has thousands).

    Returns the path of the written ``mkdocs.yml``.
    """
    template = template_dir()
    docs = src / "docs"
    shutil.copytree(template / "assets", docs / "assets")
    shutil.copytree(template / "overrides", src / "overrides")
    folders: set[Path] = set()
    for rel, text in pages.items() if markdown else ():
        path = docs / rel
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_text(text, encoding="utf-8")
    config = yaml.safe_load((template / "mkdocs.yml").read_text(encoding="utf-8"))
    # the theme prints site_name unescaped
    config.update(site_name=html.escape(title), nav=nav, docs_dir="docs")
    if site_url:
        config["site_url"] = site_url
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


class _Pages:
    """A plugin handing MkDocs pages that exist in memory only."""

    def __init__(self, pages: Mapping[str, str]):
        self.pages = pages

    def on_files(self, files, *, config):
        from mkdocs.structure.files import File

        for rel, text in self.pages.items():
            files.append(File.generated(config, rel, content=text))
        return files


def build(config_file: Path, out: Path, pages: Mapping[str, str] | None = None) -> None:
    """Run MkDocs in strict mode; any warning fails the build with its text.

    ``pages``: docs-relative path -> Markdown of pages not written under the
    docs folder (see ``write(..., markdown=False)``).

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
        if pages:
            config.plugins["halo-pages"] = _Pages(pages)
        mkdocs_build(config)
        not_found = out / "404.html"
        if not_found.is_file():
            base = urlsplit(config.site_url or "/").path or "/"
            not_found.write_text(portable_404(not_found.read_text(encoding="utf-8"), base), encoding="utf-8")
    except MkDocsException as e:
        shown = "; ".join(warnings.messages[:5]) + (" …" if len(warnings.messages) > 5 else "")
        raise HaloError(f"the site build failed: {e}" + (f" ({shown})" if shown else "")) from None
    finally:
        logger.removeHandler(warnings)
