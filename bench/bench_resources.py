"""Benchmark: reading the findings resource of an agent with 100,000 events.

    python bench/bench_resources.py           # 100,000 events
    python bench/bench_resources.py --quick   # 2,000 events
    python bench/bench_resources.py --worded  # summaries that read like an agent's (bench_report.worded_events)
    python bench/bench_resources.py --events 20000   # another size

Through a real MCP client talking to ``halo-git serve`` over stdio:
``resources/read`` of ``halo://agents/bench/findings`` — the first read in a fresh
server (loads the event snapshot), reads right after an append (a new head: the
diagnosis is computed again; the figure that matters) and repeated reads at one
head (the server keeps the text by head commit) — and, for comparison on the same
session, ``halo_report`` of the whole agent (the same diagnosis as Markdown) and
the self-review prompt, at the same head and right after an append.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def measure(root: Path, samples: int) -> dict[str, list[float]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "halo_git.cli", "serve", "--root", str(root)])
    uri = f"halo://agents/{common.AGENT}/findings"
    out: dict[str, list[float]] = {"first": [], "after_append": [], "same_head": [], "report": [], "review": [],
                                   "review_after_append": []}
    async with Client(params, mode="legacy") as c:
        t0 = time.perf_counter()
        r = await c.read_resource(uri)
        out["first"].append(time.perf_counter() - t0)
        for i in range(samples):
            logged = await c.call_tool("halo_observe", {"agent": common.AGENT, "summary": f"checked the calendar, round {i}"})
            assert not logged.is_error
            t0 = time.perf_counter()
            r = await c.read_resource(uri)
            out["after_append"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = await c.read_resource(uri)
            out["same_head"].append(time.perf_counter() - t0)
            assert r.contents[0].text.startswith("{")
        for _ in range(samples):
            t0 = time.perf_counter()
            rep = await c.call_tool("halo_report", {"agent": common.AGENT})
            out["report"].append(time.perf_counter() - t0)
            assert not rep.is_error
            t0 = time.perf_counter()
            await c.get_prompt("halo_self_review", {"agent": common.AGENT})
            out["review"].append(time.perf_counter() - t0)
        for i in range(samples):  # the prompt as an agent starting a session meets it: right after its last event
            logged = await c.call_tool("halo_observe", {"agent": common.AGENT, "summary": f"session start, round {i}"})
            assert not logged.is_error
            t0 = time.perf_counter()
            await c.get_prompt("halo_self_review", {"agent": common.AGENT})
            out["review_after_append"].append(time.perf_counter() - t0)
        out["size"] = [len(r.contents[0].text)]
        out["text"] = r.contents[0].text
    return out


def client_reassembly(text: str, uri: str) -> tuple[float, float, int]:
    """Seconds the MCP client spends putting the resource's reply line back together, and the same line joined
    once: ``mcp.client.stdio`` (2.3) reads the server's stdout 64 KiB at a time (anyio's read size) and on each
    read concatenates what it holds with the new piece and splits the whole on newlines, so one reply of M
    characters costs about M * M / 128 KiB characters copied and scanned. The reply line here is the JSON-RPC
    response carrying ``text`` (within a few characters of what the server writes)."""
    line = json.dumps({"jsonrpc": "2.0", "id": 9, "result": {"contents": [
        {"uri": uri, "mimeType": "application/json", "text": text}]}}) + "\n"
    pieces = [line[i:i + 65_536] for i in range(0, len(line), 65_536)]
    t0 = time.perf_counter()
    buffer = ""
    for piece in pieces:  # the client's own loop
        lines = (buffer + piece).split("\n")
        buffer = lines.pop()
    quadratic = time.perf_counter() - t0
    t0 = time.perf_counter()
    held: list[str] = []
    for piece in pieces:  # what a linear reader does: keep the pieces, join once a newline arrives
        if "\n" in piece:
            "".join(held + [piece]).split("\n")
            held = []
        else:
            held.append(piece)
    return quadratic, time.perf_counter() - t0, len(line)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--worded", action="store_true",
                   help="summaries drawn from the labelled traces (bench_report.worded_events), not 'act step 7'")
    p.add_argument("--events", type=int, help="events in the agent's branch (default 100,000; 2,000 with --quick)")
    args = p.parse_args(argv)
    n = args.events if args.events is not None else 2_000 if args.quick else 100_000
    if n < 1:
        p.error(f"--events must be 1 or more, not {n}")
    samples = 3 if args.quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        built = common.build(root, n, common.event_lines(n, worded=args.worded))
        result = anyio.run(measure, root, samples)
    print(f"{n:,} {'worded ' if args.worded else ''}events (built in {built:.1f} s); {common.machine_note()}")
    print(f"findings resource, first read in a fresh server: {result['first'][0] * 1e3:.0f} ms ({result['size'][0]:,} characters)")
    print(f"findings resource right after an append, median of {samples}: {common.median_ms(result['after_append']):.0f} ms")
    print(f"findings resource again at the same head, median of {samples}: {common.median_ms(result['same_head']):.0f} ms")
    quadratic, linear, chars = client_reassembly(result["text"], f"halo://agents/{common.AGENT}/findings")
    print(f"  of which the MCP client putting the {chars:,}-character reply line together (mcp.client.stdio, "
          f"64 KiB reads): {quadratic * 1e3:.1f} ms; the same line joined once: {linear * 1e3:.1f} ms")
    print(f"halo_report on the same session, median: {common.median_ms(result['report']):.0f} ms")
    print(f"halo_self_review prompt at the same head (the diagnosis kept by head), median: "
          f"{common.median_ms(result['review']):.0f} ms")
    print(f"halo_self_review prompt right after an append (a new head: the diagnosis runs again), median: "
          f"{common.median_ms(result['review_after_append']):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
