"""Benchmark: the review site of a fleet, 100, 300 and 1,000 agents with a few events each.

    python bench/bench_fleet.py                 # 100, 300 and 1,000 agents, 3 builds each
    python bench/bench_fleet.py --agents 300    # one size
    python bench/bench_fleet.py --quick         # 100 agents, one build
    python bench/bench_fleet.py --profile 300   # cProfile of one build: where the time goes

Any MCP client name creates an agent, so a root can hold many small agents.
Each agent gets five events in two sessions (an observation, a memory, an act
on its own, its outcome and an ungoverned revision). Each build runs in a
fresh process, timed end to end (collect, model, render, write and the strict
MkDocs build); the peak resident memory is that process's ``ru_maxrss``.
Targets: 1,000 agents in at most 60 s and 1 GiB, 300 agents in at most 20 s.
Medians of the builds are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from halo_git import Halo

TARGETS = {1000: (60.0, 1024.0), 300: (20.0, None)}

_CHILD = r"""
import json, resource, sys, time
from halo_git.site import build_site
t0 = time.perf_counter()
built = build_site(sys.argv[1], sys.argv[2])
seconds = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": seconds, "cpu": use.ru_utime + use.ru_stime, "rss_mib": use.ru_maxrss / 1024, "pages": built.pages}))
"""


def fill(root: Path, agents: int) -> float:
    """``agents`` agents with five events each; returns the seconds it took."""
    t0 = time.perf_counter()
    with Halo(root, screen=None) as h:
        for i in range(agents):
            name = f"agent-{i:04d}"
            h.log(name, "observe", f"user {i} asked for a summary of the week", session="s1")
            h.log(name, "remember", f"user {i} wants weekly summaries", uses=["e1"], session="s1")
            h.log(name, "act", f"sent summary {i} unasked", uses=["e2"], session="s2", trigger="self", form="execution")
            h.log(name, "outcome", f"user {i} read the summary", about="e3", session="s2")
            h.log(name, "revise", f"always send summaries on Fridays ({i})", uses=["e4"], session="s2",
                  target="summary schedule", made_by="agent", governance="none")
    return time.perf_counter() - t0


def build_once(root: Path, out: Path) -> dict:
    r = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(out)], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def profile(root: Path, out: Path) -> None:
    import cProfile
    import pstats

    from halo_git.site import build_site

    prof = cProfile.Profile()
    prof.enable()
    build_site(root, out)
    prof.disable()
    stats = pstats.Stats(prof)
    stats.sort_stats("cumulative").print_stats(35)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--agents", type=int, action="append", help="fleet size; repeatable (default 100, 300, 1000)")
    p.add_argument("--builds", type=int, default=3, help="builds per size (default 3)")
    p.add_argument("--keep", metavar="DIR", help="keep the fleet roots in DIR and reuse them on the next run")
    p.add_argument("--quick", action="store_true", help="100 agents, one build")
    p.add_argument("--profile", type=int, metavar="N", help="cProfile one build of N agents instead")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="halo-fleet-") as tmp:
        work = Path(args.keep or tmp)
        if args.profile:
            fill(work / "root", args.profile)
            profile(work / "root", work / "out")
            return 0
        sizes = [100] if args.quick else (args.agents or [100, 300, 1000])
        builds = 1 if args.quick else args.builds
        for n in sizes:
            root = work / f"root{n}"
            setup = fill(root, n) if not root.exists() else 0.0
            runs = [build_once(root, work / f"out{n}") for _ in range(builds)]
            secs = statistics.median(r["seconds"] for r in runs)
            rss = statistics.median(r["rss_mib"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            each = ", ".join(f"{r['seconds']:.1f}" for r in runs)
            target = TARGETS.get(n)
            verdict = ""
            if target:
                ok = secs <= target[0] and (target[1] is None or rss <= target[1])
                verdict = " meets the target" if ok else " MISSES the target"
                verdict += f" (≤ {target[0]:.0f} s" + (f", ≤ {target[1] / 1024:.0f} GiB)" if target[1] else ")")
            print(
                f"{n:>5} agents x 5 events: {runs[0]['pages']} pages, site built in {secs:.1f} s (CPU {cpu:.1f} s), peak RSS {rss:.0f} MiB "
                f"(median of {builds}: {each} s; repositories set up in {setup:.1f} s; load average {os.getloadavg()[0]:.1f}){verdict}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
