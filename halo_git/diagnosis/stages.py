"""The stages of a diagnosis other than the rules: the index of the branch, the tables the report shows
(boundary, channels, write side, read-back, actions, outcomes, mechanism, metrics), what the
observed evidence adds, and the evidence a diagnosis cites.

Room: diagnosis. ``diagnose`` (the package) calls these in order, once per diagnosis; each is a
function over plain objects. The tables are also what the rule families read (``memory``,
``actions``, ``sensing``, ``mechanism``). Every stage keeps to one pass over the events, or over
the events of one kind, so the cost stays linear in the number of events.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .. import observed as _observed
from ..model import CATEGORY_OF_LETTER, KINDS, LETTERS, Event
from . import reading
from .graph import _Graph, downstream
from .result import (
    FORMS, SOURCE_CATEGORIES, TRIGGERS, Act, Actions, Finding, Mechanism, Memory, Metrics, OutcomeInfo, Outcomes,
    Ratio, ReadBack, Recall, RepeatedTarget, Revision, SessionInfo, WriteSide,
)
from .rules import RULES, SEVERITY_RANK
from .shared import _num, _same_target, _within_bound, approved_revision

Cite = Callable[[Iterable[str]], tuple[str, ...]]


@dataclass(slots=True)
class _Index:
    """The branch's events by id and position, the edges over uses/about (each to an earlier event),
    and the events in scope."""

    pos: dict[str, int]
    by_id: dict[str, Event]
    last: int
    sources: dict[str, tuple[str, ...]]
    used_by: dict[str, list[str]]
    outcomes_of: dict[str, list[str]]
    recalled_by: dict[str, list[str]]
    observed_by: dict[str, list[str]]
    dangling: list[str]
    scoped: list[Event]
    of_kind: dict[str, list[Event]]


def index(events: Sequence[Event], session: str) -> _Index:
    """One pass over the branch's events (in commit order): positions, edges and the scope."""
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
                if by_id[s].kind == "act" and not reading.says_pending(e.summary) and (
                        not reading.is_adverse(e.summary) or reading.asks_for_report(by_id[s].summary)):
                    # a failure found later, or a status that is still pending, is no check (but the report an act
                    # asked for is its result, whatever news it brings: "tracker report: signal lost 03:05")
                    observed_by.setdefault(s, []).append(e.id)
    return _Index(pos, by_id, last, sources, used_by, outcomes_of, recalled_by, observed_by, dangling, scoped, of_kind)


def citations(session: str) -> tuple[set[str], Cite]:
    """The set of cited ids and the ``cite`` function that fills it (and returns the ids as a tuple)."""
    # Only a session scope can cite events outside it; the whole trace skips the bookkeeping.
    cited: set[str] = set()

    def cite(ids: Iterable[str]) -> tuple[str, ...]:
        ids = tuple(ids)
        cited.update(ids)
        return ids

    if not session:
        cite = tuple  # type: ignore[assignment]  # the whole trace cites nothing outside it

    return cited, cite


def boundary(scoped: list[Event]) -> tuple[list[SessionInfo], str | None, str | None]:
    """The sessions in scope (in order of first event), and the first and last time."""
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
    return sessions, first_time, last_time


def channel_counts(scoped: list[Event]) -> dict[tuple[str, str], int]:
    """Events per channel, every (from, to) letter pair present."""
    chan = Counter(ch for e in scoped for ch in e.channels)
    channels = {(x, y): 0 for x in LETTERS for y in LETTERS}
    for ch, n in chan.items():
        x, _, y = ch.partition("→")
        if (x, y) in channels:
            channels[(x, y)] += n
    return channels


def write_side(ix: _Index, g: _Graph, cite: Cite) -> WriteSide:
    """The memories in scope, what each keeps, and who reads it back."""
    by_id, sources, used_by, recalled_by = ix.by_id, ix.sources, ix.used_by, ix.recalled_by
    memories: list[Memory] = []
    by_source = dict.fromkeys(SOURCE_CATEGORIES, 0)
    unsourced: list[str] = []
    for e in ix.of_kind["remember"]:
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
    return write


def read_back(ix: _Index, memories: list[Memory], cite: Cite) -> ReadBack:
    """The recalls in scope, what each retrieved, and what nothing read back or used."""
    by_id, pos, last, sources, used_by = ix.by_id, ix.pos, ix.last, ix.sources, ix.used_by

    def later(e: Event) -> tuple[str, ...]:
        return cite(used_by.get(e.id, ()))

    recalls: list[Recall] = []
    for e in ix.of_kind["recall"]:
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
    return read


def action_table(ix: _Index, cite: Cite) -> Actions:
    """The acts in scope, by trigger and form, with their basis, outcomes and observations."""
    sources, outcomes_of, observed_by = ix.sources, ix.outcomes_of, ix.observed_by
    acts: list[Act] = []
    matrix = {(t, f): 0 for t in TRIGGERS for f in FORMS}
    for e in ix.of_kind["act"]:
        t, f = e.fields["trigger"], e.fields["form"]
        matrix[(t, f)] = matrix.get((t, f), 0) + 1
        acts.append(Act(e.id, t, f, cite(sources[e.id]), cite(outcomes_of.get(e.id, ())), cite(observed_by.get(e.id, ()))))
    actions = Actions(
        acts=acts,
        matrix=matrix,
        self_initiated=[a.id for a in acts if a.trigger == "self"],
        no_basis=[a.id for a in acts if not a.basis],
    )
    return actions


def outcome_table(ix: _Index, actions: Actions, is_bad: Callable[[str], bool], cite: Cite) -> Outcomes:
    """The outcomes in scope, the coverage of acts, the open loops and the ignored failures."""
    by_id, pos, last, sources, used_by, outcomes_of = ix.by_id, ix.pos, ix.last, ix.sources, ix.used_by, ix.outcomes_of
    acts = actions.acts

    def later(e: Event) -> tuple[str, ...]:
        return cite(used_by.get(e.id, ()))

    expecting = [a for a in acts if a.form != "silence"]
    coverage = Ratio(sum(1 for a in expecting if a.outcomes), len(expecting))
    outcome_infos: list[OutcomeInfo] = []
    for e in ix.of_kind["outcome"]:
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
        settled = [o for o in a.outcomes if not reading.says_pending(by_id[o].summary)
                   or reading.reports_done_before_tail(by_id[o].summary, by_id[a.id].summary) or is_bad(o)]
        # (a refusal is a result)
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
    return outcomes


def mechanism_table(events: Sequence[Event], ix: _Index, g: _Graph, session: str, cite: Cite) -> Mechanism:
    """The revisions in scope, the repeated targets, and the bounded changes with no bound."""
    by_id, sources, used_by = ix.by_id, ix.sources, ix.used_by

    def later(e: Event) -> tuple[str, ...]:
        return cite(used_by.get(e.id, ()))

    revisions: list[Revision] = []
    for e in ix.of_kind["revise"]:
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
                 and not (reading.says_expiring(by_id[r.id].summary) and reading.says_scoped(by_id[r.id].summary))
                 and not (reading.says_put_back(by_id[r.id].summary) and not reading.says_loosening(by_id[r.id].summary))]
    # (a change for a stated window that ends by itself, "muted 00:40-01:20 only, unmutes automatically",
    # carries its own bound; putting the limit back, "gifts budget back to £150 from January", needs none)
    mechanism = Mechanism(
        revisions=revisions,
        ungoverned=[r.id for r in revisions if r.ungoverned],
        no_evidence=[r.id for r in revisions if not r.basis],
        repeated=repeated,
        unbounded=unbounded,
    )
    return mechanism


def loop_metrics(write: WriteSide, actions: Actions, outcomes: Outcomes, mechanism: Mechanism) -> Metrics:
    """The loop metrics, each a share with counts."""
    coverage, acts = outcomes.coverage, actions.acts
    memories, outcome_infos, revisions = write.memories, outcomes.outcomes, mechanism.revisions
    metrics = Metrics(
        outcome_coverage=coverage,
        memories_recalled=Ratio(sum(1 for m in memories if m.recalled_by or m.used_by), len(memories)),
        outcomes_used=Ratio(sum(1 for o in outcome_infos if o.used_by), len(outcome_infos)),
        revisions_governed=Ratio(sum(1 for r in revisions if r.governance != "none"), len(revisions)),
        self_initiated=Ratio(len(actions.self_initiated), len(acts)),
    )
    return metrics


_OBSERVED_WHY = {
    "HALO-O1": "The observed evidence shows a tool call the agent's own account leaves out, so the trace "
               "under-reports what the agent did.",
    "HALO-O2": "The trace claims an execution the observed evidence does not show: either the claim is wrong or "
               "the evidence is incomplete.",
}


def with_observed(findings: list[Finding], alignment: _observed.Alignment | None, cite: Cite) -> list[Finding]:
    """The findings with those of the observed evidence (halo_git/observed.py) added, in one order."""
    if alignment is not None:
        extra = [Finding(f.rule, f.severity, tuple(f.ids), f.message, RULES[f.rule].remedy, "", _OBSERVED_WHY[f.rule],
                         RULES[f.rule].remedy) for f in alignment.findings]
        findings = sorted(findings + extra, key=lambda f: (SEVERITY_RANK[f.severity], f.rule, _num(f.ids[0]) if f.ids else 0))
        for f in extra:
            cite(f.ids)
    return findings


def evidence_of(scoped: list[Event], cited: set[str], by_id: dict[str, Event]) -> tuple[dict[str, Event], list[str]]:
    """Every event cited (the scope plus outside evidence), and the cited ids outside the scope, in id order."""
    evidence = {e.id: e for e in scoped}
    outside = sorted((i for i in cited if i not in evidence), key=_num)
    for i in outside:
        evidence[i] = by_id[i]
    return evidence, outside


_REPAIR_DEPTH = 4


def _repaired(outcome: str, by_id: dict[str, Event], used_by: dict[str, list[str]]) -> bool:
    """Whether something downstream of an adverse outcome repairs it: a later execution or preparation,
    a memory or a revision (within a few steps), or, for a failed communication, a new communication."""
    outcome_act = by_id[outcome].fields["about"]
    form = by_id[outcome_act].fields["form"]
    for u in downstream(used_by, outcome, _REPAIR_DEPTH):
        e = by_id[u]
        if e.kind in ("remember", "revise"):
            return True
        if e.kind == "act" and (e.fields["form"] in ("execution", "preparation") or
                                (form == "communication" and e.fields["form"] == "communication")):
            return True
        if e.kind == "act" and e.fields["form"] == "communication" and (reading.is_adverse(e.summary) or (
                outcome in e.uses and reading.passes_on_failure(e.summary, by_id[outcome].summary,
                                                                by_id[outcome_act].summary))):
            return True  # told someone of the problem ("two late pull-outs (418, 431)", or in the failure's own
            # words: "recipient_email is pii, can't go to analytics.*; options: ..."): escalated
        if e.kind == "act" and e.fields["form"] == "communication" and outcome in e.uses \
                and reading.says_question(e.summary):
            return True  # put the choice the failure left to the people it is for ("fully booked" -> "they can
            # do 13 Nov or the afternoon; asked which they'd prefer")
        if e.kind == "outcome" and not reading.is_adverse(e.summary) and e.fields["about"] != outcome_act:
            return True  # a later step it led to worked (an alternative the person accepted)
    return False


def _time_key(iso: str) -> tuple[str, float]:
    """Order ISO times correctly when only some carry fractions of a second."""
    frac = iso[19:-1]
    return iso[:19], float(frac) if frac[:1] == "." and frac[1:].isdigit() else 0.0
