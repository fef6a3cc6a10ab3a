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
