"""Benchmark: the first `report` in a fresh plain-`git` clone against the same report warm.

    python bench/bench_clone.py                  # 20,000 events, 3 rounds
    python bench/bench_clone.py --events 100000  # another size (1 round unless --rounds)
    python bench/bench_clone.py --quick          # 2,000 events, 1 round

Target: the first ``halo-git report`` in a fresh ``git clone --mirror`` of an
agent's repository takes at most 3x the same report run again in that clone
(warm: the parsed-event cache file in ``halo/`` exists).

The origin is built by import and read once (the read publishes the
travelling cache, ``refs/halo/cache/main``, as any report or trace there
does). Each round, interleaved, in fresh processes:

* fresh: ``git clone --mirror`` (carries ``refs/halo/*``), the first report;
* warm: the same report again in that clone;
* baseline, no travelling cache: ``git clone --bare`` (carries branches and
  tags only, so the clone has no cache at all and parses every YAML blob, what
  every fresh clone did before the cache travelled), the first report.

Medians of the rounds, the ratios, and the machine's load average.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

from halo_git import Halo


def report(root: Path) -> float:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "halo_git.cli", "report", "--agent", common.AGENT, "--root", str(root)],
                       capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"report failed in {root}: {r.stderr[-2000:]}")
    return seconds


LOAD = "import sys, time; t0 = time.perf_counter(); from halo_git import Halo; h = Halo(sys.argv[1]); n = len(h.events(sys.argv[2])); h.close(); print(time.perf_counter() - t0)"


def load(root: Path) -> float:
    """Seconds for a fresh process to hold every event of the agent (imports included, no diagnosis)."""
    r = subprocess.run([sys.executable, "-c", LOAD, str(root), common.AGENT], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"load failed in {root}: {r.stderr[-2000:]}")
    return float(r.stdout)


def clone(kind: str, origin: Path, root: Path) -> None:
    subprocess.run(["git", "clone", "--quiet", kind, str(origin), str(root / f"{common.AGENT}.git")], check=True)


def main() -> int:
    p = common.parser(__doc__)
    p.add_argument("--events", type=int, default=None)
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args()
    n = args.events or (2_000 if args.quick else 20_000)
    rounds = args.rounds or (1 if args.quick or n > 50_000 else 3)
    fresh: list[float] = []
    warm: list[float] = []
    bare: list[float] = []
    loads: list[float] = []
    events: dict[str, list[float]] = {"fresh": [], "warm": [], "bare": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        common.build(work / "origin", n)
        t0 = time.perf_counter()
        with Halo(work / "origin") as h:
            h.events(common.AGENT)
        publish = time.perf_counter() - t0
        origin = work / "origin" / f"{common.AGENT}.git"
        refs = subprocess.run(["git", "-C", str(origin), "for-each-ref", "--format=%(refname)"], capture_output=True, text=True, check=True).stdout.split()
        for i in range(rounds):
            loads.append(__import__("os").getloadavg()[0])
            clone("--mirror", origin, work / f"mirror{i}")
            fresh.append(report(work / f"mirror{i}"))
            warm.append(report(work / f"mirror{i}"))
            clone("--bare", origin, work / f"bare{i}")
            bare.append(report(work / f"bare{i}"))
            clone("--mirror", origin, work / f"load-mirror{i}")
            events["fresh"].append(load(work / f"load-mirror{i}"))
            events["warm"].append(load(work / f"load-mirror{i}"))
            clone("--bare", origin, work / f"load-bare{i}")
            events["bare"].append(load(work / f"load-bare{i}"))
    f, w, b = (statistics.median(x) for x in (fresh, warm, bare))
    print(f"first `halo-git report` in a fresh clone, {n:,} events, median of {rounds} round(s) (target: fresh <= 3x warm):")
    print(f"  fresh `git clone --mirror` (travelling cache):  {f:6.2f} s")
    print(f"  warm, the same report again in that clone:      {w:6.2f} s   fresh / warm = {f / w:.2f}  ({common.verdict(f <= 3 * w)})")
    print(f"baseline in the same run: fresh `git clone --bare` (no refs/halo/*, no cache at all):")
    print(f"  first report:                                   {b:6.2f} s   = {b / w:.2f}x warm, {b / f:.2f}x the mirror clone's")
    ef, ew, eb = (statistics.median(events[k]) for k in ("fresh", "warm", "bare"))
    print(f"the same clones, reading every event in a fresh process (no diagnosis, no rendering: what the cache spares):")
    print(f"  fresh mirror clone {ef:6.2f} s, warm {ew:6.2f} s: fresh / warm = {ef / ew:.2f}; fresh bare clone (no cache) {eb:6.2f} s = {eb / ew:.2f}x warm")
    print(f"origin: refs {', '.join(refs)}; the read that published the cache took {publish:.2f} s")
    print(f"each round (fresh / warm / bare, s): " + "; ".join(f"{x:.2f} / {y:.2f} / {z:.2f}" for x, y, z in zip(fresh, warm, bare)))
    print(f"machine: {common.machine_note()} (1-minute load at each round's start: {', '.join(f'{x:.1f}' for x in loads)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
