"""Regression: the report must raise what the two memory analyses say, and leave a healthy assistant alone.

``tests/fixtures/seed_traces.py`` acts out each analysed system as HALO events.
For each trace, ``OBSERVATIONS`` lists the key observations of its analysis
that HALO events can express: the passage of the analysis it comes from, and
where the report must show it (a finding of a rule about a step, optionally
with words its text must contain). ``LEFT_ALONE`` lists steps of healthy
behaviour that must draw no finding at low or above. Observations the events
cannot express (index freshness by size and mtime, a mislabelled model id,
concurrent sibling replays, credential storage) are not listed.

At least 9 observations per analysis must surface as findings or in the
Summary; today every one does, and the test asserts each of them.
"""

from __future__ import annotations

import pytest

from halo_git.diagnosis import SEVERITY_RANK, diagnose
from halo_git.report import render_report

from .fixtures.seed_traces import HALO_DESKTOP, HEALTHY, JAZ_AGENT, build

# (label, passage of the analysis, rule, step the finding is about, words its message or why must contain)
HALO_OBSERVATIONS = [
    ("follow-up answers are driven by retained turns",
     "Follow-up-triggered automatic supply: user asks a new question; code selects all qualifying earlier turn "
     "text without an explicit budget and sends it through runner config to the next root model invocation.",
     "HALO-A4", "t2_answer", ()),
    ("a bridge-fallback answer is retained as a completed turn",
     "A completed answer may be a bridge fallback.", "HALO-M7", "t1_turn_mem", ()),
    ("a timed-out answer stays retained",
     "A failed/cancelled nonempty row is not excluded by status.", "HALO-M7", "t2_first_mem", ()),
    ("retry leaves the old answer in the history",
     "Retry sets the latest assistant status pending without clearing content; ... until overwrite its old "
     "content remains retained.", "HALO-M6", "t3_hist", ()),
    ("the report drives the coding agent's execution",
     "A report copies retained conversation, including incomplete findings, and affords external action "
     "through a path-bearing instruction.", "HALO-A4", "h_handoff", ("execution",)),
    ("the user's confirmation is not approval of the retained findings",
     "That confirmation is distinct from approval of each retained finding or each later code edit.",
     "HALO-A4", "h_handoff", ("not a review of the retained content",)),
    ("the report includes incomplete findings",
     "It includes all user turns and nonempty assistant turns marked completed or incomplete.",
     "HALO-M7", "h_report", ()),
    ("the coding agent's engine change has no approval on record",
     "External patch approval/rollback uninspected.", "HALO-R5", "c_patch", ()),
    ("evaluation results never reach a revision",
     "No wired evaluation-result-to-Halo instruction revision is established.", "HALO-S1", "c_eval", ()),
    ("the checkpoint has no consumer",
     "No later checkpoint consumer is wired in the inspected desktop path.", "HALO-M2", "t1_ckpt", ()),
    ("compaction summaries are admitted without review",
     "Summaries are admitted without semantic testing or human review.", "HALO-M1", "t1_summary", ()),
    ("run events are retained for display, not read back",
     "Child/tool events are separately retained for display, not selected by the follow-up history builder.",
     "HALO-M2", "t1_events_mem", ()),
    ("the export is reused by existence while evidence changed",
     "Existing trace exports are reused by path existence ... potentially changing evidence between turns "
     "while old answers persist.", "HALO-A4", "t3_answer", ("2 sessions earlier",)),
    ("deletion does not retract a delivered report",
     "Deletion does not retract already delivered reports or guarantee physical file removal.",
     "HALO-M6", "d_recall", ()),
]
HALO_LEFT_ALONE = [
    ("t1_sandbox", "a sandboxed execution on request, observed and checked"),
    ("t1_child", "a delegation whose answer the parent uses"),
    ("t3_out", "a courtesy outcome ('user said thanks') is not ignored feedback"),
    ("t1_sandbox_out", "an outcome the answer builds on"),
]

JAZ_OBSERVATIONS = [
    ("replay turns saved responses into executed code",
     "A trace can later supply actions rather than advice. ATIF replay selects saved assistant responses ... "
     "and feeds the normal execution pipeline.", "HALO-A4", "r2_exec", ("execution",)),
    ("the aborted run's trajectory is retained",
     "Source policy retains failed/aborted state rather than rejecting it.", "HALO-M7", "r1_atif", ()),
    ("replay under a changed system prompt goes unnoticed",
     "No comparison looks at the seed prompt, so re-running a trace under a changed system prompt ... reports "
     "no divergence.", "HALO-A4", "r3_exec", ("system prompt",)),
    ("the emitted workflow runs as a standalone program later",
     "Workflow program: Caller later runs emitted entry blocks ... Afforded native program execution.",
     "HALO-A4", "w_exec", ()),
    ("workflows are emitted from partial failed runs",
     "automatic trace-to-symbolic-program emission, including partial failed runs, not quality-selected "
     "procedural knowledge.", "HALO-M7", "r1_wf", ()),
    ("detected divergence does not undo effects, and the replay is repeated",
     "detected response/output divergence does not undo already committed turns/effects.",
     "HALO-S1", "r2_out", ("repeats",)),
    ("sandbox-loosening settings are accepted with only a warning",
     "It rejects persisted llm.base_url/llm.api_key, warns rather than rejects sandbox-loosening settings.",
     "HALO-R5", "c_sandbox", ()),
    ("serving weights change with no governance",
     "server methods afford changing the weights future requests use.", "HALO-R1", "s_rev", ()),
    ("rollouts await a trainer that never acts",
     "Documented trainer role can consume exported samples ... an afforded external consumer, not a "
     "demonstrated learning loop.", "HALO-M5", "r1_rollout", ()),
    ("hidden reasoning is retained but never read back",
     "Hidden reasoning is deliberately excluded from visible content but retained in full sampled IDs.",
     "HALO-M2", "r1_tokens", ()),
    ("nothing links rollouts to the weight update",
     "no supplied trainer, persisted parameter artifact, objective/evaluator or observed subsequent operation "
     "connecting them.", "HALO-R2", "s_rev", ()),
    ("trace directories are for human browsing only",
     "Interpretive diagnostic display; no inspected automatic agent ingestion.", "HALO-M2", "r1_dir", ()),
    ("the replay request is not an authenticity gate",
     "Source trust is caller-selected file content plus structural parsing, not an authenticity or "
     "task-correctness gate.", "HALO-A4", "r2_exec", ("not a review of the retained content",)),
]
JAZ_LEFT_ALONE = [
    ("c_helper_mem", "a rejected snippet remembered with its rejection: shown, not run"),
    ("c_helper_out", "a rejection the agent keeps: the feedback is used"),
    ("c_model", "a user-made, approved setting"),
    ("c_helper_ans", "the helper answering from its own session's transcript"),
    ("r3_out", "a plain success outcome"),
]

HEALTHY_STEPS = ("obs", "mem", "act", "out", "rule", "rule_mem", "note", "w_rec", "w_act", "taxi", "taxi_seen",
                 "file", "file_out", "file_mem", "w2_rec", "w2_act", "q3_act", "q3_out")


def _diagnosed(steps):
    events, ids = build(steps)
    return diagnose(events, agent="seed", branch="main", head="f" * 40), ids


def _surfaces(d, ids, rule, step, words) -> bool:
    report = render_report(d)
    summary = report.split("## Summary")[1].split("## Channels")[0]
    for f in d.findings:
        if f.rule == rule and f.ids[0] == ids[step] and all(w in f.message + " " + f.why for w in words):
            return True
    # or named in the Summary with the step's id
    return f"{rule} " in summary and f" {ids[step]} " in summary


@pytest.mark.parametrize("steps, observations", [(HALO_DESKTOP, HALO_OBSERVATIONS), (JAZ_AGENT, JAZ_OBSERVATIONS)],
                         ids=["halo-desktop", "jaz-agent"])
def test_key_observations_surface(steps, observations):
    d, ids = _diagnosed(steps)
    missing = [label for label, _passage, rule, step, words in observations if not _surfaces(d, ids, rule, step, words)]
    surfaced = len(observations) - len(missing)
    assert surfaced >= 9, missing
    assert missing == []  # every listed observation surfaces today; keep it so


@pytest.mark.parametrize("steps, left_alone", [(HALO_DESKTOP, HALO_LEFT_ALONE), (JAZ_AGENT, JAZ_LEFT_ALONE)],
                         ids=["halo-desktop", "jaz-agent"])
def test_healthy_steps_inside_the_seed_traces_are_left_alone(steps, left_alone):
    d, ids = _diagnosed(steps)
    for step, why in left_alone:
        hits = [f for f in d.findings if f.ids[0] == ids[step] and SEVERITY_RANK[f.severity] <= SEVERITY_RANK["low"]]
        assert hits == [], (step, why, hits)


def test_the_summary_leads_with_retained_material_driving_executions():
    for steps in (HALO_DESKTOP, JAZ_AGENT):
        d, ids = _diagnosed(steps)
        issues = d.issues()
        assert 3 <= len(issues) <= 7
        assert issues[0].rule == "HALO-A4" and issues[0].severity == "high"


def test_healthy_assistant_has_no_finding_at_low_or_above():
    d, ids = _diagnosed(HEALTHY)
    assert [f for f in d.findings if f.severity != "info"] == []
    by_step = {v: k for k, v in ids.items()}
    assert {(f.rule, by_step[f.ids[0]]) for f in d.findings} <= {("HALO-A4", "taxi")}  # reviewed material, info
    report = render_report(d)
    assert "No open finding" not in report  # the info finding is listed
    for step in HEALTHY_STEPS:
        assert not [f for f in d.findings if f.ids[0] == ids[step] and f.severity != "info"], step


def test_healthy_classes_the_issue_names_stay_silent():
    """The false-positive classes: direct use, observe naming an act, scheduled runs on a user rule,
    courtesy outcomes, one fact one finding."""
    d, ids = _diagnosed(HEALTHY)
    rules = {f.rule for f in d.findings}
    assert not rules & {"HALO-M2", "HALO-A2", "HALO-S2", "HALO-S1"}
    assert ids["tz"] in d.read.direct  # read back by direct use, no recall
    assert ids["taxi"] in d.outcomes.observed  # checked by an observation naming it


def test_seed_reports_are_deterministic_and_short():
    for steps in (HALO_DESKTOP, JAZ_AGENT, HEALTHY):
        d, _ = _diagnosed(steps)
        text = render_report(d)
        assert text == render_report(_diagnosed(steps)[0])
        assert len(text.splitlines()) < 300
