"""Benchmark: cold reads without the cache ref (issue 24's second and third rows).

    python bench/bench_cold.py                  # 20,000 events, 3 rounds
    python bench/bench_cold.py --events 100000  # another size
    python bench/bench_cold.py --quick          # 2,000 events, 1 round

Rows, each printed beside its anchor measured in the same round:

* the first ``halo-git report`` after a plain ``git clone --bare`` (no
  ``refs/halo/cache``: every event file read from the packs by HALO's own
  reader and parsed by the canonical-form parser), against the same report
  run again in that clone (warm: the cache file exists). Target: <= 2x warm.
* the first report after ``git clone --mirror`` (carries the travelling
  cache), against the same report warm. Target: keep 1.0x.
* the same clones read without any diagnosis (a fresh process holding every
  event), so the read itself is seen apart from the report.

The origin is built by import and read once (publishing its cache ref). Each
round clones afresh and runs every process interleaved; medians of the rounds
and the machine's load at each round's start.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from bench_clone import clone, load, report

from halo_git import Halo


def main() -> int:
    p = common.parser(__doc__)
    p.add_argument("--events", type=int, default=None)
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args()
    n = args.events or (2_000 if args.quick else 20_000)
    rounds = args.rounds or (1 if args.quick or n > 50_000 else 3)
    rows: dict[str, list[float]] = {k: [] for k in ("bare", "bare_warm", "mirror", "mirror_warm", "read_bare", "read_warm")}
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        common.build(work / "origin", n)
        with Halo(work / "origin") as h:
            h.events(common.AGENT)  # publishes refs/halo/cache/main, as any read there does
        origin = work / "origin" / f"{common.AGENT}.git"
        for i in range(rounds):
            loads.append(os.getloadavg()[0])
            clone("--bare", origin, work / f"bare{i}")
            rows["bare"].append(report(work / f"bare{i}"))
            rows["bare_warm"].append(report(work / f"bare{i}"))
            clone("--mirror", origin, work / f"mirror{i}")
            rows["mirror"].append(report(work / f"mirror{i}"))
            rows["mirror_warm"].append(report(work / f"mirror{i}"))
            clone("--bare", origin, work / f"read{i}")
            rows["read_bare"].append(load(work / f"read{i}"))
            rows["read_warm"].append(load(work / f"read{i}"))
    m = {k: statistics.median(v) for k, v in rows.items()}
    print(f"cold reads, {n:,} events, median of {rounds} round(s), each row beside its anchor from the same rounds:")
    print(f"  first report after `git clone --bare` (no cache ref) {m['bare']:6.2f} s  | warm, same clone {m['bare_warm']:6.2f} s"
          f"  = {m['bare'] / m['bare_warm']:.2f}x  (target <= 2x: {common.verdict(m['bare'] <= 2 * m['bare_warm'])})")
    print(f"  first report after `git clone --mirror`             {m['mirror']:6.2f} s  | warm, same clone {m['mirror_warm']:6.2f} s"
          f"  = {m['mirror'] / m['mirror_warm']:.2f}x  (target: keep 1.0x)")
    print(f"  every event in a fresh process, bare clone           {m['read_bare']:6.2f} s  | warm {m['read_warm']:6.2f} s"
          f"  = {m['read_bare'] / m['read_warm']:.2f}x  (the read alone, no diagnosis)")
    print("each round (bare / warm / mirror / warm, s): " + "; ".join(
        f"{a:.2f} / {b:.2f} / {c:.2f} / {d:.2f}" for a, b, c, d in zip(rows["bare"], rows["bare_warm"], rows["mirror"], rows["mirror_warm"])))
    print(f"machine: {common.machine_note()} (1-minute load at each round's start: {', '.join(f'{x:.1f}' for x in loads)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
