"""Diagnosis of an event trace (initial: boundary, counts by kind, channels)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from .model import KINDS, LETTERS, Event


@dataclass
class Diagnosis:
    agent: str
    branch: str
    head: str | None
    session: str
    events: list[Event]
    by_kind: dict[str, int] = field(default_factory=dict)
    channels: dict[tuple[str, str], int] = field(default_factory=dict)


def diagnose(events: Sequence[Event], *, agent: str, branch: str, head: str | None, session: str = "") -> Diagnosis:
    scoped = [e for e in events if not session or e.session == session]
    by_kind = Counter(e.kind for e in scoped)
    channels: Counter[tuple[str, str]] = Counter()
    for e in scoped:
        for ch in e.channels:
            x, y = ch.split("→")
            channels[(x, y)] += 1
    return Diagnosis(agent, branch, head, session, scoped, {k: by_kind.get(k, 0) for k in KINDS}, dict(channels))
