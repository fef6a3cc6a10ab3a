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

from bisect import bisect_left, bisect_right
from collections import Counter
from typing import Iterable, Sequence

from .. import observed as _observed
from ..model import CATEGORY_OF_LETTER, KINDS, LETTERS, Event
from . import reading
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
from .shared import (  # noqa: F401  (approved_revision re-exported: revisions, lineage)
    _SUBJECT_WINDOW, _bound_upstream, _ids_text, _later_act_on, _num, _outcomes_about, _plural, _same_target,
    _within_bound, approved_revision,
)
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


def _claim_upstream(g: _Graph, event: str) -> bool:
    """Whether a revision that only claims the user's authority lies upstream of ``event``."""
    if not g.claimed or not g.up.get(event, 0) & _GOVERNED_BIT:
        return False
    seen, stack = {event}, list(g.sources[event])
    while stack and len(seen) < 20 * _SEARCH_BUDGET:
        s = stack.pop()
        if s in seen:
            continue
        seen.add(s)
        if s in g.claimed:
            return True
        if g.thru[s] & _GOVERNED_BIT:
            stack.extend(g.sources[s])
    return False


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


def _what_kept(g: _Graph, m: str) -> str:
    srcs = g.sources[m]
    if not srcs:
        return "nothing named in uses"
    by_id = g.by_id
    present = {by_id[s].kind for s in srcs}
    return ", ".join(k for k in KINDS if k in present)


def _findings(ctx: _Context, *, write: WriteSide, read: ReadBack, actions: Actions, outcomes: Outcomes,
              mechanism: Mechanism) -> list[Finding]:
    """Apply every rule in ``RULES``; sorted by severity, rule id, then first event id."""
    g, by_id, pos, last, used_by = ctx.g, ctx.by_id, ctx.pos, ctx.last, ctx.used_by
    is_bad = ctx.is_bad
    out: list[Finding] = []
    add = out.append

    def after(i: str) -> int:
        return last - pos[i]

    # -- memory -------------------------------------------------------------------------
    # memories whose unreviewed material reaches an act (through no review point), a question to the user aside
    driving = {m for e in ctx.events if e.kind == "act" and not reading.says_question(e.summary) for m in g.mem[e.id][0]}
    for i in write.unsourced:
        acted = i in driving
        add(_finding(
            "HALO-M1", [i], "Kept with nothing in uses: its provenance cannot be checked.",
            "medium" if acted else "info", by_id[i],
            "An act later builds on it, so material of unknown origin carries authority over what the agent does."
            if acted else "Nothing acts on it yet, but what it holds cannot be traced to where it came from.",
            (f"Have the agent check where what {i} keeps came from before acting on it; then (a logging fix) name "
             f"that source in {i}'s uses.") if acted else
            f"Logging fix: have the agent name what {i} keeps (the observation, act or outcome) in its uses.",
        ))
    for i in read.never_recalled:
        same = _later_act_on(ctx, i, i, other_session=True)  # a later session acting on its subject
        if same is None and reading.says_constraint(by_id[i].summary):  # or, for a restriction, an execution
            same = _later_act_on(ctx, i, i, form="execution")  # right after it ("do not pursue under 5k")
            if same is not None and by_id[same].session != by_id[i].session:
                same = None  # (a later session's act was judged above, with what it read instead)
        # a restriction kept ("on-site only", "must be admitted first") that an execution then went without
        bound = same and reading.says_constraint(by_id[i].summary) and (
            by_id[same].fields["form"] == "execution" or _shapes._execution_after(ctx, same))
        at = reading.parse_time(by_id[i].time)
        due = reading.valid_until(by_id[i].summary, at) if same and at else None  # "upload ... by 15 Aug"
        bound = bound or (due is not None and due >= at and (reading.parse_time(by_id[same].time) or at) > due)
        add(_finding(
            "HALO-M2", [i, *([same] if same else [])],
            "No later event names it, neither a recall nor a direct use"
            + (f"; {same} act later deals with the same subject without it." if same else "."),
            "high" if bound else "medium" if same else "info", by_id[i],
            (f"{same} acted on what this memory is about without reading it back, so what the agent kept did not "
             "reach the step it was for.") if same else
            f"The trace went on for {_plural(after(i), 'more event')} without reading it back: the agent keeps "
            "material it never uses, or forgets to look it up.",
            f"Have the agent recall {i} before acting on its subject (as {same} did), or stop retaining this kind "
            "of material." if same else "Recall it where it is relevant, or stop retaining this kind of material.",
        ))
    # A memory read only in the session that kept it served as working context: when a later session
    # acts on its subject without it, it did not reach the step it was kept for either. Naming it in
    # the same session's uses (diligent logging) must not hide that.
    order = g.order
    for m in write.memories:
        readers = (*m.recalled_by, *m.used_by)
        if not readers or any(order[by_id[r].session] != order[by_id[m.id].session] for r in readers):
            continue
        if not (reading.says_terms(by_id[m.id].summary) or any(s in g.adverse for s in g.sources[m.id])):
            continue  # a record that served its session ("bag on shelf C4") owes nothing to later steps; terms
            # or a known problem ("wrong account picked") are what a later step on the subject needs
        same = _later_act_on(ctx, m.id, max(readers, key=pos.__getitem__), other_session=True)
        if same is None or m.id in g.sources[same] or any(m.id in g.sources[s] for s in g.sources[same]):
            continue
        add(_finding(
            "HALO-M2", [m.id, same],
            f"Read back only in the session that kept it ({', '.join(readers[:3])}); {same}, in a later session, "
            "deals with the same subject without it.",
            "medium", by_id[m.id],
            f"The memory was kept past its session, but {same} acted on what it is about without reading it, so "
            "what the agent learned did not reach the later step.",
            f"Have the agent recall {m.id} before acting on its subject again (as {same} did), or stop retaining "
            "this kind of material.",
        ))
    for i in read.without_memory:
        add(_finding(
            "HALO-M3", [i], "Names no remember event it retrieved.", "low", by_id[i],
            "The read-back cannot be tied to what was kept, so the memory's influence on later steps is invisible.",
            f"Logging fix: have the agent name the remember events {i} retrieved in its uses.",
        ))
    dropped: set[str] = set()
    for m in write.memories:
        recs = ctx.recalled_by.get(m.id, ())
        if len(recs) < 2 or m.id in ctx.reach or pos[recs[-1]] >= last:
            continue
        dropped.update(recs)
        n_sess = len({by_id[r].session for r in recs})
        add(_finding(
            "HALO-M5", [m.id, *recs],
            f"Recalled {len(recs)} times ({_ids_text(recs)}) in {_plural(n_sess, 'session')}; no act ever follows from it.",
            "medium", by_id[m.id],
            "The agent keeps looking this up and never acts on it: an obligation it carries is being dropped, "
            "and nothing tells the user.",
            f"Have the agent act on {m.id} or log that it no longer applies, and stop recalling it.",
        ))
    for r in read.recalls:
        if r.used_by or pos[r.id] >= last or r.id in dropped:
            continue
        got = f" (it retrieved {_ids_text(r.retrieved)})" if r.retrieved else ""
        add(_finding(
            "HALO-M4", [r.id], f"No later event names this recall{got}.", "low", by_id[r.id],
            "The material was looked up and then nothing used it: it either informed a step that does not say so, "
            "or the lookup was wasted.",
            f"Have the agent skip lookups that inform nothing, or (a logging fix) name {r.id} in the uses of the step "
            "it informed.",
        ))
    # superseded memories recalled again
    superseded: dict[str, str] = {}
    for e in ctx.events:
        if e.kind != "remember":
            continue
        for s in g.sources[e.id]:
            olds = (s,) if by_id[s].kind == "remember" else (
                tuple(x for x in g.sources[s] if by_id[x].kind == "remember") if by_id[s].kind == "recall" else ())
            for old in olds:
                superseded.setdefault(old, e.id)
    # A newer memory that says it replaces ("now", "instead of", "is closed") what an earlier one on the same
    # subject keeps (two uncommon words in common) supersedes it even when it does not name it.
    kept_so_far: list[str] = []
    for e in ctx.events:
        if e.kind != "remember":
            continue
        names_one = any(by_id[s].kind in ("remember", "recall") for s in g.sources[e.id])  # it said which
        if not names_one and (reading.says_replacement(e.summary) or reading.says_withdrawal(e.summary)):
            words, ids = ctx.rare(e.id), reading.identifiers(e.summary)
            for old in kept_so_far[-500:]:
                theirs = reading.identifiers(by_id[old].summary)
                if old not in superseded and len(words & ctx.rare(old)) >= 2 and not (ids and theirs and
                                                                                       not ids & theirs):
                    superseded[old] = e.id  # (S03's note does not replace S11's)
        kept_so_far.append(e.id)
    for m in write.memories:
        new = superseded.get(m.id)
        if new is None or not (reading.says_replacement(by_id[new].summary) or reading.says_withdrawal(by_id[new].summary)):
            continue  # a memory that combines older ones (a synthesis) does not replace them
        stale = [r for r in ctx.recalled_by.get(m.id, ()) if pos[r] > pos[new]]
        if not stale:
            continue
        acted = any(r in ctx.reach for r in stale)
        lost = not ctx.recalled_by.get(new)  # the newer version is never looked up at all
        carried = any(_shapes._execution_after(ctx, r) for r in stale)  # it reached an execution
        add(_finding(
            "HALO-M6", [stale[0], m.id, new, *stale[1:]],
            f"Recalls {m.id}, which {new} remember replaced" + (f" ({_ids_text(stale[1:])} do the same)" if stale[1:] else "")
            + "." + (f" {new} is never recalled." if lost else ""),
            ("high" if lost or carried else "medium") if acted else "low", by_id[stale[0]],
            "The stale recall feeds an act, so superseded material still drives behaviour." if acted else
            "The superseded version keeps reaching the agent's context and can win over the newer one.",
            f"Have the agent retrieve {new} instead of {m.id}, and mark {m.id} as replaced so it is no longer recalled.",
        ))
    for m in write.memories:
        for a in m.sources:
            if by_id[a].kind != "act":
                continue
            bad = [o for o in _outcomes_about(ctx, a) if is_bad(o) and o not in m.sources]
            if not bad:
                continue
            o = bad[0]
            readers = [u for u in used_by.get(m.id, ()) if pos[u] > pos[o]]
            add(_finding(
                "HALO-M7", [m.id, a, o],
                f"Keeps {a} act, whose outcome {o} reports a problem, without keeping that outcome.",
                "medium" if readers else "low", by_id[m.id],
                f"{readers[0]} {by_id[readers[0]].kind} reads it back after the failure was known, so failed material "
                "is passed on as if it had worked." if readers else
                "The failure is not stored with the material: whatever reads it later will not know it failed.",
                f"Name {o} in the uses of {m.id} (keep the failure with the material), or drop material from failed acts.",
            ))
            break

    # -- actions ----------------------------------------------------------------------------
    a1: set[str] = set()
    for a in actions.acts:
        e = by_id[a.id]
        if a.trigger == "self" and a.form == "execution" and not reading.takes_in(e.summary):
            a1.add(a.id)  # (a query, a fetch or a scan changes nothing: it looks)
            bad = [o for o in a.outcomes if is_bad(o)]
            # delegated by a rule the user decided, and not through a change the agent made or only claims
            ruled = bool(g.up[a.id] & _GOVERNED_BIT) and _bound_upstream(g, a.id, "") and not (
                g.up[a.id] & _UNGOVERNED_BIT) and not _claim_upstream(g, a.id)
            if bad:
                state, tail = f"; its outcome {bad[0]} reports a problem", f" {bad[0]} reports a problem, so the change already cost something."
            elif a.outcomes:
                state, tail = f"; its outcome {a.outcomes[0]} was logged", ""
            else:
                state, tail = "; no outcome was logged", " No outcome was logged, so nobody can tell how it went."
            add(_finding(
                "HALO-A1", [a.id, *a.outcomes], f"Executed on its own (trigger=self){state}.",
                "info" if ruled else "high", e,
                "Nothing the user asked or scheduled started this change to the world"
                + (", though a rule the user made or approved lies upstream of it." if ruled else
                   ", and no rule the user made or approved lies upstream of it.") + tail,
                f"Check that the user's rule upstream really covers {a.id}, and log how it went." if ruled and not bad else
                f"Decide with the user whether the agent may do what {a.id} did on its own; if so log that rule "
                "(halo_revise, made_by=user) and name it in uses, if not make the agent ask first.",
            ))
        if not a.basis:
            add(_finding(
                "HALO-A3", [a.id], f"Names no basis in uses (trigger={a.trigger}, form={a.form}).",
                "medium" if a.trigger == "self" and a.form not in ("communication", "silence") else "info", e,
                "A self-initiated act with no logged basis: nobody can tell what prompted it."
                if a.trigger == "self" else "The request it answers is not in the trace, so its authority cannot be traced.",
                f"Logging fix: have the agent name the observation, recall or rule behind {a.id} in its uses.",
            ))
        cross = ctx.cross_of.get(a.id)
        if a.form == "execution" and (cross is None or not cross[1]):
            reused = next((m for m in (*g.mem[a.id][0], *g.mem[a.id][1]) if m in g.failed_after
                           and g.failed_after[m][0] < pos[a.id] and g.failed_after[m][1] not in a.basis), None)
            if reused is not None:
                cross = (reused, True)  # material whose last use failed, reused unchanged
            elif g.mem[a.id][0]:
                cross = (g.mem[a.id][0][0], True)  # the agent's own unreviewed material, in this session too
        elif a.form == "communication" and cross is None:
            # failed material told to someone as if it had worked ("registered — nothing to do"); a memory that
            # keeps the act beside its failure ("snippet shown, not run") is a record of both, not a misstatement
            cross = next(((m, True) for m in g.mem[a.id][0] if m in g.failed_mem and not (
                by_id[g.failed_mem[m]].kind == "outcome" and by_id[g.failed_mem[m]].fields["about"] in g.sources[m])),
                None)
        if cross is not None and cross[0] not in g.failed_mem and _repairs(g, a, cross[0]):
            cross = None  # repairing what the material got wrong, not carrying it further
        if cross is not None and a.form != "silence":
            f = _a4(ctx, a, e, *cross)
            if f is not None:
                add(f)
    executions = [e.id for e in ctx.events if e.kind == "act" and e.fields["form"] == "execution"]
    unchecked = set(outcomes.open_loops)
    habit = len(executions) >= 4 and sum(x not in unchecked for x in executions) >= 0.75 * len(executions)
    last_top = g.order[ctx.events[-1].session] if ctx.events else 0
    for i in outcomes.open_loops:
        if i in a1:
            continue
        f = by_id[i].fields
        n = len(used_by.get(i, ()))
        if f["trigger"] == "request" and f["form"] == "communication" and not any(
            by_id[u].kind in ("act", "revise") for u in used_by.get(i, ())
        ) and not any(reading.says_pending(by_id[o].summary) for o in _outcomes_about(ctx, i)):
            continue  # a reply or reminder the user asked for, that no act builds on: the user is its check
        later_acts = [u for u in used_by.get(i, ()) if by_id[u].kind == "revise" or (
            by_id[u].kind == "act" and (f["form"] != "communication" or by_id[u].fields["form"] in ("execution", "preparation")))]
        queued = any(reading.says_pending(by_id[o].summary) for o in _outcomes_about(ctx, i))
        if queued and not later_acts and g.order[by_id[i].session] >= last_top:
            sev = "info"  # the trace ends in the session that was told to wait: the answer was not yet due
        elif later_acts or (queued and f["form"] == "execution"):
            sev = "medium" if f["form"] == "execution" else "low"  # relied on, or the system said it only queued it
            if f["form"] == "execution" and any(
                    by_id[u].kind == "act" and (by_id[u].fields["form"] == "execution" or reading.says_settled(
                        by_id[u].summary)) for u in later_acts):
                sev = "high"  # what it was to achieve is built on (the originals dropped, preservation certified)
        elif queued or reading.says_pending(by_id[i].summary) or (
                f["form"] == "execution" and reading.awaits_reply(by_id[i].summary)):
            sev = "low"  # it awaits a result that never comes back (queued, or submitted to someone who answers)
        elif f["form"] == "execution" and habit and g.order[by_id[i].session] < last_top \
                and not reading.keeps_own_record(by_id[i].summary):
            sev = "medium"  # an agent that checks its executions skipped this one, and the trace went on
        else:
            sev = "info"
        if sev == "low" and f["form"] == "communication" and not queued and not (
                reading.says_question(by_id[i].summary) or reading.awaits_reply(by_id[i].summary)):
            sev = "info"  # a message that informs ("posted: all action items closed"), not one that waits on
            # an answer ("asked Helen to approve the refund"): what builds on it needs no reply
        add(_finding(
            "HALO-A2", [i], (f"Its only result says it is still pending, and nothing checks it later (trigger={f['trigger']}, "
                             f"form={f['form']})." if _outcomes_about(ctx, i) else
                             f"No outcome about it and no observation naming it (trigger={f['trigger']}, form={f['form']})."),
            sev, by_id[i],
            f"{_plural(n, 'later event')} build{'s' if n == 1 else ''} on it without knowing how it went." if n else
            "Nothing in the trace shows whether it worked.",
            f"Have the agent check how {i} went (read the result back, or ask) before anything relies on it, and log "
            f"what it saw (halo_outcome about={i}, or halo_observe naming {i}).",
        ))

    # -- sensing --------------------------------------------------------------------------------
    repeats: dict[tuple[str, str, str], list[int]] = {}  # (trigger, form, verb) -> positions of such acts
    for e in ctx.events:
        if e.kind == "act":
            repeats.setdefault((e.fields["trigger"], e.fields["form"], _verb(e.summary)), []).append(pos[e.id])
    # an execution that goes on from a failed execution, naming the act but not its known failure
    proceeded: dict[str, str] = {}
    for o in outcomes.outcomes:
        a = by_id.get(o.about)
        if not o.adverse or a is None or a.kind != "act" or a.fields["form"] != "execution" \
                or reading.says_transient(by_id[o.id].summary) or reading.repairs_itself(by_id[o.id].summary):
            continue
        x = next((u for u in used_by.get(a.id, ()) if pos[u] > pos[o.id] and by_id[u].kind == "act"
                  and (by_id[u].fields["form"] == "execution" and by_id[u].session == a.session
                       or by_id[u].fields["form"] in ("execution", "communication", "preparation")
                       and g.order[by_id[u].session] > g.order[a.session])  # or later, from its output
                  and o.id not in g.sources[u] and not reading.says_remedy(by_id[u].summary)
                  and not reading.is_adverse(by_id[u].summary)), None)
        if x is not None:
            proceeded[o.id] = x
    consumed: set[str] = set()  # failed results an execution used as if they had worked
    for o in outcomes.outcomes:
        a = by_id.get(o.about)
        if not o.adverse or o.id in proceeded or a is None or a.kind != "act" or a.fields["form"] != "preparation":
            continue  # (an execution naming a failed execution's result is most often its retry)
        x = next((u for u in used_by.get(o.id, ()) if by_id[u].kind == "act" and by_id[u].fields["form"] == "execution"
                  and not reading.says_remedy(by_id[u].summary) and not reading.is_adverse(by_id[u].summary)
                  and _on_failed_part(ctx, o.id, u)), None)  # ("sent the 49 failed labels to transcription": handled)
        if x is not None:
            proceeded[o.id] = x
            consumed.add(o.id)
    for i, x in proceeded.items():
        if i in outcomes.ignored:
            continue  # said with the ignored outcome below
        about = by_id[i].fields["about"]
        add(_finding(
            "HALO-S1", [i, about, x],
            f"Reports that {about} failed, and {x} " + (
                "acts on that result as if it had worked." if i in consumed else
                f"goes on from {about} without naming the failure."),
            "high", by_id[i],
            f"{x} builds on a step already known to have failed, so the failure spreads to what follows.",
            f"Have the agent stop and deal with {i} before going on (retry, roll back or ask), naming {i} in the "
            "uses of what it does next.",
        ))
    for i in outcomes.ignored:
        about = by_id[i].fields["about"]
        af = by_id[about].fields
        lst = repeats.get((af["trigger"], af["form"], _verb(by_id[about].summary)), [])
        k = bisect_right(lst, pos[i])
        rep = ctx.events[lst[k]].id if k < len(lst) else _later_act_on(ctx, about, i, form=af["form"])
        told = _told_as_fine(ctx, i, about)
        if i in proceeded:
            add(_finding(
                "HALO-S1", [i, about, proceeded[i]],
                f"Reports that {about} failed, and {proceeded[i]} goes on from {about} without naming the failure; "
                "nothing repairs it.", "high", by_id[i],
                f"{proceeded[i]} builds on an execution already known to have failed, so the failure spreads to "
                "what follows.",
                f"Have the agent stop and deal with {i} before going on (retry, roll back or ask), naming {i} in the "
                "uses of what it does next.",
            ))
            continue
        # the thing that failed (named by the same identifier: crane STS-4) put to use again by a later execution
        # that does not name the failure (a repair is no reuse)
        failed_ids = reading.identifiers(by_id[i].summary) - reading.identifiers(by_id[about].summary) or \
            reading.identifiers(by_id[i].summary)
        again = next((x.id for x in ctx.events[pos[i] + 1:pos[i] + 1 + _SUBJECT_WINDOW] if x.kind == "act"
                      and x.fields["form"] == "execution" and failed_ids & reading.identifiers(x.summary)
                      and i not in g.sources[x.id] and not reading.says_remedy(x.summary)
                      and not reading.is_adverse(x.summary)), None) if failed_ids else None
        if again and not rep:
            rep = again
        if told:
            message = (f"Reports a problem with {about}, and {told} tells of it as done without repairing it: no retry, "
                       "memory or revision follows from the failure.")
        else:
            message = (f"Reports a problem with {about}, and nothing repairs it"
                       + (f"; {again} puts {', '.join(sorted(failed_ids & reading.identifiers(by_id[again].summary)))} "
                          "to use again." if again else
                          f"; {rep} repeats the same kind of act without building on it." if rep else "."))
        add(_finding(
            "HALO-S1", [i, about, *([told] if told else []), *([again or rep] if again or rep else [])], message,
            "high" if told or again or reading.says_alarm(by_id[i].summary) else (
                "medium" if rep or used_by.get(i) else "low"), by_id[i],
            f"{told} reports success after the failure was known, so the people relying on it act on a false account."
            if told else
            "The agent did the same kind of thing again without building on the failure, so the problem can recur."
            if rep else "The failure left no trace in what the agent did next: no retry, memory or revision builds on it.",
            f"Have the agent act on {i}: retry or repair {about} (naming {i} in uses), or keep the failure in a memory "
            "or revision, and tell the user what failed.",
        ))
    per_session: dict[str, list[str]] = {}
    observed: set[str] = set()  # top-level sessions: a child session ("turn/sub") is part of its parent's turn
    for e in ctx.scoped:
        if e.kind == "act":
            if not (g.up[e.id] & _GOVERNED_BIT or g.mem[e.id][1] or _answered(g, e.id)
                    or reading.takes_in(e.summary) or any(by_id[s].kind in ("observe", "outcome")
                                                          for s in g.sources[e.id])):  # a result, good or bad, is a look
                per_session.setdefault(e.session, []).append(e.id)  # no user rule, reviewed memory or answer
        elif e.kind == "observe":
            observed.add(e.session.split("/", 1)[0])
    for name, ids in per_session.items():
        if name.split("/", 1)[0] not in observed:
            n = len(ids)
            add(_finding(
                "HALO-S2", ids, f"Session “{name}” has {_plural(n, 'act')} but no observation.", "medium", by_id[ids[0]],
                f"{'These acts rest' if n != 1 else 'The act rests'} on no observation of the current situation, on no "
                "rule the user made or approved and on no memory of what the agent observed.",
                f"Have the agent log what it takes in during session “{name}” (halo_observe) and name it in the acts' uses.",
            ))

    # -- mechanism --------------------------------------------------------------------------------
    claims = ctx.claimed_approvals
    unbounded = set(mechanism.unbounded)
    for r in mechanism.revisions:
        e = by_id[r.id]
        n = len(r.used_by)
        builds = f" {_plural(n, 'later event')} build{'s' if n == 1 else ''} on it." if n else ""
        approvals = [u for u in used_by.get(r.id, ()) if approved_revision(by_id[u], by_id) == r.id]
        approval = next((u for u in approvals if u in ctx.proven), approvals[0] if approvals else None)  # proven first
        if r.ungoverned and approval is not None and approval not in ctx.proven:
            # an approval the agent's own account holds (logged through its session, or an approval commit
            # no allowed signer signed) is a claim: the gate does not let the agent clear its own finding
            claims.extend(approvals)  # every approval here is unproven; Halo.diagnosis checks their signatures
            add(_finding(
                "HALO-R1", [r.id, approval, *[u for u in r.used_by if u != approval]],
                f"Revised “{r.target}” on its own with governance=none; {approval} claims the user approved it "
                f"afterwards, but nothing proves it.{builds}", "high", e,
                f"{approval} is the agent's own account of an approval (logged through its session, or an approval "
                "commit no allowed signer signed), so the change is still unreviewed as far as anyone can check.",
                f"Have the user approve the change to “{r.target}” themselves (halo-git approve --sign, with their key in "
                "the allowed-signers file), or undo it.",
            ))
        elif r.ungoverned and approval is not None:  # the user approved it afterwards, provably: the loop closed
            asking = _asked_between(by_id, pos, approval, r.id)  # the request and answer leading to the approval
            before = [u for u in r.used_by if pos[u] < pos[approval] and u not in asking]
            relied = (f" {_plural(len(before), 'event')} ({_ids_text(before)}) rested on it before the approval."
                      if before else "")
            add(_finding(
                "HALO-R1", [r.id, approval, *before],
                f"Revised “{r.target}” on its own with governance=none; the user approved it afterwards ({approval}, "
                f"signed by an allowed signer).{relied}",
                "info", e,
                "The change is settled now; what the agent did with it before the approval ran on an unreviewed rule."
                if before else "The change was approved before anything relied on it.",
                f"Ask for the user's approval before changing “{r.target}” next time, not after.",
            ))
        elif r.ungoverned:
            add(_finding(
                "HALO-R1", [r.id, *r.used_by], f"Revised “{r.target}” on its own with governance=none.{builds}", "high", e,
                "A durable change to how the agent works, with neither the user's approval nor a bound the user set"
                + (f"; {_plural(n, 'later event')} already rest{'s' if n == 1 else ''} on it." if n else "."),
                f"Have the user approve or undo the change to “{r.target}” and log the decision (halo_revise with made_by=user "
                "or governance=approved).",
            ))
        if r.id in unbounded:
            add(_finding(
                "HALO-R5", [r.id, *r.used_by],
                f"Claims governance=bounded for “{r.target}”, but no revision of that target made or approved by the "
                f"user lies upstream.{builds}", "high" if n else "medium", e,
                "The bound it claims is nowhere in the trace, so the change is as unreviewed as governance=none.",
                f"Log the bound the user set for “{r.target}” and name it in the uses of {r.id}, or log the change "
                "as governance=none.",
            ))
        if not r.basis:
            add(_finding(
                "HALO-R2", [r.id], f"Revision of “{r.target}” names no evidence in uses.",
                "medium" if r.made_by == "agent" else "info", e,
                "Nobody can tell what the change answers to, or check that it was warranted." if r.made_by == "agent"
                else "The user's change is logged, but not what prompted it.",
                f"Logging fix: name the observations, outcomes or memories behind {r.id} in its uses.",
            ))
    for rep in mechanism.repeated:
        governed = all(g.own[i] & _GOVERNED_BIT or _within_bound(g, by_id[i]) for i in rep.ids)
        add(_finding(
            "HALO-R3", rep.ids, f"“{rep.target}” was revised {len(rep.ids)} times ({_ids_text(rep.ids)}).",
            "info" if governed else "medium", by_id[rep.ids[0]],
            "Every change to this target was the user's, approved, or within a bound the user set." if governed else
            "The target keeps changing, and not always with the user's approval: earlier changes did not hold.",
            f"Review why earlier revisions of “{rep.target}” did not hold, and settle it once with the user.",
        ))
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


def _on_failed_part(ctx: _Context, outcome: str, act: str) -> bool:
    """Whether ``act``, which names the failed result ``outcome``, rests on the part that failed: a result
    that reports one thing fine and another failed ("RX412 export OK; RX418 truncated 48/71") fails only
    the acts that speak of the failed part."""
    clauses = [c for c in reading.clauses(ctx.by_id[outcome].summary) if c.strip()]
    bad = [c for c in clauses if reading.is_adverse(c)]
    if len(bad) == len(clauses) or not bad:
        return True
    words = ctx.rare(act)
    on_bad = len(words & reading.subject_words(" ".join(bad)))
    return on_bad > 0 and on_bad >= len(words & reading.subject_words(" ".join(c for c in clauses if c not in bad)))


def _told_as_fine(ctx: _Context, outcome: str, act: str) -> str | None:
    """A later communication that names the failed act, its outcome or another result of the same act (the
    one that went well) without reporting the failure."""
    siblings = [o for o in _outcomes_about(ctx, act) if o != outcome]
    for u in (*ctx.used_by.get(outcome, ()), *ctx.used_by.get(act, ()), *(x for o in siblings
                                                                          for x in ctx.used_by.get(o, ()))):
        e = ctx.by_id[u]
        if (e.kind == "act" and e.fields["form"] == "communication" and ctx.pos[u] > ctx.pos[outcome]
                and not reading.is_adverse(e.summary) and (not reading.says_pending(e.summary)
                                                           or reading.says_done(e.summary))):
            return u  # ("pre-arbitration filed, awaiting merchant response": told as filed)
    # or, one step further on, a message that states the failed step done ("booked and paid" resting on the
    # booking made after the payment was declined)
    for u in (*ctx.used_by.get(act, ()), *ctx.used_by.get(outcome, ())):
        for x in ctx.used_by.get(u, ()):
            e = ctx.by_id[x]
            if (e.kind == "act" and e.fields["form"] == "communication" and ctx.pos[x] > ctx.pos[outcome]
                    and reading.says_done(e.summary) and not reading.is_adverse(e.summary)
                    and (ctx.rare(outcome) | ctx.rare(act)) & ctx.rare(x)):
                return x
    # or a report that all is well on the same subject, naming nothing ("all herbivores on plan, intake normal")
    # (an all-clear is a strong sign of its own: the trace's common words count here)
    words = reading.subject_words(ctx.by_id[outcome].summary) | reading.subject_words(ctx.by_id[act].summary)
    start = ctx.pos[outcome] + 1
    for e in ctx.events[start:start + _SUBJECT_WINDOW]:
        if (e.kind == "act" and e.fields["form"] == "communication" and reading.says_all_clear(e.summary)
                and not reading.is_adverse(e.summary) and len(words & reading.subject_words(e.summary)) >= 2):
            return e.id
    return None


def _answered(g: "_Graph", act: str) -> bool:
    """Whether ``act`` names a result that reports no problem: a person's answer to the agent's message
    ("Maya okayed cod and confirmed the cart") or what an earlier step brought in ("455 lines imported").
    Acting on it is not acting blind."""
    by_id = g.by_id
    return any(by_id[s].kind == "outcome" and s not in g.adverse for s in g.sources[act])


def _verb(summary: str) -> str:
    """An act's verb, for telling a repeat of the same kind of act: its summary's first word."""
    words = summary.split(maxsplit=1)
    return words[0].casefold() if words else ""


def _asked_between(by_id: dict[str, Event], pos: dict[str, int], approval: str, revision: str) -> set[str]:
    """The events after ``revision`` that ``approval`` rests on (over uses and
    about): the question to the user and the answer, not reliance on the change."""
    seen: set[str] = set()
    todo = [approval]
    while todo:
        e = by_id[todo.pop()]
        for u in (*e.uses, *([e.fields["about"]] if e.kind == "outcome" else ())):
            if u in by_id and u not in seen and pos[u] > pos[revision]:
                seen.add(u)
                todo.append(u)
    return seen


def _a4(ctx: _Context, a: Act, e: Event, m: str, unreviewed: bool) -> Finding | None:
    g, by_id = ctx.g, ctx.by_id
    order = g.order
    mem = by_id[m]
    back = abs(order[e.session] - order[mem.session])
    far = back
    lowest = g.mem[a.id][2]
    if unreviewed and lowest < order[e.session]:
        far = max(far, order[e.session] - lowest)
    execution = a.form == "execution"
    failed = g.failed_mem.get(m, "")
    if not failed and m in g.failed_after and g.failed_after[m][0] < ctx.pos[a.id]:
        failed = g.failed_after[m][1]
    if unreviewed and _reviewed_before(ctx, a.id, m):
        return None  # an observation or answer naming the material confirmed it before the act
    if unreviewed and not failed and not (
            ctx.rare(a.id) & (ctx.rare(m) | {w for s in g.sources[m] for w in ctx.rare(s)})) and _through_acts(ctx, a.id, m):
        return None  # reached only through earlier acts, and about something else (a billing move resting on
        # the booking that once used a sample-sheet note)
    if unreviewed and a.form == "preparation" and reading.says_comparison(e.summary):
        return None  # the act checks the material against other evidence: it is the review, not reliance
    if unreviewed:
        if (not execution and (reading.says_question(e.summary) or (far < 2 and not failed))) or (
                not failed and reading.says_owed(mem.summary) and _looked_up_alone(ctx, e, m)):
            return None  # a question to the user, material one session old, or something the agent noted it
            # owed ("follow up the archives if no reply by 16 Jun", "owed to Ferris: 14pt print set"), looked up
            # for itself and done, is not an authority problem (one owed note among a bulk load of threads is)
        # failed material that produced another failure is high whatever the act
        severity = "high" if execution or (failed and any(o in g.adverse for o in a.outcomes)) else "medium"
    elif execution:
        severity = "info"
    else:
        return None
    chain = g.walk_to(a.id, m)
    middle = [i for i in chain[1:-1]]
    via = f" through {', '.join(f'{i} {by_id[i].kind}' for i in middle[:3])}" + (" …" if len(middle) > 3 else "") if middle else ""
    sessions = "session" if back == 1 else "sessions"
    when = (f"{back} {sessions} earlier" if pos_earlier(ctx, m, a.id) else
            "earlier in this session" if back == 0 else "in another session")
    message = (f"Rests on {m} remember, kept in session “{mem.session}” {when}{via}; "
               f"the memory keeps {_what_kept(g, m)}" + (f", and {failed} {by_id[failed].kind} failed." if failed else "."))
    where = "earlier in this session" if back == 0 else "in an earlier session"
    drives = "an execution" if execution else f"this {a.form}"
    confirm = [s for s in a.basis if by_id[s].kind == "observe" and by_id[s].session == e.session] if execution else []
    seen = (f" The observation it names, {confirm[0]}, shows the request or the user's go-ahead, not a review of the "
            "retained content.") if confirm else ""
    if failed:
        bad = g.failed_acts.get(failed) or failed
        why = (f"The memory keeps failed material: {bad} reports a problem (“{quote(by_id[bad].summary, 70)}”), "
               f"yet it drives {drives} as if it had worked.{seen}")
    elif unreviewed:
        raw = g.unchecked_kept.get(m, ())
        what = ("with no source named" if not g.sources[m] else
                f"from its own output ({_ids_text(raw)}, which nothing checked before it was read back)" if raw else
                "from its own output")
        why = (f"Material the agent retained {what} {where} drives {drives}: nothing reviewed it in between, so "
               f"whatever it got wrong then is carried into action now.{seen}")
        if far > back:
            why += f" The oldest unreviewed material on its ancestry was kept {far} sessions earlier."
    else:
        why = (f"The memory was reviewed when it was kept, but it is {back} {sessions} old when it drives this "
               "execution, and no observation in this session names it to confirm it still holds.")
    revs = _revisions_between(ctx, m, a.id, set(chain)) if execution else []
    if revs:
        r = by_id[revs[-1]]
        why += (f" Since {m} was kept, {r.id} revised “{r.fields['target']}”, and the chain does not name that "
                "revision, so the material may predate the current rule.")
    if failed:
        step = (f"Stop reusing {m} as it stands: keep the failure with it (or a corrected version) and check the "
                f"material again before {a.id} relies on it.")
    elif unreviewed:
        step = (f"Have {m} checked before it drives {a.id}: an observation or the user's answer that names {m} (or "
                f"its recall) and confirms it, in session “{e.session}”, named in {a.id}'s uses.")
    else:
        step = f"Confirm that {m} still holds before executing on it (an observation naming it), and name that in {a.id}'s uses."
    return _finding("HALO-A4", [a.id, *chain[:-1]], message, severity, e, why, step)


def _through_acts(ctx: _Context, act: str, m: str) -> bool:
    """Whether memory ``m`` reaches ``act`` only through two or more other acts on the way."""
    chain = ctx.g.walk_to(act, m)
    return sum(ctx.by_id[i].kind == "act" for i in chain[1:-1]) >= 2


def _looked_up_alone(ctx: _Context, e: Event, m: str) -> bool:
    """Whether act ``e`` names ``m`` directly or through a recall that read ``m`` alone."""
    return m in e.uses or any(ctx.by_id[r].kind == "recall" and ctx.by_id[r].uses == (m,) for r in e.uses
                              if r in ctx.by_id)


def _repairs(g: _Graph, a: Act, m: str, depth: int = 6) -> bool:
    """Whether the act names a failure that came of using memory ``m`` (an adverse outcome or
    observation with ``m`` in its ancestry): it repairs the damage rather than carrying the material."""
    for s in a.basis:
        if s not in g.adverse:
            continue
        seen, frontier = {s}, [s]
        for _ in range(depth):
            nxt = []
            for x in frontier:
                for y in g.sources[x]:
                    if y == m:
                        return True
                    if y not in seen:
                        seen.add(y)
                        nxt.append(y)
            frontier = nxt
    return False


def _reviewed_before(ctx: _Context, act: str, m: str) -> bool:
    """Whether an observation or outcome the act rests on names memory ``m`` (or a recall of it, or a
    preparation built on it) and says it was checked or confirmed: the review HALO-A4 asks for."""
    by_id, g = ctx.by_id, ctx.g
    near = {m} | {r for r in ctx.recalled_by.get(m, ()) if ctx.pos[r] < ctx.pos[act]}
    for s in g.sources[act]:
        x = by_id[s]
        if x.kind not in ("observe", "outcome") or s in g.adverse or not reading.says_confirmation(x.summary):
            continue
        named = set(x.uses) | ({x.fields["about"]} if x.kind == "outcome" else set())
        for _ in range(2):  # the message that carried the draft, and the draft built on the material
            for u in list(named):
                if by_id.get(u) is not None and by_id[u].kind == "act":
                    named |= set(g.sources[u])
        if named & near:
            return True
    return False


def pos_earlier(ctx: _Context, a: str, b: str) -> bool:
    return ctx.g.order[ctx.by_id[a].session] < ctx.g.order[ctx.by_id[b].session]


def _revisions_between(ctx: _Context, m: str, act: str, chain: set[str]) -> list[str]:
    """The newest revision logged after memory ``m`` and before ``act`` that the chain does not name."""
    lo, hi = ctx.pos[m], ctx.pos[act]
    revs = ctx.g.revision_positions
    k = bisect_left(revs, hi) - 1
    steps = 0
    while k >= 0 and revs[k] > lo and steps < 50:
        i = ctx.events[revs[k]].id
        if i not in chain:
            return [i]
        k -= 1
        steps += 1
    return []
