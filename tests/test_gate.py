"""The gate's contract beyond its verdicts: the status words the JSON, SARIF and JUnit
outputs carry, immutable plain data, fingerprints that follow the event's content and
never change between releases, and resolved findings that never fail a check."""

from __future__ import annotations

import dataclasses
import json

import pytest

from halo_git.formats.check import render
from halo_git.gate import evaluate, fingerprint

from .test_diagnosis import Trace
from .test_formats import gates, path_of  # noqa: F401  (the fixture)


def test_status_words_are_the_documented_ones(gates):
    """docs/ci.md and the JSON/SARIF readers rely on these exact words."""
    seen = set()
    for gate in gates.values():
        doc = json.loads(render(gate, "json", path_of))
        seen |= {f["status"] for f in doc["findings"]} | {f["status"] for f in doc.get("resolved", [])}
    assert seen == {"open", "new", "unchanged", "accepted", "resolved"}


def test_gate_and_items_are_immutable(gates):
    g = gates["baseline"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.fail_on = "low"
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.items[0].failing = False


def test_resolved_findings_never_fail(gates):
    g = gates["baseline"]
    assert g.resolved and not any(i.failing for i in g.resolved)


def test_fingerprint_follows_the_subjects_content():
    t = Trace()
    o = t.observe(summary="seen")
    t.revise([o], summary="changed alone", governance="none")
    u = Trace()
    o = u.observe(summary="seen")
    u.revise([o], summary="changed something else alone", governance="none")
    [fa] = [i for i in evaluate(t.diagnose(), fail_on="high").items if i.finding.rule == "HALO-R1"]
    [fb] = [i for i in evaluate(u.diagnose(), fail_on="high").items if i.finding.rule == "HALO-R1"]
    assert fa.fingerprint != fb.fingerprint  # another summary is another finding
    assert fingerprint(fa.finding, None) != fa.fingerprint  # the subject's content is in it
    assert len(fingerprint(fa.finding, None)) == 32


def test_fingerprints_are_stable_between_releases():
    """Code scanning keys its alerts on them: a changed formula reopens every alert.
    The value below is the one this release computes; change it only on purpose."""
    t = Trace()
    o = t.observe(summary="the user said “früh” 👍")
    t.revise([o], summary="moved reminders earlier — ohne Rückfrage", target="Erinnerung", governance="none")
    [item] = [i for i in evaluate(t.diagnose(), fail_on="high").items if i.finding.rule == "HALO-R1"]
    assert item.fingerprint == GOLDEN


GOLDEN = "275db2ca9961b1b41d0944d9ac997c16"


# --- SARIF, field by field ---------------------------------------------------------------------
# Code scanning reads these exact keys; a hand-built gate (no diagnosis involved) pins them.

from halo_git import __version__  # noqa: E402
from halo_git.accept import Accepted  # noqa: E402
from halo_git.diagnosis import RULES, Finding, Rule  # noqa: E402
from halo_git.formats.sarif import default_level, rule_descriptor, sarif_log  # noqa: E402
from halo_git.gate import ACCEPTED, NEW, OPEN, RESOLVED, UNCHANGED, Gate, Item  # noqa: E402

MANY = tuple(f"e{n}" for n in range(1, 60))  # 59 ids: 20 named in the text, 50 related locations


def sarif_gate(baseline: bool = True) -> Gate:
    moved = Finding("HALO-R1", "high", ("e5", "e1"), "Moved alone.", "Get approval.", quote="remind earlier",
                    why="Nobody approved it.", next_step="Ask the user.")
    broad = Finding("HALO-A1", "medium", MANY, "Acted alone.", "Ask first.")
    old = Finding("HALO-R1", "high", ("e2",), "Old move.", "Get approval.")
    entry = Accepted("HALO-R1", "old move", "owner approved it later", "Jane", source="halo-accept.yaml", line=2)
    items = (
        Item(moved, NEW if baseline else OPEN, True, None),
        Item(broad, UNCHANGED if baseline else OPEN, False, None),
        Item(old, ACCEPTED, False, None, entry),
    )
    gone = Finding("HALO-A2", "low", ("e3",), "Open loop.", "Log the outcome.")
    stale = Accepted("HALO-M1", "forgotten", "stale one", "Joe", source="halo-accept.yaml", line=7)
    return Gate("demo", "pr", "a" * 40, "whole trace", "high", items, (Item(gone, RESOLVED, False, None),), (stale,),
                "main" if baseline else None, ("b" * 40) if baseline else None, "halo-accept.yaml")


def where(event_id: str) -> str:
    return f"events/{event_id}.yaml"


def location(event_id: str, n: int | None = None) -> dict:
    loc = {"physicalLocation": {"artifactLocation": {"uri": f"events/{event_id}.yaml", "uriBaseId": "HALOREPO"}},
           "logicalLocations": [{"name": event_id, "fullyQualifiedName": f"demo/pr/{event_id}", "kind": "object"}]}
    return {**loc, "id": n} if n is not None else loc


def test_sarif_run_properties_and_base_ids():
    log = sarif_log(sarif_gate(), where)
    assert (log["$schema"], log["version"]) == ("https://json.schemastore.org/sarif-2.1.0.json", "2.1.0")
    [run] = log["runs"]
    assert run["tool"]["driver"]["name"] == "halo-git"
    assert run["tool"]["driver"]["version"] == run["tool"]["driver"]["semanticVersion"] == __version__
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(RULES)
    assert run["automationDetails"] == {"id": "halo-git/demo/"}
    assert run["originalUriBaseIds"] == {"HALOREPO": {"description": {"text": f"the Git repository of agent demo, branch pr at {'a' * 40}"}}}
    assert run["properties"] == {
        "agent": "demo", "branch": "pr", "head": "a" * 40, "scope": "whole trace", "failOn": "high", "failed": True,
        "baseline": "main", "baselineHead": "b" * 40,
        "resolved": [{"ruleId": "HALO-A2", "ids": ["e3"], "message": "Open loop."}],
        "staleAccepted": [{"ruleId": "HALO-M1", "summary": "forgotten", "entry": "halo-accept.yaml:7"}],
    }
    headless = sarif_log(Gate("demo", "pr", None, "whole trace", "high", ()), where)["runs"][0]
    assert headless["originalUriBaseIds"]["HALOREPO"]["description"]["text"].endswith("branch pr at no commit")


def test_sarif_results_field_by_field():
    new, broad, accepted = sarif_log(sarif_gate(), where)["runs"][0]["results"]
    assert new == {
        "ruleId": "HALO-R1", "ruleIndex": list(RULES).index("HALO-R1"), "level": "error",
        "message": {"text": "e5, e1 “remind earlier”: Moved alone. Why it matters: Nobody approved it. Next step: Ask the user."},
        "locations": [location("e5")],
        "partialFingerprints": {"haloFinding/v1": sarif_gate().items[0].fingerprint},
        "properties": {"severity": "high", "ids": ["e5", "e1"], "status": "new", "failing": True},
        "relatedLocations": [location("e1", 1)],
        "baselineState": "new",
    }
    assert broad["level"] == "warning" and broad["baselineState"] == "unchanged"
    assert broad["message"]["text"] == ", ".join(MANY[:20]) + " and 39 more: Acted alone. Remedy: Ask first."
    assert broad["relatedLocations"] == [location(i, n) for n, i in enumerate(MANY[1:51], 1)]
    assert "suppressions" not in new and "baselineState" not in accepted
    assert accepted["suppressions"] == [{
        "kind": "external", "status": "accepted", "justification": "owner approved it later (accepted by Jane)",
        "location": {"physicalLocation": {"artifactLocation": {"uri": "halo-accept.yaml"}, "region": {"startLine": 2}}},
    }]
    assert "relatedLocations" not in accepted  # one id: nothing related


def test_sarif_without_baseline_has_no_baseline_state_and_an_entry_without_line_no_region():
    gate = sarif_gate(baseline=False)
    results = sarif_log(gate, where)["runs"][0]["results"]
    assert all("baselineState" not in r for r in results)
    entry = Accepted("HALO-R1", "old move", "ok", "Jane", source="other.yaml")
    item = Item(gate.items[2].finding, ACCEPTED, False, None, entry)
    [r] = sarif_log(Gate("demo", "pr", "a" * 40, "whole trace", "high", (item,)), where)["runs"][0]["results"]
    assert r["suppressions"][0]["location"] == {"physicalLocation": {"artifactLocation": {"uri": "other.yaml"}}}
    unaccepted = Item(gate.items[2].finding, ACCEPTED, False, None, None)  # accepted without an entry: no suppression to cite
    [r] = sarif_log(Gate("demo", "pr", "a" * 40, "whole trace", "high", (unaccepted,)), where)["runs"][0]["results"]
    assert "suppressions" not in r
    idless = Item(Finding("HALO-S1", "info", (), "Whole trace.", "Look."), OPEN, False, None)
    [r] = sarif_log(Gate("demo", "pr", "a" * 40, "whole trace", "high", (idless,)), where)["runs"][0]["results"]
    assert r["locations"] == [] and r["level"] == "note" and "relatedLocations" not in r


def test_sarif_rule_descriptor_field_by_field():
    rule = Rule("HALO-X9", "made-up-rule", "medium / high", "a made-up trigger", "do the thing")
    assert rule_descriptor(rule) == {
        "id": "HALO-X9",
        "name": "made-up-rule",
        "shortDescription": {"text": "made up rule"},
        "fullDescription": {"text": "Fires on a made-up trigger."},
        "help": {
            "text": "HALO-X9 made-up-rule: fires on a made-up trigger. Severity medium / high. What to do: do the thing",
            "markdown": "**HALO-X9 made-up-rule** fires on a made-up trigger.\n\nSeverity: medium / high.\n\n**What to do:** do the thing",
        },
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["halo", "X"], "severities": ["medium", "high"]},
    }
    assert default_level(Rule("HALO-Y1", "y", "info", "t", "r")) == "note"
    assert default_level(Rule("HALO-Y1", "y", "high / info", "t", "r")) == "error"


def test_sarif_names_twenty_ids_then_counts_the_rest_and_renders_readable_utf8():
    from halo_git.formats.sarif import render_sarif

    def text(n: int) -> str:
        f = Finding("HALO-A1", "medium", MANY[:n], "Acted alone.", "Ask first.")
        return sarif_log(Gate("demo", "pr", None, "whole trace", "high", (Item(f, OPEN, False, None),)), where)["runs"][0]["results"][0]["message"]["text"]

    assert text(20) == ", ".join(MANY[:20]) + ": Acted alone. Remedy: Ask first."
    assert text(21) == ", ".join(MANY[:20]) + " and 1 more: Acted alone. Remedy: Ask first."
    rendered = render_sarif(sarif_gate(), where)
    assert rendered.startswith('{\n  "$schema": ') and rendered.endswith("}\n")  # two-space indent, one trailing newline
    assert "“remind earlier”" in rendered  # UTF-8 as is, not \\u escapes
