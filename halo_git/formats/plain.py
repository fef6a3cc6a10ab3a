"""The gate for people and scripts: ``text`` (a terminal), ``md`` (a job
summary or a pull-request comment) and ``json``."""

from __future__ import annotations

import json
from typing import Callable

from ..diagnosis import RULES, SEVERITIES
from ..gate import ACCEPTED, NEW, OPEN, RESOLVED, UNCHANGED, Gate, Item
from ..markdown import escape_md, shorten
from .github import cite

MAX_MD_ITEMS = 30  # findings listed per Markdown section; the rest are counted
SUMMARY_CHARS = 120


def verdict(gate: Gate) -> str:
    """One line: passed or failed, and on what."""
    n = len(gate.failing)
    what = "new finding(s)" if gate.baseline else "finding(s)"
    result = "FAILED" if n else "passed"
    base = f" relative to baseline {gate.baseline}" if gate.baseline else ""
    return f"{result}: {n} {what} at or above {gate.fail_on}{base} that nobody accepted"


def counts(gate: Gate) -> dict[str, int]:
    out = {"findings": len(gate.items), "failing": len(gate.failing)}
    if gate.baseline:
        out |= {"new": gate.count(NEW), "unchanged": gate.count(UNCHANGED), "resolved": len(gate.resolved)}
    out |= {"accepted": gate.count(ACCEPTED), "stale_accepted": len(gate.stale)}
    return out


def _head(gate: Gate) -> str:
    head = (gate.head or "no commit")[:12]
    base = f"; baseline {gate.baseline} at {(gate.baseline_head or 'no commit')[:12]}" if gate.baseline else ""
    return f"agent {gate.agent}, {gate.scope}, branch {gate.branch} at {head}{base}; fails on {gate.fail_on} and above"


def _why_not(gate: Gate, item: Item) -> str:
    if item.status == ACCEPTED:
        return "accepted"
    if item.status == UNCHANGED:
        return f"also on {gate.baseline}"
    return f"below {gate.fail_on}"


# -- text ------------------------------------------------------------------------------


def render_text(gate: Gate, path_of: Callable[[str], str]) -> str:
    out = [f"HALO check of {_head(gate)}"]
    for item in gate.items:
        f = item.finding
        tag = "FAIL" if item.failing else "ok  "
        state = item.status if item.failing else _why_not(gate, item)
        label = f"{f.severity}, {state}" if state != OPEN else f.severity
        quoted = f" “{f.quote}”" if f.quote else ""
        out.append(f"{tag} {f.rule} {RULES[f.rule].name} ({label}) {cite(f.ids)}{quoted}: {f.message}")
        if item.failing:
            if f.why:
                out.append(f"     why it matters: {f.why}")
            out.append(f"     next step: {f.next_step or f.remedy}")
            if f.ids:
                out.append(f"     file: {path_of(f.ids[0])}")
        if item.accepted:
            out.append(f"     accepted by {item.accepted.by}: {item.accepted.reason} ({item.accepted.where()})")
    for item in gate.resolved:
        f = item.finding
        out.append(f"resolved {f.rule} {RULES[f.rule].name} ({f.severity}) on {gate.baseline} {cite(f.ids)}: {f.message}")
    for e in gate.stale:
        out.append(f"stale accept entry {e.where()}: {e.describe()} matches no finding")
    if not gate.items and not gate.resolved:
        out.append("no findings")
    out.append(verdict(gate))
    return "\n".join(out) + "\n"


# -- JSON ------------------------------------------------------------------------------


def _item(item: Item, path_of: Callable[[str], str]) -> dict:
    f = item.finding
    d = {
        "rule": f.rule,
        "name": RULES[f.rule].name,
        "severity": f.severity,
        "status": item.status,
        "failing": item.failing,
        "ids": list(f.ids),
        "path": path_of(f.ids[0]) if f.ids else None,
        "message": f.message,
        "remedy": f.remedy,
        "fingerprint": item.fingerprint,
    }
    if item.accepted:
        d["accepted"] = {"reason": item.accepted.reason, "by": item.accepted.by, "entry": item.accepted.where()}
    return d


def gate_to_dict(gate: Gate, path_of: Callable[[str], str]) -> dict:
    return {
        "agent": gate.agent,
        "branch": gate.branch,
        "head": gate.head,
        "scope": gate.scope,
        "fail_on": gate.fail_on,
        "baseline": {"rev": gate.baseline, "head": gate.baseline_head} if gate.baseline else None,
        "accept_file": gate.accept_file,
        "failed": gate.failed,
        "counts": counts(gate),
        "findings": [_item(i, path_of) for i in gate.items],
        "resolved": [_item(i, path_of) for i in gate.resolved],
        "stale_accepted": [
            {"rule": e.rule, "summary": e.summary, "agent": e.agent, "reason": e.reason, "by": e.by, "entry": e.where()}
            for e in gate.stale
        ],
    }


def render_json(gate: Gate, path_of: Callable[[str], str]) -> str:
    return json.dumps(gate_to_dict(gate, path_of), ensure_ascii=False, indent=2) + "\n"


# -- Markdown ----------------------------------------------------------------------------


def _md_finding(gate: Gate, item: Item, side: str = "") -> str:
    f = item.finding
    ids = escape_md(cite(f.ids))
    quoted = f" “{escape_md(f.quote)}”" if f.quote else ""
    line = f"- **{f.rule}** {RULES[f.rule].name} ({f.severity}){side}, {ids}{quoted}: {escape_md(shorten(f.message, 400))}"
    if item.failing:
        if f.why:
            line += f" *Why it matters:* {escape_md(f.why)}"
        line += f" *Next step:* {escape_md(f.next_step or f.remedy)}"
    if item.accepted:
        line += f" *Accepted by* {escape_md(item.accepted.by)}: {escape_md(item.accepted.reason)}"
    return line


def _md_list(gate: Gate, items, side: str = "") -> list[str]:
    lines = [_md_finding(gate, i, side) for i in list(items)[:MAX_MD_ITEMS]]
    if len(items) > MAX_MD_ITEMS:
        lines.append(f"- … and {len(items) - MAX_MD_ITEMS} more (see `halo-git check --format text`)")
    return lines


def render_markdown(gate: Gate) -> str:
    """The gate as Markdown for ``$GITHUB_STEP_SUMMARY`` or a PR comment; agent text escaped."""
    mark = "❌ failed" if gate.failed else "✅ passed"
    head = f"`{(gate.head or 'no commit')[:12]}`"
    out = [f"### HALO check of agent {escape_md(gate.agent)}: {mark}", ""]
    base = ""
    if gate.baseline:
        base = f", compared with baseline **{escape_md(gate.baseline)}** at `{(gate.baseline_head or 'no commit')[:12]}`"
    out.append(f"Branch **{escape_md(gate.branch)}** at {head}, {gate.scope}{base}. Fails on findings of severity **{gate.fail_on}** or above"
               + (" that are new relative to the baseline" if gate.baseline else "") + " and not accepted.")
    out.append("")
    c = counts(gate)
    out.append(" · ".join(f"{k.replace('_', ' ')}: **{v}**" for k, v in c.items()))
    sev = {s: sum(1 for i in gate.items if i.finding.severity == s) for s in SEVERITIES}
    out.append("")
    out.append("By severity: " + ", ".join(f"{s} {n}" for s, n in sev.items()) + ".")
    sections = [
        ("Failing", gate.failing, ""),
        (f"Resolved relative to {escape_md(gate.baseline or '')}", gate.resolved, f" on {escape_md(gate.baseline or '')}"),
        ("Accepted", tuple(i for i in gate.items if i.status == ACCEPTED), ""),
    ]
    for title, items, side in sections:
        if items:
            out += ["", f"#### {title} ({len(items)})", ""] + _md_list(gate, items, side)
    if gate.stale:
        out += ["", f"#### Stale accept entries ({len(gate.stale)})", ""]
        out += [f"- {escape_md(e.where())}: {escape_md(e.describe())} matches no finding any more; remove or update it." for e in gate.stale]
    rest = tuple(i for i in gate.items if not i.failing and i.status != ACCEPTED)
    if rest:
        why = "also on the baseline or below the threshold" if gate.baseline else "below the threshold"
        out += ["", f"<details><summary>Other findings ({len(rest)}, {why})</summary>", ""] + _md_list(gate, rest) + ["", "</details>"]
    return "\n".join(out) + "\n"


__all__ = ["render_text", "render_json", "render_markdown", "gate_to_dict", "verdict", "counts", "RESOLVED"]
