"""SARIF 2.1.0 for code scanning: one rule per HALO rule, one result per finding.

Each result carries the rule id, a level from the finding's severity, the
message, and a location pointing at the event's file in the agent repository
(``events/<shard>/e<N>.yaml``, relative to the base id ``HALOREPO``, the
agent's repository). ``partialFingerprints`` hash the rule and the event's
content, never its id, so code scanning tracks one alert across branches and
re-runs, as the behaviour diff matches findings. With a baseline, results carry
``baselineState`` (``new`` or ``unchanged``); accepted findings carry an
external, accepted ``suppression`` with the reason. Each agent's run has its
own ``automationDetails.id`` so several agents upload side by side.
"""

from __future__ import annotations

import json
from typing import Callable

from .. import __version__
from ..diagnosis import RULES, Rule
from ..gate import ACCEPTED, NEW, UNCHANGED, Gate, Item
from .finding import described

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
LEVEL = {"high": "error", "medium": "warning", "low": "note", "info": "note"}
BASE_ID = "HALOREPO"
MAX_RELATED = 50  # related locations per result; session findings can cite thousands of events
RULE_IDS = list(RULES)


def default_level(rule: Rule) -> str:
    """A rule's usual level: the first of its documented severities ("high / medium" → error)."""
    return LEVEL[rule.severity.split("/")[0].strip()]


def rule_descriptor(rule: Rule) -> dict:
    severities = [s.strip() for s in rule.severity.split("/")]
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.name.replace("-", " ")},
        "fullDescription": {"text": f"Fires on {rule.trigger}."},
        "help": {
            "text": f"{rule.id} {rule.name}: fires on {rule.trigger}. Severity {rule.severity}. What to do: {rule.remedy}",
            "markdown": f"**{rule.id} {rule.name}** fires on {rule.trigger}.\n\nSeverity: {rule.severity}.\n\n**What to do:** {rule.remedy}",
        },
        "defaultConfiguration": {"level": default_level(rule)},
        "properties": {"tags": ["halo", rule.id.split("-")[1][0]], "severities": severities},
    }


def _location(gate: Gate, event_id: str, path_of: Callable[[str], str], n: int | None = None) -> dict:
    loc = {
        "physicalLocation": {"artifactLocation": {"uri": path_of(event_id), "uriBaseId": BASE_ID}},
        "logicalLocations": [{"name": event_id, "fullyQualifiedName": f"{gate.agent}/{gate.branch}/{event_id}", "kind": "object"}],
    }
    if n is not None:
        loc["id"] = n
    return loc


def _result(gate: Gate, item: Item, path_of: Callable[[str], str]) -> dict:
    f = item.finding
    ids = list(f.ids)
    text = f"{', '.join(ids[:20])}{f' and {len(ids) - 20} more' if len(ids) > 20 else ''}{described(f)}"
    res: dict = {
        "ruleId": f.rule,
        "ruleIndex": RULE_IDS.index(f.rule),
        "level": LEVEL[f.severity],
        "message": {"text": text},
        "locations": [_location(gate, ids[0], path_of)] if ids else [],
        "partialFingerprints": {"haloFinding/v1": item.fingerprint},
        "properties": {"severity": f.severity, "ids": ids, "status": item.status, "failing": item.failing},
    }
    if len(ids) > 1:
        res["relatedLocations"] = [_location(gate, i, path_of, n) for n, i in enumerate(ids[1 : 1 + MAX_RELATED], 1)]
    if item.status in (NEW, UNCHANGED):
        res["baselineState"] = item.status
    if item.status == ACCEPTED and item.accepted:
        e = item.accepted
        sup: dict = {"kind": "external", "status": "accepted", "justification": f"{e.reason} (accepted by {e.by})"}
        region = {"startLine": e.line} if e.line else None
        sup["location"] = {"physicalLocation": {"artifactLocation": {"uri": e.source}, **({"region": region} if region else {})}}
        res["suppressions"] = [sup]
    return res


def sarif_log(gate: Gate, path_of: Callable[[str], str]) -> dict:
    """The SARIF log as plain data (one run)."""
    run: dict = {
        "tool": {
            "driver": {
                "name": "halo-git",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [rule_descriptor(r) for r in RULES.values()],
            }
        },
        "automationDetails": {"id": f"halo-git/{gate.agent}/"},
        "originalUriBaseIds": {
            BASE_ID: {"description": {"text": f"the Git repository of agent {gate.agent}, branch {gate.branch} at {gate.head or 'no commit'}"}}
        },
        "results": [_result(gate, i, path_of) for i in gate.items],
        "properties": {
            "agent": gate.agent,
            "branch": gate.branch,
            "head": gate.head,
            "scope": gate.scope,
            "failOn": gate.fail_on,
            "failed": gate.failed,
            "baseline": gate.baseline,
            "baselineHead": gate.baseline_head,
            "resolved": [{"ruleId": i.finding.rule, "ids": list(i.finding.ids), "message": i.finding.message} for i in gate.resolved],
            "staleAccepted": [{"ruleId": e.rule, "summary": e.summary, "entry": e.where()} for e in gate.stale],
        },
    }
    return {"$schema": SCHEMA, "version": VERSION, "runs": [run]}


def render_sarif(gate: Gate, path_of: Callable[[str], str]) -> str:
    return json.dumps(sarif_log(gate, path_of), ensure_ascii=False, indent=2) + "\n"
