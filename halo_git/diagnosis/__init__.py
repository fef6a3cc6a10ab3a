"""Diagnosis of an agent's event trace: a pure function from events to plain data.

``diagnose`` reads the events of one branch (in commit order) and answers, for
the whole trace or one session, the questions a memory analysis asks of an
agent: what it retained and from what (write side), what it read back and
whether that fed anything (read-back), what it did on request and on its own
(actions), whether it looked at how its actions went (outcomes), how it changed
itself and under whose authority (mechanism), and which earlier material held
authority over what it did (behavioral-authority paths). Problems become
``Finding`` records under stable rule ids (``RULES``); ``issues`` groups them
into the few a reviewer should read first.

The result is plain dataclasses so that the Markdown report, the review site,
the CI gate and the branch diff all read the same analysis. Everything is
computed in a few passes over the events with dicts keyed by id, so the cost is
linear in the number of events: what lies upstream of an event (kinds, governed
or ungoverned revisions, the newest memories of up to two sessions) is carried
forward edge by edge, and the walks that spell out a chain are bounded.

Scope: with ``session`` set, the scope is that session's events; events of
other sessions still count as evidence when scoped events build on them (a
recall of an older memory) or build on scoped events (a later recall of a
memory kept in this session). Such events are cited in ``evidence`` and listed
in ``outside``.

Outcomes are free text. Only one judgement is made of them: an outcome whose
summary uses a word of failure or complaint (``ADVERSE_WORDS``) counts as
*adverse*; severities and the feedback rule use that, nothing else.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from .. import observed as _observed
from ..model import CATEGORY_OF_LETTER, KINDS, LETTERS, Event
from . import actions as _actions
from . import mechanism as _mechanism
from . import memory as _memory
from . import reading
from . import sensing as _sensing
from . import shapes as _shapes
from .context import _common_words, _Context
from .graph import (  # noqa: F401  (re-exported: the revision audit and the tests use them)
    _ALL_KINDS, _FAR, _GOVERNED_BIT, _KIND_BIT, _MEMORY_BITS, _SEARCH_BUDGET, _UNGOVERNED_BIT, MAX_PATH_EVENTS,
    _Graph, _decided, _failed_source, _grounded, _own_bit, is_user_rule, reviewed_memory,
)
from .reading import ADVERSE_WORDS, is_adverse  # noqa: F401  (re-exported: the Report page lists them)
from .result import (  # noqa: F401  (re-exported: the report, the site, the gate, the formats and the diff read them)
    FORMS, PATHS_LISTED, PATHS_PER_SINK, QUOTE_CHARS, SOURCE_CATEGORIES, TRIGGERS, Act, Actions, Authority,
    AuthorityPath, Diagnosis, Finding, Mechanism, Memory, Metrics, OutcomeInfo, Outcomes, Ratio, ReadBack, Recall,
    RepeatedTarget, Revision, SessionInfo, WriteSide, _finding, quote,
)
from .rules import RULE_WEIGHT, RULES, SEVERITIES, SEVERITY_RANK, Rule  # noqa: F401  (re-exported)
from .shared import _num, _same_target, _within_bound, approved_revision  # noqa: F401  (approved_revision re-exported)
from .summary import Issue, at_or_above, group_findings, issues, severity_counts  # noqa: F401  (re-exported)


def _time_key(iso: str) -> tuple[str, float]:
    """Order ISO times correctly when only some carry fractions of a second."""
    frac = iso[19:-1]
    return iso[:19], float(frac) if frac[:1] == "." and frac[1:].isdigit() else 0.0


_OBSERVED_WHY = {
    "HALO-O1": "The observed evidence shows a tool call the agent's own account leaves out, so the trace "
               "under-reports what the agent did.",
    "HALO-O2": "The trace claims an execution the observed evidence does not show: either the claim is wrong or "
               "the evidence is incomplete.",
}


def diagnose(events: Sequence[Event], *, agent: str, branch: str, head: str | None, session: str = "",
             observed: _observed.Observed | None = None, proven_approvals: Iterable[str] = ()) -> Diagnosis:
    """Diagnose a branch's events (in commit order), whole or for one session; ``observed``
    (from ``observed.load``) adds the alignment with what the agent was seen doing.
    ``proven_approvals``: ids of approval events whose commits an allowed signer signed (the
    store checks signatures; the diagnosis only reads the answer). Any other approval of an
    ungoverned self-revision is a claim and leaves HALO-R1 high."""
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
    observed_by: dict[str, list[str]] = {}
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
        kind = e.kind
        if kind == "outcome":
            about = e.fields.get("about")
            if about in valid and by_id[about].kind == "act":
                outcomes_of.setdefault(about, []).append(e.id)
        elif kind == "recall":
            for s in valid:
                if by_id[s].kind == "remember":
                    recalled_by.setdefault(s, []).append(e.id)
        elif kind == "observe":
            for s in valid:
                if by_id[s].kind == "act" and not reading.is_adverse(e.summary) and not reading.says_pending(e.summary):
                    # a failure found later, or a status that is still pending, is no check
                    observed_by.setdefault(s, []).append(e.id)

    # Only a session scope can cite events outside it; the whole trace skips the bookkeeping.
    cited: set[str] = set()

    def cite(ids: Iterable[str]) -> tuple[str, ...]:
        ids = tuple(ids)
        cited.update(ids)
        return ids

    if not session:
        cite = tuple  # type: ignore[assignment]  # the whole trace cites nothing outside it

    def later(e: Event) -> tuple[str, ...]:
        return cite(used_by.get(e.id, ()))

    # -- observed evidence (halo_git/observed.py): a call the runtime recorded as failed marks its step failed
    alignment = _observed.align(observed, scoped, session=session) if observed is not None else None
    g = _Graph(events, sources, by_id, pos, alignment.failed_steps if alignment is not None else {})
    reach = g.reaches(events, used_by)

    def is_bad(outcome_id: str) -> bool:
        return outcome_id in g.adverse

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
        direct = tuple(u for u in used_by.get(e.id, ()) if by_id[u].kind != "recall")
        memories.append(Memory(e.id, src, cats, cite(recalled_by.get(e.id, ())), cite(direct), g.reviewed[e.id]))
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
        never_recalled=[m.id for m in memories if not m.recalled_by and not m.used_by and pos[m.id] < last],
        unused=[r.id for r in recalls if not r.used_by and pos[r.id] < last],
        without_memory=[r.id for r in recalls if not r.retrieved and not any(by_id[o].kind == "revise" for o in r.other)],
        cross_session=[(r.id, m) for r in recalls for m in r.cross_session],
        direct=[m.id for m in memories if not m.recalled_by and m.used_by],
    )

    # -- actions and outcomes ------------------------------------------------------
    acts: list[Act] = []
    matrix = {(t, f): 0 for t in TRIGGERS for f in FORMS}
    for e in of_kind["act"]:
        t, f = e.fields["trigger"], e.fields["form"]
        matrix[(t, f)] = matrix.get((t, f), 0) + 1
        acts.append(Act(e.id, t, f, cite(sources[e.id]), cite(outcomes_of.get(e.id, ())), cite(observed_by.get(e.id, ()))))
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
        outcome_infos.append(OutcomeInfo(e.id, about, tuple(s for s in src if s != about), later(e), is_bad(e.id)))

    def answered_beside(i: str) -> bool:
        """A later step that uses the question also names what came back after it (the manager's answer to a
        proposal, named by the revision adopting it): the agent saw the answer, beside the question."""
        return any(by_id[s].kind in ("observe", "outcome") and pos[s] > pos[i] and not reading.is_adverse(by_id[s].summary)
                   for u in used_by.get(i, ()) for s in sources[u])

    def unchecked(a: Act) -> bool:
        asked = a.form == "communication" and reading.says_question(by_id[a.id].summary)  # a question or proposal
        settled = [o for o in a.outcomes if not reading.says_pending(by_id[o].summary)]
        return not settled and not (asked and (a.outcomes or answered_beside(a.id))) and not a.observed_by \
            and not (a.form == "preparation" and used_by.get(a.id))

    outcomes = Outcomes(
        coverage=coverage,
        outcomes=outcome_infos,
        open_loops=[a.id for a in expecting if unchecked(a)],
        ignored=[o.id for o in outcome_infos if o.adverse and pos[o.id] < last and o.about in by_id
                 and by_id[o.about].kind == "act" and not _repaired(o.id, by_id, used_by)
                 and not reading.repairs_itself(by_id[o.id].summary)
                 and not any(pos[p] > pos[o.id] and (not is_bad(p) or _repaired(p, by_id, used_by))
                             for p in outcomes_of.get(o.about, ()))],  # (a later result about the same act that
        # worked, or that was dealt with, follows this one up)
        observed=[a.id for a in expecting if not a.outcomes and a.observed_by],
    )

    # -- mechanism --------------------------------------------------------------------
    revisions: list[Revision] = []
    for e in of_kind["revise"]:
        f = e.fields
        revisions.append(Revision(e.id, f["target"], f["made_by"], f["governance"], cite(sources[e.id]), later(e)))
    groups: dict[str, list[Event]] = {}
    for e in events:
        if e.kind == "revise" and e.fields["made_by"] == "agent" and approved_revision(e, by_id) is None:
            # the user's own settings and approvals are not the agent changing its mind
            groups.setdefault(_same_target(e.fields["target"]), []).append(e)
    repeated = []
    for group in groups.values():
        in_scope = [e for e in group if not session or e.session == session]
        if len(group) > 1 and in_scope:
            repeated.append(RepeatedTarget(in_scope[0].fields["target"], cite(e.id for e in group)))
    repeated.sort(key=lambda r: _num(r.ids[0]))
    unbounded = [r.id for r in revisions if r.made_by == "agent" and r.governance == "bounded"
                 and not _within_bound(g, by_id[r.id])
                 and not (reading.says_expiring(by_id[r.id].summary) and reading.says_scoped(by_id[r.id].summary))]
    # (a change for a stated window that ends by itself, "muted 00:40-01:20 only, unmutes automatically",
    # carries its own bound)
    mechanism = Mechanism(
        revisions=revisions,
        ungoverned=[r.id for r in revisions if r.ungoverned],
        no_evidence=[r.id for r in revisions if not r.basis],
        repeated=repeated,
        unbounded=unbounded,
    )

    # -- behavioral-authority paths ------------------------------------------------------
    authority, cross_of = _authority(scoped, g)
    for p in authority.paths:
        cite(p.ids)
        cite(p.also)

    # -- metrics -------------------------------------------------------------------------------
    metrics = Metrics(
        outcome_coverage=coverage,
        memories_recalled=Ratio(sum(1 for m in memories if m.recalled_by or m.used_by), len(memories)),
        outcomes_used=Ratio(sum(1 for o in outcome_infos if o.used_by), len(outcome_infos)),
        revisions_governed=Ratio(sum(1 for r in revisions if r.governance != "none"), len(revisions)),
        self_initiated=Ratio(len(actions.self_initiated), len(acts)),
    )

    ctx = _Context(events, scoped, by_id, pos, last, g, used_by, recalled_by, reach, is_bad, cross_of, session,
                   _common_words(events), frozenset(proven_approvals))
    findings = _findings(ctx, write=write, read=read, actions=actions, outcomes=outcomes, mechanism=mechanism)
    for f in findings:
        cite(f.ids)

    # -- observed evidence (halo_git/observed.py) ------------------------------------------
    if alignment is not None:
        extra = [Finding(f.rule, f.severity, tuple(f.ids), f.message, RULES[f.rule].remedy, "", _OBSERVED_WHY[f.rule],
                         RULES[f.rule].remedy) for f in alignment.findings]
        findings = sorted(findings + extra, key=lambda f: (SEVERITY_RANK[f.severity], f.rule, _num(f.ids[0]) if f.ids else 0))
        for f in extra:
            cite(f.ids)

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
        claimed_approvals=tuple(ctx.claimed_approvals),
    )


# -- authority paths ---------------------------------------------------------------------------


def _sink_classes(e: Event, cross: bool) -> tuple[str, ...]:
    out = []
    if e.kind == "act":
        if e.fields["form"] == "execution":
            out.append("execution")
        if e.fields["trigger"] == "self":
            out.append("self")
    else:
        out.append("revise")
    if cross:
        out.append("cross-session")
    return tuple(out)


def _authority(scoped: list[Event], g: _Graph) -> tuple[Authority, dict[str, tuple[str, bool]]]:
    """Sinks, their upstream summary, and the most salient decisive chains (see ``Authority``).

    A sink is every execution (any trigger), every self-initiated act, every
    revision and every act whose ancestry holds memory kept in another session.
    Sinks are ranked by what lies upstream (memory of another session,
    ungoverned revision, retained memory, outcomes, revisions) and by what the
    sink is (execution, self-initiated, revision); the top ones get their
    decisive chain: the shortest one back to the most salient event upstream.
    Chains of the same shape from the same event are merged.
    """
    sinks: list[Event] = []
    cross_of: dict[str, tuple[str, bool]] = {}
    classes = dict.fromkeys(("execution", "self", "revise", "cross-session"), 0)
    score: dict[str, int] = {}
    for e in scoped:
        if e.kind == "act":
            m, unreviewed = g.cross_memory(e)
            if m is not None:
                cross_of[e.id] = (m, unreviewed)
            if m is None and e.fields["form"] != "execution" and e.fields["trigger"] != "self":
                continue
        elif e.kind != "revise":
            continue
        else:
            m = None
        sinks.append(e)
        for c in _sink_classes(e, m is not None):
            classes[c] += 1
        up = g.up[e.id]
        s = (16 + (4 if cross_of[e.id][1] else 0)) if m is not None else 0
        s += 8 if up & _UNGOVERNED_BIT else 0
        s += 4 if up & _MEMORY_BITS else 0
        s += 2 if up & _KIND_BIT["outcome"] else 0
        s += 2 if up & _KIND_BIT["revise"] else 0
        if e.kind == "act":
            s += 3 if e.fields["form"] == "execution" else 0
            s += 1 if e.fields["trigger"] == "self" else 0
        else:
            s += 2
        score[e.id] = s
    if not sinks:
        return Authority([], 0, 0, classes=classes), cross_of
    pos = g.pos
    ranked = sorted(sinks, key=lambda e: (-score[e.id], pos[e.id]))
    chains: list[AuthorityPath] = []
    for e in ranked[: PATHS_LISTED * 4]:
        chains.append(_decisive(e, g, cross_of.get(e.id), score[e.id]))
    merged: dict[tuple, AuthorityPath] = {}
    for p in chains:
        sink = g.by_id[p.sink]
        shape = (p.ids[0], tuple(g.by_id[i].kind for i in p.ids), sink.kind, sink.fields.get("form"), sink.fields.get("trigger"))
        if shape in merged and len(p.ids) > 1:
            q = merged[shape]
            merged[shape] = AuthorityPath(q.sink, q.ids, q.truncated, q.carriers, q.salience, q.also + (p.sink,), q.score)
        else:
            merged[shape if len(p.ids) > 1 else (p.sink,)] = p
    paths = sorted(merged.values(), key=lambda p: (-p.score, len(p.ids), pos[p.sink]))[:PATHS_LISTED]
    listed = sum(1 + len(p.also) for p in paths)
    kinds_of: dict[int, tuple[str, ...]] = {}  # one tuple per distinct bit set
    for e in sinks:
        b = g.up[e.id] & _ALL_KINDS
        if b not in kinds_of:
            kinds_of[b] = tuple(k for k in KINDS if b & _KIND_BIT[k])
    upstream = {e.id: kinds_of[g.up[e.id] & _ALL_KINDS] for e in sinks}
    ungoverned = [e.id for e in sinks if g.up[e.id] & _UNGOVERNED_BIT]
    auth = Authority(
        paths, len(sinks), len(sinks) - listed, upstream=upstream, ungoverned_upstream=ungoverned,
        classes=classes, cross_session=[e.id for e in sinks if e.id in cross_of],
    )
    return auth, cross_of


def _decisive(e: Event, g: _Graph, cross: tuple[str, bool] | None, score: int) -> AuthorityPath:
    up = g.up[e.id]
    found: tuple[tuple[str, ...], bool] | None = None
    if cross is not None:
        found = (g.walk_to(e.id, cross[0]), False)
    else:
        for bit, hit in (
            (_UNGOVERNED_BIT, lambda x: x.kind == "revise" and bool(g.own[x.id] & _UNGOVERNED_BIT)),
            (_KIND_BIT["remember"], lambda x: x.kind == "remember"),
            (_KIND_BIT["recall"], lambda x: x.kind == "recall"),
            (_KIND_BIT["outcome"], lambda x: x.kind == "outcome"),
            (_KIND_BIT["revise"], lambda x: x.kind == "revise"),
        ):
            if up & bit:
                r = g.search(e.id, hit)
                if r is not None:
                    found = (r[0], False)
                    break
    if found is None:
        found = g.root_walk(e.id)
    ids, truncated = found
    by_id = g.by_id
    kinds = {by_id[i].kind for i in ids[:-1]}
    salience: list[str] = []
    if cross is not None:
        m = by_id[cross[0]]
        salience.append(f"memory kept in session {m.session}" + (" from the agent's own output" if cross[1] else ""))
    for i in ids[:-1]:
        if g.own.get(i, 0) & _UNGOVERNED_BIT:
            salience.append(f"ungoverned self-revision {i}")
            break
    if cross is None and kinds & {"remember", "recall"}:
        salience.append("retained memory")
    if "outcome" in kinds:
        salience.append("outcome")
    if "revise" in kinds and not any(s.startswith("ungoverned") for s in salience):
        salience.append("earlier revision")
    carriers = tuple(k for k in KINDS if k in kinds)
    return AuthorityPath(e.id, ids, truncated, carriers, tuple(salience), (), score)


def _findings(ctx: _Context, *, write: WriteSide, read: ReadBack, actions: Actions, outcomes: Outcomes,
              mechanism: Mechanism) -> list[Finding]:
    """Apply every rule in ``RULES``, family by family in this order; sorted by severity, rule id, then
    first event id."""
    out = _memory.findings(ctx, write=write, read=read)
    out += _actions.findings(ctx, actions=actions, outcomes=outcomes)
    out += _sensing.findings(ctx, outcomes=outcomes)
    out += _mechanism.findings(ctx, mechanism=mechanism)  # (records the approvals nothing proves on ctx)
    out.extend(_shapes.findings(ctx, _finding))
    # Within a rule no two findings start with the same event, so this order is total.
    out.sort(key=lambda f: (SEVERITY_RANK[f.severity], f.rule, _num(f.ids[0])))
    return out


_REPAIR_DEPTH = 4


def _repaired(outcome: str, by_id: dict[str, Event], used_by: dict[str, list[str]]) -> bool:
    """Whether something downstream of an adverse outcome repairs it: a later execution or preparation,
    a memory or a revision (within a few steps), or, for a failed communication, a new communication."""
    outcome_act = by_id[outcome].fields["about"]
    form = by_id[outcome_act].fields["form"]
    frontier, seen = [outcome], {outcome}
    for _ in range(_REPAIR_DEPTH):
        nxt = []
        for x in frontier:
            for u in used_by.get(x, ()):
                if u in seen:
                    continue
                seen.add(u)
                e = by_id[u]
                if e.kind in ("remember", "revise"):
                    return True
                if e.kind == "act" and (e.fields["form"] in ("execution", "preparation") or
                                        (form == "communication" and e.fields["form"] == "communication")):
                    return True
                if e.kind == "act" and e.fields["form"] == "communication" and reading.is_adverse(e.summary):
                    return True  # told someone of the problem ("two late pull-outs (418, 431)"): escalated
                if e.kind == "outcome" and not reading.is_adverse(e.summary) and e.fields["about"] != outcome_act:
                    return True  # a later step it led to worked (an alternative the person accepted)
                nxt.append(u)
        frontier = nxt
    return False
