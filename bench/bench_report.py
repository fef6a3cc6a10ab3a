"""Benchmark: the diagnosis report of 10,000 and 100,000 events.

    python bench/bench_report.py           # 10k and 100k in memory, plus Halo.report on a 10k repository
    python bench/bench_report.py --quick   # 2k in memory only
    python bench/bench_report.py --events 200000   # these sizes only, in memory

Each size runs twice: on the plain trace ("act step 7") and on the worded one,
whose summaries are drawn from the labelled traces (``worded_events``): the
readings and the pairing of events by subject cost what they cost on a real
agent's trace only there.

The pure part builds a synthetic trace in memory (through the model's own
validation, so ids and channels are real), then times ``diagnose`` plus
``render_report`` and prints the median of several runs and the peak memory
the report needed (traced allocations), which should grow linearly with the
events. The end-to-end part imports 10,000 events into a real repository and
times ``Halo.report`` from a fresh ``Halo`` (reading the branch included) and
again once the branch is cached. Target: 100,000 events in under 5 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from halo_git import Halo
from halo_git.diagnosis import diagnose, reading
from halo_git.jsonl import export_lines
from halo_git.model import Event, check_call, resolve
from halo_git.report import render_report

TARGETS = [f"rule {i}" for i in range(12)]


def synthetic_events(n: int, *, session_size: int = 200, seed: int = 7, agent: str = "bench") -> list[Event]:
    """A plausible assistant trace: observations, memories recalled across sessions, acts on
    request and on its own in every form, most with outcomes, and occasional revisions."""
    rng = random.Random(seed)
    events: list[Event] = []
    memories: list[str] = []
    acts: list[str] = []
    last: dict[str, str] = {}

    def kind_of(k: int) -> str:
        return events[k - 1].kind

    kinds = ["observe", "remember", "recall", "act", "outcome", "revise"]
    weights = [30, 12, 12, 24, 19, 3]
    for i in range(1, n + 1):
        kind = rng.choices(kinds, weights)[0] if "observe" in last else "observe"
        args: dict = {}
        if kind == "remember":
            src = last.get(rng.choice(("observe", "observe", "outcome", "act")))
            args["uses"] = [src] if src and rng.random() < 0.9 else []
        elif kind == "recall":
            if not memories:
                kind = "observe"
            else:
                args["uses"] = sorted(set(rng.choices(memories[-300:], k=rng.randint(1, 3))), key=lambda s: int(s[1:]))
        elif kind == "act":
            args["trigger"] = "self" if rng.random() < 0.25 else "request"
            args["form"] = rng.choices(("silence", "communication", "preparation", "execution"), (5, 60, 15, 20))[0]
            uses = [last["observe"]] if rng.random() < 0.9 else []
            if "recall" in last and rng.random() < 0.5:
                uses.append(last["recall"])
            args["uses"] = uses
        elif kind == "outcome":
            if not acts:
                kind = "observe"
            else:
                args["about"] = rng.choice(acts[-5:])
        elif kind == "revise":
            args.update(target=rng.choice(TARGETS), made_by="agent" if rng.random() < 0.7 else "user",
                        governance=rng.choices(("approved", "bounded", "none"), (5, 2, 3))[0],
                        uses=[last["outcome"]] if "outcome" in last and rng.random() < 0.85 else [])
        if kind == "observe" and "act" in last and rng.random() < 0.2:
            args["uses"] = [last["act"]]
        seconds = i * 7
        when = f"2026-{1 + seconds // 2_592_000 % 12:02d}-{1 + seconds // 86400 % 30:02d}T{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"
        draft = check_call(kind, {"summary": f"{kind} step {i}", **args})
        ev = resolve(draft, i, agent, f"s{(i - 1) // session_size + 1}", when, kind_of)
        events.append(ev)
        last[kind] = ev.id
        if kind == "remember":
            memories.append(ev.id)
        elif kind == "act":
            acts.append(ev.id)
    return events


FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def _tag(k: int) -> str:
    """A word no other summary has ("qb", "qcb", ...): makes every summary distinct, as a real agent's are."""
    out = "q"
    while True:
        out += "bcdfghjklmnpqrstvwxz"[k % 20]
        k //= 20
        if not k:
            return out


def worded_events(n: int, *, seed: int = 11, agent: str = "bench") -> list[Event]:
    """``synthetic_events`` with summaries that read like an agent's: each drawn (seeded) from the summaries of
    the same kind in the labelled traces under ``tests/fixtures`` and made distinct by a word of its own. The
    plain trace's "act step 7" summaries are all alike to the readings (kept per summary, no subject in
    common), which hides what reading and pairing events by subject cost on a real trace."""
    pool: dict[str, list[str]] = {}
    for path in sorted(FIXTURES.glob("traces_apart*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            pool.setdefault(d["kind"], []).append(d["summary"])
    rng = random.Random(seed)
    return [dataclasses.replace(e, summary=f"{rng.choice(pool[e.kind])} {_tag(k)}")
            for k, e in enumerate(synthetic_events(n, agent=agent))]


def report_seconds(events: list[Event], runs: int) -> tuple[float, int, int]:
    """Median seconds of diagnose + render, the report's size and its number of findings (the readings kept
    per summary are emptied first, so the first run is a fresh process's; ``first_seconds`` times it alone)."""
    reading.forget()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        d = diagnose(events, agent="bench", branch="main", head="0" * 40)
        text = render_report(d)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(text), len(d.findings)


def first_seconds(events: list[Event]) -> float:
    """Seconds of diagnose + render in a process that has kept no reading yet."""
    reading.forget()
    t0 = time.perf_counter()
    render_report(diagnose(events, agent="bench", branch="main", head="0" * 40))
    return time.perf_counter() - t0


def peak_mib(events: list[Event]) -> float:
    """Peak traced memory of one diagnose + render from no kept reading (the kept readings included)."""
    reading.forget()
    tracemalloc.start()
    render_report(diagnose(events, agent="bench", branch="main", head="0" * 40))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def end_to_end(n: int, events: list[Event], work: Path) -> tuple[float, float, float]:
    root = work / f"root{n}"
    t0 = time.perf_counter()
    with Halo(root) as h:
        h.import_lines("bench", list(export_lines(events)))
    setup = time.perf_counter() - t0
    with Halo(root) as h:
        t0 = time.perf_counter()
        h.report("bench")
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        h.report("bench")
        warm = time.perf_counter() - t0
    return setup, cold, warm


def _size(text: str) -> int:
    """A trace size for --events: a whole number of events, at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is no number of events: give a whole number of at least 1")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="2,000 events in memory only")
    p.add_argument("--events", type=_size, nargs="+", metavar="N", help="these trace sizes instead (in memory only)")
    args = p.parse_args(argv)
    sizes = args.events or ([2_000] if args.quick else [10_000, 100_000])
    for trace, make in (("plain", synthetic_events), ("worded", worded_events)):
        for n in sizes:
            events = make(n)
            seconds, chars, findings = report_seconds(events, runs=3 if n >= 100_000 else 5)
            print(f"{n:>7} events, {trace}: report in {seconds:.2f} s (median; the first, from no kept reading, "
                  f"{first_seconds(events):.2f} s), {chars} characters, {findings} findings, "
                  f"peak {peak_mib(events):.0f} MiB traced")
            sys.stdout.flush()
    if not (args.quick or args.events):
        n = 10_000
        with tempfile.TemporaryDirectory(prefix="halo-bench-") as tmp:
            setup, cold, warm = end_to_end(n, synthetic_events(n), Path(tmp))
        print(f"{n:>7} events in a repository: Halo.report {cold:.2f} s from a fresh Halo, {warm:.2f} s cached "
              f"(import took {setup:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
