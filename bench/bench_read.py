"""Benchmark: reading an agent with 100,000 events: halo_trace cold and warm, halo_report.

    python bench/bench_read.py           # 100,000 events
    python bench/bench_read.py --quick   # 10,000 events
    python bench/bench_read.py --quick --events 20000   # quick, at another size

Targets, all through a real MCP client talking to ``halo-git serve`` over stdio:
- cold start: from launching the server to the first ``halo_trace`` reply <= 3 s;
- ``halo_trace`` (limit 20) on a warm server, median <= 20 ms;
- ``halo_report`` of the whole agent <= 5 s (first call in a fresh server, which
  loads the persisted event snapshot, and a second call, from memory).

Baselines from the same run: the same cold start answering ``halo_guide``
(no storage at all: process start plus protocol), the same warm session's
``halo_guide`` call, and the pure diagnosis and rendering of the same events
in memory (what the report costs without any storage). For information: the
report of a fresh server when there is no snapshot (as right after a clone,
which does not carry the ``halo/`` cache folder): every event is read from Git;
and the time a fresh ``Halo`` takes to load the snapshot.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from halo_git import Halo
from halo_git.diagnosis import diagnose
from halo_git.report import render_report


def server(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "halo_git.cli", "serve", "--root", str(root)])


async def cold(root: Path, tool: str, args: dict) -> float:
    t0 = time.perf_counter()
    async with Client(server(root), mode="legacy") as c:
        r = await c.call_tool(tool, args)
        seconds = time.perf_counter() - t0
    assert not r.is_error, r
    return seconds


async def warm(root: Path, samples: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"trace": [], "guide": [], "report": []}
    async with Client(server(root), mode="legacy") as c:
        for name, tool, args in (("report", "halo_report", {"agent": common.AGENT}),) * 2:
            t0 = time.perf_counter()
            r = await c.call_tool(tool, args)
            times[name].append(time.perf_counter() - t0)
            assert not r.is_error, r
        for _ in range(samples):
            for name, tool, args in (("trace", "halo_trace", {"agent": common.AGENT, "limit": 20}), ("guide", "halo_guide", {})):
                t0 = time.perf_counter()
                r = await c.call_tool(tool, args)
                times[name].append(time.perf_counter() - t0)
                assert not r.is_error, r
    return times


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--events", type=int, help="number of events (default: 10,000 with --quick, else 100,000)")
    args = p.parse_args(argv)
    n = args.events or (10_000 if args.quick else 100_000)
    runs = 3 if args.quick else 5
    with tempfile.TemporaryDirectory(prefix="halo-bench-read-") as tmp:
        root = Path(tmp) / "root"
        built = common.build(root, n)
        with Halo(root) as h:  # as after any earlier report: the snapshot exists
            events = h.events(common.AGENT)
        with Halo(root) as h:
            t0 = time.perf_counter()
            h.event_log(common.AGENT)
            snapshot = time.perf_counter() - t0
        t0 = time.perf_counter()
        render_report(diagnose(events, agent=common.AGENT, branch="main", head="0" * 40))
        pure = time.perf_counter() - t0
        cold_trace = [anyio.run(cold, root, "halo_trace", {"agent": common.AGENT, "limit": 20}) for _ in range(runs)]
        cold_guide = [anyio.run(cold, root, "halo_guide", {}) for _ in range(runs)]
        times = anyio.run(warm, root, 50 if args.quick else 200)
        shutil.rmtree(root / f"{common.AGENT}.git" / "halo")
        t0 = time.perf_counter()
        anyio.run(cold, root, "halo_report", {"agent": common.AGENT})
        no_snapshot = time.perf_counter() - t0

    ct, cg = statistics.median(cold_trace), statistics.median(cold_guide)
    wt, wg = common.median_ms(times["trace"]), common.median_ms(times["guide"])
    first, again = times["report"]
    print(f"{n:,} events (imported in {built:.0f} s); MCP stdio, medians")
    print(f"  cold start to the first halo_trace reply: {ct:.2f} s   (target <= 3 s: {common.verdict(ct <= 3)})")
    print(f"    baseline, cold start to the first halo_guide reply: {cg:.2f} s   ratio {ct / cg:.2f}")
    print(f"  halo_trace limit 20, warm: {wt:.1f} ms (p95 {common.p95_ms(times['trace']):.1f})   (target <= 20 ms: {common.verdict(wt <= 20)})")
    print(f"    baseline, halo_guide on the same session: {wg:.1f} ms   ratio {wt / wg:.2f}")
    print(f"  halo_report whole agent, fresh server: {first:.2f} s, again: {again:.2f} s   (target <= 5 s: {common.verdict(first <= 5)})")
    print(f"    baseline, diagnose + render of the same events in memory: {pure:.2f} s   ratio {first / pure:.2f}")
    print(f"  for information: a fresh Halo loads the snapshot of {n:,} parsed events in {snapshot:.2f} s; "
          f"a fresh server with no snapshot (after a clone) answers halo_report in {no_snapshot:.1f} s")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
