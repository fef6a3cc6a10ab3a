"""Markdown rendering of a Diagnosis (initial)."""

from __future__ import annotations

from .diagnosis import Diagnosis
from .model import LETTERS


def render_report(d: Diagnosis) -> str:
    lines = [f"# HALO report: {d.agent}", "", "## Boundary and evidence", ""]
    lines.append(f"- Branch `{d.branch}`, head commit `{(d.head or 'none')[:12]}`; {len(d.events)} events.")
    lines += ["", "| kind | events |", "|---|---:|"]
    lines += [f"| {k} | {n} |" for k, n in d.by_kind.items()]
    lines += ["", "## Channels", "", "| from \\ to | " + " | ".join(LETTERS) + " |", "|---|" + "---:|" * 4]
    for x in LETTERS:
        lines.append(f"| {x} | " + " | ".join(str(d.channels.get((x, y), 0)) for y in LETTERS) + " |")
    return "\n".join(lines) + "\n"
