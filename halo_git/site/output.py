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
import os
import shutil
from importlib import resources
from pathlib import Path
from contextlib import contextmanager
from typing import Iterator, Mapping
from urllib.parse import urlsplit

import yaml

from ..errors import HaloError, InvalidCall
from .notfound import portable_404

MARKER = ".halo-site"  # marks a folder halo-git built, and lists what it wrote there
_MARKER_HEAD = "Built by halo-git site; halo-git may delete and rebuild this folder. It wrote these files:\n"
# Written while a build runs: the build had proved the folder all its own (``check_out``),
# so a build killed mid-write leaves a folder the next build may still take back.
_MARKER_BUILDING = ("A halo-git site build is writing this folder (if this stays, the build was killed); every file in it "
                    "is halo-git's, which may delete and rebuild it.\n")


def template_dir() -> Path:
    """The packaged template (a wheel), else the checkout's top-level one."""
    packaged = Path(str(resources.files("halo_git") / "site_template"))
    if (packaged / "mkdocs.yml").is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "site_template"


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
    shutil.copytree(template / "hooks", src / "hooks", ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((template / "mkdocs.yml").read_text(encoding="utf-8"))
    # The title is HTML-escaped here, in the configuration itself, so a builder that prints
    # site_name raw cannot be made to run script by it: Zensical, which reads this mkdocs.yml,
    # ignores hooks. MkDocs runs the hook, which marks the escaped text as Markup so the
    # theme's own `| e` in attributes does not escape it twice.
    config.update(site_name=html.escape(title), nav=nav, docs_dir="docs", hooks=["hooks/halo_title.py"])
    if site_url:
        config["site_url"] = site_url
    path = src / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@contextmanager
def new_out(out: Path) -> Iterator[None]:
    """``check_out``, then remove ``out`` again if this build created it and
    failed before writing anything into it (a refused build leaves nothing)."""
    fresh = not out.exists()
    check_out(out)
    try:
        yield
    except BaseException:
        if fresh:
            try:
                out.rmdir()
            except OSError:
                pass
        raise


def check_out(out: Path) -> None:
    """Refuse to build into a folder that holds anything halo-git did not write
    there: MkDocs empties its output folder first. An earlier build's marker
    lists every file and folder it made; anything else (a HALO root, notes
    placed inside later) stops the build before a file is touched."""
    if not out.exists():
        try:  # now, so an unusable path stops the command before any work
            out.mkdir(parents=True)
        except OSError as e:
            raise InvalidCall(f"cannot create --out {out}: {e.strerror or e}; pass a folder you can write to") from None
        return
    if not out.is_dir() or out.is_symlink():
        raise InvalidCall(f"--out {out} exists and is not a folder; pass an empty or new folder as --out")
    if not any(out.iterdir()):
        return
    made = _recorded(out)
    if made is None:
        raise InvalidCall(
            f"{out} exists and is not an earlier halo-git site; building would delete its contents. "
            "Pass an empty or new folder as --out"
        )
    foreign = [p for p in _contents(out) if p not in made]
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise InvalidCall(
            f"{out} holds an earlier halo-git site but also {shown}, which halo-git did not create there; building would "
            "delete it. Move that out of the folder, or pass an empty or new folder as --out"
        )


def _contents(out: Path) -> list[str]:
    """Every file and folder under ``out`` (relative, '/'-separated), the marker aside."""
    found = []
    for dirpath, dirs, files in os.walk(out):
        rel = Path(dirpath).relative_to(out)
        for name in dirs + files:
            path = (rel / name).as_posix()
            if path != MARKER:
                found.append(path)
    return sorted(found)


def _recorded(out: Path) -> set[str] | None:
    """What the marker says an earlier build wrote, or None without a marker."""
    try:
        text = (out / MARKER).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if text.startswith(_MARKER_BUILDING):
        return set(_contents(out))  # a build killed while writing: all it left is its own
    if not text.startswith(_MARKER_HEAD):
        raise InvalidCall(
            f"{out} was built by an older halo-git that did not list the files it wrote, so a rebuild cannot tell them "
            "from yours; delete the folder once (or pass a new folder as --out)"
        )
    return set(filter(None, text[len(_MARKER_HEAD):].split("\n")))


def _record(out: Path) -> None:
    (out / MARKER).write_text(_MARKER_HEAD + "".join(p + "\n" for p in _contents(out)), encoding="utf-8")


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


# What to install when the site's builder is missing (``pip install halo-git`` leaves it out).
SITE_EXTRA = "pip install 'halo-git[site]'"


def require_builder() -> None:
    """Refuse, saying what to install, when MkDocs or MkDocs Material is missing.

    They are the ``site`` extra: the server, the CLI and the reports need
    neither, so a plain install leaves them out. Called before anything is
    read or written, so a missing builder costs nothing.

    Raises:
        HaloError: MkDocs or the Material theme is not importable (exit 1: not a
            usage error, the installation lacks a part).
    """
    from importlib.util import find_spec

    missing = [name for module, name in (("mkdocs", "MkDocs"), ("material", "MkDocs Material")) if find_spec(module) is None]
    if missing:
        raise HaloError(
            f"building the review site needs {' and '.join(missing)}, which this installation of halo-git leaves out "
            f"(they are its 'site' extra); install them with: {SITE_EXTRA} "
            "(in a checkout: pip install '.[site]'; with uvx: uvx --from 'halo-git[site]' halo-git site)"
        )


def build(
    config_file: Path, out: Path, pages: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None,
) -> None:
    """Run MkDocs in strict mode; any warning fails the build with its text.

    ``pages``: docs-relative path -> Markdown of pages not written under the
    docs folder (see ``write(..., markdown=False)``). ``extra``: files written
    beside the built site (after MkDocs empties the folder, before the marker
    lists what the build wrote, so a rebuild knows them as its own).

    Strict mode counts warnings on the ``mkdocs`` logger, so the logger must
    let WARNING through; it is lowered to WARNING if something raised it.

    Raises:
        HaloError: the build failed (broken link, bad config, …).
    """
    require_builder()
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    # MkDocs keeps hidden files when it empties the folder: the marker survives.
    # ``check_out`` proved everything in the folder is ours, so whatever is
    # there after the build (finished or failed) was written by it: the list
    # is brought up to date either way, and a failed build can be retried.
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text(_MARKER_BUILDING, encoding="utf-8")  # until ``_record`` lists what was written
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
        for name, text in (extra or {}).items():
            (out / name).write_text(text, encoding="utf-8")
    except MkDocsException as e:
        shown = "; ".join(warnings.messages[:5]) + (" …" if len(warnings.messages) > 5 else "")
        raise HaloError(f"the site build failed: {e}" + (f" ({shown})" if shown else "")) from None
    finally:
        logger.removeHandler(warnings)
        _record(out)
