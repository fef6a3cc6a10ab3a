"""Accepted findings (``halo_git.accept``), pure: the file's rules and ``apply_accepted``."""

from __future__ import annotations

import pytest

from halo_git.accept import Accepted, accepted_for, apply_accepted, for_report, parse_accepted
from halo_git.errors import InvalidCall

from .test_diagnosis import Trace

FILE = """\
# why each one is fine
accepted:
  - rule: HALO-R1
    summary: changed the rule alone
    reason: the owner reviewed it on Monday
    by: Jane Doe
  - rule: HALO-A1
    summary: "no: it booked"
    kind: act
    fields: {trigger: self}
    agent: other
    reason: booked on request of the user, by phone
    by: ops team
"""


def trace():
    t = Trace()
    o = t.observe(summary="user said reminders are late")
    t.revise([o], summary="changed the rule alone", governance="none")  # HALO-R1 on e2
    t.act([o], summary="no: it booked", trigger="self", form="execution")  # HALO-A1 on e3
    return t


def test_parse_keeps_fields_and_lines():
    a, b = parse_accepted(FILE, "team.yaml")
    assert (a.rule, a.summary, a.reason, a.by, a.agent, a.kind, dict(a.fields), a.line) == (
        "HALO-R1", "changed the rule alone", "the owner reviewed it on Monday", "Jane Doe", None, None, {}, 3)
    assert (b.kind, dict(b.fields), b.agent, b.line, b.where()) == ("act", {"trigger": "self"}, "other", 7, "team.yaml:7")
    assert parse_accepted("") == [] and parse_accepted("accepted: []\n") == []


def test_matches_rule_and_content_not_ids():
    t = trace()
    d = t.diagnose()
    entries = parse_accepted(FILE)
    open_, accepted, stale = apply_accepted(d.findings, t.events, entries, agent="a")
    assert [(f.rule, e.by) for f, e in accepted] == [("HALO-R1", "Jane Doe")]
    assert "HALO-R1" not in {f.rule for f in open_} and "HALO-A1" in {f.rule for f in open_}
    assert stale == []  # the HALO-A1 entry is for agent 'other': neither applied nor stale here
    # the same content at other ids (another branch, another run) is still accepted
    t2 = Trace()
    t2.observe(summary="something else first")
    t2.observe(summary="and more")
    o = t2.observe(summary="user said reminders are late")
    t2.revise([o], summary="changed the rule alone", governance="none")
    _, accepted2, _ = apply_accepted(t2.diagnose().findings, t2.events, entries, agent="a")
    assert [f.ids[0] for f, _ in accepted2] == ["e4"]


def test_kind_and_fields_must_match_and_other_agents_entries_apply_to_their_agent():
    t = trace()
    entries = parse_accepted(FILE)
    _, accepted, stale = apply_accepted(t.diagnose().findings, t.events, entries, agent="other")
    assert sorted(f.rule for f, _ in accepted) == ["HALO-A1", "HALO-R1"] and stale == []  # no agent: every agent
    wrong = [Accepted("HALO-A1", "no: it booked", "r", "b", fields={"trigger": "request"})]
    assert apply_accepted(t.diagnose().findings, t.events, wrong)[1] == []


def test_stale_entries_are_the_ones_matching_nothing():
    t = trace()
    entries = parse_accepted(FILE.replace("changed the rule alone", "a summary that changed since"))
    open_, accepted, stale = apply_accepted(t.diagnose().findings, t.events, entries, agent="a")
    assert accepted == [] and [e.line for e in stale] == [3]
    assert "HALO-R1" in {f.rule for f in open_}


def test_one_entry_accepts_every_finding_it_matches():
    t = Trace()
    o = t.observe()
    t.revise([o], summary="same change", governance="none")
    t.revise([o], summary="same change", governance="none")
    entries = [Accepted("HALO-R1", "same change", "fine", "me")]
    _, accepted, stale = apply_accepted(t.diagnose().findings, {e.id: e for e in t.events}, entries)
    assert [f.ids[0] for f, _ in accepted] == ["e2", "e3"] and stale == []
    assert for_report(accepted)[0][1] == "fine (accepted by me)"


@pytest.mark.parametrize(
    "text, says",
    [
        ("accepted: [\n", "not valid YAML"),
        ("- rule: HALO-R1\n", "one key, 'accepted'"),
        ("accepted: {rule: HALO-R1}\n", "must be a list"),
        ("accepted:\n  - rule: HALO-R1\n    summary: s\n    reason: r\n", "halo-accept.yaml:2: missing by"),
        ("accepted:\n  - {rule: HALO-R1, summary: s, reason: r, by: b, id: e5}\n", "unknown key(s) id"),
        ("accepted:\n  - {rule: HALO-Z9, summary: s, reason: r, by: b}\n", "unknown rule 'HALO-Z9'"),
        ("accepted:\n  - {rule: HALO-R1, summary: s, reason: '  ', by: b}\n", "'reason' must be non-empty text"),
        ("accepted:\n  - {rule: HALO-R1, summary: no, reason: r, by: b}\n", "'summary' must be non-empty text (quote it"),
        ("accepted:\n  - {rule: HALO-R1, summary: s, reason: r, by: b, fields: [x]}\n", "'fields' must map"),
        ("accepted:\n  - just text\n", "each entry is a mapping"),
    ],
)
def test_mistakes_are_refused_with_how_to_fix(text, says):
    with pytest.raises(InvalidCall) as e:
        parse_accepted(text)
    assert says in str(e.value)


def test_accepted_for_gives_the_report_its_pairs():
    t = trace()
    pairs = accepted_for(t.diagnose(), parse_accepted(FILE))
    assert [(f.rule, f.ids[0], why) for f, why in pairs] == [
        ("HALO-R1", "e2", "the owner reviewed it on Monday (accepted by Jane Doe)")]
