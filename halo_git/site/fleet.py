"""The fleet's figures: one row per agent, the trend since the previous build.

Part of the model stage (pure: page objects in, plain data out), called by
``render`` for the home page and the agents index, and by ``build_site``, which
writes the figures beside the built site as ``halo-summary.json`` so that the
next build (or one given ``--previous FILE``, e.g. downloaded from the
published site in CI) can show what changed.

The previous summary is read as untrusted input: anything that is not the
expected shape is ignored, never shown raw.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ..diagnosis import SEVERITIES, severity_counts
from .pages import AgentSite

SUMMARY_FILE = "halo-summary.json"
_VERSION = 1
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\Z")


@dataclass(frozen=True)
class Figures:
    """What the home page and the agents index show for one agent."""

    name: str
    events: int
    sessions: int
    last: str  # time of the newest event, UTC ISO 8601
    findings: dict[str, int]  # open findings per severity, every severity present
    ungoverned: int  # revisions made by the agent with governance none
    head: str

    @property
    def attention(self) -> tuple[int, ...]:
        """Sort key, most urgent first when sorted descending."""
        return (*(self.findings[s] for s in SEVERITIES[:3]), self.ungoverned)


@dataclass(frozen=True)
class Previous:
    """The figures of an earlier build, by agent name."""

    built: str | None
    branch: str | None
    agents: dict[str, Figures]


def figures(agent: AgentSite) -> Figures:
    d, log = agent.data.diagnosis, agent.data.log
    return Figures(
        name=agent.name,
        events=len(log.events),
        sessions=len(agent.sessions),
        last=log.events[-1].time,
        findings=severity_counts(agent.data.open_findings),
        ungoverned=len(d.mechanism.ungoverned),
        head=log.head or "",
    )


def fleet(agents: Sequence[AgentSite]) -> list[Figures]:
    return [figures(a) for a in agents]


def totals(rows: Sequence[Figures]) -> dict[str, int]:
    out = {"agents": len(rows), "events": 0, "sessions": 0, "ungoverned": 0, **{s: 0 for s in SEVERITIES}}
    for r in rows:
        out["events"] += r.events
        out["sessions"] += r.sessions
        out["ungoverned"] += r.ungoverned
        for s in SEVERITIES:
            out[s] += r.findings[s]
    return out


def summary_json(rows: Sequence[Figures], *, branch: str, built: str) -> str:
    """The summary a later build compares against (deterministic for the same input)."""
    data = {"version": _VERSION, "built": built, "branch": branch, "agents": [asdict(r) for r in rows]}
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def load_previous(path: Path) -> Previous | None:
    """The summary at ``path``, or None when it is missing or not one of ours."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != _VERSION or not isinstance(data.get("agents"), list):
        return None
    agents: dict[str, Figures] = {}
    for item in data["agents"]:
        row = _figures_from(item)
        if row is not None:
            agents[row.name] = row
    built = data.get("built")
    branch = data.get("branch")
    return Previous(
        built if isinstance(built, str) and _ISO.match(built) else None,
        branch if isinstance(branch, str) else None,
        agents,
    )


def _figures_from(item: object) -> Figures | None:
    if not isinstance(item, dict):
        return None
    name, findings = item.get("name"), item.get("findings")
    counts = [item.get(k) for k in ("events", "sessions", "ungoverned")]
    if not isinstance(name, str) or not isinstance(findings, dict) or not all(_count(c) for c in counts):
        return None
    if not all(_count(findings.get(s)) for s in SEVERITIES):
        return None
    last, head = item.get("last"), item.get("head")
    return Figures(
        name,
        counts[0],
        counts[1],
        last if isinstance(last, str) and _ISO.match(last) else "",
        {s: findings[s] for s in SEVERITIES},
        counts[2],
        head if isinstance(head, str) and re.fullmatch(r"[0-9a-f]{40}", head) else "",
    )


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def delta(now: int, before: int | None) -> str:
    """``+3``, ``−2`` or empty (no change, or nothing to compare with)."""
    if before is None or now == before:
        return ""
    return f"+{now - before}" if now > before else f"−{before - now}"


def changes(row: Figures, before: Figures | None) -> list[str]:
    """What changed for one agent since the previous build, as short phrases."""
    if before is None:
        return ["new"]
    out = []
    if row.events != before.events:
        out.append(f"{delta(row.events, before.events)} events")
    for s in SEVERITIES[:3]:
        if row.findings[s] != before.findings[s]:
            out.append(f"{delta(row.findings[s], before.findings[s])} {s}")
    if row.ungoverned != before.ungoverned:
        out.append(f"{delta(row.ungoverned, before.ungoverned)} ungoverned")
    return out


def gone(rows: Sequence[Figures], previous: Previous | None) -> list[str]:
    """Agents of the previous build that this one does not show."""
    if previous is None:
        return []
    names = {r.name for r in rows}
    return sorted(n for n in previous.agents if n not in names)


def previous_totals(previous: Previous | None) -> Mapping[str, int] | None:
    return None if previous is None else totals(list(previous.agents.values()))
