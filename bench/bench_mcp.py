"""Benchmark: one halo_observe over an MCP stdio session.

    python bench/bench_mcp.py           # 500 calls of each kind
    python bench/bench_mcp.py --quick   # 100 calls of each kind

Target: median ``halo_observe`` <= 2 x the median of the same client's call to
``halo_guide`` on the same server (a tool that does no storage work), i.e.
storing an event adds at most as much as the protocol round trip itself.

The two calls alternate on one session, so both see the same machine noise.
The client is the MCP Python SDK's ``Client``; the server is ``halo-git serve``
on a fresh root.

Baseline from the same run: the reference MCP memory server
(``@modelcontextprotocol/server-memory``, run with Node), called by the same
client: ``add_observations`` (one observation added to one entity, its closest
analogue of an observe) and ``read_graph``. It is installed with ``npm`` into a
folder in the system temporary directory (never into the repository) and
skipped, with a note, when Node, npm or the registry is unavailable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.stdio import StdioServerParameters

MEMORY_PACKAGE = "@modelcontextprotocol/server-memory"
NPM_DIR = Path(tempfile.gettempdir()) / "halo-bench-npm"


async def halo(root: Path, samples: int) -> tuple[list[float], list[float]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "halo_git.cli", "serve", "--root", str(root)])
    observe: list[float] = []
    guide: list[float] = []
    async with Client(params, mode="legacy") as c:
        for i in range(samples):
            for times, tool, args in ((observe, "halo_observe", {"agent": common.AGENT, "summary": f"user asked for a reminder at 9:{i % 60:02d}"}),
                                      (guide, "halo_guide", {})):
                t0 = time.perf_counter()
                r = await c.call_tool(tool, args)
                times.append(time.perf_counter() - t0)
                assert not r.is_error, r
    return observe, guide


def memory_server() -> tuple[Path | None, str]:
    """The installed server's entry point, or None and why not."""
    entry = NPM_DIR / "node_modules" / MEMORY_PACKAGE / "dist" / "index.js"
    if entry.exists():
        return entry, ""
    if not (shutil.which("node") and shutil.which("npm")):
        return None, "node or npm is not installed"
    NPM_DIR.mkdir(exist_ok=True)
    try:
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(NPM_DIR), MEMORY_PACKAGE],
                       check=True, capture_output=True, timeout=300)
    except (subprocess.SubprocessError, OSError) as e:
        return None, f"npm install {MEMORY_PACKAGE} failed ({type(e).__name__})"
    return (entry, "") if entry.exists() else (None, f"{MEMORY_PACKAGE} has no dist/index.js")


SIZES = (1_000, 10_000)  # entities in the memory server's store for the figures at size


async def memory(entry: Path, work: Path, samples: int) -> tuple[list[float], list[float], dict[int, list[float]]]:
    env = {**os.environ, "MEMORY_FILE_PATH": str(work / "memory.jsonl")}
    params = StdioServerParameters(command="node", args=[str(entry)], env=env)
    add: list[float] = []
    read: list[float] = []
    async with Client(params, mode="legacy") as c:
        entity = {"name": "user", "entityType": "person", "observations": []}
        r = await c.call_tool("create_entities", {"entities": [entity]})
        assert not r.is_error, r
        for i in range(samples):
            for times, tool, args in ((add, "add_observations", {"observations": [{"entityName": "user", "contents": [f"asked for a reminder at 9:{i % 60:02d} ({i})"]}]}),
                                      (read, "read_graph", {})):
                t0 = time.perf_counter()
                r = await c.call_tool(tool, args)
                times.append(time.perf_counter() - t0)
                assert not r.is_error, r
        # the same write with a store of 1,000 and 10,000 entities (it rewrites its whole file per write)
        at_size: dict[int, list[float]] = {}
        have = 1
        for size in SIZES:
            while have < size:
                batch = [{"name": f"entity {k}", "entityType": "thing", "observations": [f"fact about entity {k}"]} for k in range(have, min(size, have + 1000))]
                r = await c.call_tool("create_entities", {"entities": batch})
                assert not r.is_error, r
                have += len(batch)
            at_size[size] = []
            for i in range(max(20, samples // 5)):
                args = {"observations": [{"entityName": "user", "contents": [f"asked for a reminder at 9:{i % 60:02d} ({size}, {i})"]}]}
                t0 = time.perf_counter()
                r = await c.call_tool("add_observations", args)
                at_size[size].append(time.perf_counter() - t0)
                assert not r.is_error, r
    return add, read, at_size


def main(argv: list[str] | None = None) -> int:
    args = common.parser(__doc__).parse_args(argv)
    samples = 100 if args.quick else 500
    with tempfile.TemporaryDirectory(prefix="halo-bench-mcp-") as tmp:
        work = Path(tmp)
        observe, guide = anyio.run(halo, work / "root", samples)
        entry, why = memory_server()
        baseline = anyio.run(memory, entry, work, samples) if entry else None
    mo, mg = common.median_ms(observe), common.median_ms(guide)
    ratio = mo / mg
    print(f"MCP stdio, {samples} calls each, alternating on one session (median / p95):")
    print(f"  halo_observe: {mo:6.2f} ms / {common.p95_ms(observe):6.2f} ms")
    print(f"  halo_guide:   {mg:6.2f} ms / {common.p95_ms(guide):6.2f} ms")
    print(f"  ratio observe / guide: {ratio:.2f}   (target <= 2: {common.verdict(ratio <= 2)})")
    if baseline is None:
        print(f"baseline skipped: {why}")
    else:
        ma, mr = common.median_ms(baseline[0]), common.median_ms(baseline[1])
        print(f"baseline in the same run, {MEMORY_PACKAGE} on Node, same client (median / p95):")
        print(f"  add_observations: {ma:6.2f} ms / {common.p95_ms(baseline[0]):6.2f} ms   halo_observe / it = {mo / ma:.2f}")
        print(f"  read_graph:       {mr:6.2f} ms / {common.p95_ms(baseline[1]):6.2f} ms")
        for size, times in baseline[2].items():
            ms = common.median_ms(times)
            print(f"  add_observations with {size:,} entities in its store: {ms:6.2f} ms / {common.p95_ms(times):6.2f} ms   halo_observe / it = {mo / ms:.2f}")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
