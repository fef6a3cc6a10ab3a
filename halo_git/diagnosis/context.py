"""The context every rule reads: the events, the graph, the lookups ``diagnose`` built, and the trace's
common words.

Room: diagnosis. ``diagnose`` builds one ``_Context`` per diagnosis (with ``_common_words``) and
hands it to every rule family (``memory``, ``actions``, ``sensing``, ``mechanism``, ``shapes``)
and to the helpers in ``shared``. Two fields are written while the rules run:
``claimed_approvals`` (by ``mechanism``) and ``memo`` (readings several rules share).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from ..model import Event
from . import reading
from .graph import _Graph


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
        """The subject words of event ``i`` that are not common in this trace (kept per event: many rules ask)."""
        kept = self.memo.setdefault("rare", {})
        words = kept.get(i)
        if words is None:
            words = kept[i] = reading.subject_words(self.by_id[i].summary) - self.common
        return words

    def read_words(self, recall: str) -> frozenset[str]:
        """The subject words of recall ``recall`` and of the acts that use it: what the read-back was for (the
        trace's common words count)."""
        words, by_id = reading.subject_words, self.by_id
        return words(by_id[recall].summary).union(*(words(by_id[u].summary) for u in self.used_by.get(recall, ())
                                                    if by_id[u].kind == "act"))


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
