"""Behaviour diff of two branches (or commits) of one agent: a pure function.

Run the same agent under two setups (prompt v1 on ``main``, prompt v2 on
``prompt-v2``) and ``compare`` answers what changed in how it behaves. Both
histories are linear, so their merge base is the longest common prefix of
their commit lists: events ``e1..eK`` are shared, and from ``e(K+1)`` on each
side numbers its own events. After one side merged the other, the events both
hold (the same origin: ``lineage.origin``, under another id) are shared as well
and left out of each side's events since the base. The same id on both sides above the base names
two different events, so every id this module reports is paired with its side.

Two scopes, chosen so deltas mean something:

* **counts** (events by kind, channels) cover each side's events since the
  merge base. Counts add up, and the shared history counts alike on both
  sides, so these deltas are also the deltas of the whole branches;
* **ratios** (loop metrics) and **findings** are computed on each whole branch
  by ``diagnose``, exactly as that branch's report shows them.

Findings are matched across sides by rule, severity and the content of the
event each finding is about (kind, summary and the kind's own fields; not the
id, which can collide, nor the session label or time, which differ between
runs), counted as multisets.

Sessions are matched across sides by label, so like is compared with like: a
branch that simply did not run a session has not resolved that session's
findings. An unmatched finding whose session both sides ran is *new* (on HEAD)
or *resolved* (on BASE); an unmatched finding of a session only BASE ran is
*not run on HEAD*, and one of a session only HEAD ran is *only on HEAD*. A
finding's session is the session of the event it is about.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from .diagnosis import Diagnosis, Finding, Ratio, diagnose
from .lineage import origin
from .markdown import escape_md, md_table, safe_url, shorten
from .model import KINDS, LETTERS, Event

SUMMARY_CHARS = 120
MAX_ITEMS = 25  # revisions listed per side in Markdown; JSON lists all
MAX_PER_RULE = 10  # findings listed per rule and side in Markdown; the rest are cited by id
MAX_RUNS = 12  # id runs (e3–e7) cited per cell in Markdown

METRICS: dict[str, str] = {
    "outcome_coverage": "outcome coverage (acts other than silence with an outcome)",
    "self_initiated": "self-initiated share (acts with trigger=self)",
    "memories_recalled": "memories read back (remember events a later recall or step names)",
    "revisions_governed": "governed revisions (governance approved or bounded)",
}


class Log(Protocol):
    """What ``compare`` reads of a branch: ``EventLog`` from the store fits."""

    head: str | None
    events: Sequence[Event]
    commits: Sequence[str]


@dataclass(frozen=True)
class Metric:
    ratio: Ratio
    ids: tuple[str, ...]  # the events counted in the numerator


@dataclass(frozen=True)
class Side:
    """One side of the diff: the whole branch and what it holds since the base."""

    name: str  # "BASE" or "HEAD"
    label: str  # the branch name or commit id as given
    head: str | None
    events: tuple[Event, ...]  # the whole branch
    since: tuple[Event, ...]  # events after the merge base
    by_kind: dict[str, int]  # of ``since``, every kind in KINDS order
    channels: dict[str, tuple[str, ...]]  # "S→A" -> ids since the base carrying it, LETTERS order
    metrics: dict[str, Metric]  # whole branch, METRICS order
    revisions: tuple[Event, ...]  # revise events since the base
    diagnosis: Diagnosis


@dataclass(frozen=True)
class BehaviourDiff:
    agent: str
    base: Side
    head: Side
    common: int  # events shared (e1..e<common>)
    merge_base: str | None  # commit of e<common>, None without common history
    new: tuple[Finding, ...]  # on HEAD, not on BASE, in sessions both sides ran (HEAD ids)
    resolved: tuple[Finding, ...]  # on BASE, not on HEAD, in sessions both sides ran (BASE ids)
    not_run: tuple[Finding, ...] = ()  # on BASE, in sessions HEAD did not run (BASE ids)
    only_head: tuple[Finding, ...] = ()  # on HEAD, in sessions BASE did not run (HEAD ids)
    sessions_both: tuple[str, ...] = ()  # session labels both sides hold, in BASE order
    sessions_base_only: tuple[str, ...] = ()
    sessions_head_only: tuple[str, ...] = ()

    def channel_delta(self, channel: str) -> int:
        return len(self.head.channels.get(channel, ())) - len(self.base.channels.get(channel, ()))

    def kind_delta(self, kind: str) -> int:
        return self.head.by_kind[kind] - self.base.by_kind[kind]


def compare(agent: str, base_label: str, base: Log, head_label: str, head: Log) -> BehaviourDiff:
    """Diff HEAD against BASE from their merge base (see the module docstring)."""
    common = 0
    for a, b in zip(base.commits, head.commits):
        if a != b:
            break
        common += 1
    # events both sides hold since the base (one side merged the other: the same origin, another id) are shared too
    origins = [[origin(e, c) for e, c in zip(log.events[common:], log.commits[common:])] for log in (base, head)]
    shared = set(origins[0]) & set(origins[1])
    left = _side("BASE", base_label, base, common, agent, [o in shared for o in origins[0]])
    right = _side("HEAD", head_label, head, common, agent, [o in shared for o in origins[1]])
    new, resolved = _finding_changes(left, right)
    base_sessions = _labels(left.events)
    head_sessions = _labels(right.events)
    both = set(base_sessions) & set(head_sessions)

    def split(findings: tuple[Finding, ...], side: Side) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
        by_id = {e.id: e.session for e in side.events}
        def session(f: Finding) -> str | None:
            return by_id.get(f.ids[0]) if f.ids else None

        matched = tuple(f for f in findings if session(f) in both)
        return matched, tuple(f for f in findings if session(f) not in both)

    new, only_head = split(new, right)
    resolved, not_run = split(resolved, left)
    return BehaviourDiff(
        agent=agent,
        base=left,
        head=right,
        common=common,
        merge_base=base.commits[common - 1] if common else None,
        new=new,
        resolved=resolved,
        not_run=not_run,
        only_head=only_head,
        sessions_both=tuple(x for x in base_sessions if x in both),
        sessions_base_only=tuple(x for x in base_sessions if x not in both),
        sessions_head_only=tuple(x for x in head_sessions if x not in both),
    )


def _labels(events: Sequence[Event]) -> list[str]:
    return list(dict.fromkeys(e.session for e in events))


def _side(name: str, label: str, log: Log, common: int, agent: str, shared: Sequence[bool] = ()) -> Side:
    events = tuple(log.events)
    since = tuple(e for i, e in enumerate(events[common:]) if not (i < len(shared) and shared[i]))
    d = diagnose(events, agent=agent, branch=label, head=log.head)
    by_kind = Counter(e.kind for e in since)
    carried: dict[str, list[str]] = {}
    for e in since:
        for ch in e.channels:
            carried.setdefault(ch, []).append(e.id)
    order = [f"{x}→{y}" for x in LETTERS for y in LETTERS]
    channels = {ch: tuple(carried[ch]) for ch in order if ch in carried}
    expecting = [a for a in d.actions.acts if a.form != "silence"]
    metrics = {
        "outcome_coverage": Metric(d.metrics.outcome_coverage, tuple(a.id for a in expecting if a.outcomes)),
        "self_initiated": Metric(d.metrics.self_initiated, tuple(d.actions.self_initiated)),
        "memories_recalled": Metric(d.metrics.memories_recalled, tuple(m.id for m in d.write.memories if m.recalled_by or m.used_by)),
        "revisions_governed": Metric(
            d.metrics.revisions_governed, tuple(r.id for r in d.mechanism.revisions if r.governance != "none")
        ),
    }
    return Side(
        name=name,
        label=label,
        head=log.head,
        events=events,
        since=since,
        by_kind={k: by_kind.get(k, 0) for k in KINDS},
        channels=channels,
        metrics=metrics,
        revisions=tuple(e for e in since if e.kind == "revise"),
        diagnosis=d,
    )


def _content(e: Event) -> tuple:
    return (e.kind, e.summary, tuple((k, v) for k, v in e.fields.items() if k != "about"))


def _finding_key(f: Finding, by_id: dict[str, Event]) -> tuple:
    subject = by_id.get(f.ids[0]) if f.ids else None
    return (f.rule, f.severity, _content(subject) if subject else ())


# The matching rule under public names: ``check --baseline`` and SARIF fingerprints use it too.
event_content = _content
finding_key = _finding_key


def _finding_changes(base: Side, head: Side) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(new on HEAD, resolved on HEAD) as multiset differences of finding keys."""
    base_ids = {e.id: e for e in base.events}
    head_ids = {e.id: e for e in head.events}
    base_keys = Counter(_finding_key(f, base_ids) for f in base.diagnosis.findings)
    head_keys = Counter(_finding_key(f, head_ids) for f in head.diagnosis.findings)

    def unmatched(findings: list[Finding], by_id: dict[str, Event], other: Counter) -> tuple[Finding, ...]:
        left = Counter(other)
        out = []
        for f in findings:
            k = _finding_key(f, by_id)
            if left[k] > 0:
                left[k] -= 1
            else:
                out.append(f)
        return tuple(out)

    return unmatched(head.diagnosis.findings, head_ids, base_keys), unmatched(base.diagnosis.findings, base_ids, head_keys)


# -- JSON --------------------------------------------------------------------------------


def diff_to_dict(diff: BehaviourDiff) -> dict:
    """The diff as plain JSON data; every id sits under the side that holds it."""

    def side(s: Side) -> dict:
        return {
            "label": s.label,
            "head": s.head,
            "events": len(s.events),
            "since_merge_base": [e.id for e in s.since],
            "by_kind": s.by_kind,
            "channels": {ch: {"count": len(ids), "ids": list(ids)} for ch, ids in s.channels.items()},
            "metrics": {
                k: {"numerator": m.ratio.numerator, "denominator": m.ratio.denominator, "value": m.ratio.value, "ids": list(m.ids)}
                for k, m in s.metrics.items()
            },
            "revisions": [e.to_dict() for e in s.revisions],
        }

    def finding(f: Finding, s: Side) -> dict:
        session = next((e.session for e in s.events if f.ids and e.id == f.ids[0]), None)
        return {"side": s.name, "label": s.label, "session": session, "rule": f.rule, "name": f.name,
                "severity": f.severity, "ids": list(f.ids), "message": f.message, "quote": f.quote, "why": f.why,
                "next_step": f.next_step, "remedy": f.remedy}

    channels = sorted(set(diff.base.channels) | set(diff.head.channels), key=_channel_order)
    return {
        "agent": diff.agent,
        "merge_base": {"commit": diff.merge_base, "common_events": diff.common},
        "base": side(diff.base),
        "head": side(diff.head),
        "delta": {
            "by_kind": {k: diff.kind_delta(k) for k in KINDS},
            "channels": {ch: diff.channel_delta(ch) for ch in channels},
            "metrics": {k: _delta(diff.base.metrics[k].ratio, diff.head.metrics[k].ratio) for k in METRICS},
        },
        "sessions": {
            "both": list(diff.sessions_both),
            "base_only": list(diff.sessions_base_only),
            "head_only": list(diff.sessions_head_only),
        },
        "findings": {
            "new": [finding(f, diff.head) for f in diff.new],
            "resolved": [finding(f, diff.base) for f in diff.resolved],
            "not_run_on_head": [finding(f, diff.base) for f in diff.not_run],
            "only_on_head": [finding(f, diff.head) for f in diff.only_head],
        },
    }


def render_diff_json(diff: BehaviourDiff) -> str:
    return json.dumps(diff_to_dict(diff), ensure_ascii=False, indent=2) + "\n"


def _channel_order(ch: str) -> int:
    x, _, y = ch.partition("→")
    return LETTERS.index(x) * 4 + LETTERS.index(y)


def _delta(a: Ratio, b: Ratio) -> float | None:
    """HEAD minus BASE in percentage points, None when either side is 0/0."""
    if a.value is None or b.value is None:
        return None
    return round(100 * (b.value - a.value), 1)


# -- Markdown ------------------------------------------------------------------------------


def render_diff_markdown(diff: BehaviourDiff, link: Callable[[str, str], str | None] | None = None) -> str:
    """The diff as Markdown that fits a pull-request comment; same diff, same bytes.

    ``link(label, event_id)`` may return a URL for an event of the side named
    ``label`` (the site links ids to each branch's trace); ids stay plain otherwise.
    """
    b, h = diff.base, diff.head
    out: list[str] = []

    def ids(side: Side, items: Sequence[str]) -> str:
        return _cite(side, items, link)

    def tag(side: Side) -> str:
        return f"{side.name} {escape_md(side.label)}"

    out.append(f"## Behaviour diff of agent {escape_md(diff.agent)}: {escape_md(b.label)} → {escape_md(h.label)}")
    out.append("")
    out.append(f"- **{tag(b)}** at `{_short(b.head)}`: {_count(b.events)}.")
    out.append(f"- **{tag(h)}** at `{_short(h.head)}`: {_count(h.events)}.")
    if diff.common:
        out.append(f"- **Merge base** `{_short(diff.merge_base)}`: e1–e{diff.common} are shared; above e{diff.common} each side numbers its own events, so the same id can name different events.")
    else:
        out.append("- **Merge base**: none; the two histories share no events, so every id names a different event on each side.")
    if b.head == h.head:
        out += ["", "Both sides are at the same commit: no behaviour differences."]
        return "\n".join(out) + "\n"
    out.append(f"- Since the merge base: {tag(b)} {_since(b, link)}; {tag(h)} {_since(h, link)}.")
    out.append(_sessions_line(diff))
    out += ["", f"### Findings new on {tag(h)}", ""]
    out += _findings(diff.new, h, link, f"No finding on {tag(h)} that {tag(b)} does not have, in the sessions both ran.")
    out += ["", f"### Findings resolved on {tag(h)} (present on {tag(b)})", ""]
    out += _findings(diff.resolved, b, link, f"Every finding on {tag(b)} in the sessions both ran is still present on {tag(h)}.")
    if diff.not_run or diff.only_head:
        out += ["", "### Findings of sessions only one side ran", ""]
        out += ["Not compared: a side that did not run a session neither resolves nor introduces its findings.", ""]
        if diff.not_run:
            out += [f"Not run on {tag(h)}:", ""] + _findings(diff.not_run, b, link, "") + [""]
        if diff.only_head:
            out += [f"Only on {tag(h)}:", ""] + _findings(diff.only_head, h, link, "") + [""]
        while out[-1] == "":
            out.pop()

    out += ["", "### Events since the merge base, by kind", ""]
    rows = [[k, _n_ids(b, [e.id for e in b.since if e.kind == k], link), _n_ids(h, [e.id for e in h.since if e.kind == k], link), _signed(diff.kind_delta(k))]
            for k in KINDS if b.by_kind[k] or h.by_kind[k]]
    out += md_table(["kind", tag(b), tag(h), "Δ"], rows, "lllr") if rows else ["No events on either side since the merge base."]

    out += ["", "### Channels since the merge base", ""]
    channels = sorted(set(b.channels) | set(h.channels), key=_channel_order)
    if channels:
        rows = [[ch, _n_ids(b, b.channels.get(ch, ()), link), _n_ids(h, h.channels.get(ch, ()), link), _signed(diff.channel_delta(ch))] for ch in channels]
        out += md_table(["channel", tag(b), tag(h), "Δ"], rows, "lllr")
        out += ["", "The shared history adds the same counts to both sides, so these deltas are also the whole-branch deltas."]
    else:
        out.append("No channels on either side since the merge base (no event named an earlier one).")

    out += ["", "### Loop metrics (whole branch)", ""]
    rows = []
    for k, title in METRICS.items():
        mb, mh = b.metrics[k], h.metrics[k]
        pb, ph = _percent(mb.ratio), _percent(mh.ratio)
        d = None if pb is None or ph is None else ph - pb  # the rounded columns' difference, so the row adds up
        rows.append([title, _metric(b, mb, link), _metric(h, mh, link), "—" if d is None else (f"{d:+d} pts" if d else "0 pts")])
    out += md_table(["metric", tag(b), tag(h), "Δ"], rows, "lllr")
    out += ["", "Each cell cites the events counted in its numerator, on that side."]

    out += ["", "### Revisions only on one side", ""]
    if not b.revisions and not h.revisions:
        out.append("Neither side revised anything since the merge base.")
    for side in (b, h):
        for e in side.revisions[:MAX_ITEMS]:
            f = e.fields
            out.append(
                f"- {tag(side)} {ids(side, [e.id])}: target “{escape_md(shorten(f['target'], SUMMARY_CHARS))}”, "
                f"made_by={f['made_by']}, governance={f['governance']}: {escape_md(shorten(e.summary, SUMMARY_CHARS))}"
            )
        if len(side.revisions) > MAX_ITEMS:
            out.append(f"- {tag(side)}: {len(side.revisions) - MAX_ITEMS} more revisions (see `halo-git diff --format json`)")

    out += [
        "",
        "---",
        "",
        "Counts cover the events since the merge base; loop metrics and findings are computed on each whole branch, "
        "as its report shows them. Findings match across sides by rule, severity and the content of the event they are "
        "about, never by id alone; sessions match by label, and findings of a session only one side ran are listed "
        "apart, not as new or resolved. The trace is the agent's own account of its steps, not observed behaviour.",
    ]
    return "\n".join(out) + "\n"


def _sessions_line(diff: BehaviourDiff) -> str:
    def names(labels: Sequence[str]) -> str:
        shown = ", ".join(escape_md(x) for x in labels[:MAX_RUNS])
        return shown + (f" and {len(labels) - MAX_RUNS} more" if len(labels) > MAX_RUNS else "")

    parts = [f"{len(diff.sessions_both)} on both sides" + (f" ({names(diff.sessions_both)})" if diff.sessions_both else "")]
    if diff.sessions_base_only:
        parts.append(f"only on BASE, not run on HEAD: {names(diff.sessions_base_only)}")
    if diff.sessions_head_only:
        parts.append(f"only on HEAD: {names(diff.sessions_head_only)}")
    return ("- **Sessions** matched by label: " + "; ".join(parts) + ". New and resolved findings are counted only "
            "in sessions both sides ran.")


def _findings(findings: Sequence[Finding], side: Side, link, none: str) -> list[str]:
    """Findings grouped by rule and severity (the remedy once per group), at most
    ``MAX_PER_RULE`` listed per group and the rest cited by id."""
    if not findings:
        return [none]
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.rule, f.severity), []).append(f)
    where = f"{side.name} {escape_md(side.label)}"
    lines = []
    for (rule, severity), group in groups.items():
        lines.append(f"- **{rule}** {group[0].name} ({severity}), {len(group)} on {where}. *Remedy:* {escape_md(group[0].remedy)}")
        for f in group[:MAX_PER_RULE]:
            quote = f" “{escape_md(f.quote)}”" if f.quote else ""
            lines.append(f"    - {where} {_cite(side, f.ids, link)}{quote}: {escape_md(f.message)}")
        if len(group) > MAX_PER_RULE:
            rest = group[MAX_PER_RULE:]
            lines.append(f"    - {len(rest)} more on {where}, about {_cite(side, [f.ids[0] for f in rest], link)}")
    return lines


def _cite(side: Side, items: Sequence[str], link) -> str:
    """Ids of one side, numerically sorted, runs collapsed (e3–e7), capped."""
    nums = sorted({int(i[1:]) for i in items})
    runs: list[tuple[int, int]] = []
    for n in nums:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))

    def one(n: int) -> str:
        url = link(side.label, f"e{n}") if link else None
        return f"[e{n}]({safe_url(url)})" if url else f"e{n}"

    text = ", ".join(one(a) if a == z else f"{one(a)}–{one(z)}" for a, z in runs[:MAX_RUNS])
    if len(runs) > MAX_RUNS:
        text += f" … (+{sum(z - a + 1 for a, z in runs[MAX_RUNS:])} more)"
    return text


def _n_ids(side: Side, items: Sequence[str], link) -> str:
    return f"{len(items)} ({_cite(side, items, link)})" if items else "0"


def _percent(r: Ratio) -> int | None:
    """A ratio as a whole percentage, as the tables show it."""
    return None if r.value is None else round(100 * r.value)


def _metric(side: Side, m: Metric, link) -> str:
    r = m.ratio
    pct = "—" if r.value is None else f"{_percent(r)}%"
    return f"{r} ({pct})" + (f": {_cite(side, m.ids, link)}" if m.ids else "")


def _since(side: Side, link) -> str:
    if not side.since:
        return "has no events"
    return f"has {len(side.since)} ({_cite(side, [e.id for e in side.since], link)})"


def _count(events: Sequence[Event]) -> str:
    return f"{len(events)} events" + (f" (e1–{events[-1].id})" if events else "")


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "none"
