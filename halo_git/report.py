"""The diagnosis as deterministic Markdown (``halo_report``, ``halo-git report``, the site).

``render_report`` only formats a ``Diagnosis``: same diagnosis, same bytes. It
opens with a reviewer's Summary (the few issues to read first, each quoting
its events, saying why it matters and what to do next), then the evidence
sections, then every finding grouped by rule. Every event id it cites goes
through one function, so the site can turn ids into links (``link``) while the
MCP tool and the CLI show plain ids. Agent text is escaped with ``escape_md``
and shortened; long tables and id lists are cut at ``max_rows`` and say how
much they left out, and no rule that fired is ever cut from the Findings.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence, TypeVar

from .diagnosis import (
    FORMS, MAX_PATH_EVENTS, RULES, SEVERITIES, TRIGGERS, AuthorityPath, Diagnosis, Finding, Ratio, collector_paused,
    group_findings, issues, severity_counts,
)
from . import revisions
from .markdown import escape_md, md_table, safe_url, shorten
from .model import CATEGORY_OF_LETTER, KINDS, LETTERS
from .observed import markdown_lines as observed_lines

SECTIONS = (
    "Boundary and evidence",
    "Summary",
    "Channels",
    "Write side",
    "Read-back",
    "Actions",
    "Outcomes",
    "Mechanism",
    "Behavioral-authority paths",
    "Findings",
    "Limitations and checks",
)
T = TypeVar("T")
SUMMARY_CHARS = 120  # summaries in tables; the trace holds the full text
SESSION_ROWS = 12  # sessions listed in the boundary; the trace pages list all
FLAT_FINDINGS = 15  # up to this many findings are listed one by one; more are grouped by rule
SMALL = 20  # up to this many events, the channel matrix is one line
PER_GROUP = 3  # findings shown in full per rule group (the rest are cited by id)
OUTSIDE = "†"
_ID_RE = re.compile(r"\be[1-9][0-9]*\b")


def _pct(r: Ratio) -> str:
    return "—" if r.value is None else f"{round(100 * r.value)}%"


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


class _Writer:
    """Formats ids (linked or plain, † outside the scope) and caps long listings."""

    def __init__(self, d: Diagnosis, link: Callable[[str], str | None] | None, max_rows: int):
        self.d = d
        self.link = link
        self.max_rows = max_rows
        self.left_out = 0  # table rows and list items not shown
        self.lines: list[str] = []
        self.pending: list[str] = []  # "nothing wrong here" sentences, printed as one paragraph per section

    def id(self, i: str) -> str:
        url = self.link(i) if self.link else None
        text = f"[{i}]({safe_url(url)})" if url else i
        return text + OUTSIDE if self.d.is_outside(i) else text

    def kind_id(self, i: str) -> str:
        ev = self.d.evidence.get(i)
        return f"{self.id(i)} {ev.kind}" if ev else self.id(i)

    def ids(self, ids: Sequence[str], *, kinds: bool = False, none: str = "—", limit: int | None = None) -> str:
        if not ids:
            return none
        shown = ids[: limit or self.max_rows]
        fmt = self.kind_id if kinds else self.id
        text = ", ".join(fmt(i) for i in shown)
        if len(ids) > len(shown):
            self.left_out += len(ids) - len(shown)
            text += f" and {len(ids) - len(shown)} more"
        return text

    def summary(self, i: str) -> str:
        ev = self.d.evidence.get(i)
        return escape_md(shorten(ev.summary, SUMMARY_CHARS)) if ev else "—"

    def quoted(self, i: str, text: str | None = None) -> str:
        """``e7 act “its summary”``: an event with its own words (escaped, shortened)."""
        ev = self.d.evidence.get(i)
        if ev is None:
            return self.id(i)
        q = text if text is not None else shorten(ev.summary, 90)
        return f"{self.id(i)} {ev.kind} “{escape_md(q)}”"

    def text(self, s: str) -> str:
        """Generated prose (finding messages): escaped, with the event ids it names cited like any other."""
        return _ID_RE.sub(lambda m: self.id(m.group()) if m.group() in self.d.evidence else m.group(), escape_md(s))

    def session(self, i: str) -> str:
        ev = self.d.evidence.get(i)
        return escape_md(ev.session) if ev else "—"

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def para(self, text: str) -> None:
        self.lines += [text, ""]

    def table(self, headers: Sequence[str], items: Sequence[T], row: Callable[[T], Sequence[str]] | None = None,
              align: str = "", limit: int | None = None) -> None:
        """A table of the first ``limit`` (``max_rows``) items; only those are formatted."""
        shown = items[: limit or self.max_rows]
        self.lines += md_table(headers, [row(x) for x in shown] if row else shown, align)
        self.lines.append("")
        if len(items) > len(shown):
            self.left_out += len(items) - len(shown)
            self.para(f"{len(items) - len(shown)} more rows not listed (the first {len(shown)} are shown).")

    def listing(self, label: str, ids: Sequence[str], empty: str | None) -> None:
        if ids:
            self.para(f"{label}: {self.ids(ids)}.")
        elif empty:
            self.note(empty)

    def note(self, sentence: str) -> None:
        """A check that found nothing: collected, and printed with the others at the section's end."""
        self.pending.append(sentence)

    def flush(self) -> None:
        if self.pending:
            self.para(" ".join(self.pending))
            self.pending = []

    def heading(self, title: str) -> None:
        self.flush()
        self.lines += [f"## {title}", ""]


@collector_paused()
def render_report(
    d: Diagnosis,
    link: Callable[[str], str | None] | None = None,
    *,
    max_rows: int = 50,
    accepted: Sequence[tuple[Finding, str]] = (),
    per_group: int = PER_GROUP,
    audit=None,
) -> str:
    """The diagnosis as Markdown; ``link(id)`` turns cited ids into links when given.

    ``accepted`` holds findings a reviewer accepted, each with the reason; they
    are listed apart under "Accepted" and left out of the open findings, the
    counts and the Summary. ``per_group`` is how many findings of each rule
    group are shown in full at scale (the site shows more). ``audit``
    (``revisions.Audit``) adds approvals and impact to the Mechanism section.
    """
    w = _Writer(d, link, max_rows)
    taken = {f for f, _ in accepted}
    open_findings = [f for f in d.findings if f not in taken] if taken else list(d.findings)
    _title(w)
    _boundary(w)
    _summary(w, open_findings, len(accepted))
    if d.events:
        _channels(w)
        _write_side(w)
        _read_back(w)
        _actions(w)
        _outcomes(w)
        _mechanism(w, audit)
        _authority(w)
    else:
        for title in SECTIONS[2:9]:
            w.heading(title)
            w.para("Nothing in this scope.")
    _findings(w, open_findings, accepted, per_group)
    _limitations(w)
    w.flush()
    while w.lines and not w.lines[-1]:
        w.lines.pop()
    return "\n".join(w.lines) + "\n"


def _head(d: Diagnosis) -> str:
    return f"`{d.head[:12]}`" if d.head else "(no commit yet)"


def _title(w: _Writer) -> None:
    d = w.d
    scope = f"session {escape_md(d.session)}" if d.session else "the whole trace"
    w.add(f"# HALO report: {escape_md(d.agent)}", "")
    w.para(
        f"Diagnosis of agent {escape_md(d.agent)}, {scope}, read from branch {escape_md(d.branch)} "
        f"at commit {_head(d)}. Every claim below cites the events it rests on."
    )


def _boundary(w: _Writer) -> None:
    d = w.d
    w.heading("Boundary and evidence")
    w.para(
        "The evidence is the agent's own account of its steps, logged as events: what it says it observed, "
        "kept, recalled, did and changed. It is not observed behaviour"
        + (", except the observed tool calls listed below, set beside it by time" if d.observed is not None else "")
        + ". HALO checked that every id an event names existed earlier on the branch; it cannot check that a summary is true."
    )
    n = len(d.events)
    scope = f"session {escape_md(d.session)}" if d.session else f"whole trace ({_plural(len(d.sessions), 'session')})"
    w.add(
        f"- Agent: {escape_md(d.agent)}",
        f"- Scope: {scope}",
        f"- Branch: {escape_md(d.branch)}, head commit {_head(d)} (the report pins its evidence to this commit)",
    )
    if n:
        kinds = ", ".join(f"{c} {k}" for k, c in d.by_kind.items() if c)
        w.add(
            f"- Events in scope: {n}, from {w.id(d.events[0].id)} to {w.id(d.events[-1].id)}: {kinds}",
            f"- Time span: {escape_md(d.first_time or '')} to {escape_md(d.last_time or '')} (UTC)",
        )
    else:
        w.add("- Events in scope: none; the agent has logged nothing here yet, so there is nothing to diagnose")
    if d.outside:
        by_session: dict[str, list[str]] = {}
        for i in d.outside:
            by_session.setdefault(d.evidence[i].session, []).append(i)
        groups = list(by_session.items())
        cap = min(w.max_rows, SESSION_ROWS)
        parts = "; ".join(f"session {escape_md(s)}: {w.ids(ids, limit=10)}" for s, ids in groups[:cap])
        if len(groups) > cap:
            w.left_out += sum(len(ids) for _, ids in groups[cap:])
            parts += f"; and {len(groups) - cap} more sessions"
        w.add(f"- Evidence outside the scope, marked {OUTSIDE}: {_plural(len(d.outside), 'event')} of other sessions "
              f"that events in scope build on or that build on them ({parts})")
    elif d.session:
        w.add("- Evidence outside the scope: none; every event this report cites belongs to this session")
    if d.observed is not None:  # observed evidence: halo_git/observed.py
        w.add(*observed_lines(d.observed, w.id, w.max_rows))
    w.add("")
    if len(d.sessions) > 1:
        w.table(
            ["session", "events", "first", "last", "from (UTC)", "to (UTC)"],
            d.sessions,
            lambda s: [escape_md(s.name), str(s.events), w.id(s.first_id), w.id(s.last_id), escape_md(s.first_time),
                       escape_md(s.last_time)],
            "lrllll", limit=min(w.max_rows, SESSION_ROWS),
        )


def _summary(w: _Writer, findings: list[Finding], accepted: int) -> None:
    w.heading("Summary")
    d = w.d
    if not findings:
        tail = f" ({_plural(accepted, 'accepted finding')} listed under Findings)" if accepted else ""
        w.para(f"No open finding on this scope{tail}: no rule fired that a reviewer needs to follow up."
               if d.events else "No events, so no finding.")
        return
    top = issues(findings)
    counts = severity_counts(findings)
    rules = len({f.rule for f in findings})
    w.para(
        f"The {_plural(len(top), 'issue')} to read first, of {_plural(len(findings), 'open finding')} under "
        f"{_plural(rules, 'rule')} (" + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES if counts[s])
        + "); every finding is listed under Findings"
        + (f", and {_plural(accepted, 'accepted finding')} apart under Accepted." if accepted else ".")
    )
    for n, issue in enumerate(top, 1):
        f = issue.first
        more = len(issue.findings) - 1
        per = severity_counts(issue.findings)
        mix = [f"{per[s]} {s}" for s in SEVERITIES if per[s]]
        count = (f"{_plural(len(issue.findings), 'finding')}" + (f" ({', '.join(mix)})" if len(mix) > 1 else "")
                 + f": {w.ids([x.ids[0] for x in issue.findings if x.ids], limit=5)}") if more else "1 finding"
        line = (f"{n}. **{f.rule} {f.name}** ({issue.severity}, {count}). {_subject(w, f)}: {w.text(f.message)}")
        if len(f.ids) > 1 and f.ids[1] in d.evidence and f.ids[1] != f.ids[0]:
            line += f" — {w.quoted(f.ids[1])}."
        line += _context(w, f)
        if issue.related:
            line += " *On the same chain:* " + "; ".join(
                f"{r.rule} {r.name} ({r.severity}) on {_subject(w, r)}" for r in issue.related) + "."
        w.add(line)
    w.add("")


def _channels(w: _Writer) -> None:
    d = w.d
    w.heading("Channels")
    total = sum(d.channels.values())
    if total and len(d.events) <= SMALL:
        used = ", ".join(f"{x}→{y} {n}" for (x, y), n in d.channels.items() if n)
        w.para(f"Channels used (X→Y: an event of category Y built on one of category X; S Sensing, M Memory, "
               f"A Action, R Mechanism): {used}.")
    elif total:
        w.para(
            "An event's channels X→Y pair the letter of each event it builds on (X) with its own letter (Y): "
            "S Sensing (observe, outcome), M Memory (remember, recall), A Action (act), R Mechanism (revise). "
            "Rows are where material came from, columns where it went."
        )
        w.table(
            ["from ╲ to", *LETTERS],
            [[f"**{x}** {CATEGORY_OF_LETTER[x]}", *(str(d.channels[(x, y)]) for y in LETTERS)] for x in LETTERS],
            align="lrrrr",
        )
    else:
        w.para("No event in this scope builds on another, so no channel was used.")
    m = d.metrics
    rows = [
        ["outcome coverage of acts (silence exempt)", m.outcome_coverage],
        ["memories read back (recalled or used)", m.memories_recalled],
        ["outcomes used later", m.outcomes_used],
        ["revisions governed (approved or bounded)", m.revisions_governed],
        ["self-initiated acts", m.self_initiated],
    ]
    rows = [r for r in rows if r[1].denominator]
    if rows and len(d.events) <= SMALL:
        w.para("Loop metrics (metrics with nothing to count are left out): "
               + "; ".join(f"{t} {_pct(r)} ({r})" for t, r in rows) + ".")
    elif rows:
        w.para("Loop metrics (a share with its counts; metrics with nothing to count are left out):")
        w.table(["metric", "share", "counts"], [[t, _pct(r), str(r)] for t, r in rows], align="lrr")


def _write_side(w: _Writer) -> None:
    d = w.d
    w.heading("Write side")
    mem = d.write.memories
    if not mem:
        w.para("No memory was written in this scope.")
        return
    w.para(
        f"What the agent kept for later: {_plural(len(mem), 'remember event')}, and the material each one keeps, "
        "by the category of the events it names in uses. A memory is *reviewed* when it keeps an observation, an "
        "outcome or a rule the user made or approved, and *own output* when it keeps only the agent's acts, "
        "recalls or memories."
    )
    if len(d.events) <= SMALL:
        w.para("Memories by the category of their sources: "
               + ", ".join(f"{c} {n}" for c, n in d.write.by_source.items() if n) + ".")
    else:
        w.table(["source category", "memories"], [[c, str(n)] for c, n in d.write.by_source.items() if n], align="lr")

    def row(m) -> list[str]:
        kept = "reviewed" if m.reviewed else ("own output" if m.sources else "unsourced")
        return [w.id(m.id), w.session(m.id), w.summary(m.id), w.ids(m.sources, kinds=True), kept,
                w.ids(m.recalled_by), w.ids(m.used_by)]
    w.table(["memory", "session", "summary", "keeps", "kind of material", "recalled by", "used directly by"], mem, row)
    w.listing("Unsourced memories (nothing in uses, provenance unknown)", d.write.unsourced,
              "Every memory names what it keeps.")


def _read_back(w: _Writer) -> None:
    d = w.d
    r = d.read
    w.heading("Read-back")
    if not r.recalls and not d.write.memories:
        w.para("No memory was kept or recalled in this scope.")
        return
    if r.recalls:
        w.para(f"What the agent read back: {_plural(len(r.recalls), 'recall')}, the memories each retrieved, "
               "and what used the recall afterwards.")
        w.table(
            ["recall", "session", "summary", "retrieved", "other uses", "used later by"],
            r.recalls,
            lambda x: [w.id(x.id), w.session(x.id), w.summary(x.id), w.ids(x.retrieved), w.ids(x.other), w.ids(x.used_by)],
        )
        if r.cross_session:
            shown = r.cross_session[: w.max_rows]
            w.left_out += len(r.cross_session) - len(shown)
            w.add("Cross-session recall (a memory kept in one session read back in another):", "")
            w.add(*(f"- {w.id(a)} in session {w.session(a)} retrieved {w.id(m)} from session {w.session(m)}" for a, m in shown))
            if len(r.cross_session) > len(shown):
                w.add(f"- and {len(r.cross_session) - len(shown)} more")
            w.add("")
        else:
            w.note("No recall crossed sessions.")
    else:
        w.para("No memory was recalled in this scope.")
    if r.direct:
        w.listing("Memories read back by direct use (a later event names them; no recall)", r.direct, None)
    if d.write.memories:
        w.listing("Memories never read back although the trace went on", r.never_recalled,
                  "Every memory kept in this scope was read back (recalled or used directly), or the trace ends right after it.")
    if r.recalls:
        w.listing("Recalls that nothing later used", r.unused, "Every recall fed a later event, or the trace ends right after it.")
        w.listing("Recalls naming no remember event", r.without_memory, "Every recall names the memories it retrieved.")


def _actions(w: _Writer) -> None:
    d = w.d
    a = d.actions
    w.heading("Actions")
    if not a.acts:
        w.para("No act was logged in this scope.")
        return
    if len(d.events) <= SMALL:
        pairs = ", ".join(f"{n} {t} {f}" for (t, f), n in a.matrix.items() if n)
        w.para(f"What the agent did: {_plural(len(a.acts), 'act')}, by trigger (request: asked for or scheduled; "
               f"self: on its own) and form: {pairs}.")
    else:
        _act_matrix(w)
    if a.self_initiated:
        w.para("Self-initiated acts (trigger=self): nothing the user asked or scheduled started them.")
        w.table(
            ["act", "form", "summary", "basis", "outcomes"],
            [x for x in a.acts if x.trigger == "self"],
            lambda x: [w.id(x.id), x.form, w.summary(x.id), w.ids(x.basis, kinds=True), w.ids(x.outcomes, none="none")],
        )
    else:
        w.note("No act was self-initiated: every act is logged with trigger=request.")
    w.listing("Acts with no basis (nothing in uses)", a.no_basis, "Every act names the events it relied on.")


def _act_matrix(w: _Writer) -> None:
    a = w.d.actions
    w.para(f"What the agent did: {_plural(len(a.acts), 'act')} by trigger (asked for or self-initiated) and form.")
    rows = []
    for t in TRIGGERS:
        counts = [a.matrix[(t, f)] for f in FORMS]
        rows.append([t, *map(str, counts), str(sum(counts))])
    rows.append(["**total**", *(str(sum(a.matrix[(t, f)] for t in TRIGGERS)) for f in FORMS), f"**{len(a.acts)}**"])
    w.table(["trigger ╲ form", *FORMS, "total"], rows, align="lrrrrr")


def _outcomes(w: _Writer) -> None:
    d = w.d
    o = d.outcomes
    w.heading("Outcomes")
    c = o.coverage
    if not c.denominator and not o.outcomes:
        w.para("No act other than silence and no outcome in this scope, so no outcome was due.")
        return
    if c.denominator:
        w.para(f"Outcome coverage: {c} acts other than silence have an outcome ({_pct(c)}).")
    if o.outcomes and any(x.adverse for x in o.outcomes):
        w.para("An outcome is marked *adverse* when its summary reports a problem (a word of failure or complaint); "
               "the report makes no other judgement of outcomes.")
        w.table(
            ["outcome", "about", "summary", "adverse", "other uses", "used later by"],
            o.outcomes,
            lambda x: [w.id(x.id), w.kind_id(x.about), w.summary(x.id), "yes" if x.adverse else "", w.ids(x.uses), w.ids(x.used_by)],
        )
    elif o.outcomes:
        w.table(
            ["outcome", "about", "summary", "other uses", "used later by"],
            o.outcomes,
            lambda x: [w.id(x.id), w.kind_id(x.about), w.summary(x.id), w.ids(x.uses), w.ids(x.used_by)],
        )
        w.note("No outcome reports a problem (no word of failure or complaint).")
    else:
        w.para("No outcome was logged in this scope.")
    if o.observed:
        w.listing("Acts checked by an observation naming them instead of an outcome", o.observed, None)
    if c.denominator:
        w.listing("Open loops (acts nothing checked; silence exempt)", o.open_loops,
                  "No open loop: every act that expects a check has an outcome, an observation naming it or, for a "
                  "preparation, a later step using it.")
    if any(x.adverse for x in o.outcomes):
        w.listing("Adverse outcomes that nothing later used", o.ignored,
                  "Every adverse outcome fed a later event, or the trace ends right after it.")


def _mechanism(w: _Writer, audit=None) -> None:
    d = w.d
    m = d.mechanism
    w.heading("Mechanism")
    if not m.revisions:
        w.para("No revision was logged in this scope: as far as the trace tells, the agent did not durably change how it works.")
        return
    w.para(f"Durable changes to how the agent works: {_plural(len(m.revisions), 'revision')}, who made each "
           "and what governed it.")
    w.table(
        ["revision", "target", "made by", "governance", "basis", "summary", "used later by"],
        m.revisions,
        lambda r: [w.id(r.id), escape_md(shorten(r.target, SUMMARY_CHARS)), r.made_by,
                   f"**{r.governance}**" if r.ungoverned or r.id in m.unbounded else r.governance,
                   w.ids(r.basis, kinds=True, none="none"), w.summary(r.id), w.ids(r.used_by)],
    )
    w.add(*revisions.mechanism_lines(audit or revisions.from_diagnosis(d, w.max_rows), w.id, [r.id for r in m.revisions], w.max_rows))
    by_agent = [r for r in m.revisions if r.made_by == "agent"]
    if m.ungoverned:
        w.listing("Ungoverned self-revisions (made_by=agent, governance=none)", m.ungoverned, None)
    elif by_agent:
        w.note(f"No ungoverned self-revision: each of the {_plural(len(by_agent), 'revision')} the agent made is "
               "logged as approved or bounded.")
    else:
        w.note("No ungoverned self-revision: the user made every revision in this scope.")
    bounded = [r for r in m.revisions if r.governance == "bounded"]
    if m.unbounded:
        w.listing("Bounded revisions with no bound the user set upstream (no user-made or approved revision of the "
                  "target in their ancestry)", m.unbounded, None)
    elif bounded:
        w.note(f"Every bounded revision ({_plural(len(bounded), 'revision')}) names, somewhere upstream, a revision "
               "of its target that the user made or approved.")
    w.listing("Revisions with no evidence in uses", m.no_evidence, "Every revision names the evidence it rests on.")
    if m.repeated:
        w.add("Targets revised more than once:", "")
        shown = m.repeated[: w.max_rows]
        w.left_out += len(m.repeated) - len(shown)
        w.add(*(f"- “{escape_md(shorten(r.target, SUMMARY_CHARS))}”: {w.ids(r.ids)}" for r in shown))
        if len(m.repeated) > len(shown):
            w.add(f"- and {len(m.repeated) - len(shown)} more targets")
        w.add("")
    elif len(m.revisions) > 1:
        w.note("No target was revised more than once.")


def _chain(w: _Writer, p: AuthorityPath) -> str:
    ids = p.ids
    if len(ids) > MAX_PATH_EVENTS:
        head, tail = ids[:2], ids[-(MAX_PATH_EVENTS - 3):]
        cut = len(ids) - len(head) - len(tail)
        text = " → ".join(w.kind_id(i) for i in head) + f" → … ({_plural(cut, 'event')}) → " + " → ".join(
            w.kind_id(i) for i in tail)
    else:
        text = " → ".join(w.kind_id(i) for i in ids)
    return ("… → " if p.truncated else "") + text


def _authority(w: _Writer) -> None:
    d = w.d
    a = d.authority
    w.heading("Behavioral-authority paths")
    if not a.sinks:
        w.para("No execution, no self-initiated act, no revision and no act fed by memory of another session in this "
               "scope, so there is no authority path to trace.")
        return
    c = a.classes
    parts = [
        _plural(c.get("execution", 0), "execution"), _plural(c.get("self", 0), "self-initiated act"),
        _plural(c.get("revise", 0), "revision"), _plural(c.get("cross-session", 0), "act") + " fed by memory kept in another session",
    ]
    w.para(
        f"The acts and revisions that hold authority: {a.sinks} in scope ({', '.join(parts)}; one can be several). "
        "For each, the decisive chain: the shortest chain back over uses and about to the most salient material "
        "upstream (memory kept in another session, an ungoverned self-revision, retained memory, an outcome, an "
        "earlier revision), whatever the act's trigger. Most salient first, then shortest; chains of the same shape "
        "from the same event are merged."
    )

    def upstream(*kinds: str) -> list[str]:
        return [i for i, up in a.upstream.items() if any(k in up for k in kinds)]

    w.add("Upstream of each, at any depth:", "")
    for label, ids in (
        ("memory kept in another session", a.cross_session),
        ("retained memory (remember, recall)", upstream("remember", "recall")),
        ("outcomes (feedback)", upstream("outcome")),
        ("earlier revisions", upstream("revise")),
        ("an ungoverned self-revision", a.ungoverned_upstream),
        ("nothing logged", [i for i, up in a.upstream.items() if not up]),
    ):
        w.add(f"- {label}: {len(ids)} of {a.sinks}" + (f" ({w.ids(ids, limit=10)})" if ids else ""))
    w.add("")

    def path_row(item: tuple[int, AuthorityPath]) -> list[str]:
        n, p = item
        return [str(n), w.kind_id(p.sink), _chain(w, p), str(len(p.ids)), escape_md(", ".join(p.salience)) or "—",
                w.ids(p.also, limit=5, none="—")]
    w.table(["#", "for", "decisive chain", "events", "salient", "same chain also feeds"], list(enumerate(a.paths, 1)),
            path_row, align="rllrll")
    if a.sinks_with_more > 0:
        w.para(f"{_plural(a.sinks_with_more, 'more act or revision', 'more acts or revisions')} hold authority paths that "
               f"are less salient and not listed; the findings cite the ones that break a rule.")


def _subject(w: _Writer, f: Finding) -> str:
    """The event a finding is about, with its summary quoted (a finding about no logged event has none)."""
    if not f.ids:
        return "no logged event"
    return w.quoted(f.ids[0], f.quote) if f.quote else w.kind_id(f.ids[0])


def _finding_line(w: _Writer, f: Finding, with_rule: bool) -> str:
    rule = f"**{f.severity}** {f.rule} {f.name}: " if with_rule else ""
    rest = f" ({', '.join(w.kind_id(i) for i in f.ids[1:6])}{' …' if len(f.ids) > 6 else ''})" if len(f.ids) > 1 else ""
    return f"- {rule}{_subject(w, f)}{rest}: {w.text(f.message)}{_context(w, f)}"


def _context(w: _Writer, f: Finding) -> str:
    """`` Why it matters: … Next step: …`` (the rule's remedy when a finding carries no next step)."""
    why = f" *Why it matters:* {w.text(f.why)}" if f.why else ""
    return f"{why} *Next step:* {w.text(f.next_step or f.remedy)}"


def _findings(w: _Writer, findings: list[Finding], accepted: Sequence[tuple[Finding, str]], per_group: int) -> None:
    w.heading("Findings")
    acc = f" {_plural(len(accepted), 'accepted finding')} are listed apart under Accepted." if accepted else ""
    if len(accepted) == 1:
        acc = " 1 accepted finding is listed apart under Accepted."
    if not findings:
        w.para(("No open finding: no rule fired on this scope." if not accepted else "No open finding.") + acc)
    else:
        counts = severity_counts(findings)
        groups = group_findings(findings)
        rules = len({f.rule for f in findings})
        w.para(
            f"{_plural(len(findings), 'open finding')} under {_plural(rules, 'rule')}: "
            + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES)
            + ". Sorted by severity, then rule id, then first event id; the rules are described on the Report page of the docs." + acc
        )
        if len(findings) <= FLAT_FINDINGS:
            w.add(*(_finding_line(w, f, True) for f in findings))
            w.add("")
        else:
            w.table(
                ["severity", "rule", "findings", "about", "next step (first finding)"],
                groups,
                lambda g: [g[1], f"{g[0]} {RULES[g[0]].name}", str(len(g[2])), w.ids([f.ids[0] for f in g[2] if f.ids], limit=6),
                           w.text(g[2][0].next_step or g[2][0].remedy)],
                align="llrll", limit=len(groups),
            )
            w.para(f"Each rule group below shows its first {_plural(per_group, 'finding')} in full and cites the rest "
                   "by event; the review site's diagnosis page shows more, and the diagnosis data "
                   "(Halo.diagnosis) holds every finding.")
            for rule, severity, fs in groups:
                w.para(f"**{rule} {RULES[rule].name}** ({severity}, {_plural(len(fs), 'finding')}): {escape_md(RULES[rule].trigger)}.")
                w.add(*(_finding_line(w, f, False) for f in fs[:per_group]))
                rest = fs[per_group:]
                if rest:
                    w.add(f"- {len(rest)} more, about {w.ids([f.ids[0] for f in rest if f.ids], limit=w.max_rows, none='no logged event')}")
                w.add("")
    if accepted:
        w.lines += ["### Accepted", ""]
        w.para(f"{_plural(len(accepted), 'finding')} a reviewer accepted, with the reason given; not counted above.")
        w.add(*(f"{_finding_line(w, f, True)} *Accepted:* {escape_md(reason)}" for f, reason in accepted))
        w.add("")


def _limitations(w: _Writer) -> None:
    d = w.d
    w.heading("Limitations and checks")
    w.add(
        "- Self-report: summaries, triggers, forms, governance labels and uses are the agent's own claims. "
        "An action it did not log, or a link it did not name, is invisible here; absence in the trace is not absence in the world"
        + (" (except tool calls of the observed evidence, in the sessions it covers)." if d.observed is not None else "."),
        "- A named link shows declared reliance, not that the earlier event changed the decision; authority paths are "
        "as complete as the agent's uses.",
        "- Outcomes are free text: the report only marks an outcome adverse when its summary uses a word of failure or "
        "complaint (listed on the Report page); it does not otherwise judge success.",
        "- Rules that need later activity (memory never read back, recall unused, adverse outcome ignored, dropped "
        "obligation) stay silent for the last event of the branch, where the trace cannot show the problem yet.",
    )
    if d.session:
        w.add(f"- Scope: events of other sessions count only as evidence ({OUTSIDE}); findings are about events in session "
              f"{escape_md(d.session)}, except repeated revisions, which list every revision of the target on the branch.")
    if d.dangling:
        w.add(f"- Check failed for {_plural(len(d.dangling), 'event')} naming ids that are not earlier on the branch: "
              f"{w.ids(d.dangling)}; those links were left out of the analysis.")
    elif d.events:
        w.add(f"- Check passed: every id named by the {_plural(len(d.events), 'event')} in scope exists earlier on branch "
              f"{escape_md(d.branch)} at commit {_head(d)}.")
    if w.left_out:
        w.add(f"- Long listings were cut at {w.max_rows} rows or ids; {w.left_out} left out here. The trace pages and "
              "halo_trace hold every event.")
    w.add("- Deterministic: the same head commit and scope give the same bytes. Gate a pipeline on the findings with "
          "halo-git check.")
    w.add("")
