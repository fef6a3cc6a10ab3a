"""Issue 24's table in one command: every row beside its anchor, measured in the same run.

    python bench/bench_issue24.py            # the full runs of each row's benchmark
    python bench/bench_issue24.py --quick    # their quick forms (minutes, for a smoke run)
    python bench/bench_issue24.py --only disk,cold

Each row is measured by the benchmark that owns it, which interleaves the row with
its anchor (the durable floor, the warm read, one agent alone, the packed
baselines) and prints both with their ratio. This script runs them one after the
other in fresh processes, so one row's caches and threads never colour the next,
and heads each block with the row and its target. The machine's load is printed
before and after every row: on a shared machine, a figure without it says little.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (key, the row as issue 24 words it, its target, the benchmark and its arguments)
ROWS = (
    ("write", "halo_observe over MCP vs the durable floor (halo_guide + one SQLite WAL commit, synchronous=FULL)",
     "<= 1.3x", "bench_write.py", ()),
    ("cold", "first report after a plain git clone --bare vs warm; after git clone --mirror vs warm",
     "<= 2x; keep 1.0x", "bench_cold.py", ()),
    ("resources20k", "findings resource right after an append at 20k events",
     "<= 200 ms", "bench_resources.py", ("--events", "20000")),
    ("resources", "findings resource right after an append at 100k events; halo_self_review prompt at 100k",
     "<= 1 s; <= 0.5 s", "bench_resources.py", ()),
    ("agents", "16 agents logging at once into one HTTP server vs one agent alone, throughput",
     ">= 1.8x", "bench_agents.py", ("--throughput-only",)),
    ("disk", "disk per event after packing, the travelling cache included",
     "<= 0.9 KB", "bench_disk.py", ()),
)


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not every platform has it
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="run each benchmark's quick form")
    p.add_argument("--only", default="", help="comma-separated row keys: " + ", ".join(k for k, *_ in ROWS))
    args = p.parse_args(argv)
    wanted = {k.strip() for k in args.only.split(",") if k.strip()}
    unknown = wanted - {k for k, *_ in ROWS}
    if unknown:
        p.error(f"unknown row(s) {', '.join(sorted(unknown))}; choose from {', '.join(k for k, *_ in ROWS)}")
    failed = []
    for key, row, target, script, extra in ROWS:
        if wanted and key not in wanted:
            continue
        print(f"\n== {key}: {row}\n   target {target}; load before {_load()}", flush=True)
        started = time.monotonic()
        if args.quick and "--events" in extra:  # (the quick form picks its own size)
            extra = extra[:extra.index("--events")] + extra[extra.index("--events") + 2:]
        cmd = [sys.executable, str(HERE / script), *extra, *(["--quick"] if args.quick else [])]
        rc = subprocess.call(cmd, cwd=HERE.parent)
        print(f"   ({script} took {time.monotonic() - started:.0f} s; load after {_load()}; exit {rc})", flush=True)
        if rc:
            failed.append(key)
    if failed:
        print(f"\nrows whose benchmark failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
