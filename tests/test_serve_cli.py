"""``halo-git serve`` as a person starts it: the start line, Ctrl-C, a missing
branch at start, and ``--fsync`` reaching the store."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from halo_git import Halo
from tests.conftest import PYTHON, run_cli

# ``halo-git serve`` with os.fsync counted: each call appends a line to a file
# (the real fsync still runs). Counting is the only way to see durability.
SPY = """
import os, sys
real, out = os.fsync, sys.argv.pop(1)
def counted(fd):
    with open(out, "a") as f:
        f.write("1\\n")
    return real(fd)
os.fsync = counted
from halo_git.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_stdio_serve_says_what_it_waits_for_and_stops_on_ctrl_c(root):
    proc = subprocess.Popen(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--agent", "demo", "--branch", "main"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stderr.readline()
        assert line == f"halo-git serve: root {root}, agent demo, branch main; waiting for an MCP client on stdin (Ctrl-C or Ctrl-D stops)\n"
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130  # stdin is still open: only the signal can stop it
        assert time.monotonic() - started < 5
        assert "stopped" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_refuses_a_missing_branch_at_start(root):
    with Halo(root) as h:
        h.log("demo", "observe", "on main")
    r = run_cli("serve", "--agent", "demo", "--branch", "nosuch", root=root, input="")
    assert r.returncode == 1 and r.stdout == ""
    assert "agent 'demo' has no branch 'nosuch' (its branches: main)" in r.stderr
    assert "halo-git branch --agent demo nosuch --from main" in r.stderr
    r = run_cli("serve", "--branch", "nosuch", root=root, input="")  # no --agent: no agent here has it
    assert r.returncode == 1 and "no agent in" in r.stderr and "--agent" in r.stderr
    r = run_cli("serve", "--agent", "newcomer", "--branch", "nosuch", root=root, input="")
    assert r.returncode == 0, r.stderr  # a new agent may start on any branch


def _fsyncs(root, tmp_path, *flags: str) -> int:
    counter = tmp_path / f"fsyncs{'-'.join(flags)}.txt"
    counter.write_text("")
    params = StdioServerParameters(
        command=PYTHON, args=["-c", SPY, str(counter), "serve", "--root", str(root), "--agent", f"a{len(flags)}", *flags],
    )

    async def main():
        async with Client(params, mode="legacy") as c:
            for i in range(3):
                r = await c.call_tool("halo_observe", {"summary": f"event {i}"})
                assert not r.is_error, r.content[0].text
                assert json.loads(r.content[0].text)["id"] == f"e{i + 1}"

    anyio.run(main)
    return len(counter.read_text().splitlines())


def test_serve_fsync_flag_reaches_every_append(root, tmp_path):
    plain = _fsyncs(root, tmp_path)
    durable = _fsyncs(root, tmp_path, "--fsync")
    # each append writes six objects (blob, four trees, commit): --fsync syncs each
    assert durable >= plain + 3 * 6, (plain, durable)


def test_requests_piped_before_stdin_closes_are_all_answered(tmp_path):
    """A client that writes its requests and closes stdin gets every reply: the
    server answers what it has read before it stops (calls run concurrently, so
    one still in flight at the end of input would otherwise be cancelled after
    its event was committed, and its reply lost)."""
    root = tmp_path / "root"
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": i, "method": "tools/call",
           "params": {"name": "halo_observe", "arguments": {"summary": f"step {i}", "agent": "pipe"}}} for i in range(2, 12)),
    ]
    r = subprocess.run([PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--quiet"],
                       input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr  # --quiet: no start line
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    assert sorted(m["id"] for m in replies) == list(range(1, 12))
    assert all("error" not in m and not m["result"].get("isError") for m in replies)
    with Halo(root) as h:
        assert len(h.events("pipe")) == 10
