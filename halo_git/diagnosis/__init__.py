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

Summaries are free text. What they say (adverse or fine, a decision, a
restriction, a change, a promise, a claimed approval ...) is read in one place,
``reading``, deterministically and with its vocabulary listed on the Report
page; the rules combine those readings with the links between events.

Layout (one module per room, each saying who calls it): ``graph`` (the event graph) and
``reading`` (what an event says) at the bottom; ``rules`` (the rule table), ``result`` (the
dataclasses and ``_finding``) and ``summary`` (counts, groups and the Summary's issues);
``stages`` (the index and the tables the report shows) and ``authority`` (the
behavioral-authority paths); ``context`` (what every rule reads); one module per rule family:
``memory``, ``actions``, ``sensing``, ``mechanism`` and ``shapes``, with the helpers several of
them share in ``shared``. This module is the public surface: ``diagnose``, a pipeline of those
stages, and the names the rest of the package imports from ``halo_git.diagnosis``.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterable, Sequence

from .. import observed as _observed
from ..model import Event
from . import actions as _actions
from . import mechanism as _mechanism
from . import memory as _memory
from . import reading
from . import sensing as _sensing
from . import shapes as _shapes
from . import stages
from .authority import _authority
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
from .shared import _num, approved_revision  # noqa: F401  (approved_revision re-exported: revisions, lineage)
from .summary import Issue, at_or_above, group_findings, issues, severity_counts  # noqa: F401  (re-exported)

__all__ = [
    "ADVERSE_WORDS", "FORMS", "MAX_PATH_EVENTS", "PATHS_LISTED", "PATHS_PER_SINK", "QUOTE_CHARS", "RULES",
    "RULE_WEIGHT", "SEVERITIES", "SEVERITY_RANK", "SOURCE_CATEGORIES", "TRIGGERS",
    "Act", "Actions", "Authority", "AuthorityPath", "Diagnosis", "Finding", "Issue", "Mechanism", "Memory", "Metrics",
    "OutcomeInfo", "Outcomes", "Ratio", "ReadBack", "Recall", "RepeatedTarget", "Revision", "Rule", "SessionInfo",
    "WriteSide",
    "approved_revision", "at_or_above", "collector_paused", "diagnose", "group_findings", "is_adverse", "is_user_rule",
    "issues", "quote", "reviewed_memory", "severity_counts",
]


_pause_lock = threading.Lock()
_paused = 0  # diagnoses running, on any thread, while the collector is paused
_resume = False  # whether the collector ran before the first of them began


@contextmanager
def collector_paused():
    """Pause the cyclic garbage collector while a diagnosis runs. A diagnosis builds hundreds of thousands
    of containers (the index, the graph, the tables) that all live until it returns; the collector would
    traverse them again each time they pile up, a sixth of a long report's time. What little garbage with
    cycles it leaves is collected after it returns. Diagnoses on several threads share one pause; rendering a
    diagnosis (``report.render_report``) takes it too, as the diagnosis it reads is just as large."""
    global _paused, _resume
    with _pause_lock:
        if not _paused:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused -= 1
            if not _paused and _resume:
                gc.enable()


@collector_paused()
def diagnose(events: Sequence[Event], *, agent: str, branch: str, head: str | None, session: str = "",
             observed: _observed.Observed | None = None, proven_approvals: Iterable[str] = ()) -> Diagnosis:
    """Diagnose a branch's events (in commit order), whole or for one session; ``observed``
    (from ``observed.load``) adds the alignment with what the agent was seen doing.
    ``proven_approvals``: ids of approval events whose commits an allowed signer signed (the
    store checks signatures; the diagnosis only reads the answer). Any other approval of an
    ungoverned self-revision is a claim and leaves HALO-R1 high."""
    reading.make_room(len(events))
    ix = stages.index(events, session)  # edges go only to earlier events of the branch: every walk is finite
    cited, cite = stages.citations(session)

    # observed evidence (halo_git/observed.py): a call the runtime recorded as failed marks its step failed
    alignment = _observed.align(observed, ix.scoped, session=session) if observed is not None else None
    g = _Graph(events, ix.sources, ix.by_id, ix.pos, alignment.failed_steps if alignment is not None else {})
    reach = g.reaches(events, ix.used_by)

    def is_bad(outcome_id: str) -> bool:
        return outcome_id in g.adverse

    # the tables the report shows
    sessions, first_time, last_time = stages.boundary(ix.scoped)
    channels = stages.channel_counts(ix.scoped)
    write = stages.write_side(ix, g, cite)
    read = stages.read_back(ix, write.memories, cite)
    actions = stages.action_table(ix, cite)
    outcomes = stages.outcome_table(ix, actions, is_bad, cite)
    mechanism = stages.mechanism_table(events, ix, g, session, cite)
    authority, cross_of = _authority(ix.scoped, g)
    for p in authority.paths:
        cite(p.ids)
        cite(p.also)
    metrics = stages.loop_metrics(write, actions, outcomes, mechanism)

    # the rules
    ctx = _Context(events, ix.scoped, ix.by_id, ix.pos, ix.last, g, ix.used_by, ix.recalled_by, reach, is_bad,
                   cross_of, session, _common_words(events), frozenset(proven_approvals))
    findings = _findings(ctx, write=write, read=read, actions=actions, outcomes=outcomes, mechanism=mechanism)
    for f in findings:
        cite(f.ids)
    findings = stages.with_observed(findings, alignment, cite)

    evidence, outside = stages.evidence_of(ix.scoped, cited, ix.by_id)
    return Diagnosis(
        agent=agent,
        branch=branch,
        head=head,
        session=session,
        events=ix.scoped,
        evidence=evidence,
        outside=tuple(outside),
        by_kind={k: len(v) for k, v in ix.of_kind.items()},
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
        dangling=tuple(ix.dangling),
        observed=alignment,
        claimed_approvals=tuple(ctx.claimed_approvals),
    )


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
