"""The CI gate as plain data: which findings of a branch fail a check, and why.

``halo-git check`` asks one question of an agent's branch: is there a finding
at or above ``--fail-on`` that nobody accepted? With a baseline (the branch a
pull request targets, or a commit) the question narrows to findings that are
**new** relative to it, matched by rule and event content exactly as the
behaviour diff matches them (``halo_git.diff``), so a pull request fails on
what it changed, not on every old finding. Findings the baseline had and the
branch no longer has are listed as resolved.

``evaluate`` turns a diagnosis (and optionally the behaviour diff and the
accepted entries) into a ``Gate``; the formatters in ``halo_git.formats`` turn
a ``Gate`` into text, annotations, SARIF, JUnit XML, JSON or Markdown.
Pure: no Git, no CLI. Called by ``Halo.check``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Mapping, Sequence

from .accept import Accepted, apply_accepted
from .diagnosis import SEVERITY_RANK, Diagnosis, Finding
from .diff import BehaviourDiff, event_content
from .model import Event

# Item.status values
OPEN = "open"  # no baseline: every finding not accepted is open
NEW = "new"  # on the branch, not on the baseline
UNCHANGED = "unchanged"  # on both
ACCEPTED = "accepted"  # listed in the accept file
RESOLVED = "resolved"  # on the baseline, not on the branch


@dataclass(frozen=True)
class Item:
    """One finding as the gate sees it."""

    finding: Finding
    status: str  # OPEN, NEW, UNCHANGED, ACCEPTED or RESOLVED
    failing: bool  # counts against the check
    subject: Event | None  # the event the finding is about (its first id), on its side
    accepted: Accepted | None = None

    @property
    def fingerprint(self) -> str:
        """Stable across branches and runs: rule plus the subject's content (never its id)."""
        return fingerprint(self.finding, self.subject)


@dataclass(frozen=True)
class Gate:
    agent: str
    branch: str
    head: str | None
    scope: str  # "whole trace" or "session …"
    fail_on: str
    items: tuple[Item, ...]  # the branch's findings, in the diagnosis' order
    resolved: tuple[Item, ...] = ()  # the baseline's findings the branch no longer has
    stale: tuple[Accepted, ...] = ()  # accept entries that match no finding
    baseline: str | None = None  # the baseline as given (branch or commit)
    baseline_head: str | None = None
    accept_file: str | None = None

    @property
    def failing(self) -> tuple[Item, ...]:
        return tuple(i for i in self.items if i.failing)

    @property
    def failed(self) -> bool:
        return any(i.failing for i in self.items)

    def count(self, status: str) -> int:
        return sum(1 for i in self.items if i.status == status)


def evaluate(
    diagnosis: Diagnosis,
    *,
    fail_on: str,
    diff: BehaviourDiff | None = None,
    accepted: Sequence[Accepted] = (),
    accept_file: str | None = None,
) -> Gate:
    """The gate over ``diagnosis`` (the branch under check).

    With ``diff`` (baseline → branch, whose HEAD side is ``diagnosis``' branch),
    only findings in ``diff.new`` or ``diff.only_head`` (sessions only the branch ran)
    can fail; ``diff.resolved`` is listed.
    """
    limit = SEVERITY_RANK[fail_on]
    by_id: Mapping[str, Event] = diagnosis.evidence
    open_, taken, stale = apply_accepted(diagnosis.findings, by_id, accepted, agent=diagnosis.agent)
    accepted_by = {id(f): e for f, e in taken}
    # new to the branch: new in sessions both ran, and every finding of a session only the branch ran
    new = {id(f) for f in (*diff.new, *diff.only_head)} if diff is not None else None
    items = []
    for f in diagnosis.findings:
        subject = by_id.get(f.ids[0]) if f.ids else None
        entry = accepted_by.get(id(f))
        if entry is not None:
            status = ACCEPTED
        elif new is None:
            status = OPEN
        else:
            status = NEW if id(f) in new else UNCHANGED
        failing = status in (OPEN, NEW) and SEVERITY_RANK[f.severity] <= limit
        items.append(Item(f, status, failing, subject, entry))
    resolved: tuple[Item, ...] = ()
    if diff is not None:
        base_ids = {e.id: e for e in diff.base.events}
        resolved = tuple(Item(f, RESOLVED, False, base_ids.get(f.ids[0]) if f.ids else None) for f in diff.resolved)
    return Gate(
        agent=diagnosis.agent,
        branch=diagnosis.branch,
        head=diagnosis.head,
        scope=diagnosis.scope,
        fail_on=fail_on,
        items=tuple(items),
        resolved=resolved,
        stale=() if diagnosis.session else tuple(stale),  # an entry about another session is not stale
        baseline=diff.base.label if diff is not None else None,
        baseline_head=diff.base.head if diff is not None else None,
        accept_file=accept_file,
    )


def fingerprint(f: Finding, subject: Event | None) -> str:
    content = event_content(subject) if subject is not None else ()
    raw = json.dumps([f.rule, list(_plain(content))], ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
