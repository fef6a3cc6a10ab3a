"""Stage 2, model: the site as plain objects (paths, sessions, pages, links).

Everything a page links to is decided here, once: which trace page holds each
event, which events use it, where each agent's pages live. Rendering then only
formats. Paths are POSIX paths relative to the docs folder; they derive from
agent names (already restricted to safe characters) and from session slugs, never
from raw agent text.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass, field
from typing import Sequence

from ..diagnosis import Finding
from ..diff import BehaviourDiff
from ..model import Event
from .collect import AgentData

PAGE_SIZE = 200  # events per trace page: keeps pages light and the page count ~ events / 200
_SAFE_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._:-]{0,39}\Z")


@dataclass(frozen=True)
class TracePage:
    """One page of one session's events."""

    path: str
    number: int  # 1-based
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Session:
    label: str
    ordinal: int  # 1-based, in order of first event
    slug: str
    pages: tuple[TracePage, ...]

    @property
    def events(self) -> int:
        return sum(len(p.events) for p in self.pages)

    @property
    def first(self) -> Event:
        return self.pages[0].events[0]

    @property
    def last(self) -> Event:
        return self.pages[-1].events[-1]

    @property
    def name(self) -> str:
        return plain(self.label, f"session {self.ordinal}")


def plain(label: str, fallback: str) -> str:
    """``label`` when it is plain enough for titles and nav entries, else ``fallback``.

    Page titles and nav entries reach the theme's templates unescaped, so
    untrusted labels never go there; the escaped label is shown in the body.
    """
    return label if _SAFE_LABEL.match(label) else fallback


@dataclass(frozen=True)
class ComparePage:
    """The behaviour diff of one agent between two branches or commits."""

    path: str
    ordinal: int  # 1-based among the agent's compare pages
    diff: BehaviourDiff

    @property
    def name(self) -> str:
        return plain(f"{self.diff.base.label}...{self.diff.head.label}", f"compare {self.ordinal}")


@dataclass(frozen=True)
class AgentSite:
    """One agent's pages and the link tables between them."""

    data: AgentData
    sessions: tuple[Session, ...]
    location: dict[str, str]  # event id -> trace page path
    used_by: dict[str, tuple[str, ...]]  # event id -> ids of later events naming it
    kinds: dict[str, str] = field(repr=False)  # event id -> kind
    findings: dict[str, tuple[Finding, ...]] = field(repr=False)  # event id -> findings about it
    compares: tuple[ComparePage, ...] = ()

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def base(self) -> str:
        return f"agents/{self.name}"

    @property
    def overview(self) -> str:
        return f"{self.base}/index.md"

    @property
    def diagnosis(self) -> str:
        return f"{self.base}/diagnosis.md"

    @property
    def revisions(self) -> str:
        return f"{self.base}/revisions.md"

    @property
    def trace(self) -> str:
        return f"{self.base}/trace/index.md"

    def commit(self, event_id: str) -> str:
        return self.data.log.commit_of(event_id)

    def revise_events(self) -> list[Event]:
        return [e for e in self.data.log.events if e.kind == "revise"]


@dataclass(frozen=True)
class Site:
    title: str
    branch: str
    agents: tuple[AgentSite, ...]
    home: str = "index.md"
    agents_index: str = "agents/index.md"


def rel(source: str, target: str, anchor: str = "") -> str:
    """Link from page ``source`` to page ``target`` (both docs-relative)."""
    link = "" if source == target else posixpath.relpath(target, posixpath.dirname(source))
    return f"{link}#{anchor}" if anchor else link


def slugify(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:48].strip("-")


def _sessions(agent: str, events: Sequence[Event], page_size: int) -> tuple[Session, ...]:
    grouped: dict[str, list[Event]] = {}
    for e in events:
        grouped.setdefault(e.session, []).append(e)
    used: set[str] = set()
    out = []
    for ordinal, (label, evs) in enumerate(grouped.items(), 1):
        slug = slugify(label) or "session"
        if slug in used:  # two labels with the same slug: tell them apart stably
            slug = f"{slug}-{hashlib.sha1(label.encode()).hexdigest()[:8]}"
        used.add(slug)
        folder = f"agents/{agent}/trace/{slug}"
        pages = tuple(
            TracePage(f"{folder}/index.md" if i == 0 else f"{folder}/page-{i + 1}.md", i + 1, tuple(evs[start : start + page_size]))
            for i, start in enumerate(range(0, len(evs), page_size))
        )
        out.append(Session(label, ordinal, slug, pages))
    return tuple(out)


def _compares(agent: str, diffs: Sequence[BehaviourDiff]) -> tuple[ComparePage, ...]:
    used: set[str] = set()
    out = []
    for ordinal, d in enumerate(diffs, 1):
        slug = f"{slugify(d.base.label) or 'base'}...{slugify(d.head.label) or 'head'}"
        if slug in used:
            slug = f"{slug}-{ordinal}"
        used.add(slug)
        out.append(ComparePage(f"agents/{agent}/compare/{slug}.md", ordinal, d))
    return tuple(out)


def agent_site(data: AgentData, page_size: int = PAGE_SIZE, diffs: Sequence[BehaviourDiff] = ()) -> AgentSite:
    sessions = _sessions(data.name, data.log.events, page_size)
    location = {e.id: page.path for s in sessions for page in s.pages for e in page.events}
    used_by: dict[str, list[str]] = {}
    for e in data.log.events:
        for src in e.sources():
            used_by.setdefault(src, []).append(e.id)
    kinds = {e.id: e.kind for e in data.log.events}
    findings: dict[str, list[Finding]] = {}
    for f in data.diagnosis.findings:  # a finding is about its first id
        if f.ids:  # an observed session that matches no logged session has no event to sit by
            findings.setdefault(f.ids[0], []).append(f)
    return AgentSite(
        data,
        sessions,
        location,
        {k: tuple(v) for k, v in used_by.items()},
        kinds,
        {k: tuple(v) for k, v in findings.items()},
        _compares(data.name, diffs),
    )


def model(
    collected: Sequence[AgentData],
    *,
    title: str,
    branch: str,
    page_size: int = PAGE_SIZE,
    diffs: Sequence[BehaviourDiff] = (),
) -> Site:
    """The whole site from the collected agents and the requested diffs."""
    return Site(
        title,
        branch,
        tuple(agent_site(a, page_size, [d for d in diffs if d.agent == a.name]) for a in collected),
    )
