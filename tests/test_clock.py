"""The clock policy, shared by the write path and ``verify``: every event time is
a UTC time from 1971 on, and an event dated by the clock is never dated earlier
than the event before it on its branch. A clock that is behind (an unset
real-time clock at 1970, a clock set back) dates the event at its parent's time,
or at 1971-01-01 for a first event, and the reply says so; the history verifies
and its export imports again. Explicit times (imports) are kept as given.
Driven by an injected clock and, through the real CLI, by ``faketime``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from halo_git import Halo
from halo_git.model import EARLIEST
from tests.conftest import PYTHON, require_tool, run_cli

AGENT = "clocky"


def _clock(readings):
    it = iter(readings)
    return lambda: next(it)


def test_an_injected_clock_behind_the_history_dates_at_the_parent_and_verifies(tmp_path):
    root = tmp_path / "root"
    readings = ["1970-01-01T00:00:05Z", "2026-03-01T10:00:00Z", "1970-01-01T00:00:07Z", "2026-03-01T09:59:55Z", "2026-03-01T10:00:30Z"]
    with Halo(root, clock=_clock(readings)) as h:
        replies = [h.log(AGENT, "observe", f"step {i}") for i in range(len(readings))]
        times = [e.time for e in h.events(AGENT)]
    assert times == [EARLIEST, "2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", "2026-03-01T10:00:30Z"]
    assert replies[0]["note"] == f"Logged e1 (Sensing, observe). Dated {EARLIEST}: the clock reads 1970-01-01T00:00:05Z, earlier than 1971, the earliest time HALO dates (times never go backwards on a branch; check the system clock)."
    assert replies[1]["note"] == "Logged e2 (Sensing, observe)."
    assert "Dated 2026-03-01T10:00:00Z: the clock reads 1970-01-01T00:00:07Z, earlier than e2, the event before" in replies[2]["note"]
    assert "the clock reads 2026-03-01T09:59:55Z, earlier than e3, the event before" in replies[3]["note"]
    assert replies[4]["note"] == "Logged e5 (Sensing, observe)."
    _verifies_and_reimports(root, tmp_path)


def test_imported_times_are_kept_as_given_and_a_1970_clock_dates_lines_without_one(tmp_path):
    root = tmp_path / "root"
    lines = [json.dumps({"kind": "observe", "summary": f"s{i}", "time": t}) for i, t in
             enumerate(["2026-01-01T00:00:10Z", "2026-01-01T00:00:05Z", "2026-01-01T00:00:20.5Z", "2026-01-01T00:00:20Z"])]
    lines.append(json.dumps({"kind": "observe", "summary": "no time, 1970 clock"}))
    with Halo(root, clock=lambda: "1970-01-01T00:00:00Z") as h:
        h.import_lines(AGENT, lines)
        times = [e.time for e in h.events(AGENT)]
    assert times == ["2026-01-01T00:00:10Z", "2026-01-01T00:00:05Z", "2026-01-01T00:00:20.500000Z", "2026-01-01T00:00:20Z", EARLIEST]
    _verifies_and_reimports(root, tmp_path)


def _verifies_and_reimports(root, tmp_path):
    r = run_cli("verify", "--agent", AGENT, root=root)
    assert r.returncode == 0, r.stderr
    export = run_cli("export", "--agent", AGENT, root=root)
    again = tmp_path / "again"
    r = run_cli("import", "--agent", AGENT, "-", root=again, input=export.stdout)
    assert r.returncode == 0, r.stderr
    assert run_cli("verify", "--agent", AGENT, root=again).returncode == 0
    assert run_cli("export", "--agent", AGENT, root=again).stdout == export.stdout


def test_a_process_whose_clock_reads_1970_writes_a_history_verify_accepts(tmp_path):
    require_tool("faketime", shutil.which("faketime") is not None, "the Debian package; it runs the CLI with its clock at 1970")
    root = tmp_path / "root"

    def log(summary: str, fake: str | None) -> dict:
        cmd = [PYTHON, "-m", "halo_git.cli", "log", "observe", "--agent", AGENT, "--summary", summary, "--root", str(root)]
        if fake:
            cmd = ["faketime", "-f", fake, *cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "FAKETIME_DONT_FAKE_MONOTONIC": "1"})
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    first = log("clock at 1970", "@1970-01-01 00:00:05")
    assert f"Dated {EARLIEST}" in first["note"]
    log("clock right", None)
    third = log("clock back at 1970", "@1970-01-01 00:00:09")
    assert "earlier than e2, the event before" in third["note"]
    with Halo(root) as h:
        times = [e.time for e in h.events(AGENT)]
    assert times[0] == EARLIEST and times[1] == times[2] > EARLIEST
    _verifies_and_reimports(root, tmp_path)
