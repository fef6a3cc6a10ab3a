"""Measurement: how far back one append changes the diagnosis.

    python bench/bench_append_reach.py           # every 4th labelled trace, every prefix
    python bench/bench_append_reach.py --all     # every labelled trace
    python bench/bench_append_reach.py --quick   # every 40th, for CI

An incremental diagnosis would keep the findings of the last head and work out
only those an append can change. This script measures what that set is on the
labelled traces (``tests/fixtures/traces_apart*``, written apart from the
rules): it diagnoses every prefix of each trace and compares each diagnosis
with the one before it. A finding *about an earlier event* changed when a
finding of that rule starting at an earlier event appeared, went or changed
severity, events or message. For those it prints how many appends caused one,
whether the appended event links to an event the finding cites (``uses`` or
``about``) or not, how many events back the finding starts, what changed and
the rules.

It then does the same at 40 append points of the worded trace the report
benchmark uses (``bench_report.worded_events``, 5,000 events, 1,000 with
``--quick``; ``--events N``), spread over its second half, where a session can
be hundreds of events long.
"""

from __future__ import annotations

import collections
import statistics
import sys
import time
from pathlib import Path

import common

from halo_git.diagnosis import diagnose
from halo_git.jsonl import parse_lines, plan

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def _trace(path: Path) -> list:
    lines = path.read_text(encoding="utf-8").splitlines()
    return plan(parse_lines(lines), 1, "reach", "default", lambda n: "")


def _findings(events: list) -> dict[tuple[str, str], tuple]:
    d = diagnose(events, agent="reach", branch="main", head=None)
    return {(f.rule, f.ids[0]): (f.severity, f.ids, f.message) for f in d.findings}


def _changes(before: dict, after: dict, new_id: str) -> list[tuple[tuple[str, str], str]]:
    """(rule, first event) and what changed, for each finding about an earlier event than ``new_id`` that an
    append changed: appeared (new), went (gone), or kept its place with another severity, other events or
    only another message."""
    out = []
    for key in before.keys() | after.keys():
        old, now = before.get(key), after.get(key)
        if old != now and key[1] != new_id:
            out.append((key, "new" if old is None else "gone" if now is None else "severity" if old[0] != now[0]
                        else "events" if old[1] != now[1] else "message"))
    return out


def measure(paths: list[Path]) -> dict:
    out = {"traces": len(paths), "appends": 0, "changing": 0, "linked": 0, "unlinked": 0,
           "back": collections.Counter(), "rules": collections.Counter(), "what": collections.Counter(), "events": 0}
    for path in paths:
        events = _trace(path)
        out["events"] += len(events)
        position = {e.id: k for k, e in enumerate(events)}
        before = _findings(events[:1])
        for k in range(2, len(events) + 1):
            new = events[k - 1]
            after = _findings(events[:k])
            out["appends"] += 1
            links = set(new.uses) | ({new.fields["about"]} if new.kind == "outcome" else set())
            changed = _changes(before, after, new.id)
            if changed:
                out["changing"] += 1
            for key, what in changed:
                out["what"][what] += 1
                cited = set((after.get(key) or before[key])[1])
                out["linked" if cited & links else "unlinked"] += 1
                out["rules"][key[0]] += 1
                out["back"][min((k - 1 - position[key[1]]) // 10 * 10, 100)] += 1
            before = after
    return out


def measure_worded(n: int, points: int = 40) -> dict:
    """Changed findings about earlier events at ``points`` appends spread over the second half of a worded
    trace of ``n`` events: how many per append, and the farthest back."""
    events = common.worded_events(n, agent="reach")
    position = {e.id: k for k, e in enumerate(events)}
    counts, farthest, what = [], [], collections.Counter()
    for k in sorted({n // 2 + i * (n - n // 2 - 1) // max(points - 1, 1) for i in range(points)}):
        before, after, new = _findings(events[:k]), _findings(events[:k + 1]), events[k]
        changed = _changes(before, after, new.id)
        counts.append(len(changed))
        farthest.append(max((k - position[key[1]] for key, _ in changed), default=0))
        what.update((key[0], w) for key, w in changed)
    return {"points": len(counts), "counts": counts, "farthest": farthest, "what": what}


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--all", action="store_true", help="every labelled trace, not every 4th")
    p.add_argument("--events", type=int, help="size of the worded trace (default 5,000; 1,000 with --quick)")
    args = p.parse_args(argv)
    n = args.events if args.events is not None else 1_000 if args.quick else 5_000
    if n < 2:
        p.error(f"--events must be 2 or more, not {n}")
    paths = sorted(FIXTURES.glob("traces_apart*/*.jsonl"))
    paths = paths[:: 40 if args.quick else 1 if args.all else 4]
    t0 = time.perf_counter()
    r = measure(paths)
    changes = r["linked"] + r["unlinked"]
    print(f"{r['traces']} labelled traces, {r['events']:,} events, every prefix diagnosed "
          f"({time.perf_counter() - t0:.0f} s); {common.machine_note()}")
    print(f"appends: {r['appends']:,}; appends that changed a finding about an earlier event: {r['changing']:,} "
          f"({r['changing'] / max(r['appends'], 1):.0%})")
    print(f"findings about an earlier event changed: {changes:,}; citing an event the appended one links to: "
          f"{r['linked']:,}; citing none: {r['unlinked']:,} ({r['unlinked'] / max(changes, 1):.0%})")
    print("events back from the append to the finding's first event:",
          ", ".join(f"{k}-{k + 9 if k < 100 else ''}: {v:,}" for k, v in sorted(r["back"].items())))
    print("what changed:", ", ".join(f"{w} {count:,}" for w, count in r["what"].most_common()))
    print("by rule:", ", ".join(f"{rule} {count:,}" for rule, count in r["rules"].most_common()))
    w = measure_worded(n)
    moved = [c for c in w["counts"] if c]
    print(f"worded trace of {n:,} events, {w['points']} appends in its second half: {len(moved)} changed a finding "
          f"about an earlier event; changed findings per append median {statistics.median(w['counts']):g}, "
          f"most {max(w['counts'])}; farthest back {max(w['farthest']):,} events")
    print("  what changed, by rule:", ", ".join(f"{rule} {what} {count:,}" for (rule, what), count in w["what"].most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
