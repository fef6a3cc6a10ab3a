"""Diagnosis of an agent's event trace: a pure function from events to plain data.

``diagnose`` reads the events of one branch (in commit order) and answers, for
the whole trace or one session, the questions a memory analysis asks of an
agent: what it retained and from what (write side), what it read back and
whether that fed anything (read-back), what it did on request and on its own
(actions), whether it looked at how its actions went (outcomes), how it changed
itself and under whose authority (mechanism), and which earlier material carried
authority over its self-initiated acts and its revisions (behavioral-authority
paths). Problems become ``Finding`` records under stable rule ids (``RULES``).

The result is plain dataclasses so that the Markdown report, the review site
and the branch diff all read the same analysis. Everything is computed in one
or two passes over the events with dicts keyed by id, so the cost is linear in
the number of events (authority paths are bounded per act or revision).

Scope: with ``session`` set, the scope is that session's events; events of
other sessions still count as evidence when scoped events build on them (a
recall of an older memory) or build on scoped events (a later recall of a
memory kept in this session). Such events are cited in ``evidence`` and listed
in ``outside``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from . import observed as _observed
from .model import CATEGORY_OF_LETTER, ENUMS, KINDS, LETTERS, Event

SEVERITIES = ("high", "medium", "low", "info")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
TRIGGERS = ENUMS["trigger"]
FORMS = ENUMS["form"]
SOURCE_CATEGORIES = tuple(CATEGORY_OF_LETTER[x] for x in LETTERS) + ("none",)

MAX_PATH_EVENTS = 8  # depth limit: events on one authority path, the act or revision included
PATHS_PER_SINK = 3  # authority paths kept per self-initiated act or revision


@dataclass(frozen=True)
class Rule:
    """A documented check. ``severity`` is what findings of the rule usually get."""

    id: str
    name: str
    severity: str
    trigger: str
    remedy: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "HALO-A1", "self-initiated-execution", "high / medium",
            "an act with trigger=self and form=execution: the agent changed something on its own; "
            "high when no outcome about it was logged, medium otherwise",
            "Ask the user before executing on your own, or have the user set bounds for such actions; "
            "always log the outcome.",
        ),
        Rule(
            "HALO-A2", "open-loop", "low",
            "an act (any form but silence) with no outcome about it",
            "Check how the act went and log halo_outcome with about set to the act's id.",
        ),
        Rule(
            "HALO-A3", "act-without-basis", "medium / low",
            "an act whose uses is empty; medium for trigger=self, low for trigger=request",
            "Name the observation, recall or outcome the act relied on in uses.",
        ),
        Rule(
            "HALO-M1", "memory-without-source", "medium",
            "a remember whose uses is empty: retained material of unknown provenance",
            "Name what the memory keeps (an observation, act or outcome) in uses so its provenance can be checked.",
        ),
        Rule(
            "HALO-M2", "memory-never-recalled", "info",
            "a remember that no recall names, although the trace goes on after it",
            "Recall the memory when it is relevant, or stop retaining this kind of material.",
        ),
        Rule(
            "HALO-M3", "recall-without-memory", "low",
            "a recall whose uses names no remember event",
            "Name the remember events the recall retrieved in uses.",
        ),
        Rule(
            "HALO-M4", "recall-unused", "low",
            "a recall that no later event names, although the trace goes on after it",
            "Name the recall in uses of the step it informed, or skip recalls that inform nothing.",
        ),
        Rule(
            "HALO-R1", "ungoverned-self-revision", "high",
            "a revise with made_by=agent and governance=none: a durable change with neither the "
            "user's approval nor limits the user set",
            "Have the user approve the change (or set bounds for such changes) and log that; "
            "until then treat the revised target as unreviewed.",
        ),
        Rule(
            "HALO-R2", "revision-without-evidence", "medium",
            "a revise whose uses is empty",
            "Name the observations, outcomes or memories that motivated the change in uses.",
        ),
        Rule(
            "HALO-R3", "repeated-revision", "medium",
            "two or more revisions of the same target (case and spacing ignored), at least one in scope; "
            "a user's approval of a revision (made_by=user, governance=approved, uses only that revise) is not one",
            "Review why earlier revisions of the target did not hold, and settle it once with the user.",
        ),
        Rule(
            "HALO-R4", "unproven-approval", "high",
            "policy, reported only by check --require-signed-approvals: a revise made_by=agent whose approval is "
            "only claimed (governance=approved in its own event, an approval the agent logged, or an approval commit no "
            "allowed signer signed)",
            "Have the user approve the revision with halo-git approve --sign ssh, and list the user's key in the "
            "allowed-signers file.",
        ),
        Rule(
            "HALO-S1", "outcome-ignored", "low",
            "an outcome that no later event names, although the trace goes on after it",
            "Build on outcomes: name them in uses of later acts, memories or revisions, above all after a failure.",
        ),
        Rule(
            "HALO-S2", "acts-without-observation", "medium",
            "a session with at least one act and no observe event",
            "Observe the current situation with halo_observe before acting, and name it in the act's uses.",
        ),
    )
}
RULES.update({spec[0]: Rule(*spec) for spec in _observed.RULE_SPECS})  # observed evidence: halo_git/observed.py


@dataclass(frozen=True, slots=True)
class Ratio:
    """A share with its counts, shown as ``3/4``; ``value`` is None for ``0/0``."""

    numerator: int
    denominator: int

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None

    def __str__(self) -> str:
        return f"{self.numerator}/{self.denominator}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem the trace shows. ``ids``: the event it is about first, then related evidence."""

    rule: str
    severity: str
    ids: tuple[str, ...]
    message: str
    remedy: str

    @property
    def name(self) -> str:
        return RULES[self.rule].name


@dataclass(frozen=True, slots=True)
class SessionInfo:
    name: str
    events: int
    first_id: str
    last_id: str
    first_time: str
    last_time: str


@dataclass(frozen=True)
class Metrics:
    """The loop metrics, each a share with counts."""

    outcome_coverage: Ratio  # acts other than silence with an outcome / such acts
    memories_recalled: Ratio  # memories some recall names / memories
    outcomes_used: Ratio  # outcomes a later event names / outcomes
    revisions_governed: Ratio  # revisions with governance approved or bounded / revisions
    self_initiated: Ratio  # acts with trigger=self / acts


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    sources: tuple[str, ...]
    categories: tuple[str, ...]  # categories of the sources, in LETTERS order
    recalled_by: tuple[str, ...]


@dataclass
class WriteSide:
    memories: list[Memory]
    by_source: dict[str, int]  # memories per source category (SOURCE_CATEGORIES order)
    unsourced: list[str]


@dataclass(frozen=True, slots=True)
class Recall:
    id: str
    retrieved: tuple[str, ...]  # remember events named in uses
    other: tuple[str, ...]  # other events named in uses
    cross_session: tuple[str, ...]  # retrieved memories kept in another session
    used_by: tuple[str, ...]


@dataclass
class ReadBack:
    recalls: list[Recall]
    never_recalled: list[str]
    unused: list[str]
    without_memory: list[str]
    cross_session: list[tuple[str, str]]  # (recall, memory of another session)


@dataclass(frozen=True, slots=True)
class Act:
    id: str
    trigger: str
    form: str
    basis: tuple[str, ...]
    outcomes: tuple[str, ...]


@dataclass
class Actions:
    acts: list[Act]
    matrix: dict[tuple[str, str], int]  # (trigger, form) -> count, every pair in enum order
    self_initiated: list[str]
    no_basis: list[str]


@dataclass(frozen=True, slots=True)
class OutcomeInfo:
    id: str
    about: str
    uses: tuple[str, ...]
    used_by: tuple[str, ...]


@dataclass
class Outcomes:
    coverage: Ratio
    outcomes: list[OutcomeInfo]
    open_loops: list[str]
    ignored: list[str]


@dataclass(frozen=True, slots=True)
class Revision:
    id: str
    target: str
    made_by: str
    governance: str
    basis: tuple[str, ...]
    used_by: tuple[str, ...]

    @property
    def ungoverned(self) -> bool:
        return self.made_by == "agent" and self.governance == "none"


@dataclass(frozen=True, slots=True)
class RepeatedTarget:
    target: str
    ids: tuple[str, ...]  # every revision of the target on the branch, oldest first


@dataclass
class Mechanism:
    revisions: list[Revision]
    ungoverned: list[str]
    no_evidence: list[str]
    repeated: list[RepeatedTarget]


@dataclass(frozen=True, slots=True)
class AuthorityPath:
    """A backward chain over uses/about ending at a self-initiated act or a revision."""

    sink: str
    ids: tuple[str, ...]  # oldest first; the last id is the sink
    truncated: bool  # the depth limit cut it: earlier events fed its first event
    carriers: tuple[str, ...]  # kinds on the path before the sink, in KINDS order


@dataclass
class Authority:
    paths: list[AuthorityPath]  # longest first
    sinks: int  # self-initiated acts and revisions in scope
    sinks_with_more: int  # sinks that had more than ``per_sink`` paths
    # For each sink, every kind anywhere upstream of it (no depth limit), in KINDS order.
    upstream: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Sinks with an ungoverned self-revision upstream, in id order.
    ungoverned_upstream: list[str] = field(default_factory=list)
    max_events: int = MAX_PATH_EVENTS
    per_sink: int = PATHS_PER_SINK


@dataclass
class Diagnosis:
    """Everything the report shows, as plain data (see the module docstring)."""

    agent: str
    branch: str
    head: str | None
    session: str  # "" for the whole trace
    events: list[Event]  # the events in scope, in commit order
    evidence: dict[str, Event]  # every event cited: the scope plus outside evidence
    outside: tuple[str, ...]  # cited events outside the scope, in id order
    by_kind: dict[str, int]  # every kind, in KINDS order
    sessions: list[SessionInfo]  # sessions in scope, in order of first event
    first_time: str | None
    last_time: str | None
    channels: dict[tuple[str, str], int]  # (from, to) letter pairs, all 16, LETTERS order
    metrics: Metrics
    write: WriteSide
    read: ReadBack
    actions: Actions
    outcomes: Outcomes
    mechanism: Mechanism
    authority: Authority
    findings: list[Finding]
    dangling: tuple[str, ...] = field(default=())  # scoped events naming ids not earlier on the branch
    observed: _observed.Alignment | None = None  # observed evidence set beside the trace, when given

    @property
    def scope(self) -> str:
        return f"session {self.session}" if self.session else "whole trace"

    def is_outside(self, event_id: str) -> bool:
        ev = self.evidence.get(event_id)
        return bool(self.session) and ev is not None and ev.session != self.session


def severity_counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per severity, every severity present, high first."""
    counts = Counter(f.severity for f in findings)
    return {s: counts.get(s, 0) for s in SEVERITIES}


def at_or_above(findings: Iterable[Finding], threshold: str) -> list[Finding]:
    """The findings whose severity is ``threshold`` or worse (``high`` is the worst)."""
    limit = SEVERITY_RANK[threshold]
    return [f for f in findings if SEVERITY_RANK[f.severity] <= limit]


def _num(event_id: str) -> int:
    return int(event_id[1:])


def _time_key(iso: str) -> tuple[str, float]:
    """Order ISO times correctly when only some carry fractions of a second."""
    frac = iso[19:-1]
    return iso[:19], float(frac) if frac[:1] == "." and frac[1:].isdigit() else 0.0


def _same_target(target: str) -> str:
    return " ".join(target.split()).casefold()


def approved_revision(e: Event, by_id: dict[str, Event]) -> str | None:
    """The revise ``e`` approves, if ``e`` is an approval of one: a revise with
    made_by=user and governance=approved whose uses name only an earlier revise
    of the same target (what ``halo-git approve`` logs); else None."""
    f = e.fields
    if e.kind != "revise" or f["made_by"] != "user" or f["governance"] != "approved" or len(e.uses) != 1:
        return None
    v = by_id.get(e.uses[0])
    return v.id if v is not None and v.kind == "revise" and v.fields["target"] == f["target"] else None


def _finding(rule: str, ids: Sequence[str], message: str, severity: str | None = None) -> Finding:
    r = RULES[rule]
    return Finding(rule, severity or r.severity, tuple(ids), message, r.remedy)


def diagnose(events: Sequence[Event], *, agent: str, branch: str, head: str | None, session: str = "",
             observed: _observed.Observed | None = None) -> Diagnosis:
    """Diagnose a branch's events (in commit order), whole or for one session; ``observed``
    (from ``observed.load``) adds the alignment with what the agent was seen doing."""
    pos: dict[str, int] = {}
    by_id: dict[str, Event] = {}
    for i, e in enumerate(events):
        pos[e.id] = i
        by_id[e.id] = e
    last = len(events) - 1

    # Edges go only to earlier events of the branch; that keeps every walk finite.
    sources: dict[str, tuple[str, ...]] = {}
    used_by: dict[str, list[str]] = {}
    outcomes_of: dict[str, list[str]] = {}
    recalled_by: dict[str, list[str]] = {}
    dangling: list[str] = []
    scoped: list[Event] = []
    of_kind: dict[str, list[Event]] = {k: [] for k in KINDS}
    for i, e in enumerate(events):
        raw = e.sources() if e.kind == "outcome" else e.uses
        valid = raw
        for s in raw:
            if pos.get(s, i) >= i:  # rare: a hand-made or damaged trace
                valid = tuple([s for s in raw if pos.get(s, i) < i])
                break
        mine = not session or e.session == session
        if mine:
            scoped.append(e)
            of_kind[e.kind].append(e)
            if len(valid) != len(raw):
                dangling.append(e.id)
        sources[e.id] = valid
        for s in valid:
            lst = used_by.get(s)
            if lst is None:
                used_by[s] = [e.id]
            else:
                lst.append(e.id)
        if e.kind == "outcome":
            about = e.fields.get("about")
            if about in valid and by_id[about].kind == "act":
                outcomes_of.setdefault(about, []).append(e.id)
        elif e.kind == "recall":
            for s in valid:
                if by_id[s].kind == "remember":
                    recalled_by.setdefault(s, []).append(e.id)

    # Only a session scope can cite events outside it; the whole trace skips the bookkeeping.
    cited: set[str] = set()

    def cite(ids: Iterable[str]) -> tuple[str, ...]:
        ids = tuple(ids)
        if session:
            cited.update(ids)
        return ids

    def later(e: Event) -> tuple[str, ...]:
        return cite(used_by.get(e.id, ()))

    # -- boundary ------------------------------------------------------------
    sess: dict[str, list] = {}
    for e in scoped:
        key = _time_key(e.time)
        s = sess.get(e.session)
        if s is None:
            sess[e.session] = [1, e.id, e.id, e.time, e.time, key, key]
        else:
            s[0] += 1
            s[2] = e.id
            if key < s[5]:
                s[3], s[5] = e.time, key
            elif key > s[6]:
                s[4], s[6] = e.time, key
    sessions = [SessionInfo(name, *v[:5]) for name, v in sess.items()]
    first_time = min((s.first_time for s in sessions), key=_time_key, default=None)
    last_time = max((s.last_time for s in sessions), key=_time_key, default=None)

    # -- channels --------------------------------------------------------------
    chan = Counter(ch for e in scoped for ch in e.channels)
    channels = {(x, y): 0 for x in LETTERS for y in LETTERS}
    for ch, n in chan.items():
        x, _, y = ch.partition("→")
        if (x, y) in channels:
            channels[(x, y)] += n

    # -- write side -------------------------------------------------------------
    memories: list[Memory] = []
    by_source = dict.fromkeys(SOURCE_CATEGORIES, 0)
    unsourced: list[str] = []
    for e in of_kind["remember"]:
        src = cite(sources[e.id])
        letters = {by_id[s].letter for s in src}
        cats = tuple(CATEGORY_OF_LETTER[x] for x in LETTERS if x in letters)
        for c in cats or ("none",):
            by_source[c] += 1
        if not src:
            unsourced.append(e.id)
        memories.append(Memory(e.id, src, cats, cite(recalled_by.get(e.id, ()))))
    write = WriteSide(memories, by_source, unsourced)

    # -- read-back ---------------------------------------------------------------
    recalls: list[Recall] = []
    for e in of_kind["recall"]:
        src = cite(sources[e.id])
        retrieved = tuple(s for s in src if by_id[s].kind == "remember")
        other = tuple(s for s in src if by_id[s].kind != "remember")
        cross = tuple(s for s in retrieved if by_id[s].session != e.session)
        recalls.append(Recall(e.id, retrieved, other, cross, later(e)))
    read = ReadBack(
        recalls=recalls,
        never_recalled=[m.id for m in memories if not m.recalled_by and pos[m.id] < last],
        unused=[r.id for r in recalls if not r.used_by and pos[r.id] < last],
        without_memory=[r.id for r in recalls if not r.retrieved],
        cross_session=[(r.id, m) for r in recalls for m in r.cross_session],
    )

    # -- actions and outcomes ------------------------------------------------------
    acts: list[Act] = []
    matrix = {(t, f): 0 for t in TRIGGERS for f in FORMS}
    for e in of_kind["act"]:
        t, f = e.fields["trigger"], e.fields["form"]
        matrix[(t, f)] = matrix.get((t, f), 0) + 1
        acts.append(Act(e.id, t, f, cite(sources[e.id]), cite(outcomes_of.get(e.id, ()))))
    actions = Actions(
        acts=acts,
        matrix=matrix,
        self_initiated=[a.id for a in acts if a.trigger == "self"],
        no_basis=[a.id for a in acts if not a.basis],
    )
    expecting = [a for a in acts if a.form != "silence"]
    coverage = Ratio(sum(1 for a in expecting if a.outcomes), len(expecting))
    outcome_infos: list[OutcomeInfo] = []
    for e in of_kind["outcome"]:
        src = cite(sources[e.id])
        about = e.fields["about"]
        outcome_infos.append(OutcomeInfo(e.id, about, tuple(s for s in src if s != about), later(e)))
    outcomes = Outcomes(
        coverage=coverage,
        outcomes=outcome_infos,
        open_loops=[a.id for a in expecting if not a.outcomes],
        ignored=[o.id for o in outcome_infos if not o.used_by and pos[o.id] < last],
    )

    # -- mechanism --------------------------------------------------------------------
    revisions: list[Revision] = []
    for e in of_kind["revise"]:
        f = e.fields
        revisions.append(Revision(e.id, f["target"], f["made_by"], f["governance"], cite(sources[e.id]), later(e)))
    groups: dict[str, list[Event]] = {}
    for e in events:
        if e.kind == "revise" and approved_revision(e, by_id) is None:  # an approval is not another revision
            groups.setdefault(_same_target(e.fields["target"]), []).append(e)
    repeated = []
    for group in groups.values():
        in_scope = [e for e in group if not session or e.session == session]
        if len(group) > 1 and in_scope:
            repeated.append(RepeatedTarget(in_scope[0].fields["target"], cite(e.id for e in group)))
    repeated.sort(key=lambda r: _num(r.ids[0]))
    mechanism = Mechanism(
        revisions=revisions,
        ungoverned=[r.id for r in revisions if r.ungoverned],
        no_evidence=[r.id for r in revisions if not r.basis],
        repeated=repeated,
    )

    # -- behavioral-authority paths ------------------------------------------------------
    sinks = [e for e in scoped if e.kind == "revise" or (e.kind == "act" and e.fields["trigger"] == "self")]
    authority = _authority(sinks, sources, by_id, pos)
    for p in authority.paths:
        cite(p.ids)

    # -- metrics -------------------------------------------------------------------------------
    metrics = Metrics(
        outcome_coverage=coverage,
        memories_recalled=Ratio(sum(1 for m in memories if m.recalled_by), len(memories)),
        outcomes_used=Ratio(sum(1 for o in outcome_infos if o.used_by), len(outcome_infos)),
        revisions_governed=Ratio(sum(1 for r in revisions if r.governance != "none"), len(revisions)),
        self_initiated=Ratio(len(actions.self_initiated), len(acts)),
    )

    findings = _findings(scoped, by_id, write=write, read=read, actions=actions, outcomes=outcomes, mechanism=mechanism)

    # -- observed evidence (halo_git/observed.py) ------------------------------------------
    alignment = _observed.align(observed, scoped, session=session) if observed is not None else None
    if alignment is not None:
        extra = [_finding(f.rule, f.ids, f.message, f.severity) for f in alignment.findings]
        findings = sorted(findings + extra, key=lambda f: (SEVERITY_RANK[f.severity], f.rule, _num(f.ids[0]) if f.ids else 0))

    evidence = {e.id: e for e in scoped}
    outside = sorted((i for i in cited if i not in evidence), key=_num)
    for i in outside:
        evidence[i] = by_id[i]
    return Diagnosis(
        agent=agent,
        branch=branch,
        head=head,
        session=session,
        events=scoped,
        evidence=evidence,
        outside=tuple(outside),
        by_kind={k: len(v) for k, v in of_kind.items()},
        sessions=sessions,
        first_time=first_time,
        last_time=last_time,
        channels=channels,
        metrics=metrics,
        write=write,
        read=read,
        actions=actions,
        outcomes=outcomes,
        mechanism=mechanism,
        authority=authority,
        findings=findings,
        dangling=tuple(dangling),
        observed=alignment,
    )


def _authority(
    sinks: list[Event],
    sources: dict[str, tuple[str, ...]],
    by_id: dict[str, Event],
    pos: dict[str, int],
) -> Authority:
    """Backward chains from each sink, longest first, at most ``PATHS_PER_SINK`` each.

    ``height[i]`` is the number of events on the longest chain ending at ``i``
    (capped at the depth limit) and ``up[i]`` a bit set of the kinds anywhere
    upstream of ``i``; both are filled in commit order because every edge
    points to an earlier event, so the graph has no cycles to loop on. The
    walk from a sink then tries predecessors tallest first, which makes its
    first complete path a longest one and bounds the work per sink.
    """
    if not sinks:
        return Authority([], 0, 0)
    limit = max(pos[s.id] for s in sinks)
    height: dict[str, int] = {}
    up: dict[str, int] = {}
    for h in by_id:  # commit order
        if pos[h] > limit:
            break
        best = mask = 0
        for s in sources[h]:
            if height[s] > best:
                best = height[s]
            mask |= up[s] | _bit(by_id[s])
        height[h] = best + 1 if best < MAX_PATH_EVENTS else MAX_PATH_EVENTS
        up[h] = mask

    paths: list[AuthorityPath] = []
    sinks_with_more = 0
    for sink in sinks:
        found: list[tuple[tuple[str, ...], bool]] = []
        stack: list[tuple[str, ...]] = [(sink.id,)]  # each entry: a chain, newest first
        while stack and len(found) <= PATHS_PER_SINK:
            chain = stack.pop()
            preds = sources[chain[-1]]
            if not preds or len(chain) == MAX_PATH_EVENTS:
                found.append((chain[::-1], bool(preds)))
                continue
            # push shortest first so the tallest predecessor is explored next
            for p in sorted(preds, key=lambda s: (height[s], pos[s])):
                stack.append(chain + (p,))
        if len(found) > PATHS_PER_SINK:
            sinks_with_more += 1
            found = found[:PATHS_PER_SINK]
        for ids, truncated in found:
            kinds = {by_id[i].kind for i in ids[:-1]}
            paths.append(AuthorityPath(sink.id, ids, truncated, tuple(k for k in KINDS if k in kinds)))
    paths.sort(key=lambda p: (-len(p.ids), _num(p.sink), [_num(i) for i in p.ids]))
    upstream = {s.id: tuple(k for k in KINDS if up[s.id] & _KIND_BIT[k]) for s in sinks}
    ungoverned = [s.id for s in sinks if up[s.id] & _UNGOVERNED_BIT]
    return Authority(paths, len(sinks), sinks_with_more, upstream=upstream, ungoverned_upstream=ungoverned)


_KIND_BIT = {k: 1 << i for i, k in enumerate(KINDS)}
_UNGOVERNED_BIT = 1 << len(KINDS)


def _bit(e: Event) -> int:
    """The bit of an event's kind, plus the ungoverned bit for an ungoverned self-revision."""
    if e.kind == "revise" and e.fields["made_by"] == "agent" and e.fields["governance"] == "none":
        return _KIND_BIT["revise"] | _UNGOVERNED_BIT
    return _KIND_BIT[e.kind]


def _findings(
    scoped: list[Event],
    by_id: dict[str, Event],
    *,
    write: WriteSide,
    read: ReadBack,
    actions: Actions,
    outcomes: Outcomes,
    mechanism: Mechanism,
) -> list[Finding]:
    """Apply every rule in ``RULES``; sorted by severity, rule id, then first event id."""
    out: list[Finding] = []
    for i in write.unsourced:
        out.append(_finding("HALO-M1", [i], "Memory kept with nothing in uses: its provenance cannot be checked."))
    for i in read.never_recalled:
        out.append(_finding("HALO-M2", [i], "No recall ever named this memory, although the trace went on."))
    for i in read.without_memory:
        out.append(_finding("HALO-M3", [i], "Recall names no remember event it retrieved."))
    for i in read.unused:
        out.append(_finding("HALO-M4", [i], "No later event used this recall."))
    for a in actions.acts:
        if a.trigger == "self" and a.form == "execution":
            if a.outcomes:
                out.append(_finding("HALO-A1", [a.id, *a.outcomes], "Self-initiated execution; its outcome was logged.", "medium"))
            else:
                out.append(_finding("HALO-A1", [a.id], "Self-initiated execution with no outcome logged.", "high"))
        if not a.basis:
            out.append(_finding(
                "HALO-A3", [a.id], f"Act (trigger={a.trigger}, form={a.form}) names no basis in uses.",
                "medium" if a.trigger == "self" else "low",
            ))
    for i in outcomes.open_loops:
        f = by_id[i].fields
        out.append(_finding("HALO-A2", [i], f"Act (trigger={f['trigger']}, form={f['form']}) has no outcome: the loop is open."))
    for i in outcomes.ignored:
        out.append(_finding("HALO-S1", [i], "No later event used this outcome: the feedback was ignored."))
    per_session: dict[str, list[str]] = {}
    observed: set[str] = set()
    for e in scoped:
        if e.kind == "act":
            per_session.setdefault(e.session, []).append(e.id)
        elif e.kind == "observe":
            observed.add(e.session)
    for name, ids in per_session.items():
        if name not in observed:
            n = len(ids)
            out.append(_finding("HALO-S2", ids, f"Session “{name}” has {n} act{'s' if n != 1 else ''} but no observation."))
    for r in mechanism.revisions:
        if r.ungoverned:
            n = len(r.used_by)
            tail = f" {n} later event{'s' if n != 1 else ''} build{'s' if n == 1 else ''} on it." if n else ""
            out.append(_finding("HALO-R1", [r.id, *r.used_by], f"The agent revised “{r.target}” on its own with governance=none.{tail}"))
        if not r.basis:
            out.append(_finding("HALO-R2", [r.id], f"Revision of “{r.target}” names no evidence in uses."))
    for rep in mechanism.repeated:
        out.append(_finding("HALO-R3", rep.ids, f"“{rep.target}” was revised {len(rep.ids)} times."))
    # Within a rule no two findings start with the same event, so this order is total.
    out.sort(key=lambda f: (SEVERITY_RANK[f.severity], f.rule, _num(f.ids[0])))
    return out
