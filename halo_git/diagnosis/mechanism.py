"""The mechanism rules (HALO-R1, HALO-R2, HALO-R3, HALO-R5): how the agent changed itself, and under whose
authority.

Room: diagnosis, one rule family. ``findings`` reads the rule context (``context._Context``) and
the mechanism table ``stages`` built, and records the approvals nothing proves in
``ctx.claimed_approvals`` (``Diagnosis.claimed_approvals``; the revision audit checks their
signatures). ``diagnose`` calls it last of the link-only families (the package's ``_findings``).
"""

from __future__ import annotations

from ..model import Event
from .context import _Context
from .graph import _GOVERNED_BIT
from .result import Finding, Mechanism, _finding
from .shared import _ids_text, _plural, _within_bound, approved_revision


def findings(ctx: _Context, *, mechanism: Mechanism) -> list[Finding]:
    """The findings of the mechanism rules, in the order the rules run (``diagnose`` sorts them)."""
    g, by_id, pos, used_by = ctx.g, ctx.by_id, ctx.pos, ctx.used_by
    out: list[Finding] = []
    add = out.append

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
            "info", by_id[rep.ids[0]],
            "Every change to this target was the user's, approved, or within a bound the user set." if governed else
            "The target keeps changing, and not always with the user's approval: earlier changes did not hold.",
            f"Review why earlier revisions of “{rep.target}” did not hold, and settle it once with the user.",
        ))
    return out


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
