"""Accepted findings: a team's record of findings it decided to live with.

A by-design finding (the agent books taxis on its own because the user asked
it to, once) would otherwise fail CI forever. The team lists it in a YAML file,
``halo-accept.yaml`` by default, with why and who decided::

    accepted:
      - rule: HALO-A1
        summary: booked a taxi for 9:05 without being asked
        reason: the user asked for taxis to be booked on dentist days
        by: Jane Doe
        agent: demo          # optional: only this agent
        kind: act            # optional: the event's kind
        fields:              # optional: the kind's own fields must match too
          trigger: self

An entry names a finding by its **rule and the content of the event it is
about** (its summary, and optionally kind and fields), never by the event id:
ids differ between branches and between runs of the same agent, content does
not. One entry accepts every finding it matches; an entry that matches nothing
is *stale* (the event is gone, or its summary changed) and is reported so the
file does not rot.

This is the one place that splits findings into open and accepted:
``halo-git check``, the report and the review site all call ``apply_accepted``.
Pure: text in, data out; ``load_accepted`` only reads the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import yaml

from .diagnosis import RULES, Finding
from .errors import InvalidCall
from .model import Event

DEFAULT_FILE = "halo-accept.yaml"
KEYS = ("rule", "summary", "reason", "by", "agent", "kind", "fields")
REQUIRED = ("rule", "summary", "reason", "by")


@dataclass(frozen=True)
class Accepted:
    """One entry of the accept file. ``line``: where it starts in ``source`` (1-based)."""

    rule: str
    summary: str
    reason: str
    by: str
    agent: str | None = None
    kind: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    source: str = DEFAULT_FILE
    line: int = 0

    def applies_to(self, agent: str | None) -> bool:
        return self.agent is None or agent is None or self.agent == agent

    def matches(self, finding: Finding, subject: Event | None) -> bool:
        """Same rule, and the event the finding is about has this content."""
        if finding.rule != self.rule or subject is None:
            return False
        if subject.summary != self.summary or (self.kind is not None and subject.kind != self.kind):
            return False
        return all(subject.fields.get(k) == v for k, v in self.fields.items())

    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source

    def describe(self) -> str:
        """One line for a person: which finding the entry names."""
        agent = f" of agent {self.agent}" if self.agent else ""
        return f"{self.rule} about “{_short(self.summary)}”{agent} (accepted by {self.by}: {self.reason})"


def parse_accepted(text: str, source: str = DEFAULT_FILE) -> list[Accepted]:
    """Parse an accept file's text; every mistake is refused with where and how to fix it."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InvalidCall(f"{source} is not valid YAML ({_one_line(e)}); fix the file or pass another with --accept") from None
    if data is None:
        return []
    if not isinstance(data, dict) or set(data) - {"accepted"}:
        raise InvalidCall(f"{source} must be a mapping with one key, 'accepted', holding a list of entries (see docs/ci.md)")
    items = data.get("accepted") or []
    if not isinstance(items, list):
        raise InvalidCall(f"{source}: 'accepted' must be a list of entries, each with {', '.join(REQUIRED)}")
    lines = _item_lines(node)
    out = []
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else 0
        where = f"{source}:{line}" if line else f"{source} entry {i + 1}"
        out.append(_entry(item, where, source, line))
    return out


def load_accepted(path: str | os.PathLike[str]) -> list[Accepted]:
    """Read and parse an accept file (``InvalidCall`` when it is missing or wrong)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidCall(f"no accept file {p}: create it (see docs/ci.md) or leave out --accept") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidCall(f"cannot read the accept file {p}: {_one_line(e)}") from None
    return parse_accepted(text, str(path))


def apply_accepted(
    findings: Sequence[Finding],
    events: Iterable[Event] | Mapping[str, Event],
    entries: Sequence[Accepted],
    *,
    agent: str | None = None,
) -> tuple[list[Finding], list[tuple[Finding, Accepted]], list[Accepted]]:
    """Split findings into (open, accepted with the entry that accepts each, stale entries).

    ``events`` holds (at least) the events the findings are about, by id or as
    a sequence. Entries for another ``agent`` are ignored (neither applied nor
    stale). Order is kept: findings in their order, entries in file order.
    """
    by_id = events if isinstance(events, Mapping) else {e.id: e for e in events}
    mine = [e for e in entries if e.applies_to(agent)]
    used: set[int] = set()
    open_: list[Finding] = []
    accepted: list[tuple[Finding, Accepted]] = []
    for f in findings:
        subject = by_id.get(f.ids[0]) if f.ids else None
        for n, entry in enumerate(mine):
            if entry.matches(f, subject):
                accepted.append((f, entry))
                used.add(n)
                break
        else:
            open_.append(f)
    stale = [e for n, e in enumerate(mine) if n not in used]
    return open_, accepted, stale


def for_report(accepted: Sequence[tuple[Finding, Accepted]]) -> list[tuple[Finding, str]]:
    """Accepted findings as ``render_report(..., accepted=...)`` takes them: the reason and who."""
    return [(f, f"{e.reason} (accepted by {e.by})") for f, e in accepted]


def accepted_for(diagnosis, entries: Sequence[Accepted]) -> list[tuple[Finding, str]]:
    """The accepted findings of a ``Diagnosis`` with their reasons, as the report and the
    site list them apart: ``render_report(d, accepted=accepted_for(d, entries))``."""
    _, accepted, _ = apply_accepted(diagnosis.findings, diagnosis.evidence, entries, agent=diagnosis.agent)
    return for_report(accepted)


def _entry(item: object, where: str, source: str, line: int) -> Accepted:
    if not isinstance(item, dict):
        raise InvalidCall(f"{where}: each entry is a mapping with {', '.join(REQUIRED)}")
    unknown = sorted(str(k) for k in item if k not in KEYS)
    if unknown:
        raise InvalidCall(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(KEYS)}")
    missing = [k for k in REQUIRED if k not in item]
    if missing:
        raise InvalidCall(
            f"{where}: missing {', '.join(missing)}; an entry names the rule and the summary of the event "
            "the finding is about, and says why and by whom it was accepted"
        )
    values = {}
    for k in ("rule", "summary", "reason", "by", "agent", "kind"):
        v = item.get(k)
        if v is None and k not in REQUIRED:
            continue
        if not isinstance(v, str) or not v.strip():
            raise InvalidCall(f"{where}: '{k}' must be non-empty text (quote it if YAML reads it as something else)")
        values[k] = v
    if values["rule"] not in RULES:
        raise InvalidCall(f"{where}: unknown rule {values['rule']!r}; the rules are {', '.join(RULES)}")
    fields = item.get("fields") or {}
    if not isinstance(fields, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in fields.items()):
        raise InvalidCall(f"{where}: 'fields' must map field names to text, e.g. {{trigger: self}}")
    return Accepted(**values, fields=dict(fields), source=source, line=line)


def _item_lines(node) -> list[int]:
    """1-based start lines of the entries under 'accepted' (for messages and annotations)."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "accepted" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())
