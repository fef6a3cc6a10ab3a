"""The review site: agents' traces and diagnoses as an offline MkDocs Material site.

A pipeline of named stages over plain objects, each testable alone:

    collect (repositories -> AgentData)   collect.py
    model   (AgentData -> Site of pages)  pages.py
    render  (pages -> Markdown strings)   render.py
    write   (Markdown -> docs folder)     output.py
    build   (docs folder -> HTML, strict) output.py

Only ``build`` touches MkDocs. Bulk pages (one per session page) stay out of the
nav, which Material renders into every page; they are reached from index pages
and search, so the build grows with pages, not with pages squared.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ..accept import Accepted
from ..api import Halo
from ..errors import InvalidCall
from ..observed import Observed
from .collect import collect
from ..model import now_iso
from .fleet import SUMMARY_FILE, fleet, load_previous, summary_json
from .output import build, check_site_url, new_out, require_builder, write
from .pages import PAGE_SIZE, model
from .render import nav, render_site

__all__ = ["build_site", "Built", "parse_compare", "DEFAULT_TITLE", "DEFAULT_OUT"]

DEFAULT_TITLE = "HALO review"
DEFAULT_OUT = Path("halo-site")


@dataclass(frozen=True)
class Built:
    out: Path
    pages: int
    agents: int
    seconds: float

    def message(self) -> str:
        index = self.out / "index.html"
        return (
            f"Built the review site: {self.pages} pages for {self.agents} agent(s) in {self.seconds:.1f} s.\n"
            f"Open {index} in a browser (works from file://), or serve it with: python3 -m http.server -d {self.out}"
        )


def parse_compare(spec: str) -> tuple[str, str, str]:
    """``AGENT:BASE...HEAD`` -> (agent, base, head)."""
    agent, sep, revs = spec.partition(":")
    base, dots, head = revs.partition("...")
    if not (sep and dots and agent and base and head):
        raise InvalidCall(f"--compare {spec!r} is not AGENT:BASE...HEAD; e.g. --compare demo:main...prompt-v2")
    return agent, base, head


def build_site(
    root: str | os.PathLike[str] | None,
    out: str | os.PathLike[str] = DEFAULT_OUT,
    *,
    agents: Sequence[str] = (),
    branch: str | None = None,
    title: str = DEFAULT_TITLE,
    compare: Sequence[str] = (),
    page_size: int = PAGE_SIZE,
    src: str | os.PathLike[str] | None = None,
    previous: str | os.PathLike[str] | None = None,
    site_url: str | None = None,
    observed: Mapping[str, Observed] | None = None,
    accepted: Sequence[Accepted] = (),
) -> Built:
    """Build the review site of ``root`` into ``out``.

    Args:
        agents: only these agents (default: all with events on the branch).
        branch: the branch to read (default ``main``).
        compare: ``AGENT:BASE...HEAD`` pairs: one behaviour diff page each.
        page_size: events per trace page.
        src: keep the generated Markdown and ``mkdocs.yml`` here (default: a
            temporary folder, removed after the build).
        previous: the ``halo-summary.json`` of an earlier build to show the
            trend against (default: the one in ``out``, if any).
        site_url: the address the site is published at, for canonical links
            and the sitemap (e.g. ``https://org.github.io/repo/``).
        observed: observed evidence per agent (``observed.load``; key "" for
            the one agent shown), set beside its diagnosis.
        accepted: accepted findings (``accept.load_accepted``): listed apart
            on the diagnosis pages and left out of every count of open findings.

    Raises:
        InvalidCall: a bad ``--compare`` or an ``out`` folder that holds other files.
        NotFound: no events to show, or a compared branch or commit that does not exist.
        HaloError: the strict MkDocs build failed, or MkDocs (the ``site`` extra) is not installed.
    """
    started = time.perf_counter()
    require_builder()  # before anything is read or written
    out = Path(out)
    with new_out(out):
        if src is not None and Path(src).exists():
            raise InvalidCall(f"--src {src} exists; pass a new folder for the generated Markdown")
        pairs = [parse_compare(spec) for spec in compare]
        site_url = check_site_url(site_url) if site_url else None
        if previous is not None:
            before = load_previous(Path(previous))
            if before is None:
                raise InvalidCall(f"--previous {previous} is not the {SUMMARY_FILE} of a halo-git site build (missing or "
                                  "unreadable); pass that file from an earlier build, or leave --previous out")
        else:
            before = load_previous(out / SUMMARY_FILE)
        with Halo(root) as halo:
            halo.require_root()  # a mistyped root says so, as every reading command does
            collected = collect(halo, agents, branch, observed, accepted)
            names = {a.name for a in collected}
            for agent, _, _ in pairs:
                if agent not in names:
                    raise InvalidCall(f"--compare names agent '{agent}', which this site does not show; add --agent {agent} or fix the name")
            diffs = [halo.diff(agent, base, head) for agent, base, head in pairs]
            site = model(collected, title=title, branch=branch or halo.branch, page_size=page_size, diffs=diffs)
        agents_shown = len(site.agents)
        pages = render_site(site, before)
        summary = summary_json(fleet(site.agents), branch=site.branch, built=now_iso())
        items = nav(site)
        del collected, site, diffs  # the build needs only the Markdown
        if src is not None:
            Path(src).mkdir(parents=True)
            build(write(pages, items, Path(src), title=title, site_url=site_url), out, extra={SUMMARY_FILE: summary})
        else:
            with tempfile.TemporaryDirectory(prefix="halo-site-") as tmp:
                build(write(pages, items, Path(tmp), title=title, site_url=site_url, markdown=False), out, pages,
                      extra={SUMMARY_FILE: summary})
        return Built(out, len(pages), agents_shown, time.perf_counter() - started)
