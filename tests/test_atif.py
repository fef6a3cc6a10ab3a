"""ATIF export checked against the field list of Harbor RFC 0001 (ATIF v1.7): required
keys and types, no keys the reference models forbid, sequential step ids, every
``source_call_id`` naming a tool call of its own step, one trajectory per session."""

from __future__ import annotations

import json
from datetime import datetime

from halo_git import Halo
from halo_git.atif import SCHEMA_VERSION, trajectories
from tests.conftest import run_cli

OBJ, STR, INT, LIST, NUM, BOOL = dict, str, int, list, (int, float), bool
# field -> (required, type); the reference models reject any other key
ROOT = {
    "schema_version": (True, STR), "session_id": (False, STR), "trajectory_id": (False, STR), "agent": (True, OBJ),
    "steps": (True, LIST), "notes": (False, STR), "final_metrics": (False, OBJ), "continued_trajectory_ref": (False, STR),
    "extra": (False, OBJ), "subagent_trajectories": (False, LIST),
}
AGENT = {"name": (True, STR), "version": (True, STR), "model_name": (False, STR), "tool_definitions": (False, LIST), "extra": (False, OBJ)}
FINAL_METRICS = {
    "total_prompt_tokens": (False, INT), "total_completion_tokens": (False, INT), "total_cached_tokens": (False, INT),
    "total_cost_usd": (False, NUM), "total_steps": (False, INT), "extra": (False, OBJ),
}
STEP = {
    "step_id": (True, INT), "timestamp": (False, STR), "source": (True, STR), "model_name": (False, STR),
    "reasoning_effort": (False, (str, int, float)), "message": (True, (str, list)), "reasoning_content": (False, STR),
    "tool_calls": (False, LIST), "observation": (False, OBJ), "metrics": (False, OBJ), "extra": (False, OBJ),
    "llm_call_count": (False, INT), "is_copied_context": (False, BOOL),
}
TOOL_CALL = {"tool_call_id": (True, STR), "function_name": (True, STR), "arguments": (True, OBJ), "extra": (False, OBJ)}
OBSERVATION = {"results": (True, LIST)}
RESULT = {"source_call_id": (False, STR), "content": (False, (str, list)), "subagent_trajectory_ref": (False, LIST), "extra": (False, OBJ)}


def check_fields(obj: dict, spec: dict, where: str) -> None:
    assert isinstance(obj, dict), where
    unknown = set(obj) - set(spec)
    assert not unknown, f"{where}: keys the schema does not define: {unknown}"
    for key, (required, kind) in spec.items():
        if key not in obj:
            assert not required, f"{where}: required key {key!r} missing"
            continue
        assert isinstance(obj[key], kind) and not (kind is INT and isinstance(obj[key], bool)), f"{where}.{key}: {obj[key]!r}"


def validate(t: dict) -> None:
    """Raise AssertionError unless ``t`` is a valid ATIF v1.7 trajectory."""
    check_fields(t, ROOT, "trajectory")
    assert t["schema_version"] == "ATIF-v1.7"
    check_fields(t["agent"], AGENT, "agent")
    if "final_metrics" in t:
        check_fields(t["final_metrics"], FINAL_METRICS, "final_metrics")
    for i, step in enumerate(t["steps"]):
        where = f"steps[{i}]"
        check_fields(step, STEP, where)
        assert step["step_id"] == i + 1, f"{where}: step ids run 1, 2, 3, …"
        assert step["source"] in ("system", "user", "agent")
        if "timestamp" in step:
            datetime.fromisoformat(step["timestamp"].replace("Z", "+00:00"))
        calls = step.get("tool_calls", [])
        assert not calls or step["source"] == "agent"
        for call in calls:
            check_fields(call, TOOL_CALL, f"{where}.tool_calls")
        ids = [c["tool_call_id"] for c in calls]
        assert len(ids) == len(set(ids))
        if "observation" in step:
            check_fields(step["observation"], OBSERVATION, f"{where}.observation")
            for result in step["observation"]["results"]:
                check_fields(result, RESULT, f"{where}.observation.results")
                if result.get("source_call_id") is not None:
                    assert result["source_call_id"] in ids, f"{where}: source_call_id {result['source_call_id']} has no tool call in its step"


def scenario(h: Halo) -> None:
    h.log("demo", "observe", "user asked: \"remind me at 9:30\"\nsecond line ✓", session="day1")  # e1
    h.log("demo", "remember", "reminder at 9:30", ["e1"], "day1")  # e2
    h.log("demo", "act", "set the reminder", ["e1", "e2"], "day1", trigger="request", form="execution")  # e3
    h.log("demo", "outcome", "reminder stored", None, "day1", about="e3")  # e4: folded into e3
    h.log("demo", "recall", "looked up the reminder", ["e2"], "day2")  # e5
    h.log("demo", "act", "reminded the user", ["e5"], "day2", trigger="self")  # e6
    h.log("demo", "outcome", "user said thanks", ["e5"], "day2", about="e6")  # e7: folded into e6
    h.log("demo", "outcome", "reminder fired on time", None, "day2", about="e3")  # e8: its act is in day1
    h.log("demo", "revise", "remind 5 minutes earlier", ["e7"], "day2", target="reminder lead time", made_by="agent", governance="bounded")  # e9
    h.log("demo", "act", "said good morning", None, "day1", trigger="self", form="communication")  # e10: day1 again


def test_one_valid_trajectory_per_session(halo):
    scenario(halo)
    log = halo.event_log("demo")
    out = trajectories(log.events, agent="demo", branch="main", head=log.head)
    assert [t["session_id"] for t in out] == ["day1", "day2"]
    for t in out:
        validate(t)
        assert t["schema_version"] == SCHEMA_VERSION
        assert t["agent"] == {"name": "demo", "version": "main"}
        assert t["final_metrics"]["total_steps"] == len(t["steps"])
        assert t["extra"]["halo"]["head"] == log.head
    day1, day2 = out
    assert [s["extra"]["halo"]["id"] for s in day1["steps"]] == ["e1", "e2", "e3", "e10"]
    assert [s["extra"]["halo"]["id"] for s in day2["steps"]] == ["e5", "e6", "e8", "e9"]
    assert day1["extra"]["halo"]["events"] == ["e1", "e2", "e3", "e4", "e10"]

    # every event exactly once: as a step, or as the observation result of its act
    seen = []
    for t in out:
        for s in t["steps"]:
            seen.append(s["extra"]["halo"]["id"])
            seen += [r["extra"]["halo"]["id"] for r in s.get("observation", {}).get("results", [])]
    assert sorted(seen, key=lambda i: int(i[1:])) == [e.id for e in log.events]

    e1, e3 = day1["steps"][0], day1["steps"][2]
    assert e1["message"] == 'user asked: "remind me at 9:30"\nsecond line ✓'
    assert e1["timestamp"] == log.events[0].time
    assert e3["tool_calls"] == [{"tool_call_id": "e3", "function_name": "halo_act", "arguments": {"trigger": "request", "form": "execution"}}]
    assert e3["observation"]["results"] == [{
        "source_call_id": "e3", "content": "reminder stored",
        "extra": {"halo": {"id": "e4", "kind": "outcome", "category": "Sensing", "time": log.events[3].time,
                           "uses": [], "about": "e3", "channels": ["A→S"]}},
    }]
    e6, e8, e9 = day2["steps"][1:]
    assert [r["source_call_id"] for r in e6["observation"]["results"]] == ["e6"]
    # an outcome about another session's act is a step of its own with no source_call_id
    assert "observation" not in e8 and "tool_calls" not in e8 and e8["extra"]["halo"]["about"] == "e3"
    assert e9["extra"]["halo"] == {
        "id": "e9", "kind": "revise", "category": "Mechanism", "uses": ["e7"], "target": "reminder lead time",
        "made_by": "agent", "governance": "bounded", "channels": ["S→R"],
    }
    assert "observation" not in day1["steps"][3]  # e10: an act nobody reported on


def test_validator_catches_what_the_schema_forbids(halo):
    """The checks above can fail: broken copies of a real export are rejected."""
    scenario(halo)
    log = halo.event_log("demo")
    good = trajectories(log.events, agent="demo", branch="main", head=log.head)[0]
    breakages = [
        lambda t: t["steps"][1].update(step_id=7),
        lambda t: t["steps"][2]["observation"]["results"][0].update(source_call_id="e4"),
        lambda t: t.pop("schema_version"),
        lambda t: t["agent"].pop("version"),
        lambda t: t["steps"][0].update(halo_id="e1"),
    ]
    for breakage in breakages:
        bad = json.loads(json.dumps(good))
        breakage(bad)
        try:
            validate(bad)
        except AssertionError:
            continue
        raise AssertionError("validator accepted a broken trajectory")


def test_cli_export_atif_and_jsonl(root, halo):
    scenario(halo)
    r = run_cli("export", "--agent", "demo", "--format", "atif", root=root)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:
        validate(json.loads(line))
    assert json.loads(lines[0])["extra"]["halo"]["exporter"].startswith("halo-git ")
    jsonl = run_cli("export", "--agent", "demo", root=root).stdout.splitlines()
    assert [json.loads(line)["id"] for line in jsonl] == [f"e{i}" for i in range(1, 11)]
    assert run_cli("export", "--agent", "nobody", "--format", "atif", root=root).stdout == ""
