"""Benchmark: the review site for one large agent, and for a fleet of small agents.

    python bench/bench_site.py                      # one agent: 1,000 and 10,000 events in 20 sessions
    python bench/bench_site.py --events 100000      # one agent, one size (repeatable)
    python bench/bench_site.py --fleet              # 100, 300 and 1,000 agents, 3 builds each
    python bench/bench_site.py --agents 300         # one fleet size (repeatable)
    python bench/bench_site.py --quick              # 1,000 events and 100 agents, one build each
    python bench/bench_site.py --profile 300        # cProfile one build of 300 agents: where the time goes

One agent: its repository is built with ``Halo.import_lines`` (one commit per
event, as always). A fleet: any MCP client name creates an agent, so a root can
hold many small agents; each gets five events in two sessions (an
observation, a memory, an act on its own, its outcome and an ungoverned
revision), logged one by one.

Each build runs in a fresh process, into a new output folder as in CI, and is
timed end to end (collect, model, render, write and the strict MkDocs build); the figures are the wall time, the
process's CPU time (the machine is shared: CPU time says more when it is busy)
and its peak resident memory (``ru_maxrss``). Medians over the builds.
Targets: 10,000 events in at most 60 s; 300 agents in at most 20 s; 1,000
agents in at most 60 s and 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from halo_git import Halo

SESSIONS = 20
FLEET_TARGETS = {1000: (60.0, 1024.0), 300: (20.0, None)}
EVENT_TARGETS = {10000: (60.0, None)}

_CHILD = r"""
import json, resource, sys, time
from halo_git.site import build_site
t0 = time.perf_counter()
built = build_site(sys.argv[1], sys.argv[2])
seconds = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": seconds, "cpu": use.ru_utime + use.ru_stime, "rss_mib": use.ru_maxrss / 1024, "pages": built.pages}))
"""


def lines(total: int, sessions: int = SESSIONS):
    """A plausible trace: observe, remember, recall, act, outcome, now and then a revise."""
    per = total // sessions
    n = 0
    memories: list[int] = []
    for s in range(sessions):
        for i in range(per):
            n += 1
            step = i % 6
            day = f"day{s + 1}"
            if step == 0:
                ev = {"kind": "observe", "summary": f"request {n} about the calendar"}
            elif step == 1:
                ev = {"kind": "remember", "summary": f"kept what request {n - 1} asked for", "uses": [f"e{n - 1}"]}
                memories.append(n)
            elif step == 2:
                ev = {"kind": "recall", "summary": f"looked up memory e{memories[-1]}", "uses": [f"e{m}" for m in memories[-3:]]}
            elif step == 3:
                ev = {"kind": "act", "summary": f"answered request e{n - 3}", "uses": [f"e{n - 3}", f"e{n - 1}"],
                      "trigger": "self" if n % 5 == 0 else "request", "form": "communication"}
            elif step == 4:
                ev = {"kind": "outcome", "summary": f"the user read answer e{n - 1}", "about": f"e{n - 1}"}
            else:
                ev = {"kind": "revise", "summary": f"adjusted the reply rule after e{n - 1}", "uses": [f"e{n - 1}"],
                      "target": f"reply rule {n % 7}", "made_by": "agent", "governance": "none" if n % 3 else "approved"}
            ev.update(id=f"e{n}", session=day, time=f"2026-01-{s + 1:02d}T{8 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z")
            yield json.dumps(ev)


def fill_agent(root: Path, events: int) -> float:
    t0 = time.perf_counter()
    with Halo(root) as h:
        batch = list(lines(events))
        for start in range(0, len(batch), 10_000):
            h.import_lines("bench", batch[start : start + 10_000])
    return time.perf_counter() - t0


def fill_fleet(root: Path, agents: int) -> float:
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
    pstats.Stats(prof).sort_stats("cumulative").print_stats(35)


def measure(label: str, root: Path, out: Path, builds: int, setup: float, target: tuple[float, float | None] | None) -> None:
    runs = []
    for _ in range(builds):  # into a new folder, as in CI: emptying an earlier site is not timed
        shutil.rmtree(out, ignore_errors=True)
        runs.append(build_once(root, out))
    secs = statistics.median(r["seconds"] for r in runs)
    rss = statistics.median(r["rss_mib"] for r in runs)
    cpu = statistics.median(r["cpu"] for r in runs)
    each = ", ".join(f"{r['seconds']:.1f}" for r in runs)
    verdict = ""
    if target:
        ok = secs <= target[0] and (target[1] is None or rss <= target[1])
        verdict = (" meets the target" if ok else " MISSES the target") + f" (≤ {target[0]:.0f} s" + (f", ≤ {target[1] / 1024:.0f} GiB)" if target[1] else ")")
    print(
        f"{label}: {runs[0]['pages']} pages, site built in {secs:.1f} s (CPU {cpu:.1f} s), peak RSS {rss:.0f} MiB "
        f"(median of {builds}: {each} s; set up in {setup:.1f} s; load average {os.getloadavg()[0]:.1f}){verdict}",
        flush=True,
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--events", type=int, action="append", help="one agent with N events; repeatable")
    p.add_argument("--agents", type=int, action="append", help="a fleet of N agents; repeatable")
    p.add_argument("--fleet", action="store_true", help="fleets of 100, 300 and 1,000 agents")
    p.add_argument("--builds", type=int, default=None, help="builds per size (default: 3 for fleets, 1 for one agent)")
    p.add_argument("--quick", action="store_true", help="1,000 events and 100 agents, one build each")
    p.add_argument("--keep", metavar="DIR", help="keep the roots in DIR and reuse them on the next run")
    p.add_argument("--profile", type=int, metavar="N", help="cProfile one build of N agents instead")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="halo-bench-site-") as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.profile:
            root = work / f"fleet{args.profile}"
            if not root.exists():
                fill_fleet(root, args.profile)
            profile(root, work / "out-profile")
            return 0
        if args.quick:
            events, fleets = [1000], [100]
        else:
            fleets = args.agents or ([100, 300, 1000] if args.fleet else [])
            events = args.events or ([] if fleets else [1000, 10000])
        for n in events:
            root = work / f"events{n}"
            setup = fill_agent(root, n) if not root.exists() else 0.0
            measure(f"{n:>7} events, {SESSIONS} sessions, 1 agent", root, work / f"out-events{n}", args.builds or 1, setup, EVENT_TARGETS.get(n))
        for n in fleets:
            root = work / f"fleet{n}"
            setup = fill_fleet(root, n) if not root.exists() else 0.0
            measure(f"{n:>7} agents x 5 events", root, work / f"out-fleet{n}", args.builds or (1 if args.quick else 3), setup, FLEET_TARGETS.get(n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
