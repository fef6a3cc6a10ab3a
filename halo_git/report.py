"""The diagnosis as deterministic Markdown (``halo_report``, ``halo-git report``, the site).

``render_report`` only formats a ``Diagnosis``: same diagnosis, same bytes. Every
event id it cites goes through one function, so the site can turn ids into
links (``link``) while the MCP tool and the CLI show plain ids. Agent text is
escaped with ``escape_md`` and shortened in tables; long tables and id lists
are cut at ``max_rows`` and say how much they left out.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from .diagnosis import FORMS, SEVERITIES, TRIGGERS, AuthorityPath, Diagnosis, Ratio, severity_counts
from . import revisions
from .markdown import escape_md, md_table, safe_url, shorten
from .model import CATEGORY_OF_LETTER, KINDS, LETTERS
from .observed import markdown_lines as observed_lines

SECTIONS = (
    "Boundary and evidence",
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
OUTSIDE = "†"


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

    def id(self, i: str) -> str:
        url = self.link(i) if self.link else None
        text = f"[{i}]({safe_url(url)})" if url else i
        return text + OUTSIDE if self.d.is_outside(i) else text

    def kind_id(self, i: str) -> str:
        ev = self.d.evidence.get(i)
        return f"{self.id(i)} {ev.kind}" if ev else self.id(i)

    def ids(self, ids: Sequence[str], *, kinds: bool = False, none: str = "—") -> str:
        if not ids:
            return none
        shown = ids[: self.max_rows]
        fmt = self.kind_id if kinds else self.id
        text = ", ".join(fmt(i) for i in shown)
        if len(ids) > len(shown):
            self.left_out += len(ids) - len(shown)
            text += f" and {len(ids) - len(shown)} more"
        return text

    def summary(self, i: str) -> str:
        ev = self.d.evidence.get(i)
        return escape_md(shorten(ev.summary, SUMMARY_CHARS)) if ev else "—"

    def session(self, i: str) -> str:
        ev = self.d.evidence.get(i)
        return escape_md(ev.session) if ev else "—"

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def para(self, text: str) -> None:
        self.lines += [text, ""]

    def table(self, headers: Sequence[str], items: Sequence[T], row: Callable[[T], Sequence[str]] | None = None,
              align: str = "") -> None:
        """A table of the first ``max_rows`` items; only those are formatted."""
        shown = items[: self.max_rows]
        self.lines += md_table(headers, [row(x) for x in shown] if row else shown, align)
        self.lines.append("")
        if len(items) > len(shown):
            self.left_out += len(items) - len(shown)
            self.para(f"{len(items) - len(shown)} more rows not listed (the first {len(shown)} are shown).")

    def listing(self, label: str, ids: Sequence[str], empty: str) -> None:
        self.para(f"{label}: {self.ids(ids)}." if ids else empty)

    def heading(self, title: str) -> None:
        self.lines += [f"## {title}", ""]


def render_report(d: Diagnosis, link: Callable[[str], str | None] | None = None, *, max_rows: int = 50, audit=None) -> str:
    """The diagnosis as Markdown; ``link(id)`` turns cited ids into links when given;
    ``audit`` (``revisions.Audit``) adds approvals and impact to the Mechanism section."""
    w = _Writer(d, link, max_rows)
    _title(w)
    _boundary(w)
    _channels(w)
    _write_side(w)
    _read_back(w)
    _actions(w)
    _outcomes(w)
    _mechanism(w, audit)
    _authority(w)
    _findings(w)
    _limitations(w)
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
        w.add(
            f"- Events in scope: {n}, from {w.id(d.events[0].id)} to {w.id(d.events[-1].id)}",
            f"- Time span: {escape_md(d.first_time or '')} to {escape_md(d.last_time or '')} (UTC)",
        )
    else:
        w.add("- Events in scope: none")
    if d.outside:
        by_session: dict[str, list[str]] = {}
        for i in d.outside:
            by_session.setdefault(d.evidence[i].session, []).append(i)
        groups = list(by_session.items())
        parts = "; ".join(f"session {escape_md(s)}: {w.ids(ids)}" for s, ids in groups[: w.max_rows])
        if len(groups) > w.max_rows:
            w.left_out += sum(len(ids) for _, ids in groups[w.max_rows:])
            parts += f"; and {len(groups) - w.max_rows} more sessions"
        w.add(f"- Evidence outside the scope, marked {OUTSIDE}: {_plural(len(d.outside), 'event')} of other sessions "
              f"that events in scope build on or that build on them ({parts})")
    elif d.session:
        w.add("- Evidence outside the scope: none; no event in scope builds on another session and none is built on from one")
    if d.observed is not None:  # observed evidence: halo_git/observed.py
        w.add(*observed_lines(d.observed, w.id, w.max_rows))
    w.add("")
    if not n:
        w.para("No events in this scope: the agent has logged nothing here yet, so every section below is empty.")
        return
    rows = [[k, KINDS[k].category, str(c)] for k, c in d.by_kind.items()]
    rows.append(["**total**", "", f"**{n}**"])
    w.table(["kind", "category", "events"], rows, align="llr")
    w.table(
        ["session", "events", "first", "last", "from (UTC)", "to (UTC)"],
        d.sessions,
        lambda s: [escape_md(s.name), str(s.events), w.id(s.first_id), w.id(s.last_id), escape_md(s.first_time),
                   escape_md(s.last_time)],
        "lrllll",
    )


def _channels(w: _Writer) -> None:
    d = w.d
    w.heading("Channels")
    w.para(
        "An event's channels X→Y pair the letter of each event it builds on (X) with its own letter (Y): "
        "S Sensing (observe, outcome), M Memory (remember, recall), A Action (act), R Mechanism (revise). "
        "Rows are where material came from, columns where it went."
    )
    total = sum(d.channels.values())
    if total:
        w.table(
            ["from ╲ to", *LETTERS],
            [[f"**{x}** {CATEGORY_OF_LETTER[x]}", *(str(d.channels[(x, y)]) for y in LETTERS)] for x in LETTERS],
            align="lrrrr",
        )
    else:
        w.para("No event in this scope builds on another, so no channel was used.")
    m = d.metrics
    w.para("Loop metrics (a share with its counts; — when there is nothing to count):")
    w.table(
        ["metric", "share", "counts"],
        [
            ["outcome coverage of acts (silence exempt)", _pct(m.outcome_coverage), str(m.outcome_coverage)],
            ["memories recalled", _pct(m.memories_recalled), str(m.memories_recalled)],
            ["outcomes used later", _pct(m.outcomes_used), str(m.outcomes_used)],
            ["revisions governed (approved or bounded)", _pct(m.revisions_governed), str(m.revisions_governed)],
            ["self-initiated acts", _pct(m.self_initiated), str(m.self_initiated)],
        ],
        align="lrr",
    )


def _write_side(w: _Writer) -> None:
    d = w.d
    w.heading("Write side")
    mem = d.write.memories
    if not mem:
        w.para("No memory was written in this scope.")
        return
    w.para(
        f"What the agent kept for later: {_plural(len(mem), 'remember event')}, and the material each one keeps, "
        "by the category of the events it names in uses."
    )
    w.table(["source category", "memories"], [[c, str(n)] for c, n in d.write.by_source.items()], align="lr")
    w.table(
        ["memory", "session", "summary", "keeps", "recalled by"],
        mem,
        lambda m: [w.id(m.id), w.session(m.id), w.summary(m.id), w.ids(m.sources, kinds=True), w.ids(m.recalled_by)],
    )
    w.listing("Unsourced memories (nothing in uses, provenance unknown)", d.write.unsourced,
              "Every memory names what it keeps.")


def _read_back(w: _Writer) -> None:
    d = w.d
    r = d.read
    w.heading("Read-back")
    if r.recalls:
        w.para(f"What the agent read back: {_plural(len(r.recalls), 'recall')}, the memories each retrieved, "
               "and what used the recall afterwards.")
        w.table(
            ["recall", "session", "summary", "retrieved", "other uses", "used later by"],
            r.recalls,
            lambda x: [w.id(x.id), w.session(x.id), w.summary(x.id), w.ids(x.retrieved), w.ids(x.other), w.ids(x.used_by)],
        )
    else:
        w.para("No memory was recalled in this scope.")
    if r.cross_session:
        shown = r.cross_session[: w.max_rows]
        w.left_out += len(r.cross_session) - len(shown)
        w.add("Cross-session recall (a memory kept in one session read back in another):", "")
        w.add(*(f"- {w.id(a)} in session {w.session(a)} retrieved {w.id(m)} from session {w.session(m)}" for a, m in shown))
        if len(r.cross_session) > len(shown):
            w.add(f"- and {len(r.cross_session) - len(shown)} more")
        w.add("")
    else:
        w.para("No recall crossed sessions.")
    if d.write.memories:
        w.listing("Memories never recalled although the trace went on", r.never_recalled,
                  "Every memory kept in this scope was recalled, or the trace ends right after it.")
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
    w.para(f"What the agent did: {_plural(len(a.acts), 'act')} by trigger (asked for or self-initiated) and form.")
    rows = []
    for t in TRIGGERS:
        counts = [a.matrix[(t, f)] for f in FORMS]
        rows.append([t, *map(str, counts), str(sum(counts))])
    rows.append(["**total**", *(str(sum(a.matrix[(t, f)] for t in TRIGGERS)) for f in FORMS), f"**{len(a.acts)}**"])
    w.table(["trigger ╲ form", *FORMS, "total"], rows, align="lrrrrr")
    if a.self_initiated:
        w.para("Self-initiated acts (trigger=self): nothing the user asked or scheduled started them.")
        w.table(
            ["act", "form", "summary", "basis", "outcomes"],
            [x for x in a.acts if x.trigger == "self"],
            lambda x: [w.id(x.id), x.form, w.summary(x.id), w.ids(x.basis, kinds=True), w.ids(x.outcomes, none="none")],
        )
    else:
        w.para("No act was self-initiated: every act is logged with trigger=request.")
    w.listing("Acts with no basis (nothing in uses)", a.no_basis, "Every act names the events it relied on.")


def _outcomes(w: _Writer) -> None:
    d = w.d
    o = d.outcomes
    w.heading("Outcomes")
    c = o.coverage
    if c.denominator:
        w.para(f"Outcome coverage: {c} acts other than silence have an outcome ({_pct(c)}).")
    else:
        w.para("No act other than silence in this scope, so no outcome was due.")
    if o.outcomes:
        w.table(
            ["outcome", "about", "summary", "other uses", "used later by"],
            o.outcomes,
            lambda x: [w.id(x.id), w.kind_id(x.about), w.summary(x.id), w.ids(x.uses), w.ids(x.used_by)],
        )
    else:
        w.para("No outcome was logged in this scope.")
    if c.denominator:
        w.listing("Open loops (acts with no outcome; silence exempt)", o.open_loops, "No open loop: every act that expects an outcome has one.")
    if o.outcomes:
        w.listing("Outcomes that nothing later used (feedback ignored)", o.ignored,
                  "Every outcome fed a later event, or the trace ends right after it.")


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
                   f"**{r.governance}**" if r.ungoverned else r.governance,
                   w.ids(r.basis, kinds=True, none="none"), w.summary(r.id), w.ids(r.used_by)],
    )
    w.add(*revisions.mechanism_lines(audit or revisions.from_diagnosis(d, w.max_rows), w.id, [r.id for r in m.revisions], w.max_rows))
    w.listing("Ungoverned self-revisions (made_by=agent, governance=none)", m.ungoverned,
              "No ungoverned self-revision: every change the agent made was approved or bounded.")
    w.listing("Revisions with no evidence in uses", m.no_evidence, "Every revision names the evidence it rests on.")
    if m.repeated:
        w.add("Targets revised more than once:", "")
        shown = m.repeated[: w.max_rows]
        w.left_out += len(m.repeated) - len(shown)
        w.add(*(f"- “{escape_md(shorten(r.target, SUMMARY_CHARS))}”: {w.ids(r.ids)}" for r in shown))
        if len(m.repeated) > len(shown):
            w.add(f"- and {len(m.repeated) - len(shown)} more targets")
        w.add("")
    else:
        w.para("No target was revised more than once.")


def _authority(w: _Writer) -> None:
    d = w.d
    a = d.authority
    w.heading("Behavioral-authority paths")
    if not a.sinks:
        w.para("No self-initiated act and no revision in this scope, so there is no authority path to trace.")
        return
    w.para(
        f"For each self-initiated act and each revision ({a.sinks} in scope), the chains of earlier events that fed it, "
        "followed backward over uses and about: the retained material and feedback that held authority over it. "
        f"Longest first; at most {a.per_sink} chains per act or revision and {a.max_events} events per chain "
        "(a chain starting with … was cut at that depth)."
    )
    def upstream(*kinds: str) -> list[str]:
        return [i for i, up in a.upstream.items() if any(k in up for k in kinds)]

    w.para("Upstream of each, at any depth:")
    for label, ids in (
        ("retained memory (remember, recall)", upstream("remember", "recall")),
        ("outcomes (feedback)", upstream("outcome")),
        ("earlier revisions", upstream("revise")),
        ("an ungoverned self-revision", a.ungoverned_upstream),
        ("nothing logged", [i for i, up in a.upstream.items() if not up]),
    ):
        w.add(f"- {label}: {len(ids)} of {a.sinks} ({w.ids(ids, none='none')})")
    w.add("")

    def path_row(item: tuple[int, AuthorityPath]) -> list[str]:
        n, p = item
        chain = " → ".join(w.kind_id(i) for i in p.ids)
        return [str(n), w.kind_id(p.sink), ("… → " if p.truncated else "") + chain, str(len(p.ids)), ", ".join(p.carriers) or "—"]
    w.table(["#", "for", "path", "events", "through"], list(enumerate(a.paths, 1)), path_row, align="rllrl")
    if a.sinks_with_more:
        w.para(f"{_plural(a.sinks_with_more, 'act or revision', 'acts or revisions')} had more than {a.per_sink} chains; "
               "only the longest are listed.")


def _findings(w: _Writer) -> None:
    d = w.d
    w.heading("Findings")
    if not d.findings:
        w.para("No rule fired on this scope.")
        return
    counts = severity_counts(d.findings)
    w.para(
        f"{_plural(len(d.findings), 'finding')}: " + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES)
        + ". Sorted by severity, then rule id, then first event id; the rules are described on the Report page of the docs."
    )
    w.table(
        ["#", "severity", "rule", "events", "finding", "what to do"],
        list(enumerate(d.findings, 1)),
        lambda nf: [str(nf[0]), nf[1].severity, f"{nf[1].rule} {nf[1].name}", w.ids(nf[1].ids),
                    escape_md(nf[1].message), escape_md(nf[1].remedy)],
        align="rlllll",
    )


def _limitations(w: _Writer) -> None:
    d = w.d
    w.heading("Limitations and checks")
    w.add(
        "- Self-report: summaries, triggers, forms, governance labels and uses are the agent's own claims. "
        "An action it did not log, or a link it did not name, is invisible here; absence in the trace is not absence in the world"
        + (" (except tool calls of the observed evidence, in the sessions it covers)." if d.observed is not None else "."),
        "- A named link shows declared reliance, not that the earlier event changed the decision; authority paths are "
        "as complete as the agent's uses.",
        "- Outcomes are free text: the report does not judge whether an outcome was a success or a failure.",
        "- Rules that need later activity (memory never recalled, recall unused, outcome ignored) stay silent for the "
        "last event of the branch, where the trace cannot show the problem yet.",
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
