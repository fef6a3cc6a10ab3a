"""Benchmark: build the review site for 1,000 and 10,000 events in 20 sessions.

    python bench/bench_site.py           # 1k and 10k events
    python bench/bench_site.py --quick   # 1k only

Builds one agent's repository with ``Halo.import_lines`` (one commit per event,
as always), then times ``build_site`` end to end: collect, model, render,
write and the strict MkDocs build. Prints events, pages and seconds; the
target is 10,000 events / 20 sessions in under 60 s.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from halo_git import Halo
from halo_git.site import build_site

SESSIONS = 20


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


def bench(events: int, work: Path) -> tuple[int, float, float]:
    root = work / f"root{events}"
    t0 = time.perf_counter()
    with Halo(root) as h:
        h.import_lines("bench", list(lines(events)))
    setup = time.perf_counter() - t0
    built = build_site(root, work / f"site{events}")
    return built.pages, built.seconds, setup


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1,000 events only")
    args = p.parse_args(argv)
    sizes = [1000] if args.quick else [1000, 10000]
    with tempfile.TemporaryDirectory(prefix="halo-bench-") as tmp:
        for n in sizes:
            pages, seconds, setup = bench(n, Path(tmp))
            print(f"{n:>6} events, {SESSIONS} sessions: {pages} pages, site built in {seconds:.1f} s (repository set up in {setup:.1f} s)")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
