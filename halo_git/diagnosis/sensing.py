"""The sensing rules (HALO-S1, HALO-S2): failures nothing built on, and sessions that acted without looking.

Room: diagnosis, one rule family. ``findings`` reads the rule context (``context._Context``) and
the outcomes table ``stages`` built; ``diagnose`` calls it third of the families (the
package's ``_findings``). The helpers below serve these two rules only.
"""

from __future__ import annotations

import re

from bisect import bisect_right

from . import reading
from .context import _Context
from .graph import _GOVERNED_BIT, _Graph
from .result import Finding, Outcomes, _finding
from .shared import _SUBJECT_WINDOW, _later_act_on, _outcomes_about, _plural, _upstream


_FOLLOW_UP_DEPTH = 4  # steps of uses back from a later act to the failure it went on from


def findings(ctx: _Context, *, outcomes: Outcomes) -> list[Finding]:
    """The findings of the sensing rules, in the order the rules run (``diagnose`` sorts them)."""
    g, by_id, pos, used_by = ctx.g, ctx.by_id, ctx.pos, ctx.used_by
    out: list[Finding] = []
    add = out.append

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
        if x is not None and o.id in _upstream(ctx, x, _FOLLOW_UP_DEPTH):
            x = None  # it rests on what came of the failure ("card declined" -> bank details sent -> "GBP 100 in,
            # ref HALL-0412" -> booking confirmed): it went on from the failure's follow-up, not past it
        if x is not None and not (_partly_worked(by_id[o.id].summary) and any(
                by_id[u].kind in ("act", "remember", "revise") and pos[u] < pos[x] for u in used_by.get(o.id, ()))):
            proceeded[o.id] = x  # (a result that failed in part, whose failed part a step took in first, a
            # repair, a hold or a note to resubmit: what goes on afterwards goes on from the part that worked)
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
            "HALO-S1", list(dict.fromkeys([i, about, *([told] if told else []), *([again or rep] if again or rep else [])])), message,
            "high" if told or again or reading.says_alarm(by_id[i].summary) else (
                "medium" if rep or used_by.get(i) or _left_standing(ctx, i, about) else "info"), by_id[i],
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
                "HALO-S2", ids, f"Session “{name}” has {_plural(n, 'act')} but no observation.", "info", by_id[ids[0]],
                f"{'These acts rest' if n != 1 else 'The act rests'} on no observation of the current situation, on no "
                "rule the user made or approved and on no memory of what the agent observed.",
                f"Have the agent log what it takes in during session “{name}” (halo_observe) and name it in the acts' uses.",
            ))
    return out


def _partly_worked(summary: str) -> bool:
    """A result with a part that worked beside the part that failed ("DNO portal accepted 5 forms; J4
    rejected: MPAN missing")."""
    parts = [c for c in reading.clauses(summary) if c.strip()]
    return any(reading.is_adverse(c) for c in parts) and any(
        not reading.is_adverse(c) and (reading.says_went_through(c) or _COUNT_PASSED_RE.match(c)) for c in parts)


# a count handed on beside the part that failed ("335 refunds submitted; 3 failed"): that part went through
_COUNT_PASSED_RE = re.compile(r"\s*\d[\d,]*\s+(?:\w+\s+)?(?:submitted|processed|refunded|issued|filed|lodged|queued)\b", re.I)


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
                                                           or reading.says_done(e.summary))
                and not (outcome in ctx.g.sources[u] and reading.passes_on_failure(
                    e.summary, ctx.by_id[outcome].summary, ctx.by_id[act].summary))):
            return u  # ("pre-arbitration filed, awaiting merchant response": told as filed; a message naming the
            # failure itself in its words, stating nothing done, passes the failure on: "recipient_email is pii,
            # can't go to analytics"; "acknowledged vendor notice" passes nothing on)
    # or, one step further on, a message that states the failed step done ("booked and paid" resting on the
    # booking made after the payment was declined)
    for u in (*ctx.used_by.get(act, ()), *ctx.used_by.get(outcome, ())):
        for x in ctx.used_by.get(u, ()):
            e = ctx.by_id[x]
            if (e.kind == "act" and e.fields["form"] == "communication" and ctx.pos[x] > ctx.pos[outcome]
                    and reading.says_done(e.summary) and not reading.is_adverse(e.summary)
                    and (ctx.rare(outcome) | ctx.rare(act)) & ctx.rare(x)):
                return x
    # or, later in the same session, a message stating the failed step done in its own words, naming neither the
    # failure nor a repair ("replenishment submitted" after the wholesaler rejected the replenishment order); the
    # same message sent again is the repeat, not a report of it
    failed_act = ctx.by_id[act]
    start = ctx.pos[outcome] + 1
    for e in ctx.events[start:start + _SUBJECT_WINDOW]:
        if e.session != failed_act.session:
            break
        if (e.kind == "act" and e.fields["form"] == "communication" and reading.says_done(e.summary)
                and not reading.is_adverse(e.summary) and outcome not in ctx.g.sources[e.id]
                and not (failed_act.fields["form"] == "communication" and _verb(e.summary) == _verb(failed_act.summary))
                and ctx.rare(act) & ctx.rare(e.id) - reading.ADVERSE_SET):
            return e.id
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


def _left_standing(ctx: _Context, outcome: str, act: str) -> bool:
    """Whether a failed execution's result was left while the agent went on working into a later session:
    it had the time to retry, repair or tell someone, and what it meant to change stays unchanged."""
    g, by_id = ctx.g, ctx.by_id
    if by_id[act].fields["form"] != "execution" or reading.says_transient(by_id[outcome].summary):
        return False
    here = g.order[by_id[outcome].session]
    return any(g.order[e.session] > here and e.kind == "act" for e in ctx.events[ctx.pos[outcome] + 1:])
