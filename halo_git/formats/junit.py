"""JUnit XML for the test-report views of CI systems (GitLab, Jenkins, Azure, …).

One ``testsuite`` per check (agent, branch, scope), one ``testcase`` per
finding: a ``failure`` when it fails the check, ``skipped`` with the reason
when it does not (below the threshold, also on the baseline, or accepted).
Findings resolved relative to the baseline are passing test cases; stale
accept entries are skipped test cases naming the entry. Agent text is
stripped of characters XML 1.0 cannot hold.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Callable

from ..diagnosis import RULES
from ..gate import ACCEPTED, UNCHANGED, Gate, Item
from .finding import described
from .github import cite

_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _x(text: str) -> str:
    """Text XML 1.0 can hold: other characters become U+FFFD."""
    return _XML_INVALID.sub("\ufffd", text)


def _case(suite: ET.Element, gate: Gate, item: Item, path_of: Callable[[str], str], resolved: bool = False) -> None:
    f = item.finding
    first = f.ids[0] if f.ids else "-"
    attrs = {
        "classname": _x(f"halo.{gate.agent}.{f.rule}"),
        "name": _x(f"{'resolved: ' if resolved else ''}{f.rule} {RULES[f.rule].name} ({f.severity}) {first}"),
        "time": "0",
    }
    if f.ids:
        attrs["file"] = path_of(first)
    case = ET.SubElement(suite, "testcase", attrs)
    text = _x(cite(f.ids) + described(f))
    if resolved:
        ET.SubElement(case, "system-out").text = _x(f"Resolved: on baseline {gate.baseline}, not on {gate.branch}.\n{text}")
    elif item.failing:
        failure = ET.SubElement(case, "failure", {"type": f.rule, "message": _x(f"{f.rule} {RULES[f.rule].name} ({f.severity}): {f.message}")})
        failure.text = text
    else:
        if item.status == ACCEPTED and item.accepted:
            why = f"accepted by {item.accepted.by}: {item.accepted.reason}"
        elif item.status == UNCHANGED:
            why = f"also on baseline {gate.baseline}"
        else:
            why = f"{f.severity} is below --fail-on {gate.fail_on}"
        ET.SubElement(case, "skipped", {"message": _x(why)})
        ET.SubElement(case, "system-out").text = text


def junit_tree(gate: Gate, path_of: Callable[[str], str]) -> ET.Element:
    failures = len(gate.failing)
    skipped = sum(1 for i in gate.items if not i.failing) + len(gate.stale)
    tests = len(gate.items) + len(gate.resolved) + len(gate.stale)
    name = _x(f"halo-git check: agent {gate.agent}, branch {gate.branch}, {gate.scope}")
    counts = {"tests": str(tests), "failures": str(failures), "errors": "0", "skipped": str(skipped), "time": "0"}
    root = ET.Element("testsuites", {"name": "halo-git check", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": name, **counts})
    props = ET.SubElement(suite, "properties")
    for k, v in (("agent", gate.agent), ("branch", gate.branch), ("head", gate.head or ""), ("fail-on", gate.fail_on),
                 ("baseline", gate.baseline or ""), ("baseline-head", gate.baseline_head or "")):
        ET.SubElement(props, "property", {"name": k, "value": _x(v)})
    for item in gate.items:
        _case(suite, gate, item, path_of)
    for item in gate.resolved:
        _case(suite, gate, item, path_of, resolved=True)
    for e in gate.stale:
        case = ET.SubElement(suite, "testcase", {"classname": _x(f"halo.{gate.agent}.accept"), "name": _x(f"stale: {e.where()}"), "file": e.source, "time": "0"})
        ET.SubElement(case, "skipped", {"message": _x(f"{e.describe()} matches no finding any more; remove or update the entry")})
    return root


def render_junit(gate: Gate, path_of: Callable[[str], str]) -> str:
    root = junit_tree(gate, path_of)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
