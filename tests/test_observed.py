"""Observed evidence: ATIF trajectories and OTLP spans of what an agent did, aligned with
what it logged. Fixtures: every call reported; a side-effecting call unreported; a logged
execution no call matches; clock offsets inside and outside the window; sessions that
match no trajectory; HALO's own exports refused; the real CLI for report and check."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from halo_git.errors import InvalidCall
from halo_git.formats.otlp import export_request
from halo_git.atif import trajectories
from halo_git.observed import DEFAULT_WINDOW, align, effect_of, load, parse_document, summarize_args
from halo_git.report import render_report
from tests.conftest import run_cli

T0 = datetime(2026, 11, 30, 9, 0, 0, tzinfo=timezone.utc)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def logged(h, session="run1"):
    """What the agent logged: read the task, wrote the fix, saw it saved, ran the tests."""
    h.log("dev", "observe", "read the task file", session=session, time=at(0))  # e1
    h.log("dev", "act", "wrote the fix to app.py", ["e1"], session, time=at(60), trigger="request", form="execution")  # e2
    h.log("dev", "outcome", "the file was saved", None, session, time=at(90), about="e2")  # e3
    h.log("dev", "act", "ran the tests", ["e3"], session, time=at(120), trigger="request", form="execution")  # e4


CALLS = [(5, "read_file", {"path": "task.md"}), (6, "mcp__halo__halo_observe", {"summary": "read the task file"}),
         (63, "write_file", {"path": "app.py", "content": "print(1)"}), (121, "bash", {"command": "pytest -q"})]


def atif(calls=CALLS, session="run1", offset=0.0, stamp=True) -> dict:
    """An ATIF trajectory as an agent runtime records it (one tool call per step)."""
    steps = [{"step_id": 1, "source": "user", "message": "fix the bug", **({"timestamp": at(offset)} if stamp else {})}]
    for t, tool, args in calls:
        step = {"step_id": len(steps) + 1, "source": "agent", "message": "", "tool_calls": [
            {"tool_call_id": f"call_{len(steps)}", "function_name": tool, "arguments": args}]}
        if stamp:
            step["timestamp"] = at(t + offset)
        steps.append(step)
    return {"schema_version": "ATIF-v1.6", "session_id": session, "agent": {"name": "claude-code", "version": "1"}, "steps": steps}


def write(tmp_path: Path, doc, name="trajectory.json") -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return p


def diagnosis(halo, path, session="", window=DEFAULT_WINDOW):
    return halo.diagnosis("dev", session=session, observed=load(path, window=window))


def rules(d):
    return [(f.rule, f.severity, f.ids) for f in d.findings if f.rule.startswith("HALO-O")]


def test_all_calls_reported_no_finding(halo, tmp_path):
    logged(halo)
    d = diagnosis(halo, write(tmp_path, atif()))
    al = d.observed
    assert [(c.tool, i) for c, i in al.reported] == [("read_file", "e1"), ("write_file", "e2"), ("bash", "e4")]
    assert rules(d) == [] and al.total == 3 and al.observed.logging_calls == 1
    assert al.observed_sessions == ["run1"] and al.self_report_only == [] and al.unmatched == {}
    report = render_report(d)
    boundary = report.split("## Channels")[0]
    assert "It is not observed behaviour, except the observed tool calls listed below" in boundary
    assert "- Coverage: 3/3 observed tool calls reported by a logged observe or act (100%)" in boundary
    assert "- Observed evidence: trajectory.json (ATIF-v1.6, 3 tool calls); alignment window ±120 s" in boundary
    assert "1 to HALO's own tools (the logging itself)" in boundary
    assert "Observed and self-reported sessions: run1; self-report only (no observed call): none" in boundary
    plain = render_report(halo.diagnosis("dev"))
    assert "Coverage:" not in plain and "It is not observed behaviour. HALO" in plain  # unchanged without evidence


def test_unreported_side_effecting_call_is_high_and_fails_check(root, halo, tmp_path):
    logged(halo)
    path = write(tmp_path, atif(CALLS + [(400, "delete_file", {"path": "db.sqlite", "api_token": "s3cr3t"})]))
    d = diagnosis(halo, path)
    assert rules(d) == [("HALO-O1", "high", ("e4",))]
    [f] = [f for f in d.findings if f.rule == "HALO-O1"]
    assert f.name == "unreported-action"
    assert f.message.startswith("Observed call delete_file at 2026-11-30T09:06:40Z (session run1; path=db.sqlite, "
                                "api_token=[withheld]) has no logged observe or act within ±120 s; the tool looks side-effecting.")
    assert "Nearest logged step: e4, 4 min before the call." in f.message and "s3cr3t" not in f.message
    assert d.findings[0] == f  # high sorts first
    assert d.observed.total == 4 and len(d.observed.reported) == 3

    r = run_cli("check", "--agent", "dev", "--fail-on", "medium", "--observed", str(path), root=root)
    assert r.returncode == 1, r.stderr
    assert any(line.startswith("::error title=HALO-O1 unreported-action (high)::e4: Observed call delete_file at 2026-11-30T09:06:40Z")
               for line in r.stdout.splitlines())
    assert run_cli("check", "--agent", "dev", "--fail-on", "medium", root=root).returncode == 0  # the trace alone passes
    report = run_cli("report", "--agent", "dev", "--observed", str(path), root=root)
    assert report.returncode == 0 and "- Coverage: 3/4 observed tool calls reported by a logged observe or act (75%)" in report.stdout
    assert "HALO-O1 unreported-action" in report.stdout.split("## Findings")[1]


def test_read_only_and_unknown_calls_rank_lower(halo, tmp_path):
    logged(halo)
    d = diagnosis(halo, write(tmp_path, atif(CALLS + [(900, "list_files", {}), (1000, "frobnicate", {"x": 1})])))
    assert sorted(rules(d)) == [("HALO-O1", "low", ("e4",)), ("HALO-O1", "medium", ("e4",))]


def test_logged_execution_with_no_observed_call(halo, tmp_path):
    logged(halo)
    d = diagnosis(halo, write(tmp_path, atif(CALLS[:3])))  # the test run was never observed
    assert rules(d) == [("HALO-O2", "medium", ("e4",))]
    [f] = [f for f in d.findings if f.rule == "HALO-O2"]
    assert f.message == "Logged execution e4 (session run1, 2026-11-30T09:02:00Z) has no observed tool call within ±120 s (2 observed calls in its session)."
    assert "- Logged executions no observed call matches: e4" in render_report(d)


@pytest.mark.parametrize("offset", [60, -90])
def test_clock_offset_inside_the_window(halo, tmp_path, offset):
    logged(halo)
    d = diagnosis(halo, write(tmp_path, atif(offset=offset)))
    assert rules(d) == [] and len(d.observed.reported) == 3


def test_clock_offset_outside_the_window(halo, tmp_path):
    logged(halo)
    path = write(tmp_path, atif(offset=600))
    d = diagnosis(halo, path)
    assert sorted(rules(d)) == [("HALO-O1", "high", ("e4",)), ("HALO-O1", "high", ("e4",)), ("HALO-O1", "low", ("e4",)),
                                ("HALO-O2", "medium", ("e2",)), ("HALO-O2", "medium", ("e4",))]
    assert "- Coverage: 0/3 observed tool calls" in render_report(d)
    d = diagnosis(halo, path, window=700)  # a wider window takes the offset in
    assert rules(d) == [] and "alignment window ±700 s" in render_report(d)


def test_sessions_that_match_no_trajectory_are_said(root, halo, tmp_path):
    logged(halo)
    halo.log("dev", "observe", "a second day", session="run2", time=at(5000))
    path = write(tmp_path, atif(session="run-7f3a"))
    d = diagnosis(halo, path)
    assert d.observed.unmatched and list(d.observed.unmatched) == ["run-7f3a"]
    assert d.observed.self_report_only == ["run1", "run2"] and d.observed.total == 3 and not d.observed.reported
    [f] = [f for f in d.findings if f.rule == "HALO-O1"]
    assert (f.severity, f.ids) == ("high", ())
    assert f.message.startswith("Observed session “run-7f3a” (3 tool calls, the first read_file at 2026-11-30T09:00:05Z) "
                                "matches no logged session")
    report = render_report(d)
    assert "- Observed sessions matching no logged session: run-7f3a (3 calls)" in report
    assert "self-report only (no observed call): run1, run2" in report
    assert "HALO-O1 unreported-action: no logged event: Observed session" in report.split("## Findings")[1]  # none to cite
    # scoped to one logged session, other observed sessions are counted as out of scope, not dropped silently
    d = diagnosis(halo, path, session="run2")
    assert rules(d) == [] and d.observed.out_of_scope == 3 and d.observed.self_report_only == ["run2"]
    assert "3 of other sessions (out of scope)" in render_report(d)
    r = run_cli("check", "--agent", "dev", "--observed", str(path), root=root)
    assert r.returncode == 1 and "HALO-O1" in r.stdout


def test_untimed_calls_are_counted_apart(halo, tmp_path):
    logged(halo)
    d = diagnosis(halo, write(tmp_path, atif(stamp=False)))
    assert d.observed.total == 0 and len(d.observed.untimed) == 3
    assert "3 without a timestamp" in render_report(d)


def otlp_span(t, tool, args, session="run1", **extra):
    attrs = [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
             {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
             {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(args)}}]
    if session:
        attrs.append({"key": "gen_ai.conversation.id", "value": {"stringValue": session}})
    nanos = int((T0 + timedelta(seconds=t)).timestamp()) * 1_000_000_000
    return {"traceId": "ab" * 16, "spanId": f"{t:016x}", "name": f"execute_tool {tool}", "kind": 1,
            "startTimeUnixNano": str(nanos), "endTimeUnixNano": str(nanos + 1000), "attributes": attrs, **extra}


def test_otlp_spans_from_a_collector_file_exporter(halo, tmp_path):
    logged(halo)
    chat = {"traceId": "ab" * 16, "spanId": "c" * 16, "name": "chat gpt-5", "startTimeUnixNano": "1",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}
    lines = [  # the file exporter writes one request per line
        {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [otlp_span(5, "read_file", {"path": "a"}), chat]}]}]},
        {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [
            otlp_span(63, "write_file", {"path": "app.py"}), otlp_span(121, "bash", {"command": "pytest"}),
            otlp_span(300, "send_email", {"to": "boss"})]}]}]},
    ]
    path = write(tmp_path, "\n".join(json.dumps(x) for x in lines) + "\n", "spans.jsonl")
    d = diagnosis(halo, path)
    assert [c.tool for c, _ in d.observed.reported] == ["read_file", "write_file", "bash"]
    assert rules(d) == [("HALO-O1", "high", ("e4",))]
    assert "send_email at 2026-11-30T09:05:00Z (session run1; to=boss)" in d.findings[0].message
    assert d.observed.observed.sources == ("spans.jsonl (OTLP/JSON, 4 tool calls)",)

    # spans without a session id are aligned by time alone against the scope
    bare = {"resourceSpans": [{"scopeSpans": [{"spans": [otlp_span(5, "read_file", {}, session=None),
                                                          otlp_span(62, "write_file", {}, session=None)]}]}]}
    d = diagnosis(halo, write(tmp_path, bare, "bare.json"))
    assert [i for _, i in d.observed.reported] == ["e1", "e2"]
    assert rules(d) == [("HALO-O2", "medium", ("e4",))]


def test_a_folder_of_trajectories_like_harbor_writes(halo, tmp_path):
    logged(halo)
    logged_run2 = [(5005, "read_file", {"path": "b"})]
    halo.log("dev", "observe", "read b", session="run2", time=at(5000))
    write(tmp_path, atif(), "jobs/j1/trial-1/agent/trajectory.json")
    write(tmp_path, atif(logged_run2, session="run2"), "jobs/j1/trial-2/agent/trajectory.json")
    write(tmp_path, {"reward": 1.0}, "jobs/j1/trial-1/result.json")
    write(tmp_path, "not json {", "jobs/j1/notes.json")
    d = diagnosis(halo, tmp_path / "jobs")
    assert d.observed.total == 4 and len(d.observed.reported) == 4 and rules(d) == []
    assert len(d.observed.observed.sources) == 2 and len(d.observed.observed.skipped) == 2
    assert "2 files skipped" in render_report(d)


def test_halo_exports_and_bad_input_are_refused(root, halo, tmp_path):
    logged(halo)
    log = halo.event_log("dev")
    for doc in (trajectories(log.events, agent="dev", branch="main", head=log.head)[0],
                export_request(log.events, agent="dev", branch="main", head=log.head)):
        with pytest.raises(InvalidCall, match="HALO's own .* not observed evidence"):
            parse_document(doc, "x")
    with pytest.raises(InvalidCall, match="neither an ATIF trajectory"):
        load(write(tmp_path, {"hello": 1}, "x.json"))
    with pytest.raises(InvalidCall, match="no such file"):
        load(tmp_path / "missing.json")
    with pytest.raises(InvalidCall, match="no ATIF trajectory or OTLP/JSON spans found"):
        load(write(tmp_path, {"a": 1}, "empty/other.json").parent)
    with pytest.raises(InvalidCall, match="positive"):
        load(write(tmp_path, atif()), window=0)
    r = run_cli("report", "--agent", "dev", "--observed", str(tmp_path / "missing.json"), root=root)
    assert r.returncode == 2 and "no such file or folder" in r.stderr
    r = run_cli("check", "--agent", "dev", "--observed", str(tmp_path / "x.json"), root=root)
    assert r.returncode == 2 and "neither an ATIF trajectory" in r.stderr


def test_observed_text_cannot_break_the_report(halo, tmp_path):
    logged(halo)
    evil = "<script>alert(1)</script>|## x\n| y"
    d = diagnosis(halo, write(tmp_path, atif(CALLS + [(500, evil, {"p": "|`<b>`"})], session="run1")))
    report = render_report(d)
    assert "<script>" not in report and "\n## x" not in report
    rows = [line for line in report.split("## Findings")[1].splitlines() if "HALO-O1" in line]
    assert len(rows) == 1 and rows[0].startswith("- **medium** HALO-O1")  # still one list item on one line


def test_effect_and_argument_summaries():
    assert effect_of("write_file") == effect_of("deleteUser") == effect_of("bash") == "side-effecting"
    assert effect_of("read_file") == effect_of("listDirectory") == effect_of("web_search") == "read-only"
    assert effect_of("get_or_create") == "side-effecting" and effect_of("frobnicate") == "unknown"
    assert summarize_args({"path": "a.txt", "n": 3}) == "path=a.txt, n=3"
    assert summarize_args({"password": "hunter2"}) == "password=[withheld]"
    assert summarize_args({"text": "key AKIAIOSFODNN7EXAMPLE"}) == "text=[withheld]"
    assert len(summarize_args({"x": "y" * 500, "z": "w" * 500, "q": "v" * 500, "r": "u" * 500})) == 120


def test_align_is_pure_over_plain_events(halo):
    logged(halo)
    from halo_git.observed import ObservedCall, Observed

    calls = (ObservedCall("write_file", at(61), "run1", "", "c1", "x", "side-effecting"),
             ObservedCall("read_file", at(2), "run1", "", "c2", "x", "read-only"),
             ObservedCall("deploy", at(125), "run1", "", "c3", "x", "side-effecting"))
    al = align(Observed(calls, ("x",)), halo.events("dev"))
    assert [(c.tool, i) for c, i in al.reported] == [("read_file", "e1"), ("write_file", "e2"), ("deploy", "e4")]
    assert al.unobserved_acts == [] and al.findings == []
    # pairs never cross: a write seen before the read cannot take the act logged after the observe
    calls = (ObservedCall("write_file", at(1), "run1", "", "c1", "x", "side-effecting"),
             ObservedCall("read_file", at(2), "run1", "", "c2", "x", "read-only"))
    al = align(Observed(calls, ("x",), window=30), halo.events("dev"))
    assert len(al.reported) == 1 and al.unobserved_acts == ["e2", "e4"]


def test_site_sets_observed_evidence_beside_the_diagnosis_and_trace(root, halo, tmp_path):
    logged(halo)
    evil = "<img src=x onerror=alert(1)>"
    path = write(tmp_path, atif(CALLS + [(400, "delete_file", {"path": evil})]))
    out = tmp_path / "site"
    r = run_cli("site", "--agent", "dev", "--observed", str(path), "--out", str(out), root=root)
    assert r.returncode == 0, r.stderr
    diag = (out / "agents" / "dev" / "diagnosis.html").read_text(encoding="utf-8")
    assert "Coverage: 3/4 observed tool calls reported" in diag and "HALO-O1" in diag
    assert evil not in diag and "<img" not in diag
    trace = "".join(p.read_text(encoding="utf-8") for p in (out / "agents" / "dev" / "trace").rglob("*.html"))
    assert "HALO-O1 unreported-action" in trace  # the finding sits by the nearest logged step of the trace
    page = (out / "agents" / "dev" / "observed.html").read_text(encoding="utf-8")
    assert page.count("<tr>") == 5  # header and four calls, in time order, each beside its logged step
    assert "not reported" in page and "delete_file" in page and "<img" not in page
    assert 'href="trace/run1/index.html#e2"' in page  # a link to the logged step in the trace
    r = run_cli("site", "--agent", "dev", "--observed", f"nobody={path}", "--out", str(tmp_path / "s2"), root=root)
    assert r.returncode == 2 and "--observed names agent 'nobody'" in r.stderr


def test_demo_with_a_generated_observed_trajectory(tmp_path):
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "scripts" / "observed_demo.py"
    r = subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "d")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "coverage: 9/10" in r.stdout and "- Coverage: 9/10 observed tool calls reported by a logged observe or act (90%)" in r.stdout
    assert "high HALO-O1 unreported-action" in r.stdout and "send_email" in r.stdout
    r = run_cli("check", "--agent", "demo", "--fail-on", "medium", "--observed", str(tmp_path / "d" / "observed"),
                root=tmp_path / "d" / "root")
    assert r.returncode == 1 and "send_email" in r.stdout


def _events_at(times):
    from halo_git.model import check_call, resolve

    out = []
    for n, t in enumerate(times, 1):
        kind = "act" if n % 2 else "observe"
        fields = {"trigger": "request", "form": "execution"} if kind == "act" else {}
        out.append(resolve(check_call(kind, {"summary": "s", **fields}), n, "a", "s1", at(t), lambda k: out[k - 1].kind))
    return out


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=9), st.lists(st.integers(0, 60), max_size=9), st.integers(1, 15))
def test_pairing_is_a_largest_non_crossing_matching(call_times, step_times, window):
    """Against brute force: as many pairs as any non-crossing matching within the window."""
    from halo_git.observed import Observed, ObservedCall

    events = _events_at(sorted(step_times))
    calls = tuple(ObservedCall("write_file" if i % 2 else "read_file", at(t), "s1", "", str(i), f"x{i:02d}",
                               "side-effecting" if i % 2 else "read-only") for i, t in enumerate(sorted(call_times)))
    al = align(Observed(calls, ("x",), window=window), events)
    s = [e.time for e in events]
    c = [x.time for x in calls]
    best = [[0] * (len(s) + 1) for _ in range(len(c) + 1)]
    for i in range(1, len(c) + 1):
        for j in range(1, len(s) + 1):
            ok = abs((datetime.fromisoformat(c[i - 1][:-1]) - datetime.fromisoformat(s[j - 1][:-1])).total_seconds()) <= window
            best[i][j] = max(best[i - 1][j], best[i][j - 1], best[i - 1][j - 1] + 1 if ok else 0)
    assert len(al.reported) == best[-1][-1]
    assert al.total == len(calls)  # with no logged step the session matches nothing: counted, not dropped
    pos = {e.id: k for k, e in enumerate(events)}
    paired = sorted((calls.index(x), pos[i]) for x, i in al.reported)
    assert len({j for _, j in paired}) == len(paired)  # each step reports one call
    assert all(a[1] < b[1] for a, b in zip(paired, paired[1:]))  # no crossing pairs
    for x, i in al.reported:
        assert abs(x.epoch - datetime.fromisoformat(events[pos[i]].time.replace("Z", "+00:00")).timestamp()) <= window


def test_alignment_scales_to_large_sessions():
    import time as clock

    from halo_git.observed import Observed, ObservedCall

    events = _events_at([i * 10 for i in range(20000)])
    calls = tuple(ObservedCall("bash", at(i * 10 + 3), "s1", "", str(i), f"x{i:05d}", "side-effecting") for i in range(20000))
    started = clock.perf_counter()
    al = align(Observed(calls, ("x",)), events)
    assert len(al.reported) == 20000 and clock.perf_counter() - started < 20


def test_an_error_recorded_for_a_call_marks_its_step_failed(halo, tmp_path):
    """Whatever the summary says: the runtime's error status on the observed call makes the logged
    step failed and its outcome adverse (here the next step, running the tests, builds on it)."""
    logged(halo)
    plain = diagnosis(halo, write(tmp_path, atif(), "ok.json"))
    assert not [f for f in plain.findings if f.rule == "HALO-S1"]
    span = otlp_span(63, "write_file", {"path": "app.py"})
    span["status"] = {"code": 2, "message": "EACCES"}
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [
        otlp_span(5, "read_file", {"path": "a"}), span, otlp_span(121, "bash", {"command": "pytest"})]}]}]}
    d = diagnosis(halo, write(tmp_path, doc, "spans.json"))
    assert [c.failed for c, _ in d.observed.reported] == [False, True, False]
    assert d.observed.failed_steps.keys() == {"e2"}
    assert [(o.id, o.adverse) for o in d.outcomes.outcomes] == [("e3", True)]  # "the file was saved" reads as adverse
    assert [(o.id, o.adverse) for o in plain.outcomes.outcomes] == [("e3", False)]
    # ATIF: an observation result marked is_error for the call does the same
    doc = atif()
    doc["steps"][3]["observation"] = {"results": [{"source_call_id": "call_3", "content": "Permission denied", "is_error": True}]}
    d = diagnosis(halo, write(tmp_path, doc, "err.json"))
    assert d.observed.failed_steps.keys() == {"e2"}
