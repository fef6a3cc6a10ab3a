"""The rule table of the diagnosis: every documented check, its severities and its weight in the Summary.

Room: diagnosis (below the report, above the model). ``RULES`` maps a stable rule id to its
``Rule``: the link-only rules are written out here, the shape rules come from
``shapes.RULE_SPECS`` and the rules on observed evidence from ``halo_git.observed``. Called by
``result`` (a finding's rule and remedy), ``summary`` (``RULE_WEIGHT``) and, through the
package's re-exports, the report, the output formats, the gate and the Report page's examples.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import observed as _observed
from . import shapes as _shapes

SEVERITIES = ("high", "medium", "low", "info")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}


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
            "upstream of it: the user delegated such acts (a failure is then HALO-S1's business), or when it answers "
            "a fault the agent saw (an adverse observation or result in its uses), with no memory behind it and no "
            "failure of its own: the agent doing its watch; whether an outcome was logged never lowers it",
            "Ask the user before executing on your own, or have the user set (and log) a rule for such actions; "
            "log the outcome.",
        ),
        Rule(
            "HALO-A2", "open-loop", "high / medium / info",
            "an act (any form but silence) that nothing checked: no outcome about it, no observation naming it, "
            "no words of its own that report checking what it did (\"checked each page\", \"all details match\"), "
            "and for a preparation no later event using it; high for an execution a later execution builds on or "
            "a later act states as achieved (\"preserved since 20 May\"); medium when a later act relies on it (or an "
            "execution's only result says it was merely queued), medium for an execution that awaits a result that "
            "never comes (pending, or handed to another party: submitted, requested, ordered, booked; a result still "
            "pending is not overdue in the trace's last session, nor before the wait it or its act states has run out: "
            "\"target repair within 28 days\", \"usually 2-3 working days\", \"deadline 29 May\", \"scheduled for 14 "
            "Jul\"), medium for "
            "an execution when the agent checks at least three in four of its executions "
            "(four or more) and the trace goes on past its session (the skipped check stands out; not for one that "
            "only keeps the agent's own record: \"closed BCF-303\"), info otherwise: a message, answered or not, is "
            "info (reviewers raise it only through what it leads to). An act HALO-A1 covers is not repeated here, nor a "
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
            "than an observation, an outcome, a rule the user approved or a change the agent made within a bound "
            "the user set (governance=bounded, the user's rule among its uses, not a loosening), or that keeps "
            "an act of the agent's "
            "that no outcome or observation had checked when it was kept): high for an execution, medium for "
            "other acts when kept two or more sessions earlier, low otherwise; reviewed material driving an "
            "execution: info, high when it was kept 60 days or more before and keeps how things stood (not a "
            "rule, a term or a lesson) with nothing in the session confirming it still holds",
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
            "common), and when two later sessions and ten events or more went by without reading it back (info "
            "instead when the agent read back two thirds or more of the four or more memories it kept: one note "
            "nobody needed again is no write-only store); high when the memory keeps a restriction (\"on-site "
            "only\", \"must\", \"never\", \"no recovery action until\") and an execution went without it (in a later "
            "session, or in the same one right after it was kept), or a deadline (\"upload the estimate by 15 "
            "Aug\") that had passed when the later act went without it. Info for a memory read back only in the "
            "session that kept it whose subject a later session acts on without it: it did its work once, and "
            "whether it still applied there is not in the events",
            "Recall the memory when it is relevant, or stop retaining this kind of material.",
        ),
        Rule(
            "HALO-M3", "recall-without-memory", "info",
            "a recall whose uses names no remember event",
            "Name the remember events the recall retrieved in uses.",
        ),
        Rule(
            "HALO-M4", "recall-unused", "info",
            "a recall that no later event names, although the trace goes on (a recall HALO-M5 covers is not "
            "repeated here)",
            "Name the recall in uses of the step it informed, or skip recalls that inform nothing.",
        ),
        Rule(
            "HALO-M5", "dropped-obligation", "high / medium",
            "a memory recalled two or more times from which no act ever follows (no act anywhere downstream "
            "of the memory or its recalls), although the trace goes on after the last recall; or an act that "
            "promises a later step to someone (\"I will remind them\", \"promised to message him\", \"then notify "
            "finance\") that no later act carries out (none names it, or speaks of what was promised and does the "
            "promised step: \"will cherry-pick #9921\" is not kept by building from the branch; a later message "
            "to the person a promise to update was made to, on its subject, keeps it, and a revision of the agent's "
            "own rule keeps a promised change of that rule; nothing after the time the promise named keeps it: "
            "\"with them by 12 May\", sent on the 15th) before the "
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
            "kept by a recall that does not also pick the newer one (a load of everything kept still counts); "
            "medium when an act follows from the stale recall, high when the newer memory is never recalled or "
            "an execution follows within a few steps",
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
            "HALO-R3", "repeated-revision", "info",
            "two or more revisions of the same target (case and spacing ignored), at least one in scope; "
            "a user's approval of a revision (made_by=user, governance=approved, uses that one revise and any "
            "evidence) is not one; "
            "info: the churn is listed for a reviewer, and an ungoverned change in it is HALO-R1's finding",
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
            "HALO-S1", "adverse-outcome-ignored", "high / medium / info",
            "an adverse outcome (one reporting a problem; a later result about an act that already had one and "
            "says its matter came back \"again\" is one too) that nothing later repairs (no retry, memory, revision "
            "or accepted alternative builds on it), although the trace goes on; info when nothing builds on it "
            "and no act repeats it; medium when the agent later "
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
            "HALO-S2", "acts-without-observation", "info",
            "a session (a child session counts with its parent's turn) with acts and no observe event, counting "
            "only acts that name no observation or result (a failed one included) and rest on no rule the user made "
            "or approved, on no reviewed memory (one keeping an observation or outcome, as for HALO-A4) and on no "
            "result that reports no problem (a person's answer, what an import brought in), and that do not "
            "themselves take in the situation (import, fetch, pull, scan, read): a scheduled run acting on such a "
            "rule, on a memory of what the user asked, or on the user's reply, is not acting blind. Info: a "
            "session's habits, listed for a reviewer; what such acts lead to is other rules' finding",
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
