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

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Iterable, Sequence

from .. import observed as _observed
from ..model import CATEGORY_OF_LETTER, ENUMS, KINDS, LETTERS, Event, one_line
from . import reading
from . import shapes as _shapes
from .graph import (  # noqa: F401  (re-exported: the revision audit and the tests use them)
    _ALL_KINDS, _FAR, _GOVERNED_BIT, _KIND_BIT, _MEMORY_BITS, _SEARCH_BUDGET, _UNGOVERNED_BIT, MAX_PATH_EVENTS,
    _Graph, _decided, _failed_source, _grounded, _own_bit, is_user_rule, reviewed_memory,
)
from .reading import ADVERSE_WORDS, is_adverse  # noqa: F401  (re-exported: the Report page lists them)

SEVERITIES = ("high", "medium", "low", "info")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
TRIGGERS = ENUMS["trigger"]
FORMS = ENUMS["form"]
SOURCE_CATEGORIES = tuple(CATEGORY_OF_LETTER[x] for x in LETTERS) + ("none",)

PATHS_PER_SINK = 1  # one decisive chain per act or revision; near-duplicates are merged
PATHS_LISTED = 20  # chains listed, most salient first
QUOTE_CHARS = 90  # a finding quotes this much of its event's summary
_MAX_ISSUES = 7

# A newer memory that names an older one replaces it when it is itself recalled later, or says so.
_REPLACES_RE = re.compile(r"\b(?:replac\w*|in place of|instead|supersed\w*|withdraw\w*|deleted|no longer|obsolete|"
                          r"outdated|updated?|correct(?:ed|ion)|revoked|retracted|now)\b", re.I)
_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


@dataclass(frozen=True)
class Rule:
    """A documented check. ``severity`` is what findings of the rule can get."""

    id: str
    name: str
    severity: str
    trigger: str
    remedy: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "HALO-A1", "self-initiated-execution", "high / info",
            "an act with trigger=self and form=execution that changes something (not a query, fetch or scan that "
            "only looks): the agent changed something on its own. High, or "
            "info when a rule the user made or approved, and decided (not an approval only the agent claims), lies "
            "upstream of it: the user delegated such acts (a failure is then HALO-S1's business); whether an "
            "outcome was logged never lowers it",
            "Ask the user before executing on your own, or have the user set (and log) a rule for such actions; "
            "log the outcome.",
        ),
        Rule(
            "HALO-A2", "open-loop", "high / medium / low / info",
            "an act (any form but silence) that nothing checked: no outcome about it, no observation naming it, "
            "and for a preparation no later event using it; high for an execution a later execution builds on or "
            "a later act states as achieved (\"preserved since 20 May\"); medium when a later act relies on it (or an "
            "execution's only result says it was merely queued), low when it awaits a result that never comes "
            "(pending, or an execution that hands something to another party: submitted, requested, ordered, "
            "booked), medium for an execution when the agent checks at least three in four of its executions "
            "(four or more) and the trace goes on past its session (the skipped check stands out; not for one that "
            "only keeps the agent's own record: \"closed BCF-303\"), info otherwise. A message that only informs "
            "(\"posted: all action items closed\"), not asking or waiting on an answer, is info whatever builds on "
            "it. An act HALO-A1 covers is not repeated here, nor a "
            "communication the user asked for that no later event builds on (a reply or a reminder: the user "
            "is its check; it still counts in the outcome coverage and the Open loops list)",
            "Check how the act went: log halo_outcome about it, or halo_observe naming it in uses.",
        ),
        Rule(
            "HALO-A3", "act-without-basis", "medium / info",
            "an act whose uses is empty; medium for a self-initiated execution or preparation (nobody can tell "
            "what prompted it), info otherwise (for trigger=request, a logging gap: the request it answers is "
            "not in the trace)",
            "Name the observation, recall, outcome or rule the act relied on in uses.",
        ),
        Rule(
            "HALO-A4", "retained-material-drives-act", "high / medium / low / info",
            "an act whose ancestry holds a memory kept in another session, whatever its trigger. Unreviewed "
            "material (a memory that keeps only the agent's own acts, recalls or memories, or nothing, rather "
            "than an observation, an outcome or a rule the user approved, or that keeps an act of the agent's "
            "that no outcome or observation had checked when it was kept): high for an execution, medium for "
            "other acts when kept two or more sessions earlier, low otherwise; reviewed material driving an "
            "execution: info",
            "Have the retained material reviewed before it drives an act (observe or confirm it in this "
            "session and name that in uses), or stop carrying it across sessions.",
        ),
        Rule(
            "HALO-M1", "memory-without-source", "medium / low",
            "a remember whose uses is empty: retained material of unknown provenance; medium when an act "
            "later builds on it, low otherwise",
            "Name what the memory keeps (an observation, act or outcome) in uses so its provenance can be checked.",
        ),
        Rule(
            "HALO-M2", "memory-never-read-back", "high / medium / info",
            "a remember that no later event names (neither a recall nor a direct use), although the trace goes on; "
            "medium when a later session acts on its subject without it (two uncommon words or an identifier in "
            "common), which also holds for a memory read back only in the session that kept it; high when the "
            "memory keeps a restriction (\"on-site only\", \"must\", \"never\", \"no recovery action until\") and "
            "an execution went without it (in a later session, or in the same one right after it was kept), or "
            "a deadline (\"upload the estimate by 15 Aug\") that had passed when the later act went without it",
            "Recall the memory when it is relevant, or stop retaining this kind of material.",
        ),
        Rule(
            "HALO-M3", "recall-without-memory", "low",
            "a recall whose uses names no remember event",
            "Name the remember events the recall retrieved in uses.",
        ),
        Rule(
            "HALO-M4", "recall-unused", "low",
            "a recall that no later event names, although the trace goes on (a recall HALO-M5 covers is not "
            "repeated here)",
            "Name the recall in uses of the step it informed, or skip recalls that inform nothing.",
        ),
        Rule(
            "HALO-M5", "dropped-obligation", "high / medium",
            "a memory recalled two or more times from which no act ever follows (no act anywhere downstream "
            "of the memory or its recalls), although the trace goes on after the last recall; or an act that "
            "promises a later step to someone (\"I will remind them\", \"promised to message him\", \"then notify "
            "finance\") that no later act carries out (none names it or speaks of what was promised) before the "
            "trace moves on to another session or a later observation on its subject reports a problem (the "
            "person asking after it, or what came of the drop): high in that last case, and when the time the "
            "promise named (\"by Thursday\", \"this week\") ended before the trace did. Also a memory that keeps "
            "an obligation (\"Owe Glasshouse a ruling by Sun 12:00\", \"TO DO: phone …\") that nothing reads back "
            "and no act carries out while the trace goes on to a later session (high on the same terms)",
            "Act on the recalled obligation, or close it: log that it no longer applies (a remember naming it) "
            "and stop recalling it.",
        ),
        Rule(
            "HALO-M6", "superseded-memory-recalled", "high / medium / low",
            "a memory that a newer remember names (directly, or through a recall that retrieved it), or that a "
            "newer remember naming no memory replaces in so many words on the same subject (two uncommon words "
            "in common, no differing identifiers such as S03 and S11), recalled again after that newer memory was "
            "kept; medium when an act follows from the stale recall, high when "
            "the newer memory is never recalled or an execution follows within a few steps",
            "Recall the newer memory instead, and mark the old one as replaced so it stops being retrieved.",
        ),
        Rule(
            "HALO-M7", "failed-material-retained", "medium / low",
            "a remember that keeps an act whose outcome is adverse without keeping that outcome: the failed "
            "material is retained as if it had worked; medium when the memory is read back after the outcome",
            "Keep the outcome with the material (name it in uses), or drop the material of failed acts.",
        ),
        Rule(
            "HALO-R1", "ungoverned-self-revision", "high / info",
            "a revise with made_by=agent and governance=none: a durable change with neither the "
            "user's approval nor limits the user set; info when a later revise made_by=user, governance=approved "
            "names it and an allowed signer signed that approval's commit (the user approved it afterwards, "
            "provably), listing what rested on it before. An approval only the agent's account holds (logged "
            "through its own session, or an approval commit no allowed signer signed) is a claim: the finding "
            "stays high and says so",
            "Have the user approve the change (or set bounds for such changes) and log that; "
            "until then treat the revised target as unreviewed.",
        ),
        Rule(
            "HALO-R2", "revision-without-evidence", "medium / info",
            "a revise whose uses is empty; medium when the agent made it, info when the user did (the user's "
            "own change needs no evidence to be legitimate)",
            "Name the observations, outcomes or memories that motivated the change in uses.",
        ),
        Rule(
            "HALO-R3", "repeated-revision", "medium / info",
            "two or more revisions of the same target (case and spacing ignored), at least one in scope; "
            "a user's approval of a revision (made_by=user, governance=approved, uses that one revise and any "
            "evidence) is not one; "
            "info when every one of them was made or approved by the user or stays within a bound the user set "
            "(governance=bounded with such a revision upstream)",
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
            "HALO-R5", "bounded-without-bound", "high / medium",
            "a revise with governance=bounded whose ancestry holds no revision of the same target that the "
            "user made or approved: the bound it claims is nowhere in the trace; high when later events "
            "build on it",
            "Log the bound the user set (a halo_revise of the target with made_by=user or governance=approved) "
            "and name it in uses, or log the change as governance=none.",
        ),
        Rule(
            "HALO-S1", "adverse-outcome-ignored", "high / medium / low",
            "an adverse outcome (one reporting a problem) that nothing later repairs (no retry, memory, revision "
            "or accepted alternative builds on it), although the trace goes on; medium when the agent later "
            "repeats the same kind of act (same trigger, form and verb, the summary's first word), high when a "
            "later message tells of the failed act as done (naming it, the failure, or another result of the same "
            "act that went well), when a later execution puts the very thing that failed (named by an identifier "
            "the failure names: crane STS-4) to use again without naming the failure, or when the failure is about "
            "safety (an alarm, a stop, a near miss, a brake). Also high: an act of a later session that builds on "
            "the failed act's output (names the act) without naming the failure or repairing it. Also high, repaired or not: an execution of the same "
            "session that goes on from the failed execution (names it) without naming the failure and without "
            "dealing with it (a retry, rollback, fix or pause), or an execution that names the failed result of a "
            "preparation and rests on the part that failed (of \"RX412 export OK; RX418 truncated\", the rebooking "
            "of RX418) as if it had worked, and an act that uses by its name the partial output a failed step left "
            "(\"partial file cal_B_0310 written\", then \"loaded cal_B_0310 as mass cal\"), in its own words or an "
            "observation it names, without saying it is partial or redoing it. Courtesy and success outcomes are not "
            "feedback that needs building on",
            "Build on the outcome: name it in uses of the next act of that kind, of a memory or of a revision.",
        ),
        Rule(
            "HALO-S2", "acts-without-observation", "medium",
            "a session (a child session counts with its parent's turn) with acts and no observe event, counting "
            "only acts that name no observation or result (a failed one included) and rest on no rule the user made "
            "or approved, on no reviewed memory (one keeping an observation or outcome, as for HALO-A4) and on no "
            "result that reports no problem (a person's answer, what an import brought in), and that do not "
            "themselves take in the situation (import, fetch, pull, scan, read): a scheduled run acting on such a "
            "rule, on a memory of what the user asked, or on the user's reply, is not acting blind",
            "Observe the current situation with halo_observe before acting, and name it in the act's uses.",
        ),
    )
}
RULES.update({spec[0]: Rule(*spec) for spec in _shapes.RULE_SPECS})  # shapes across events: diagnosis/shapes.py
RULES.update({spec[0]: Rule(*spec) for spec in _observed.RULE_SPECS})  # observed evidence: halo_git/observed.py
# Importance among rules of the same severity, for the Summary (first = most important).
_RULE_ORDER = ("HALO-A4", "HALO-O1", "HALO-A1", "HALO-R1", "HALO-R6", "HALO-A5", "HALO-R4", "HALO-R5", "HALO-R7",
               "HALO-M10", "HALO-O2", "HALO-M7", "HALO-M6", "HALO-M9", "HALO-M5", "HALO-S1", "HALO-S3", "HALO-M8",
               "HALO-R3", "HALO-R2", "HALO-S2", "HALO-M1", "HALO-A3", "HALO-A2", "HALO-M4", "HALO-M3",
               "HALO-M2")
RULE_WEIGHT = {r: i for i, r in enumerate(_RULE_ORDER)}


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
    """One problem the trace shows. ``ids``: the event it is about first, then related evidence.

    ``message`` says what happened, ``quote`` is the first event's own summary
    (shortened, not escaped: renderers escape it), ``why`` why it matters in
    this trace and ``next_step`` one concrete step for the team running the
    agent; ``remedy`` is the rule's general advice.
    """

    rule: str
    severity: str
    ids: tuple[str, ...]
    message: str
    remedy: str
    quote: str = ""
    why: str = ""
    next_step: str = ""

    @property
    def name(self) -> str:
        return RULES[self.rule].name

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ids"] = list(self.ids)
        d["name"] = self.name
        return d


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
    memories_recalled: Ratio  # memories some later event reads back (recall or direct use) / memories
    outcomes_used: Ratio  # outcomes a later event names / outcomes
    revisions_governed: Ratio  # revisions with governance approved or bounded / revisions
    self_initiated: Ratio  # acts with trigger=self / acts


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    sources: tuple[str, ...]
    categories: tuple[str, ...]  # categories of the sources, in LETTERS order
    recalled_by: tuple[str, ...]
    used_by: tuple[str, ...] = ()  # later events naming the memory directly (not recalls)
    reviewed: bool = False  # keeps an observation, an outcome or a rule the user made or approved


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
    never_recalled: list[str]  # memories no later event names at all
    unused: list[str]
    without_memory: list[str]
    cross_session: list[tuple[str, str]]  # (recall, memory of another session)
    direct: list[str] = field(default_factory=list)  # memories read back only by direct use, no recall


@dataclass(frozen=True, slots=True)
class Act:
    id: str
    trigger: str
    form: str
    basis: tuple[str, ...]
    outcomes: tuple[str, ...]
    observed_by: tuple[str, ...] = ()  # observations naming the act in uses


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
    adverse: bool = False


@dataclass
class Outcomes:
    coverage: Ratio
    outcomes: list[OutcomeInfo]
    open_loops: list[str]  # acts nothing checked (no outcome, no observation naming them)
    ignored: list[str]  # adverse outcomes nothing later used
    observed: list[str] = field(default_factory=list)  # acts checked by an observation instead of an outcome


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
    unbounded: list[str] = field(default_factory=list)  # governance=bounded with no user bound upstream


@dataclass(frozen=True, slots=True)
class AuthorityPath:
    """A backward chain over uses/about ending at an act or revision that holds authority."""

    sink: str
    ids: tuple[str, ...]  # oldest first; the last id is the sink
    truncated: bool  # earlier events fed its first event (the chain stops at a depth limit)
    carriers: tuple[str, ...]  # kinds on the path before the sink, in KINDS order
    salience: tuple[str, ...] = ()  # why the chain matters, most salient first
    also: tuple[str, ...] = ()  # other acts or revisions fed by a chain of the same shape from the same event
    score: int = 0


@dataclass
class Authority:
    paths: list[AuthorityPath]  # most salient first, then shortest, then earliest
    sinks: int  # acts and revisions in scope that hold authority paths
    sinks_with_more: int  # sinks whose chain is not listed (beyond ``listed``, or merged into another)
    # For each sink, every kind anywhere upstream of it (no depth limit), in KINDS order.
    upstream: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Sinks with an ungoverned self-revision upstream, in id order.
    ungoverned_upstream: list[str] = field(default_factory=list)
    max_events: int = MAX_PATH_EVENTS
    per_sink: int = PATHS_PER_SINK
    # Sinks by class (one sink can be in several): execution, self, revise, cross-session.
    classes: dict[str, int] = field(default_factory=dict)
    cross_session: list[str] = field(default_factory=list)  # sinks fed by memory kept in another session
    listed: int = PATHS_LISTED


@dataclass(frozen=True)
class Issue:
    """One entry of the Summary: a group of findings of one rule, with related findings on its chain."""

    rule: str
    severity: str
    findings: tuple[Finding, ...]
    related: tuple[Finding, ...] = ()  # findings of other rules about events on the first finding's chain

    @property
    def first(self) -> Finding:
        return self.findings[0]


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
    claimed_approvals: tuple[str, ...] = ()  # approvals of ungoverned self-revisions that nothing proves

    @property
    def scope(self) -> str:
        return f"session {self.session}" if self.session else "whole trace"

    def is_outside(self, event_id: str) -> bool:
        ev = self.evidence.get(event_id)
        return bool(self.session) and ev is not None and ev.session != self.session

    def issues(self, limit: int = _MAX_ISSUES) -> list[Issue]:
        return issues(self.findings, limit)


def severity_counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per severity, every severity present, high first."""
    counts = Counter(f.severity for f in findings)
    return {s: counts.get(s, 0) for s in SEVERITIES}


def at_or_above(findings: Iterable[Finding], threshold: str) -> list[Finding]:
    """The findings whose severity is ``threshold`` or worse (``high`` is the worst)."""
    limit = SEVERITY_RANK[threshold]
    return [f for f in findings if SEVERITY_RANK[f.severity] <= limit]


def group_findings(findings: Iterable[Finding]) -> list[tuple[str, str, list[Finding]]]:
    """(rule, severity, findings) groups in the findings' own order (severity, rule, first id)."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.rule, f.severity), []).append(f)
    return [(r, s, fs) for (r, s), fs in groups.items()]


def issues(findings: Sequence[Finding], limit: int = _MAX_ISSUES) -> list[Issue]:
    """The Summary: up to ``limit`` groups, most important first.

    Findings are grouped by rule (a group's severity is its worst finding's,
    and its worst finding comes first); groups are ranked by severity,
    then by the rule's importance (``RULE_WEIGHT``), then by size. A group whose
    first finding is about an event on the chain of a higher-ranked group's
    first finding is folded into that group as related (one causal chain, one
    issue). Info groups are shown only while fewer than three issues exist.
    """
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    groups = []
    for rule, fs in by_rule.items():
        fs = sorted(fs, key=lambda f: (SEVERITY_RANK[f.severity], _first(f)))
        groups.append((rule, fs[0].severity, fs))
    groups.sort(key=lambda g: (SEVERITY_RANK[g[1]], RULE_WEIGHT.get(g[0], 99), -len(g[2]), _first(g[2][0])))
    out: list[tuple[str, str, list[Finding], list[Finding]]] = []
    for rule, severity, fs in groups:
        if severity == "info" and len(out) >= 3:
            break
        subject = fs[0].ids[0] if fs[0].ids else None
        host = next((o for o in out if subject in o[2][0].ids and o[0] != rule), None) if len(fs) == 1 and subject else None
        if host is not None:
            host[3].append(fs[0])
            continue
        if len(out) < limit:
            out.append((rule, severity, fs, []))
    return [Issue(r, s, tuple(fs), tuple(rel)) for r, s, fs, rel in out]


def _num(event_id: str) -> int:
    return int(event_id[1:])


def _first(f: Finding) -> int:
    """The number of the event a finding is about (0 for a finding about no logged event)."""
    return _num(f.ids[0]) if f.ids else 0


def _time_key(iso: str) -> tuple[str, float]:
    """Order ISO times correctly when only some carry fractions of a second."""
    frac = iso[19:-1]
    return iso[:19], float(frac) if frac[:1] == "." and frac[1:].isdigit() else 0.0


def _same_target(target: str) -> str:
    return " ".join(target.split()).casefold()


def approved_revision(e: Event, by_id: dict[str, Event]) -> str | None:
    """The revise ``e`` approves, if ``e`` is an approval of one: a revise with
    made_by=user and governance=approved whose uses name exactly one earlier
    revise, of the same target, and nothing else or at least one event logged
    after it (what ``halo-git approve`` logs, and what an agent logs for its
    user's answer: uses [the revise, the outcome holding the answer], perhaps
    with the original evidence); else None. Evidence from before the change
    alone makes a new version that builds on it."""
    f = e.fields
    if e.kind != "revise" or f["made_by"] != "user" or f["governance"] != "approved" or not e.uses:
        return None
    revises = [by_id[u] for u in e.uses if u in by_id and by_id[u].kind == "revise"]
    if len(revises) != 1 or _same_target(revises[0].fields["target"]) != _same_target(f["target"]):
        return None
    approved = revises[0].id
    # evidence from before the change alone makes a new version that builds on it, not an approval;
    # with the answer given after the change (an outcome or observation) it is an approval
    n = _num(approved)
    if any(_num(u) < n for u in e.uses) and not any(_num(u) > n for u in e.uses):
        return None
    return approved


def quote(summary: str, limit: int = QUOTE_CHARS) -> str:
    """A summary on one line, shortened to ``limit`` characters with an ellipsis."""
    text = one_line(summary) if any(c in summary for c in _BREAKS) else summary
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _ids_text(ids: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


_OBSERVED_WHY = {
    "HALO-O1": "The observed evidence shows a tool call the agent's own account leaves out, so the trace "
               "under-reports what the agent did.",
    "HALO-O2": "The trace claims an execution the observed evidence does not show: either the claim is wrong or "
               "the evidence is incomplete.",
}


def _finding(rule: str, ids: Sequence[str], message: str, severity: str | None = None, subject: Event | None = None,
             why: str = "", next_step: str = "") -> Finding:
    """A finding of ``rule``; ``subject`` is the event it quotes (callers outside this module may leave the
    context out: renderers then fall back to the rule's remedy)."""
    r = RULES[rule]
    return Finding(rule, severity or r.severity, tuple(ids), message, r.remedy,
                   quote(subject.summary) if subject is not None else "", why, next_step)


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


def _common_words(events: Sequence[Event]) -> frozenset[str]:
    """Subject words found in more than a quarter of the events (at least six): the trace's
    vocabulary, which says nothing about which thing two events speak of."""
    # Long traces are sampled evenly (every k-th event, at most 5,000): the trace's common vocabulary
    # shows in any even sample, and the cost stays bounded.
    sample = events[::max(1, len(events) // 5000)]
    df: Counter[str] = Counter()
    for e in sample:
        df.update(reading.subject_words(e.summary))
    cut = max(6, len(sample) // 4)
    return frozenset(w for w, n in df.items() if n > cut)


def _decision_upstream(g: _Graph, rev: str) -> bool:
    """Whether ``rev`` names (within two steps) an observation or outcome in which the user decides:
    an instruction the user gave ("turn slow-mode off for the tournament, back on after") bounds a change
    as a logged rule of the user's does. A change that loosens a limit needs the instruction to say how
    far or how long ("for the tournament", "until 21:00"): choosing a loose preset bounds nothing."""
    loosens = reading.says_loosening(g.by_id[rev].summary)
    by_id = g.by_id
    frontier, seen = list(g.sources[rev]), set()
    for _ in range(2):
        nxt = []
        for s in frontier:
            if s in seen:
                continue
            seen.add(s)
            x = by_id[s]
            if x.kind in ("recall", "remember"):  # what the user said, kept and read back: no step of its own
                frontier.extend(y for y in g.sources[s] if by_id[y].kind in ("remember", "observe", "outcome"))
                continue
            if x.kind in ("observe", "outcome") and not reading.says_third_party(x.summary) \
                    and not reading.quotes_claimed_authority(x.summary) and not reading.relays_approval(x.summary) \
                    and not reading.says_requirement(x.summary) and (
                    (reading.says_decision(x.summary) and reading.says_speech(x.summary))
                    or (reading.quotes_speaker(x.summary) and reading.says_limit(x.summary))) \
                    and (not loosens or reading.says_scoped(x.summary)):
                return True
            nxt.extend(g.sources[s])
        frontier = nxt
    return False


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


def _bound_upstream(g: _Graph, rev: str, target: str) -> bool:
    """Whether the ancestry of ``rev`` holds a rule the user made or approved, and decided (not a claim
    the agent logged): the bound a ``governance=bounded`` change stays within. The user's limits are
    often logged under a broader target ("job tuning limits" bounding "job config"), so any target counts."""
    if not g.up[rev] & _GOVERNED_BIT:
        return False
    seen = {rev}
    stack = list(g.sources[rev])
    by_id = g.by_id
    while stack and len(seen) < 20 * _SEARCH_BUDGET:
        s = stack.pop()
        if s in seen:
            continue
        seen.add(s)
        e = by_id[s]
        if e.kind == "revise" and g.own[s] & _GOVERNED_BIT and s not in g.claimed:
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


@dataclass
class _Context:
    events: Sequence[Event]
    scoped: list[Event]
    by_id: dict[str, Event]
    pos: dict[str, int]
    last: int
    g: _Graph
    used_by: dict[str, list[str]]
    recalled_by: dict[str, list[str]]
    reach: set[str]
    is_bad: object
    cross_of: dict[str, tuple[str, bool]]
    session: str
    common: frozenset[str] = frozenset()  # subject words too frequent in this trace to tell subjects apart
    proven: frozenset[str] = frozenset()  # approval events whose commits an allowed signer signed
    claimed_approvals: list[str] = field(default_factory=list)  # approvals of ungoverned revisions nothing proves
    memo: dict = field(default_factory=dict)  # readings several rules share, made once per diagnosis

    def rare(self, i: str) -> frozenset[str]:
        """The subject words of event ``i`` that are not common in this trace."""
        return reading.subject_words(self.by_id[i].summary) - self.common


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


_SUBJECT_WINDOW = 2000  # events after an event searched for a later act on its subject (bounds the cost)


def _later_act_on(ctx: _Context, subject: str, after: str, *, form: str | None = None,
                  other_session: bool = False) -> str | None:
    """The first act after ``after`` (within ``_SUBJECT_WINDOW`` events) that speaks of what event
    ``subject`` speaks of: two or more uncommon subject words in common with the act, or with the
    observations it names. ``form``: only acts of that form (else any but silence);
    ``other_session``: only acts of a session other than the subject's."""
    words = ctx.rare(subject)
    ids = reading.identifiers(ctx.by_id[subject].summary)
    if len(words) < 2 and not ids:
        return None
    session = ctx.by_id[subject].session
    start = ctx.pos[after] + 1
    for e in ctx.events[start:start + _SUBJECT_WINDOW]:
        if e.kind != "act" or (other_session and e.session == session):
            continue
        if (e.fields["form"] != form) if form else e.fields["form"] == "silence":
            continue
        seen = ctx.rare(e.id).union(*(ctx.rare(s) for s in ctx.g.sources[e.id] if ctx.by_id[s].kind == "observe"))
        theirs = reading.identifiers(e.summary)
        if ids and theirs and not ids & theirs:
            continue  # P-0871's fee is not P-0933's instruction
        if len(words & seen) >= 2 or (ids & theirs and words & seen):  # (an identifier
            # names one thing; with one more word in common it is the same fact about it)
            if other_session and _read_other_memory_on(ctx, e.id, words, ids):
                continue  # it read a newer memory of the same subject: it did not go without
            return e.id
    return None


def _read_other_memory_on(ctx: _Context, act: str, words: frozenset[str], ids: frozenset[str]) -> bool:
    """Whether ``act`` rests on a memory (named, or retrieved by a recall it names) that speaks of the same
    subject: two uncommon words or an identifier in common."""
    g, by_id = ctx.g, ctx.by_id
    mems = [s for s in g.sources[act] if by_id[s].kind == "remember"] + [
        m for s in g.sources[act] if by_id[s].kind == "recall" for m in g.sources[s] if by_id[m].kind == "remember"]
    return any(len(words & ctx.rare(m)) >= 2 or ids & reading.identifiers(by_id[m].summary) for m in mems)


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


def _within_bound(g: "_Graph", e: Event) -> bool:
    """A governance=bounded revision with a bound the user set upstream (the case HALO-R5 leaves alone)."""
    return e.fields["governance"] == "bounded" and (
        _bound_upstream(g, e.id, _same_target(e.fields["target"])) or _decision_upstream(g, e.id)
        or (reading.says_tightening(e.summary) and not reading.says_loosening(e.summary))  # more careful: no leave
        # needed ("per-host rate lowered to 1 request/10 s" after the site owner's complaint)
        or (reading.says_restoration(e.summary) and any(g.by_id[s].kind == "revise" for s in g.sources[e.id])))
    # (putting back the limit an earlier change lifted returns to what was: the bound is the old limit)


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


def _outcomes_about(ctx: _Context, act: str) -> list[str]:
    return [u for u in ctx.used_by.get(act, ()) if ctx.by_id[u].kind == "outcome" and ctx.by_id[u].fields["about"] == act]


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
