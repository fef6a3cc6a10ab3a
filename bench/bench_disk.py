"""Benchmark: disk per event after automatic packing.

    python bench/bench_disk.py           # 20,000 appends, and an import of 100,000 events
    python bench/bench_disk.py --quick   # 1,000 appends, and an import of 5,000 events

Target: <= 1.5 KB per event (everything under ``objects/``, as allocated on
disk) once automatic packing has run; issue 24: <= 0.9 KB per event with the
travelling cache (``refs/halo/cache/<branch>``) included.

Each repository is measured right after packing, and again after one read
(``Halo.events``), which publishes the cache ref as any report or trace does
if no read did before (an import reads the branch as well, so the imported
repository holds most of its ref already at the first measure). The cache
ref's own objects are counted apart (``git cat-file``'s on-disk size of every
object the ref reaches), and the whole repository folder (``objects/`` plus
the local parsed-event cache file in ``halo/``, which Git never carries) is
printed beside it.

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


def ref_bytes(repo: Path) -> int:
    """Bytes the objects of the cache ref take in their packs (commit, tree,
    format file, chunks: ``git cat-file``'s ``objectsize:disk``)."""
    listed = subprocess.run(["git", "--git-dir", str(repo), "rev-list", "--objects", "refs/halo/cache/main"],
                            capture_output=True, text=True)
    if listed.returncode != 0:  # no cache ref (fewer events than one chunk)
        return 0
    ids = listed.stdout
    sizes = subprocess.run(["git", "--git-dir", str(repo), "cat-file", "--batch-check=%(objectsize:disk)"],
                           input="".join(line.split()[0] + "\n" for line in ids.splitlines() if line.strip()),
                           capture_output=True, text=True, check=True).stdout
    return sum(int(x) for x in sizes.split())


def with_cache(root: Path, n: int) -> tuple[tuple[float, float], tuple[float, float], int]:
    """Read the agent once (publishing its cache ref, if no earlier read did:
    an import reads the branch too), then (objects/ per event, the whole
    repository folder per event, bytes of the cache ref's objects)."""
    repo = root / f"{common.AGENT}.git"
    with Halo(root) as h:
        h.events(common.AGENT)
    apparent, allocated = common.disk_bytes(repo)
    return per_event(repo, n), (allocated / n, apparent / n), ref_bytes(repo)


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
        packed_cached, packed_whole, packed_ref = with_cache(work / "appended", n_append)
        imported_cached, imported_whole, imported_ref = with_cache(work / "imported", n_import)

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
    print("the same repositories after one read published the travelling cache ref (issue 24: <= 0.9 KB per event):")
    print(f"  {n_append:,} appends, cache ref included: {kb(packed_cached)}  ({common.verdict(packed_cached[0] <= 900)}; "
          f"the ref's own objects {packed_ref / n_append:.0f} bytes an event)")
    print(f"  import of {n_import:,}, cache ref included: {kb(imported_cached)}  ({common.verdict(imported_cached[0] <= 900)}; "
          f"the ref's own objects {imported_ref / n_import:.0f} bytes an event)")
    print(f"  whole repository folder with halo/:   {kb(packed_whole)} after the appends, {kb(imported_whole)} after the import")
    print(f"baselines in the same run ({n_append:,} appends, automatic packing off):")
    print(f"  loose objects:                       {kb(loose)}  = {loose[0] / packed[0]:.0f}x HALO's")
    print(f"  dulwich pack_loose_objects:          {kb(dulwich)}  = {dulwich[0] / packed[0]:.1f}x HALO's  ({dulwich_seconds:.0f} s)")
    print(f"  git gc:                              {kb(gc)}  = {gc[0] / packed[0]:.2f}x HALO's  ({git_seconds:.0f} s)")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
