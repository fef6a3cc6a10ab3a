"""What a diagnosis returns: plain dataclasses, and ``_finding``, the one way a rule makes a ``Finding``.

Room: diagnosis. The Markdown report, the review site, the CI gate, the output formats and the
branch diff all read these types (through the package's re-exports); ``diagnose`` and the stages
in ``stages`` and ``authority`` build them, and every rule family calls ``_finding``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

from .. import observed as _observed
from ..model import CATEGORY_OF_LETTER, ENUMS, LETTERS, Event, one_line
from .graph import MAX_PATH_EVENTS
from .rules import RULES
from .summary import _MAX_ISSUES, Issue, issues

TRIGGERS = ENUMS["trigger"]
FORMS = ENUMS["form"]
SOURCE_CATEGORIES = tuple(CATEGORY_OF_LETTER[x] for x in LETTERS) + ("none",)

PATHS_PER_SINK = 1  # one decisive chain per act or revision; near-duplicates are merged
PATHS_LISTED = 20  # chains listed, most salient first
QUOTE_CHARS = 90  # a finding quotes this much of its event's summary
_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


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


def quote(summary: str, limit: int = QUOTE_CHARS) -> str:
    """A summary on one line, shortened to ``limit`` characters with an ellipsis."""
    text = one_line(summary) if any(c in summary for c in _BREAKS) else summary
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _finding(rule: str, ids: Sequence[str], message: str, severity: str | None = None, subject: Event | None = None,
             why: str = "", next_step: str = "") -> Finding:
    """A finding of ``rule``; ``subject`` is the event it quotes (callers outside this module may leave the
    context out: renderers then fall back to the rule's remedy)."""
    r = RULES[rule]
    return Finding(rule, severity or r.severity, tuple(ids), message, r.remedy,
                   quote(subject.summary) if subject is not None else "", why, next_step)
