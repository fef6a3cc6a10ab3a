"""GitHub Actions workflow commands: one annotation line per failing finding.

``::error``/``::warning``/``::notice`` by severity, so a pull request shows the
findings where people look. With a baseline, resolved findings become notices;
a stale accept entry is a warning pointing at its line of the accept file.
"""

from __future__ import annotations

from typing import Callable

from ..diagnosis import RULES, Finding
from ..gate import Gate
from .finding import described

LEVEL = {"high": "error", "medium": "warning", "low": "notice", "info": "notice"}
MAX_IDS = 20  # ids named per annotation; a session finding can list thousands of acts


def _data(text: str) -> str:
    """Escape a workflow command's message (GitHub's rules: %, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    """Escape a workflow command's property value (also ':' and ',')."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def cite(ids) -> str:
    ids = list(ids)
    return ", ".join(ids[:MAX_IDS]) + (f" and {len(ids) - MAX_IDS} more" if len(ids) > MAX_IDS else "")


def annotation(f: Finding, level: str | None = None, prefix: str = "") -> str:
    """One finding as one workflow command line: its events, the first event's summary quoted,
    what happened, why it matters and the next step (the same context as the report)."""
    title = _prop(f"{prefix}{f.rule} {RULES[f.rule].name} ({f.severity})")
    return f"::{level or LEVEL[f.severity]} title={title}::{_data(cite(f.ids) + described(f))}"


def render_annotations(gate: Gate, path_of: Callable[[str], str] | None = None) -> str:
    lines = [annotation(i.finding) for i in gate.failing]
    where = f" on baseline {gate.baseline}" if gate.baseline else ""
    for i in gate.resolved:
        lines.append(annotation(i.finding, "notice", prefix=f"Resolved{where}: "))
    for e in gate.stale:
        loc = f"file={_prop(e.source)},line={e.line}," if e.line else f"file={_prop(e.source)},"
        lines.append(f"::warning {loc}title=Stale accepted finding::{_data(f'{e.describe()} matches no finding of agent {gate.agent} any more; remove the entry or update its summary')}")
    return "".join(line + "\n" for line in lines)
