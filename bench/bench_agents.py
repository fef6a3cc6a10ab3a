"""Benchmark: many agents behind one HTTP server.

    python bench/bench_agents.py           # 1,000 agents, 3 halo_observe each
    python bench/bench_agents.py --quick   # 50 agents, 2 each

One ``halo-git serve --transport http`` on loopback; every agent is its own MCP
client session (streamable HTTP, the SDK's client) logging to its own agent
name, 25 agents at a time. Figures: the server's memory (resident set, from
``/proc``) before the agents and after all of them, and its peak; p50 / p99 of
the ``halo_observe`` round trips (a session's opening not included).

Baseline from the same run: one agent alone on the same server, 100
``halo_observe`` calls in a row before the others arrive (p50 / p99), so the
ratio says what sharing the server with the other agents costs each call.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

CONCURRENT = 25


def rss_kb(pid: int) -> tuple[int, int]:
    """(resident, peak resident) KiB of a process."""
    status = Path(f"/proc/{pid}/status").read_text()
    now = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))
    return now, peak


async def agent(url: str, name: str, calls: int, times: list[float]) -> None:
    async with Client(streamable_http_client(url), mode="legacy") as c:
        for i in range(calls):
            t0 = time.perf_counter()
            r = await c.call_tool("halo_observe", {"agent": name, "summary": f"user asked for a reminder at 9:{i:02d}"})
            times.append(time.perf_counter() - t0)
            assert not r.is_error, r


async def flood(url: str, agents: int, calls: int, times: list[float]) -> None:
    limit = anyio.Semaphore(CONCURRENT)

    async def one(k: int) -> None:
        async with limit:
            await agent(url, f"agent-{k:04d}", calls, times)

    async with anyio.create_task_group() as tg:
        for k in range(agents):
            tg.start_soon(one, k)


def p99_ms(samples: list[float]) -> float:
    return sorted(samples)[int(0.99 * (len(samples) - 1))] * 1e3


def main() -> int:
    args = common.parser(__doc__).parse_args()
    agents, calls = (50, 2) if args.quick else (1_000, 3)
    with tempfile.TemporaryDirectory(prefix="halo-bench-agents-") as tmp:
        root = Path(tmp) / "root"
        proc = subprocess.Popen([sys.executable, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0"],
                                stderr=subprocess.PIPE, text=True)
        try:
            url = None
            deadline = time.monotonic() + 60
            while url is None:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not announce its URL")
                line = proc.stderr.readline()
                if not line:
                    raise SystemExit(f"the server exited ({proc.wait()})")
                m = re.search(r"on (http://\S+/mcp)", line)
                if m:
                    url = m.group(1)
            alone: list[float] = []
            anyio.run(agent, url, "alone", 100, alone)
            before = rss_kb(proc.pid)
            times: list[float] = []
            t0 = time.perf_counter()
            anyio.run(flood, url, agents, calls, times)
            seconds = time.perf_counter() - t0
            after = rss_kb(proc.pid)
            repos = len(list(root.glob("agent-*.git")))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    p50, p99 = common.median_ms(times), p99_ms(times)
    a50, a99 = common.median_ms(alone), p99_ms(alone)
    print(f"{agents:,} agents behind one HTTP server, {calls} halo_observe each, {CONCURRENT} at a time ({seconds:.0f} s, {repos:,} repositories):")
    print(f"  halo_observe p50 / p99: {p50:6.2f} ms / {p99:6.2f} ms  ({len(times) / seconds:.0f} calls/s overall, session openings included; "
          f"with {CONCURRENT} sessions waiting on one server on this machine, a call's latency is mostly its place in the queue)")
    print(f"  server memory: {before[0] / 1024:.0f} MiB before the agents, {after[0] / 1024:.0f} MiB after "
          f"(+{(after[0] - before[0]) / agents:.0f} KiB per agent), peak {after[1] / 1024:.0f} MiB")
    print(f"baseline in the same run: one agent alone on the same server, 100 calls: p50 / p99 {a50:6.2f} ms / {a99:6.2f} ms; "
          f"p50 with the others / alone = {p50 / a50:.2f}")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
