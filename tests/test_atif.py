"""ATIF export checked against the field list of Harbor RFC 0001 (ATIF v1.7 and v1.8): required
keys and types, no keys the reference models forbid, sequential step ids, every
``source_call_id`` naming a tool call of its own step, one trajectory per session."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.atif import SCHEMA_VERSION, SCHEMA_VERSIONS, session_dirname, trajectories
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
    """Raise AssertionError unless ``t`` is a valid ATIF v1.7 or v1.8 trajectory (v1.8 adds
    only audio content parts, which the export never writes)."""
    check_fields(t, ROOT, "trajectory")
    assert t["schema_version"] in ("ATIF-v1.7", "ATIF-v1.8")
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
        assert t["agent"] == {"name": "demo", "version": "unrecorded"}  # the branch is no version of the agent
        assert t["extra"]["halo"]["branch"] == "main"
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
    # the source is what the event says: the user's words are the user's step, the rest the agent's
    assert e1["source"] == "user"
    assert [s["source"] for t in out for s in t["steps"]][1:] == ["agent"] * 7
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


REPO = Path(__file__).resolve().parent.parent


def harbor_trajectory():
    """Harbor's own ``Trajectory`` model: the installed package (Python >= 3.12), else the
    models read from the wheel scripts/test.sh fetches (they need only pydantic)."""
    try:
        from harbor.models.trajectories import Trajectory
        return Trajectory
    except ImportError:
        pass
    wheels = sorted((REPO / ".cache" / "wheels").glob("harbor-*.whl"))
    if not wheels:
        pytest.skip("harbor is not installed (the package needs Python >= 3.12) and scripts/test.sh has not fetched "
                    "its wheel into .cache/wheels; only the structural ATIF checks ran")
    sys.path.insert(0, str(wheels[-1]))
    try:
        from harbor.models.trajectories import Trajectory
    except Exception as e:  # e.g. syntax this Python cannot read
        pytest.skip(f"harbor's models from {wheels[-1].name} do not load on Python {sys.version.split()[0]} ({e}); "
                    "only the structural ATIF checks ran")
    finally:
        sys.path.remove(str(wheels[-1]))
    return Trajectory


@pytest.mark.parametrize("version", SCHEMA_VERSIONS)
def test_cli_writes_one_trajectory_file_per_session(root, halo, tmp_path, version):
    scenario(halo)
    halo.log("demo", "observe", "a session label that is no file name", session="../x y/é")
    out = tmp_path / "atif"
    r = run_cli("export", "--agent", "demo", "--format", "atif", "--atif-version", version, "--out", str(out), root=root)
    assert r.returncode == 0, r.stderr
    files = [Path(line) for line in r.stdout.splitlines()]
    assert [f.relative_to(out).parts for f in files] == [
        ("day1", "trajectory.json"), ("day2", "trajectory.json"), (session_dirname("../x y/é"), "trajectory.json")]
    assert files[2].parent.name.startswith("x-y-") and files[2].resolve().parent.parent == out.resolve()
    assert sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file()) == sorted(f.relative_to(out) for f in files)
    loaded = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    assert [t["session_id"] for t in loaded] == ["day1", "day2", "../x y/é"]
    for t in loaded:
        validate(t)
        assert t["schema_version"] == version
    # a second export into the same folder is refused and changes nothing
    again = run_cli("export", "--agent", "demo", "--format", "atif", "--out", str(out), root=root)
    assert again.returncode == 2 and "not an empty folder" in again.stderr
    assert [json.loads(f.read_text(encoding="utf-8")) for f in files] == loaded
    bad = run_cli("export", "--agent", "demo", "--format", "jsonl", "--out", str(tmp_path / "x"), root=root)
    assert bad.returncode == 2 and "--out applies to --format atif" in bad.stderr


def test_session_dirnames_are_safe_and_distinct():
    assert session_dirname("day1") == "day1"
    assert session_dirname("Day1", ["day1"]) != "Day1"  # case-blind file systems
    for label in ("..", ".", "a/b", "/etc", "-x", "x" * 80, "日本"):
        name = session_dirname(label)
        assert "/" not in name and name not in (".", "..") and len(name) <= 64 and name[0].isalnum(), (label, name)
    assert session_dirname("a/b") != session_dirname("a b")


def test_harbor_models_accept_every_exported_trajectory(halo):
    Trajectory = harbor_trajectory()
    scenario(halo)
    log = halo.event_log("demo")
    for version in SCHEMA_VERSIONS:
        for t in trajectories(log.events, agent="demo", branch="main", head=log.head, schema_version=version):
            model = Trajectory.model_validate(t)
            assert model.schema_version == version and model.to_json_dict() == t
    broken = trajectories(log.events, agent="demo", branch="main", head=log.head)[0]
    broken["steps"][2]["observation"]["results"][0]["source_call_id"] = "e4"
    with pytest.raises(ValueError):
        Trajectory.model_validate(broken)
