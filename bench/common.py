"""Helpers shared by the storage benchmarks (``bench_append``, ``bench_import``,
``bench_disk``, ``bench_read``, ``bench_mcp``): realistic event lines, a
repository of a given size built fast, the figures every script prints, and a
way to see whether the machine was busy while it measured."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from bench_report import synthetic_events, worded_events  # the diagnosis benchmark's plausible traces

from halo_git import Halo
from halo_git.jsonl import export_lines

AGENT = "bench"


def parser(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    p.add_argument("--quick", action="store_true", help="small sizes and few samples, for CI")
    return p


def event_lines(n: int, *, worded: bool = False) -> list[str]:
    """``n`` plausible events as JSONL lines (the export format import reads); ``worded``: with summaries drawn
    from the labelled traces (``bench_report.worded_events``)."""
    return list(export_lines((worded_events if worded else synthetic_events)(n, agent=AGENT)))


def build(root: Path, n: int, lines: list[str] | None = None) -> float:
    """A root whose agent ``bench`` holds ``n`` events, imported in batches of
    10,000 (as a user would import a large file); returns the seconds it took
    including the background packing the import started."""
    lines = lines if lines is not None else event_lines(n)
    t0 = time.perf_counter()
    with Halo(root) as h:  # closing waits for the background pass
        for start in range(0, n, 10_000):
            h.import_lines(AGENT, lines[start : start + 10_000])
    return time.perf_counter() - t0


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def p95_ms(samples: list[float]) -> float:
    return sorted(samples)[int(0.95 * (len(samples) - 1))] * 1e3


def disk_bytes(path: Path) -> tuple[int, int]:
    """(apparent bytes, bytes allocated on disk) of every file under ``path``."""
    apparent = allocated = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            st = os.lstat(os.path.join(dirpath, name))
            apparent += st.st_size
            allocated += st.st_blocks * 512
    return apparent, allocated


def machine_note() -> str:
    """CPUs and load average, printed with every result: this machine is shared."""
    load = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}, Python {sys.version.split()[0]}"


def verdict(ok: bool) -> str:
    return "meets the target" if ok else "MISSES the target"
