"""Benchmark: disk per event after automatic packing.

    python bench/bench_disk.py           # 20,000 appends, and an import of 100,000 events
    python bench/bench_disk.py --quick   # 1,000 appends, and an import of 5,000 events

Target: <= 1.5 KB per event (everything under ``objects/``, as allocated on
disk) once automatic packing has run.

Two ways events arrive, both measured: one ``Halo.log`` per event (loose
objects, packed by the background pass every 1,000 events; the last few
hundred events may still be loose, as in real use), and one large import
(written straight into a pack). Baselines from the same run, on a copy of the
appended repository made with automatic packing switched off: the loose
objects as they are, dulwich's ``pack_loose_objects`` (whole objects, no
deltas) and ``git gc`` (the git binary's deltas, which HALO must not need).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from dulwich.repo import Repo

import halo_git.store.maintenance as maintenance
from halo_git import Halo


def append(root: Path, n: int) -> float:
    t0 = time.perf_counter()
    with Halo(root) as h:  # closing waits for the last background pass
        for i in range(n):
            h.log(common.AGENT, "observe", f"user asked for a reminder at 9:{i % 60:02d} on day {i // 60}", session=f"s{i // 200}")
    return time.perf_counter() - t0


def per_event(repo: Path, n: int) -> tuple[float, float]:
    apparent, allocated = common.disk_bytes(repo / "objects")
    return allocated / n, apparent / n


def main(argv: list[str] | None = None) -> int:
    args = common.parser(__doc__).parse_args(argv)
    n_append = 1_000 if args.quick else 20_000
    n_import = 5_000 if args.quick else 100_000
    with tempfile.TemporaryDirectory(prefix="halo-bench-disk-") as tmp:
        work = Path(tmp)
        seconds = append(work / "appended", n_append)
        packed = per_event(work / "appended" / f"{common.AGENT}.git", n_append)
        packs = len(maintenance.packs(work / "appended" / f"{common.AGENT}.git" / "objects" / "pack"))
        common.build(work / "imported", n_import)
        imported = per_event(work / "imported" / f"{common.AGENT}.git", n_import)

        saved, maintenance.PACK_EVERY = maintenance.PACK_EVERY, 10**12
        try:
            append(work / "loose", n_append)
        finally:
            maintenance.PACK_EVERY = saved
        repo = work / "loose" / f"{common.AGENT}.git"
        loose = per_event(repo, n_append)
        shutil.copytree(repo, work / "gc.git")
        t0 = time.perf_counter()
        with Repo(str(repo)) as r:
            r.object_store.pack_loose_objects()
        dulwich_seconds = time.perf_counter() - t0
        dulwich = per_event(repo, n_append)
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(work)}
        t0 = time.perf_counter()
        subprocess.run(["git", "--git-dir", str(work / "gc.git"), "gc", "--quiet"], check=True, env=env)
        git_seconds = time.perf_counter() - t0
        gc = per_event(work / "gc.git", n_append)

    def kb(x: tuple[float, float]) -> str:
        return f"{x[0] / 1000:6.2f} KB on disk ({x[1] / 1000:.2f} KB of content)"

    print("disk per event, everything under objects/ (target <= 1.5 KB):")
    print(f"  {n_append:,} appends, automatic packing:   {kb(packed)}  in {packs} pack(s)  "
          f"({common.verdict(packed[0] <= 1500)}; appending took {seconds:.0f} s)")
    print(f"  import of {n_import:,} events:         {kb(imported)}  ({common.verdict(imported[0] <= 1500)})")
    print(f"baselines in the same run ({n_append:,} appends, automatic packing off):")
    print(f"  loose objects:                       {kb(loose)}  = {loose[0] / packed[0]:.0f}x HALO's")
    print(f"  dulwich pack_loose_objects:          {kb(dulwich)}  = {dulwich[0] / packed[0]:.1f}x HALO's  ({dulwich_seconds:.0f} s)")
    print(f"  git gc:                              {kb(gc)}  = {gc[0] / packed[0]:.2f}x HALO's  ({git_seconds:.0f} s)")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
