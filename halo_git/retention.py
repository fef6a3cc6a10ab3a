"""Retention policy: which events' text is old enough to erase (``halo-retention.yaml``).

Room: pure, beside ``accept`` (text in, data out; ``load_policy`` only reads
the file). ``Halo.retention`` applies it to a branch's events and ``halo-git
redact --policy FILE`` lists the plan (a dry run) or, with ``--apply``, hands
the ids to the erasure (``store.erasure``), the same mechanism as a redaction
by hand. The file::

    reason: retention policy of 2026 (90 days for user sessions)   # optional
    rules:
      - kind: observe            # optional: one kind or a list of kinds
        session: "user-*"        # optional: a session label pattern (* and ?)
        after: 90d               # required: age after which the text goes (d, w, h)
      - kind: [remember, recall]
        after: 52w

An event is selected when any rule matches its kind and session and it is
older than the rule's age, measured from ``now`` to the event's time. Events
already holding a tombstone are skipped. Every problem in the file is
collected and reported once.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Sequence

import yaml

from .errors import InvalidCall
from .model import KINDS, Event

DEFAULT_FILE = "halo-retention.yaml"
TOMBSTONE_START = "[redacted "
_AGE = re.compile(r"([1-9][0-9]{0,5})([dwh])\Z")
_UNITS = {"d": "days", "w": "weeks", "h": "hours"}


@dataclass(frozen=True)
class Rule:
    kinds: tuple[str, ...]  # empty: every kind
    session: str | None
    after: timedelta
    text: str  # as written, for the plan

    def matches(self, event: Event, now: datetime) -> bool:
        if self.kinds and event.kind not in self.kinds:
            return False
        if self.session is not None and not fnmatch.fnmatchcase(event.session, self.session):
            return False
        return now - _when(event.time) >= self.after


@dataclass(frozen=True)
class Policy:
    rules: tuple[Rule, ...]
    reason: str
    source: str


@dataclass(frozen=True)
class Plan:
    """The events a policy selects on one branch, with the rule that selected each."""

    agent: str
    branch: str
    policy: Policy
    selected: tuple[tuple[str, str, str], ...]  # (event id, kind, rule text)

    @property
    def events(self) -> list[str]:
        return [i for i, _k, _r in self.selected]

    @property
    def reason(self) -> str:
        return self.policy.reason

    def lines(self) -> list[str]:
        where = f"branch '{self.branch}' of agent '{self.agent}'"
        if not self.selected:
            return [f"retention ({self.policy.source}): nothing on {where} is due"]
        out = [f"retention ({self.policy.source}): {len(self.selected)} event(s) of {where} are due:"]
        by_rule: dict[str, list[str]] = {}
        for i, _kind, rule in self.selected:
            by_rule.setdefault(rule, []).append(i)
        for rule, ids in by_rule.items():
            shown = ", ".join(ids[:20]) + (f", … ({len(ids)} in all)" if len(ids) > 20 else "")
            out.append(f"  {rule}: {shown}")
        return out


def _when(iso: str) -> datetime:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def parse_policy(text: str, source: str = DEFAULT_FILE) -> Policy:
    """A policy from YAML text; every problem is reported at once (``InvalidCall``)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InvalidCall(f"{source} is not valid YAML ({str(e).splitlines()[0]}); see docs/security.md, 'Retention'") from None
    problems: list[str] = []
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list) or not data["rules"]:
        raise InvalidCall(f"{source} must be a mapping with a non-empty 'rules' list (each rule: kind, session, after); "
                          "see docs/security.md, 'Retention'")
    unknown = sorted(set(data) - {"rules", "reason"})
    if unknown:
        problems.append(f"unknown key(s) {', '.join(unknown)} (keys: rules, reason)")
    reason = data.get("reason", f"retention policy {os.path.basename(source)}")
    if not isinstance(reason, str) or not reason.strip():
        problems.append("'reason' must be a non-empty text")
        reason = "retention policy"
    rules = []
    for n, item in enumerate(data["rules"], 1):
        where = f"rule {n}"
        if not isinstance(item, dict):
            problems.append(f"{where} is not a mapping (kind, session, after)")
            continue
        extra = sorted(set(item) - {"kind", "session", "after"})
        if extra:
            problems.append(f"{where} has unknown key(s) {', '.join(map(str, extra))} (keys: kind, session, after)")
        kinds = item.get("kind", [])
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not isinstance(kinds, list) or any(k not in KINDS for k in kinds):
            problems.append(f"{where}: kind must be one or a list of {', '.join(KINDS)}")
            kinds = []
        session = item.get("session")
        if session is not None and (not isinstance(session, str) or not session):
            problems.append(f"{where}: session must be a label pattern such as 'user-*'")
            session = None
        after = item.get("after")
        m = _AGE.match(after) if isinstance(after, str) else None
        if m is None:
            problems.append(f"{where}: after must be an age such as 90d, 12w or 48h (got {after!r})")
            continue
        delta = timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
        text = " ".join(p for p in (f"kind {'/'.join(kinds)}" if kinds else "every kind",
                                    f"session {session}" if session else "", f"older than {after}") if p)
        rules.append(Rule(tuple(kinds), session, delta, text))
    if problems:
        raise InvalidCall(f"{source} has {len(problems)} problem(s): " + "; ".join(problems) + "; nothing was redacted")
    return Policy(tuple(rules), reason.strip(), source)


def load_policy(path: str | os.PathLike[str]) -> Policy:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidCall(f"cannot read the retention policy {os.fspath(path)!r} ({getattr(e, 'strerror', None) or e}); "
                          f"pass --policy with a YAML file such as {DEFAULT_FILE}") from None
    return parse_policy(text, os.fspath(path))


def plan(policy: Policy, events: Sequence[Event], now: str, agent: str, branch: str) -> Plan:
    """The events ``policy`` selects at time ``now`` (UTC ISO 8601)."""
    at = _when(now)
    selected = []
    for e in events:
        if e.summary.startswith(TOMBSTONE_START):
            continue
        for rule in policy.rules:
            if rule.matches(e, at):
                selected.append((e.id, e.kind, rule.text))
                break
    return Plan(agent, branch, policy, tuple(selected))
