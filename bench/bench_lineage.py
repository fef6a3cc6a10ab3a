"""Benchmark: history, blame and beliefs of an agent with 100,000 events, warm.

    python bench/bench_lineage.py           # 100,000 events
    python bench/bench_lineage.py --quick   # 10,000 events

Target (issue 22): each of ``Halo.history`` (an event in the middle of the
trace), ``Halo.blame`` (the most revised target) and ``Halo.beliefs`` (at the
head, and at an event half way) <= 2 s warm: in a process that has read the
branch once (the parsed events are cached by head commit), as a server or a
site build does. The first (cold) call of each is printed for information, with
the time of the branch read it includes.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import common

from halo_git import Halo


def timed(fn, repeat: int = 3) -> tuple[float, float]:
    """(first call, median of the next ``repeat``) in seconds."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return first, sorted(samples)[len(samples) // 2]


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--events", type=int, help="number of events (default 100,000; --quick 10,000)")
    args = p.parse_args(argv)
    n = args.events or (10_000 if args.quick else 100_000)
    tmp = Path(tempfile.mkdtemp(prefix="halo-bench-lineage-"))
    try:
        built = common.build(tmp / "root", n)
        print(f"{n:,} events built in {built:.1f} s; {common.machine_note()}")
        with Halo(tmp / "root", screen=None) as h:
            t0 = time.perf_counter()
            events = h.events(common.AGENT)
            print(f"first read of the branch: {time.perf_counter() - t0:.2f} s")
            targets = Counter(e.fields["target"] for e in events if e.kind == "revise")
            target = targets.most_common(1)[0][0]
            middle = events[len(events) // 2]
            middle = next(e for e in events[len(events) // 2:] if e.uses)
            ok = True
            for name, fn in (
                (f"history {middle.id}", lambda: h.history(common.AGENT, middle.id)),
                (f"blame --target {target!r} ({targets[target]} versions)", lambda: h.blame(common.AGENT, target)),
                ("beliefs (head)", lambda: h.beliefs(common.AGENT)),
                (f"beliefs --at e{n // 2}", lambda: h.beliefs(common.AGENT, at=f"e{n // 2}")),
            ):
                first, warm = timed(fn)
                ok &= warm <= 2.0
                print(f"{name}: warm median {warm * 1e3:.0f} ms (first call {first * 1e3:.0f} ms) -> {common.verdict(warm <= 2.0)}")
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
