"""The memory rules (HALO-M1 to HALO-M7): what the agent kept, read back, replaced and kept of its failures.

Room: diagnosis, one rule family. ``findings`` reads the rule context (``context._Context``) and
the write side and read-back tables ``stages`` built; ``diagnose`` calls it first of the
families (the package's ``_findings``).
"""

from __future__ import annotations

from . import reading
from . import shapes as _shapes
from .context import _Context
from .result import Finding, ReadBack, WriteSide, _finding
from .shared import _ids_text, _later_act_on, _outcomes_about, _plural, _within


# A memory no later event names, once the agent has gone on through this many later sessions and this many
# events, never reached the work it was kept for (HALO-M2 medium): one later session, or a short tail, may
# simply not have met the situation it was kept for yet.
WENT_ON_SESSIONS = 2
WENT_ON_EVENTS = 10
# ... unless the agent reads back nearly all it keeps: then it is info (at most this share unread, of this many)
READS_BACK_SHARE = 0.34
READS_BACK_MEMORIES = 4


def findings(ctx: _Context, *, write: WriteSide, read: ReadBack) -> list[Finding]:
    """The findings of the memory rules, in the order the rules run (``diagnose`` sorts them)."""
    g, by_id, pos, last, used_by = ctx.g, ctx.by_id, ctx.pos, ctx.last, ctx.used_by
    is_bad = ctx.is_bad
    out: list[Finding] = []
    add = out.append

    def after(i: str) -> int:
        return last - pos[i]

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
    # top-level sessions begun up to each position: the graph numbers them as they begin (a child session
    # is its parent's turn), so the count so far is one more than the highest number seen
    begun: list[int] = []
    if read.never_recalled:
        most = 0
        for e in ctx.events:
            most = max(most, g.order[e.session] + 1)
            begun.append(most)
    # an agent that reads back most of what it keeps (two thirds or more, of four memories or more) is no
    # write-only store: a note nothing later reads, and no later act takes up, was simply not needed again
    kept = sum(1 for e in ctx.events if e.kind == "remember")
    reads_back = kept >= READS_BACK_MEMORIES and len(read.never_recalled) <= READS_BACK_SHARE * kept
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
        later = begun[-1] - begun[pos[i]]
        if same is None and later >= WENT_ON_SESSIONS and after(i) >= WENT_ON_EVENTS:
            add(_finding(
                "HALO-M2", [i],
                f"No later event names it: the agent went on for {_plural(after(i), 'more event')} over "
                f"{_plural(later, 'later session')} without reading it back.",
                "info" if reads_back else "medium", by_id[i],
                (f"The agent read back all but {_plural(len(read.never_recalled), 'memory', 'memories')} of the "
                 f"{kept} it kept, and no later act took up this one's subject: it was not needed again in this "
                 "trace.") if reads_back else
                "A memory is kept for the steps after its session; none of them read it, so what the agent kept "
                "never reached its work (a write-only memory).",
                f"Have the agent recall {i} when a later session takes up its subject, or stop retaining this kind "
                "of material.",
            ))
            continue
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
    # A memory named only in the session that kept it, when a later session acts on its subject without it.
    # Named only in the uses of that session's acts (diligent logging: "kept the report", then the run that
    # used it), it was never read back: medium, as for a note no event names. Recalled in that session, it was
    # read back and did its work once: info, as a reviewer raises it only when the later step went against what
    # it kept, which these events do not show (of 25 such notes in the labelled sets, one was a problem of this
    # kind and eleven were healthy runs).
    order = g.order
    for m in write.memories:
        readers = (*m.recalled_by, *m.used_by)
        if not readers or any(order[by_id[r].session] != order[by_id[m.id].session] for r in readers):
            continue
        if not (reading.says_terms(by_id[m.id].summary) or any(s in g.adverse for s in g.sources[m.id])) \
                or reading.names_rulebook(by_id[m.id].summary):
            continue  # a record that served its session ("bag on shelf C4") owes nothing to later steps; terms
            # or a known problem ("wrong account picked") are what a later step on the subject may need, except a
            # rulebook ("Auto-post limit 25k per accrual line (close policy v7)"): applied in its session, it is
            # the agent's practice afterwards
        same = _later_act_on(ctx, m.id, max(readers, key=pos.__getitem__), other_session=True)
        if same is not None and not reading.says_constraint(by_id[m.id].summary) and any(
                by_id[x].kind in ("observe", "outcome") and pos[x] > pos[m.id] and len(ctx.rare(m.id) & ctx.rare(x)) >= 2
                and not reading.says_question(by_id[x].summary) for x in g.sources[same]):
            same = None  # it looked at the world on the same subject afresh ("E-07 cal due 30-Sep ... re-check the
            # register on the day of use", then a test resting on that day's register check); a rule the note keeps
            # ("the 2019 edition only") is no fact a fresh look replaces, nor is a question or request a look
        if same is not None and by_id[same].fields["form"] == "communication" and reading.says_question(by_id[same].summary):
            same = None  # putting the matter to the person who decides it ("forwarded Wei's request for an exception
            # to Dr. Marsh") asks for the rule's answer: it does not act on the subject without the rule
        if same is None or m.id in g.sources[same] or any(m.id in g.sources[s] for s in g.sources[same]):
            continue
        add(_finding(
            "HALO-M2", [m.id, same],
            f"{'Read back' if m.recalled_by else 'Named'} only in the session that kept it ({', '.join(readers[:3])}); "
            f"{same}, in a later session, deals with the same subject without it.",
            "info" if m.recalled_by else "medium", by_id[m.id],
            f"The memory was read back in its own session; {same} later took up what it is about without reading "
            "it, which matters only if what it kept still applied there." if m.recalled_by else
            f"The memory was kept past its session, but {same} acted on what it is about without reading it, so "
            "what the agent learned did not reach the later step.",
            f"Have the agent recall {m.id} before acting on its subject again (as {same} did), or stop retaining "
            "this kind of material.",
        ))
    for i in read.without_memory:
        add(_finding(
            "HALO-M3", [i], "Names no remember event it retrieved.", "info", by_id[i],
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
            "HALO-M4", [r.id], f"No later event names this recall{got}.", "info", by_id[r.id],
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
    kept_with: dict[str, list[int]] = {}  # uncommon word -> positions in kept_so_far of the memories saying it
    for e in ctx.events:
        if e.kind != "remember":
            continue
        names_one = any(by_id[s].kind in ("remember", "recall") for s in g.sources[e.id])  # it said which
        words = ctx.rare(e.id)
        if not names_one and (reading.says_replacement(e.summary) or reading.says_withdrawal(e.summary)):
            ids, recent = reading.identifiers(e.summary), len(kept_so_far) - 500  # (the last 500 memories)
            for k in _within(kept_with, words, recent, len(kept_so_far)):
                old = kept_so_far[k]
                theirs = reading.identifiers(by_id[old].summary)
                if old not in superseded and len(words & ctx.rare(old)) >= 2 and not (ids and theirs and
                                                                                       not ids & theirs):
                    superseded[old] = e.id  # (S03's note does not replace S11's)
        for w in words:
            kept_with.setdefault(w, []).append(len(kept_so_far))
        kept_so_far.append(e.id)
    for m in write.memories:
        new = superseded.get(m.id)
        if new is None or not (reading.says_replacement(by_id[new].summary) or reading.says_withdrawal(by_id[new].summary)):
            continue  # a memory that combines older ones (a synthesis) does not replace them
        stale = [r for r in ctx.recalled_by.get(m.id, ()) if pos[r] > pos[new] and (
            new not in g.sources[r] or reading.says_everything(by_id[r].summary))]
        # (a recall that picks the replacement beside it, "the criteria, the cap update and the withdrawal note",
        # has the newer version in view; a load of every earlier turn carries the old one along all the same)
        if m.id not in g.sources[new]:  # replaced without being named: the recall must read the replaced part
            stale = [r for r in stale if _reads_part(ctx, r, new)]  # (quiet hours, not the fee the new note changed)
        if not stale:
            continue
        stale.sort(key=lambda r: (new in g.sources[r], pos[r]))  # led by a recall that picks the old one alone
        # (a load of everything that carries both is the lesser case: "Quarter labelling: FY from 1 Apr" after
        # the calendar-year note, not the full load before it)
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
    return out


def _reads_part(ctx: _Context, recall: str, new: str) -> bool:
    """Whether ``recall`` (with the acts that use it) speaks of what the newer memory ``new`` keeps: two
    subject words in common, one of them in the recall's own words (the trace's common words count: the
    replaced part is named in them)."""
    kept = reading.subject_words(ctx.by_id[new].summary)
    return bool(reading.subject_words(ctx.by_id[recall].summary) & kept) and len(ctx.read_words(recall) & kept) >= 2
