"""Benchmark: many agents behind one HTTP server.

    python bench/bench_agents.py           # 1,000 agents, 3 halo_observe each; then 16 at once vs one alone
    python bench/bench_agents.py --quick   # 50 agents, 2 each; fewer rounds of 16 vs one
    python bench/bench_agents.py --throughput-only [--fsync]   # only 16 at once vs one alone
    python bench/bench_agents.py --throughput-only --against DIR [--rounds N]   # and a server from DIR beside it

One ``halo-git serve --transport http`` on loopback; every agent is its own MCP
client session (streamable HTTP, the SDK's client) logging to its own agent
name, 25 agents at a time. Figures: the server's memory (resident set, from
``/proc``) before the agents and after all of them, and its peak; p50 / p99 of
the ``halo_observe`` round trips (a session's opening not included).

Baseline from the same run: one agent alone on the same server, 100
``halo_observe`` calls in a row before the others arrive (p50 / p99), so the
ratio says what sharing the server with the other agents costs each call.

Throughput (issue 24's row "16 agents logging concurrently into one HTTP
server, throughput vs one agent alone on the same server", target >= 1.8x): on
a fresh server, 17 sessions opened first (one agent each); then rounds, each a
burst of one agent alone (calls in a row) followed by a burst of 16 agents at
once (each its calls in a row), calls per second of each burst, medians over the
rounds; the server's and the clients' CPU time per call (``/proc``) say which
side a burst used up. The 16 clients run in this one process, as the SDK's
clients; on a machine of 2 cores they share them with the server. The ceiling
line divides the machine's cores by the CPU one call costs server and clients
together with 16 at once: no server design answers faster on this machine; the
cores other work kept busy during the bursts (``/proc/stat``, less the server
and the clients) lower it further. ``--against DIR`` starts a second server from
the source tree DIR (an export of another commit), both up at once, their rounds
interleaved, so a change is measured beside what it changes under the same load.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

CONCURRENT = 25
AGENTS_AT_ONCE = 16


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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def machine_busy_seconds() -> float:
    """CPU time every core of the machine spent busy so far (``/proc/stat``: all but idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _http_client():
    """The SDK client's HTTP client, dropping a connection idle for 2 s: sessions wait
    while other bursts run, and a request sent on a connection the server is closing
    as idle (after 5 s, ``HTTP_KEEP_ALIVE_TIMEOUT``) fails with ReadError."""
    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    return httpx2.AsyncClient(timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                              limits=httpx2.Limits(keepalive_expiry=2.0))


async def throughput(servers: list[tuple[str, str, int]], agents: int = AGENTS_AT_ONCE, calls: int = 16,
                     rounds: int = 7, alone_calls: int = 64, one_agent: bool = False) -> dict[str, dict[str, list[tuple[float, ...]]]]:
    """Interleaved bursts on each server of ``servers`` ((label, url, pid)): one agent
    alone, ``alone_calls`` in a row, then ``agents`` agents at once, ``calls`` each
    (``one_agent``: ``agents`` sessions of one agent at once, the case group commit serves).
    Returns label -> {"alone"|"many": [(calls/s, server CPU ms per call, client CPU ms per call,
    cores busy with other work during the burst), ...]}."""
    from contextlib import AsyncExitStack

    def name(k: int) -> str:
        return "agent-01" if one_agent and k else f"agent-{k:02d}"

    figures: dict[str, dict[str, list[tuple[float, ...]]]] = {label: {"alone": [], "many": []} for label, _, _ in servers}
    async with AsyncExitStack() as stack:
        sessions: dict[str, list] = {}
        for label, url, _ in servers:
            sessions[label] = []
            for k in range(agents + 1):  # session 0 is the one alone
                http = await stack.enter_async_context(_http_client())
                c = await stack.enter_async_context(Client(streamable_http_client(url, http_client=http), mode="legacy"))
                r = await c.call_tool("halo_observe", {"agent": name(k), "summary": "the agent started"})
                assert not r.is_error, r
                sessions[label].append(c)

        async def burst(c, agent: str, n: int) -> None:
            for i in range(n):
                r = await c.call_tool("halo_observe", {"agent": agent, "summary": f"user asked for a reminder at 9:{i % 60:02d}"})
                assert not r.is_error, r

        for _ in range(rounds):
            for label, _, pid in servers:
                for mode in ("alone", "many"):
                    s0, c0, m0, t0 = cpu_seconds(pid), own_cpu_seconds(), machine_busy_seconds(), time.perf_counter()
                    async with anyio.create_task_group() as tg:
                        if mode == "alone":
                            tg.start_soon(burst, sessions[label][0], "agent-00", alone_calls)
                        else:
                            for k in range(1, agents + 1):
                                tg.start_soon(burst, sessions[label][k], name(k), calls)
                    seconds = time.perf_counter() - t0
                    n = alone_calls if mode == "alone" else agents * calls
                    server, clients = cpu_seconds(pid) - s0, own_cpu_seconds() - c0
                    others = max(0.0, machine_busy_seconds() - m0 - server - clients) / seconds
                    figures[label][mode].append((n / seconds, server / n * 1e3, clients / n * 1e3, others))
    return figures


def throughput_lines(label: str, figures: dict[str, list[tuple[float, ...]]], agents: int = AGENTS_AT_ONCE) -> list[str]:
    """The row, the CPU per call of each side, and the ceiling the CPU allows.

    The ceiling: with ``agents`` clients the server and the clients together spend
    (server + clients) ms of CPU per call, on this machine's cores less those other
    work kept busy during the bursts (``/proc/stat``); no design of the server can
    answer faster than that CPU allows, so ``ceiling / alone`` bounds the ratio."""
    med = {mode: [statistics.median(x[i] for x in rows) for i in range(4)] for mode, rows in figures.items()}
    ratio = med["many"][0] / med["alone"][0]
    ratios = sorted(m[0] / a[0] for m, a in zip(figures["many"], figures["alone"]))
    cores = os.cpu_count() or 1
    per_call = (med["many"][1] + med["many"][2]) / 1e3
    ceiling, free = cores / per_call, max(0.0, cores - med["many"][3]) / per_call
    server_cores = med["many"][0] * med["many"][1] / 1e3
    return [
        f"{label}{agents} agents at once vs one alone on the same server: {med['many'][0]:.0f} vs {med['alone'][0]:.0f} calls/s "
        f"= {ratio:.2f}x (target >= 1.8x: {common.verdict(ratio >= 1.8)}; per round {ratios[0]:.2f}-{ratios[-1]:.2f}x, "
        f"{len(ratios)} rounds)",
        f"  CPU per call, server / clients: alone {med['alone'][1]:.2f} / {med['alone'][2]:.2f} ms, "
        f"{agents} at once {med['many'][1]:.2f} / {med['many'][2]:.2f} ms",
        f"  CPU ceiling with {agents} at once: {cores} cores / {per_call * 1e3:.2f} ms a call = {ceiling:.0f} calls/s = "
        f"{ceiling / med['alone'][0]:.2f}x one alone; other work kept {med['many'][3]:.2f} cores busy during those bursts, "
        f"so {free:.0f} calls/s = {free / med['alone'][0]:.2f}x was to be had; the server process used "
        f"{server_cores:.2f} cores, the clients {med['many'][0] * med['many'][2] / 1e3:.2f}"
        + (" (the server at one core: its Python runs one thread at a time)" if server_cores >= 0.9 else ""),
    ]


def start_server(root: Path, *extra: str, cwd: str | None = None) -> tuple[subprocess.Popen, str]:
    """``halo-git serve --transport http --port 0`` on ``root``; (process, URL)."""
    proc = subprocess.Popen([sys.executable, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0", *extra],
                            stderr=subprocess.PIPE, text=True, cwd=cwd)
    url = _announced(proc)

    def relay() -> None:  # what the server says later goes on to this stderr (a full pipe would stall it)
        for line in proc.stderr:
            print(f"server: {line}", end="", file=sys.stderr)

    threading.Thread(target=relay, daemon=True).start()
    return proc, url


def _announced(proc: subprocess.Popen) -> str:
    deadline = time.monotonic() + 60
    while True:
        if time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("the server did not announce its URL")
        line = proc.stderr.readline()
        if not line:
            raise SystemExit(f"the server exited ({proc.wait()})")
        m = re.search(r"on (http://\S+/mcp)", line)
        if m:
            return m.group(1)


def p99_ms(samples: list[float]) -> float:
    return sorted(samples)[int(0.99 * (len(samples) - 1))] * 1e3


def main() -> int:
    p = common.parser(__doc__)
    p.add_argument("--throughput-only", action="store_true", help=f"only {AGENTS_AT_ONCE} agents at once vs one alone")
    p.add_argument("--fsync", action="store_true", help="serve with --fsync (each append synced before its reply)")
    p.add_argument("--against", metavar="DIR", help="also run a server from the source tree DIR (its halo_git package, "
                   "e.g. an export of an older commit), both up at once, rounds interleaved")
    p.add_argument("--rounds", type=int, help="rounds of the throughput figure (default 7, --quick 3)")
    p.add_argument("--one-agent", action="store_true", help=f"the {AGENTS_AT_ONCE} at once are sessions of one agent "
                   "(their appends share a branch: group commit)")
    args = p.parse_args()
    extra = ["--fsync"] if args.fsync else []
    rounds = args.rounds or (3 if args.quick else 7)
    with tempfile.TemporaryDirectory(prefix="halo-bench-agents-") as tmp:
        procs, servers = [], []
        try:
            for label, cwd in [("", None)] + ([(f"{args.against}: ", args.against)] if args.against else []):
                proc, url = start_server(Path(tmp) / f"tp{len(procs)}", *extra, cwd=cwd)
                procs.append(proc)
                servers.append((label, url, proc.pid))
            tp = anyio.run(lambda: throughput(servers, rounds=rounds, one_agent=args.one_agent))
        except BaseExceptionGroup as e:  # the clients' task groups nest it ten deep: say what failed
            leaf = e
            while isinstance(leaf, BaseExceptionGroup):
                leaf = leaf.exceptions[0]
            raise leaf from e
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)
    for label, _, _ in servers:
        for line in throughput_lines(label, tp[label]):
            print(line)
    print(f"machine: {common.machine_note()}")
    if args.throughput_only:
        return 0
    agents, calls = (50, 2) if args.quick else (1_000, 3)
    with tempfile.TemporaryDirectory(prefix="halo-bench-agents-") as tmp:
        root = Path(tmp) / "root"
        proc, url = start_server(root, *extra)
        try:
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
