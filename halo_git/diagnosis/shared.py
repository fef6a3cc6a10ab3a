"""Helpers that several parts of the diagnosis share: event ids and wording, the bounds a change
stays within, and the search for a later act on the same subject.

Room: diagnosis. Pure functions over events, the graph (``graph._Graph``) and the rule context
(``context._Context``); they make no findings. Called by the rule families (``memory``,
``actions``, ``sensing``, ``mechanism``, ``shapes``), by ``stages`` (the mechanism table) and
by ``summary``; ``approved_revision`` is re-exported by the package for the revision audit and
the lineage.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Sequence

from ..model import Event
from . import reading
from .graph import _GOVERNED_BIT, _SEARCH_BUDGET, _Graph, _answer_of_asked

if TYPE_CHECKING:  # pragma: no cover
    from .context import _Context


def _num(event_id: str) -> int:
    return int(event_id[1:])


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


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _ids_text(ids: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _outcomes_about(ctx: _Context, act: str) -> list[str]:
    return [u for u in ctx.used_by.get(act, ()) if ctx.by_id[u].kind == "outcome" and ctx.by_id[u].fields["about"] == act]


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
            if x.kind == "outcome" and _answer_of_asked(x, by_id) and (not loosens or reading.says_scoped(x.summary)):
                return True  # the answer of the person the change was put to
            if x.kind in ("observe", "outcome") and not reading.says_third_party(x.summary) \
                    and not reading.quotes_claimed_authority(x.summary) and not reading.relays_approval(x.summary) \
                    and not reading.says_requirement(x.summary):
                if ((reading.says_decision(x.summary) and reading.says_speech(x.summary))
                        or (reading.quotes_speaker(x.summary) and reading.says_limit(x.summary))) \
                        and (not loosens or reading.says_scoped(x.summary)):
                    return True
                if reading.says_decision(x.summary) and reading.leaves_it_to_agent(x.summary) and (
                        not loosens or reading.says_scoped(x.summary) or reading.says_proviso(x.summary)):
                    return True  # the choice left to the agent ("reorder the queue however I think works best, as
                    # long as nothing waits more than 3 working days"): the change stays within what was left to it
            nxt.extend(g.sources[s])
        frontier = nxt
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


def _within_bound(g: "_Graph", e: Event) -> bool:
    """A governance=bounded revision with a bound the user set upstream (the case HALO-R5 leaves alone)."""
    return e.fields["governance"] == "bounded" and (
        _bound_upstream(g, e.id, _same_target(e.fields["target"])) or _decision_upstream(g, e.id)
        or (reading.says_tightening(e.summary) and not reading.says_loosening(e.summary))  # more careful: no leave
        # needed ("per-host rate lowered to 1 request/10 s" after the site owner's complaint)
        or (reading.says_restoration(e.summary) and any(g.by_id[s].kind == "revise" for s in g.sources[e.id])))
    # (putting back the limit an earlier change lifted returns to what was: the bound is the old limit)


_SUBJECT_WINDOW = 2000  # events after an event searched for a later act on its subject (bounds the cost)


def _later_act_on(ctx: _Context, subject: str, after: str, *, form: str | None = None,
                  other_session: bool = False) -> str | None:
    """The first act after ``after`` (within ``_SUBJECT_WINDOW`` events) that speaks of what event
    ``subject`` speaks of: two or more uncommon subject words in common with the act, or with the
    observations it names. ``form``: only acts of that form (else any but silence);
    ``other_session``: only acts of a session other than the subject's."""
    words = ctx.rare(subject)
    ids = reading.identifiers(ctx.by_id[subject].summary)
    if not words or (len(words) < 2 and not ids):
        return None  # (every match below shares a word with the subject)
    session = ctx.by_id[subject].session
    start = ctx.pos[after] + 1
    seen_of = _acts_by_word(ctx)[0]
    for k in _acts_sharing(ctx, words, start, start + _SUBJECT_WINDOW):
        e = ctx.events[k]
        if other_session and e.session == session:
            continue
        if (e.fields["form"] != form) if form else e.fields["form"] == "silence":
            continue
        seen = seen_of[k]
        theirs = reading.identifiers(e.summary)
        if ids and theirs and not ids & theirs:
            continue  # P-0871's fee is not P-0933's instruction
        if len(words & seen) >= 2 or (ids & theirs and words & seen):  # (an identifier
            # names one thing; with one more word in common it is the same fact about it)
            if other_session and _read_other_memory_on(ctx, e.id, words, ids):
                continue  # it read a newer memory of the same subject: it did not go without
            return e.id
    return None


def _acts_by_word(ctx: _Context) -> tuple[dict[int, frozenset[str]], dict[str, list[int]]]:
    """Per act (by position): the uncommon subject words it and the observations it names speak of; and per
    such word, the positions of the acts that speak of it, in order. Made once per diagnosis, so the search for
    a later act on a subject reads only the acts sharing a word with it (scanning the window act by act cost
    most of a long trace's diagnosis when its summaries are all different)."""
    kept = ctx.memo.get("acts_by_word")
    if kept is None:
        seen_of: dict[int, frozenset[str]] = {}
        positions: dict[str, list[int]] = {}
        by_id, sources = ctx.by_id, ctx.g.sources
        for k, e in enumerate(ctx.events):
            if e.kind != "act":
                continue
            seen = ctx.rare(e.id).union(*(ctx.rare(s) for s in sources[e.id] if by_id[s].kind == "observe"))
            seen_of[k] = seen
            for w in seen:
                positions.setdefault(w, []).append(k)
        kept = ctx.memo["acts_by_word"] = (seen_of, positions)
    return kept


def _acts_sharing(ctx: _Context, words: frozenset[str], lo: int, hi: int) -> list[int]:
    """The positions from ``lo`` to ``hi`` (not included) of the acts that, with the observations they name, speak
    of one of ``words`` (uncommon subject words), in order: the only acts a search for a step on a subject needs
    to read."""
    return _within(_acts_by_word(ctx)[1], words, lo, hi)


def _within(index: dict[str, list[int]], words, lo: int, hi: int) -> list[int]:
    """The positions from ``lo`` to ``hi`` (not included) that a word index (word -> positions, in order) holds
    under any of ``words``, in order: the one query every index of events by subject answers."""
    near: set[int] = set()
    for w in words:
        at = index.get(w)
        if at:
            near.update(at[bisect_left(at, lo):bisect_left(at, hi)])
    return sorted(near)


def _read_other_memory_on(ctx: _Context, act: str, words: frozenset[str], ids: frozenset[str]) -> bool:
    """Whether ``act`` rests on a memory (named, or retrieved by a recall it names) that speaks of the same
    subject: two uncommon words or an identifier in common."""
    g, by_id = ctx.g, ctx.by_id
    mems = [s for s in g.sources[act] if by_id[s].kind == "remember"] + [
        m for s in g.sources[act] if by_id[s].kind == "recall" for m in g.sources[s] if by_id[m].kind == "remember"]
    return any(len(words & ctx.rare(m)) >= 2 or ids & reading.identifiers(by_id[m].summary) for m in mems)


def _upstream(ctx: _Context, event: str, depth: int) -> set[str]:
    """The events ``event`` names within ``depth`` steps of uses and about."""
    seen: set[str] = set()
    frontier = [event]
    for _ in range(depth):
        frontier = [s for x in frontier for s in ctx.g.sources[x] if s not in seen]
        seen.update(frontier)
    return seen
