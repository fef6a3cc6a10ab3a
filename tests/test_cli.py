"""The CLI in fresh processes: log, trace, report, export, import, help."""

from __future__ import annotations

import json
import os
import re
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
    assert set(sub.choices) == {c.rstrip("_") for c in COMMANDS}
    for action in sub._choices_actions:
        assert action.help, f"command {action.dest} has no help"
    r = run_cli("--help")
    assert r.returncode == 0
    listed = r.stdout.split("positional arguments:")[1]
    for action in sub._choices_actions:  # each command is listed with its one-line help
        assert re.search(rf"^    {action.dest}(\s|$)", listed, re.M), action.dest


def test_cli_reference_page_matches_help():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "gen_cli_docs.py"
    spec = importlib.util.spec_from_file_location("gen_cli_docs", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    page = gen.PAGE.read_text(encoding="utf-8")
    assert page == gen.render(), "docs/cli.md is stale: run python scripts/gen_cli_docs.py"
    env = {**os.environ, "COLUMNS": "100"}
    for name in (c.rstrip("_") for c in COMMANDS):  # the page against a real process's --help, not the generator against itself
        r = subprocess.run([sys.executable, "-m", "halo_git", name, "--help"], capture_output=True, text=True, env=env)
        block = page.split(f"## `halo-git {name}`\n\n```text\n")[1].split("\n```\n")[0]
        assert r.returncode == 0 and r.stdout.rstrip() == block, name


# -- what a newcomer meets first -----------------------------------------------------------


def test_version_module_entry_and_bare_command_print_help():
    from halo_git import __version__

    r = run_cli("--version")
    assert (r.returncode, r.stdout) == (0, f"halo-git {__version__}\n")
    bare = subprocess.run([sys.executable, "-m", "halo_git"], capture_output=True, text=True)
    assert bare.returncode == 0 and bare.stdout.startswith("usage: halo-git") and "serve" in bare.stdout
    assert bare.stdout == run_cli("--help").stdout
    assert subprocess.run([sys.executable, "-m", "halo_git", "--version"], capture_output=True, text=True).stdout == r.stdout


def test_tilde_and_variables_in_a_root_are_expanded(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "SPOT": "traces"}
    for root in ("~/.halo", "$HOME/$SPOT"):
        r = subprocess.run(
            [sys.executable, "-m", "halo_git.cli", "log", "observe", "--agent", "demo", "--summary", "x", "--root", root],
            capture_output=True, text=True, env=env, cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr
    assert (home / ".halo" / "demo.git" / "HEAD").exists() and (home / "traces" / "demo.git" / "HEAD").exists()
    assert not (tmp_path / "~").exists() and not (tmp_path / "$HOME").exists()
    env["HALO_ROOT"] = "~/.halo"
    r = subprocess.run([sys.executable, "-m", "halo_git.cli", "trace", "--agent", "demo"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("e1 [cli] observe: x")
    code = "from halo_git import Halo\nwith Halo('~/.halo') as h:\n    print(h.root, len(h.events('demo')))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.stdout == f"{home / '.halo'} 1\n", r.stderr


def test_a_halo_never_closed_leaves_nothing_at_exit(root):
    with Halo(root) as h:  # over PACK_BATCH_MIN events: the import writes a pack, whose index dulwich keeps open
        h.import_lines("demo", ['{"kind": "observe", "summary": "x"}'] * 150)
    code = f"from halo_git import Halo\nh = Halo({str(root)!r})\nprint(len(h.events('demo')))\nh.log('demo', 'observe', 'y')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "150\n", "")


def test_piping_into_head_is_quiet(root):
    with Halo(root) as h:
        h.import_lines("demo", ['{"kind": "observe", "summary": "a line long enough to fill the pipe quickly"}'] * 3000)
    for command in ("export", "trace"):
        extra = ["--limit", "200"] if command == "trace" else []
        r = subprocess.run(
            f"{sys.executable} -m halo_git.cli {command} --agent demo --root {root} {' '.join(extra)} | head -1",
            shell=True, capture_output=True, text=True, executable="/bin/bash",
        )
        assert r.stdout.count("\n") == 1 and r.stderr == "", (command, r.stderr)
    r = subprocess.run(
        f"set -o pipefail; {sys.executable} -m halo_git.cli export --agent demo --root {root} | head -1 >/dev/null",
        shell=True, capture_output=True, text=True, executable="/bin/bash",
    )
    assert r.returncode == 0 and r.stderr == ""


@pytest.mark.parametrize("make, says", [
    (lambda tmp: tmp / "no-such.jsonl", "no file"),
    (lambda tmp: tmp, "is a folder, not a JSONL file"),
])
def test_import_of_a_missing_file_or_a_folder_is_a_message(root, tmp_path, make, says):
    r = run_cli("import", "--agent", "demo", str(make(tmp_path)), root=root)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("halo-git: error: ") and says in r.stderr and "halo-git export" in r.stderr
    assert not (root / "demo.git").exists()


def test_importing_the_same_file_twice_is_refused_unless_allowed(root, tmp_path):
    f = tmp_path / "events.jsonl"
    f.write_text(
        '{"id": "e1", "kind": "observe", "summary": "inbox", "session": "d1", "time": "2026-11-30T09:00:00Z"}\n'
        '{"id": "e2", "kind": "act", "summary": "replied", "uses": ["e1"], "trigger": "request", "session": "d1", "time": "2026-11-30T09:01:00Z"}\n'
    )
    first = run_cli("import", "--agent", "demo", str(f), root=root)
    assert (first.returncode, first.stdout) == (0, "imported 2 events: e1..e2\n")
    again = run_cli("import", "--agent", "demo", str(f), root=root)
    assert again.returncode == 2
    assert "line 1 repeats e1 of agent 'demo' on branch 'main'" in again.stderr and "1 more of the file's 2 lines" in again.stderr
    assert "pass --allow-duplicates" in again.stderr
    assert git(root / "demo.git", "rev-list", "--count", "main").stdout.strip() == "2"
    exported = tmp_path / "exported.jsonl"
    exported.write_text(run_cli("export", "--agent", "demo", root=root).stdout)  # an export is the same events
    assert run_cli("import", "--agent", "demo", str(exported), root=root).returncode == 2
    forced = run_cli("import", "--agent", "demo", str(f), "--allow-duplicates", root=root)
    assert (forced.returncode, forced.stdout) == (0, "imported 2 events: e3..e4\n")
    one = tmp_path / "one.jsonl"
    one.write_text('{"kind": "observe", "summary": "new"}\n')
    assert run_cli("import", "--agent", "demo", str(one), root=root).stdout == "imported 1 event: e5\n"
    untimed = run_cli("import", "--agent", "demo", str(one), root=root)  # no time: kind, session and summary match
    assert untimed.returncode == 2 and "line 1 repeats e5" in untimed.stderr


def test_lines_without_ids_are_told_how_to_reference_earlier_lines(root, tmp_path):
    f = tmp_path / "noids.jsonl"
    f.write_text('{"kind": "observe", "summary": "a"}\n{"kind": "act", "summary": "b", "uses": ["e1"], "trigger": "self"}\n')
    r = run_cli("import", "--agent", "demo", str(f), root=root)
    assert r.returncode == 2
    assert "line 2: e1 is neither an id in the file nor an event of the branch (it holds none yet)" in r.stderr
    assert 'give that line an "id" (e.g. "id": "e1") and name that id' in r.stderr
    assert not (root / "demo.git").exists()


def test_cli_errors_are_phrased_for_the_command_line(root):
    run_cli("log", "observe", "--agent", "demo", "--summary", "ok", root=root, check=True)
    r = run_cli("log", "act", "--agent", "demo", "--summary", "x", "--uses", "e7", "--trigger", "self", root=root)
    assert r.stderr == "halo-git: error: unknown event id(s) e7 for agent 'demo'; run halo-git trace --agent demo to see the ids of its earlier events\n"
    r = run_cli("log", "outcome", "--agent", "demo", "--summary", "x", "--about", "e1", root=root)
    assert "e1 is an observe event" in r.stderr and "run halo-git trace --agent demo to find the id of the act" in r.stderr
    r = run_cli("log", "act", "--agent", "demo", "--summary", "x", "--uses", "E1", "--trigger", "self", root=root)
    assert "run halo-git trace to see the ids" in r.stderr
    r = run_cli("trace", "--agent", "demo", "--session", "nope", root=root)
    assert r.returncode == 1 and r.stdout == ""  # a mistyped session is not an empty one
    assert r.stderr.startswith("halo-git: error: agent 'demo' has no session 'nope'; its sessions: ")
    for r in (run_cli("trace", "--agent", "nobody", root=root), run_cli("report", "--agent", "nobody", root=root)):
        assert "halo_" not in r.stderr and r.returncode == 1


def test_every_subcommand_has_its_own_description():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name, p in sub.choices.items():
        assert p.description and len(p.description) > 20, name
        assert p.description != helps[name], f"{name}: the description only repeats the one-line help"
        assert "``" not in p.description and not p.description.startswith("halo-git"), name
