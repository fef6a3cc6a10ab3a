"""The CLI in fresh processes: log, trace, report, export, import, help."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from halo_git import Halo
from halo_git.cli import COMMANDS, build_parser
from tests.conftest import git, run_cli


def test_log_trace_report_round(root):
    r = run_cli("log", "observe", "--agent", "demo", "--summary", "user asked for a 9:30 reminder", "--session", "day1", root=root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"id": "e1", "agent": "demo", "session": "day1", "note": "Logged e1 (Sensing, observe)."}
    r = run_cli("log", "act", "--agent", "demo", "--summary", "set the reminder", "--uses", "e1", "--trigger", "request", root=root)
    assert json.loads(r.stdout)["note"] == "Logged e2 (Action, act). Channels: S→A."
    assert json.loads(r.stdout)["session"] == "cli"
    r = run_cli("trace", "--agent", "demo", root=root)
    assert r.stdout.splitlines() == [
        "e1 [day1] observe: user asked for a 9:30 reminder",
        "e2 [cli] act: set the reminder (uses e1) {trigger=request, form=communication}",
    ]
    r = run_cli("report", "--agent", "demo", root=root)
    assert r.returncode == 0 and "Boundary and evidence" in r.stdout


def test_cli_refusals_exit_2_and_write_nothing(root):
    run_cli("log", "observe", "--agent", "demo", "--summary", "ok", root=root, check=True)
    for args in (
        ["log", "act", "--agent", "demo", "--summary", "x", "--uses", "e7", "--trigger", "self"],
        ["log", "act", "--agent", "demo", "--summary", "x"],
        ["log", "observe", "--agent", "demo", "--summary", "x", "--trigger", "self"],
        ["log", "observe", "--agent", "../x", "--summary", "x"],
        ["trace", "--agent", "demo", "--limit", "0"],
    ):
        r = run_cli(*args, root=root)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.startswith("halo-git: error: ")
    assert git(root / "demo.git", "rev-list", "--count", "main").stdout.strip() == "1"
    assert sorted(p.name for p in root.iterdir()) == ["demo.git"]


def test_root_from_environment(root):
    env = {**os.environ, "HALO_ROOT": str(root)}
    r = subprocess.run(
        [sys.executable, "-m", "halo_git.cli", "log", "observe", "--agent", "envy", "--summary", "via HALO_ROOT"],
        capture_output=True, text=True, env=env,
    )
    assert r.returncode == 0, r.stderr
    assert (root / "envy.git" / "HEAD").exists()


def test_export_import_round_trip_remaps_ids(root, tmp_path):
    with Halo(root) as h:
        h.log("src", "observe", "saw it", session="a", time="2026-11-01T08:00:00Z")
        h.log("src", "remember", "kept: it", uses=["e1"], session="a")
        h.log("src", "act", "did it", uses=["e1", "e2"], trigger="self", form="execution", session="b")
        h.log("src", "outcome", "went well", about="e3", session="b")
        h.log("dst", "observe", "already here")
    exported = run_cli("export", "--agent", "src", root=root).stdout
    lines = exported.splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["time"] == "2026-11-01T08:00:00Z"
    f = tmp_path / "events.jsonl"
    f.write_text(exported)
    r = run_cli("import", "--agent", "dst", str(f), root=root)
    assert r.returncode == 0, r.stderr
    assert "imported 4 events: e2..e5" in r.stdout
    with Halo(root) as h:
        events = h.events("dst")
    assert [e.id for e in events] == ["e1", "e2", "e3", "e4", "e5"]
    assert events[1].time == "2026-11-01T08:00:00Z"
    assert events[3].uses == ("e2", "e3") and events[3].channels == ("S→A", "M→A")
    assert events[4].about == "e4" and events[4].session == "b"
    assert git(root / "dst.git", "rev-list", "--count", "main").stdout.strip() == "5"


@pytest.mark.parametrize(
    "bad_line,needle",
    [
        ('{"kind": "observe"}', "line 2: 'summary' is required"),
        ("not json", "line 2: not valid JSON"),
        ('{"kind": "act", "summary": "x", "trigger": "self", "uses": ["e9"]}', "line 2: e9 is neither an id in the file"),
        ('{"kind": "outcome", "summary": "x", "about": "e1"}', "line 2: 'about' must name an earlier act event"),
        ('{"kind": "observe", "summary": "x", "time": "yesterday"}', "line 2: 'time'"),
    ],
)
def test_import_refuses_the_whole_file_on_the_first_bad_line(root, tmp_path, bad_line, needle):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"id": "e1", "kind": "observe", "summary": "fine"}\n' + bad_line + "\n" + '{"kind": "observe", "summary": "never"}\n')
    r = run_cli("import", "--agent", "demo", str(f), root=root)
    assert r.returncode == 2
    assert needle in r.stderr and "nothing was imported" in r.stderr
    assert not (root / "demo.git").exists()


def test_every_command_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) >= {"serve", "log", "trace", "report", "export", "import"}
    for name, p in sub.choices.items():
        assert p.description or sub._choices_actions, name
    for action in sub._choices_actions:
        assert action.help, f"command {action.dest} has no help"
    assert len(COMMANDS) == len(sub.choices)
    r = run_cli("--help")
    assert r.returncode == 0 and "serve" in r.stdout


def test_cli_reference_page_matches_help():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "gen_cli_docs.py"
    spec = importlib.util.spec_from_file_location("gen_cli_docs", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.PAGE.read_text(encoding="utf-8") == gen.render(), "docs/cli.md is stale: run python scripts/gen_cli_docs.py"
