"""The Summary: findings counted, filtered and grouped into the few issues a reviewer reads first.

Room: diagnosis, its top floor: pure functions over ``Finding`` lists. Called by
``Diagnosis.issues`` and, through the package's re-exports, by the report, the review site
(home and fleet pages) and the tests.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from .rules import RULE_WEIGHT, SEVERITIES, SEVERITY_RANK
from .shared import _num

if TYPE_CHECKING:  # pragma: no cover
    from .result import Finding

_MAX_ISSUES = 7


@dataclass(frozen=True)
class Issue:
    """One entry of the Summary: a group of findings of one rule, with related findings on its chain."""

    rule: str
    severity: str
    findings: tuple[Finding, ...]
    related: tuple[Finding, ...] = ()  # findings of other rules about events on the first finding's chain

    @property
    def first(self) -> Finding:
        return self.findings[0]


def severity_counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per severity, every severity present, high first."""
    counts = Counter(f.severity for f in findings)
    return {s: counts.get(s, 0) for s in SEVERITIES}


def at_or_above(findings: Iterable[Finding], threshold: str) -> list[Finding]:
    """The findings whose severity is ``threshold`` or worse (``high`` is the worst)."""
    limit = SEVERITY_RANK[threshold]
    return [f for f in findings if SEVERITY_RANK[f.severity] <= limit]


def group_findings(findings: Iterable[Finding]) -> list[tuple[str, str, list[Finding]]]:
    """(rule, severity, findings) groups in the findings' own order (severity, rule, first id)."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.rule, f.severity), []).append(f)
    return [(r, s, fs) for (r, s), fs in groups.items()]


def issues(findings: Sequence[Finding], limit: int = _MAX_ISSUES) -> list[Issue]:
    """The Summary: up to ``limit`` groups, most important first.

    Findings are grouped by rule (a group's severity is its worst finding's,
    and its worst finding comes first); groups are ranked by severity,
    then by the rule's importance (``RULE_WEIGHT``), then by size. A group whose
    first finding is about an event on the chain of a higher-ranked group's
    first finding is folded into that group as related (one causal chain, one
    issue). Info groups are shown only while fewer than three issues exist.
    """
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    groups = []
    for rule, fs in by_rule.items():
        fs = sorted(fs, key=lambda f: (SEVERITY_RANK[f.severity], _first(f)))
        groups.append((rule, fs[0].severity, fs))
    groups.sort(key=lambda g: (SEVERITY_RANK[g[1]], RULE_WEIGHT.get(g[0], 99), -len(g[2]), _first(g[2][0])))
    out: list[tuple[str, str, list[Finding], list[Finding]]] = []
    for rule, severity, fs in groups:
        if severity == "info" and len(out) >= 3:
            break
        subject = fs[0].ids[0] if fs[0].ids else None
        host = next((o for o in out if subject in o[2][0].ids and o[0] != rule), None) if len(fs) == 1 and subject else None
        if host is not None:
            host[3].append(fs[0])
            continue
        if len(out) < limit:
            out.append((rule, severity, fs, []))
    return [Issue(r, s, tuple(fs), tuple(rel)) for r, s, fs, rel in out]


def _first(f: Finding) -> int:
    """The number of the event a finding is about (0 for a finding about no logged event)."""
    return _num(f.ids[0]) if f.ids else 0
