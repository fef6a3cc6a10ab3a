"""The gate and its formats without Git: hand-built traces in, text out.

SARIF is checked structurally against what SARIF 2.1.0 requires of a log, its
rules and its results (the schema itself is not shipped with the project);
JUnit XML is parsed back with ``xml.etree``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from halo_git.accept import Accepted
from halo_git.diagnosis import RULES
from halo_git.diff import compare
from halo_git.formats import junit
from halo_git.formats.check import FORMATS, render
from halo_git.formats.plain import gate_to_dict
from halo_git.formats.sarif import sarif_log
from halo_git.gate import ACCEPTED, NEW, OPEN, RESOLVED, UNCHANGED, evaluate
from halo_git.store import event_path

from .test_diagnosis import Trace

HOSTILE = "<script>alert(1)</script> | `x` **y** ]]> &amp;"


def path_of(event_id: str) -> str:
    return event_path(int(event_id[1:]))


def log(t: Trace, tag: str, shared: int = 0):
    """A branch as ``compare`` reads it; the first ``shared`` commits are common history."""
    commits = [f"{'c' if i < shared else tag}{i:039d}"[:40] for i in range(len(t.events))]
    return SimpleNamespace(head=commits[-1] if commits else None, events=t.events, commits=commits)


def base_trace() -> Trace:
    t = Trace()
    o = t.observe(summary="user said reminders are late")
    t.revise([o], summary="moved the rule alone", target=HOSTILE, governance="none")  # R1 high, shared
    t.act([o], summary="rebooked the slot, confirmation pending", trigger="request", form="execution")  # A2 medium: resolved on the PR
    return t


def pr_trace() -> Trace:
    t = base_trace()
    t.outcome("e3", summary="user liked the new slot")
    t.revise(["e1"], summary="another change alone", target=HOSTILE, governance="none")  # R1 high and R3, new
    return t


@pytest.fixture
def gates():
    base, pr = base_trace(), pr_trace()
    diff = compare("a", "main", log(base, "b", shared=3), "pr", log(pr, "p", shared=3))
    accepted = [Accepted("HALO-R1", "moved the rule alone", "owner approved it later", "Jane", source="halo-accept.yaml", line=2),
                Accepted("HALO-M1", "gone", "stale one", "Joe", source="halo-accept.yaml", line=7)]
    return {
        "plain": evaluate(pr.diagnose(), fail_on="high"),
        "baseline": evaluate(diff.head.diagnosis, fail_on="high", diff=diff),
        "accepted": evaluate(diff.head.diagnosis, fail_on="high", diff=diff, accepted=accepted, accept_file="halo-accept.yaml"),
        "clean": evaluate(Trace().diagnose(), fail_on="low"),
    }


def test_gate_without_baseline_fails_on_every_high_finding(gates):
    g = gates["plain"]
    assert g.failed and {i.status for i in g.items} == {OPEN}
    assert sorted(i.finding.ids[0] for i in g.failing) == ["e2", "e5"]


def test_gate_with_baseline_fails_only_on_new_and_lists_resolved(gates):
    g = gates["baseline"]
    status = {(i.finding.rule, i.finding.ids[0]): i.status for i in g.items}
    assert status[("HALO-R1", "e2")] == UNCHANGED and status[("HALO-R1", "e5")] == NEW
    assert [i.finding.ids[0] for i in g.failing] == ["e5"]
    assert [(i.finding.rule, i.status) for i in g.resolved] == [("HALO-A2", RESOLVED)]
    assert (g.baseline, g.baseline_head) == ("main", log(base_trace(), "b", 3).head)


def test_accepted_findings_never_fail_and_stale_entries_are_kept(gates):
    g = gates["accepted"]
    [acc] = [i for i in g.items if i.status == ACCEPTED]
    assert (acc.finding.ids[0], acc.accepted.by, acc.failing) == ("e2", "Jane", False)
    assert [e.rule for e in g.stale] == ["HALO-M1"]
    assert g.failed  # the new R1 on e5 is not accepted


def test_fingerprints_follow_content_not_ids():
    a, b = Trace(), Trace()
    b.observe(summary="an extra first step")
    for t in (a, b):
        o = t.observe(summary="seen")
        t.revise([o], summary="changed alone", governance="none")
    fa = {i.finding.rule: i.fingerprint for i in evaluate(a.diagnose(), fail_on="high").items}
    fb = {i.finding.rule: i.fingerprint for i in evaluate(b.diagnose(), fail_on="high").items}
    assert fa["HALO-R1"] == fb["HALO-R1"] and len(fa["HALO-R1"]) == 32


def test_sarif_is_a_2_1_0_log_with_one_rule_per_halo_rule(gates):
    doc = json.loads(render(gates["accepted"], "sarif", path_of))
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    [run] = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "halo-git" and driver["version"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    for r in rules:
        assert r["name"] == RULES[r["id"]].name
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
        assert RULES[r["id"]].remedy in r["help"]["text"] and r["help"]["markdown"]
        assert r["defaultConfiguration"]["level"] in {"error", "warning", "note"}
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in rules}
    assert (levels["HALO-R1"], levels["HALO-A1"], levels["HALO-M1"], levels["HALO-A2"], levels["HALO-M2"],
            levels["HALO-M4"]) == ("error", "error", "warning", "error", "error", "note")  # the rule's highest
    assert run["automationDetails"]["id"] == "halo-git/a/"
    results = run["results"]
    assert len(results) == len(gates["accepted"].items)
    for res in results:
        assert res["ruleId"] in levels and rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in {"error", "warning", "note"} and res["message"]["text"]
        [loc] = res["locations"]
        uri = loc["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == path_of(res["properties"]["ids"][0]) and uri.startswith("events/") and uri.endswith(".yaml")
        assert loc["physicalLocation"]["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
        assert set(res["partialFingerprints"]) == {"haloFinding/v1"}
    by_first = {(r["ruleId"], r["properties"]["ids"][0]): r for r in results}
    assert by_first[("HALO-R1", "e5")]["baselineState"] == "new" and by_first[("HALO-R1", "e5")]["level"] == "error"
    [sup] = by_first[("HALO-R1", "e2")]["suppressions"]
    assert sup["kind"] == "external" and sup["status"] == "accepted" and "owner approved it later" in sup["justification"]
    assert sup["location"]["physicalLocation"]["region"]["startLine"] == 2
    assert by_first[("HALO-R3", "e2")]["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == path_of("e5")
    assert run["properties"]["resolved"][0]["ruleId"] == "HALO-A2"
    assert run["properties"]["staleAccepted"][0]["entry"] == "halo-accept.yaml:7"


def test_sarif_of_a_clean_trace_has_rules_and_no_results(gates):
    [run] = sarif_log(gates["clean"], path_of)["runs"]
    assert run["results"] == [] and len(run["tool"]["driver"]["rules"]) == len(RULES)


def test_junit_has_a_testcase_per_finding(gates):
    g = gates["accepted"]
    root = ET.fromstring(render(g, "junit", path_of).encode("utf-8"))
    assert root.tag == "testsuites"
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(g.items) + len(g.resolved) + len(g.stale) == int(suite.get("tests"))
    failures = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["HALO-R1 ungoverned-self-revision (high) e5"]
    assert failures[0].get("file") == path_of("e5") and failures[0].get("classname") == "halo.a.HALO-R1"
    assert int(suite.get("failures")) == 1 and int(suite.get("skipped")) == len(g.items) - 1 + len(g.stale)
    skipped = {c.get("name"): c.find("skipped").get("message") for c in cases if c.find("skipped") is not None}
    assert skipped["HALO-R1 ungoverned-self-revision (high) e2"] == "accepted by Jane: owner approved it later"
    assert skipped["stale: halo-accept.yaml:7"].startswith("HALO-M1 about “gone”")
    assert any(c.get("name").startswith("resolved: HALO-A2") and c.find("failure") is None for c in cases)
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["baseline"] == "main" and props["fail-on"] == "high"
    assert HOSTILE in failures[0].find("failure").get("message")  # escaped in the file, read back intact
    assert junit._x("a\x01b\x1bc\ud800") == "a\ufffdb\ufffdc\ufffd"  # what XML 1.0 cannot hold


def test_junit_of_a_clean_trace_parses(gates):
    root = ET.fromstring(render(gates["clean"], "junit", path_of))
    assert root.get("tests") == "0" and root.get("failures") == "0"


def test_markdown_escapes_agent_text_and_tells_the_outcome(gates):
    md = render(gates["accepted"], "md", path_of)
    assert md.startswith("### HALO check of agent a: ❌ failed")
    assert "<script>" not in md and "&lt;script&gt;alert(1)" in md
    assert "#### Failing (1)" in md and "#### Resolved relative to main (1)" in md and "#### Accepted (1)" in md
    assert "#### Stale accept entries (1)" in md and "halo-accept.yaml:7" in md
    assert "new: **2**" in md and "unchanged: **0**" in md  # R1 and R3 are new (the outcome reports no problem); R1 on e2 accepted
    assert render(gates["clean"], "md", path_of).startswith("### HALO check of agent a: ✅ passed")


def test_github_annotations_and_text(gates):
    lines = render(gates["accepted"], "github", path_of).splitlines()
    assert lines[0].startswith("::error title=HALO-R1 ungoverned-self-revision (high)::e5 “another change alone”: ")
    assert lines[1].startswith("::notice title=Resolved on baseline main%3A HALO-A2 open-loop (medium)::e3 “rebooked the slot, confirmation pending”:")
    assert lines[2].startswith("::warning file=halo-accept.yaml,line=7,title=Stale accepted finding::HALO-M1")
    assert all("\n" not in line for line in lines)
    text = render(gates["accepted"], "text", path_of)
    assert "FAIL HALO-R1 ungoverned-self-revision (high, new) e5 “another change alone”:" in text
    assert f"file: {path_of('e5')}" in text and "resolved HALO-A2" in text
    assert text.rstrip().endswith("FAILED: 1 new finding(s) at or above high relative to baseline main that nobody accepted")


def test_json_holds_every_item_with_its_path(gates):
    d = json.loads(render(gates["accepted"], "json", path_of))
    assert d == gate_to_dict(gates["accepted"], path_of)
    assert d["failed"] is True and d["baseline"]["rev"] == "main"
    assert d["counts"] == {"findings": len(gates["accepted"].items), "failing": 1, "new": 2,
                           "unchanged": d["counts"]["unchanged"], "resolved": 1, "accepted": 1, "stale_accepted": 1}
    assert {f["path"] for f in d["findings"]} <= {path_of(f"e{n}") for n in range(1, 6)}
    assert d["stale_accepted"][0]["entry"] == "halo-accept.yaml:7"


def test_every_format_renders_every_gate(gates):
    for g in gates.values():
        for fmt in FORMATS:
            out = render(g, fmt, path_of)
            assert out.endswith("\n") or (fmt == "github" and out == "" and not g.failed)
    with pytest.raises(ValueError):
        render(gates["clean"], "xml", path_of)


def test_a_session_check_reports_no_stale_entries():
    t = Trace()
    o = t.observe(session="s1")
    t.revise([o], summary="changed alone", governance="none", session="s1")
    t.observe(session="s2")
    entries = [Accepted("HALO-R1", "changed alone", "fine", "me")]
    assert evaluate(t.diagnose(session="s2"), fail_on="high", accepted=entries).stale == ()
    assert evaluate(t.diagnose(), fail_on="high", accepted=[Accepted("HALO-R1", "other", "r", "b")]).stale != ()


def test_every_format_carries_the_findings_context(gates):
    """The quote, why it matters and the next step reach every place CI users look."""
    g = gates["plain"]
    f = next(i.finding for i in g.failing if i.finding.ids[0] == "e5")
    assert f.quote and f.why and f.next_step
    sarif = json.loads(render(g, "sarif", path_of))
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"] if r["ruleId"] == f.rule and r["properties"]["ids"][0] == "e5"]
    junit_xml = render(g, "junit", path_of)
    failures = [c.find("failure").text for c in ET.fromstring(junit_xml).iter("testcase") if c.find("failure") is not None]
    for out in (texts[0], next(t for t in failures if t.startswith("e5")), render(g, "github", path_of),
                render(g, "text", path_of), render(g, "md", path_of)):
        assert f.quote in out or f.quote.replace("\\", "") in out
        assert f.why.split(";")[0][:40] in out.replace("\\", "")
        assert f.next_step[:40] in out.replace("\\", "")
