"""Benchmark: import of 100,000 JSONL events, one commit per event.

    python bench/bench_import.py           # 100,000 events
    python bench/bench_import.py --quick   # 10,000 events

Target: >= 2,000 events/s for ``Halo.import_lines`` (parse, validate and screen
every line, renumber, then write: each event is still its own commit; the batch
goes straight into one pack and the branch moves once, all or nothing).

Printed with it, from the same run:
- where the time goes: parsing and validating the lines (``jsonl.parse_lines``)
  and rendering the YAML files (``model.to_yaml``) timed on their own; the rest
  is the store (trees, hashes, compression, pack and index);
- baseline: ``git fast-import`` making the same commits (same files, paths,
  messages, authors and dates), the git binary's own bulk path;
- baseline: the same import writing one loose object file per Git object, as
  single appends do, on a sample.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

import halo_git.store.repo as store_repo
from halo_git import Halo, jsonl
from halo_git.model import commit_message, epoch_seconds, to_yaml
from halo_git.screening import default_screen
from halo_git.store import event_path


def halo_import(root: Path, lines: list[str]) -> float:
    with Halo(root) as h:
        t0 = time.perf_counter()
        ids = h.import_lines(common.AGENT, lines)
        seconds = time.perf_counter() - t0
    assert len(ids) == len(lines)
    return seconds


def fast_import(work: Path, lines: list[str]) -> float:
    """Seconds ``git fast-import`` takes for the same commits."""
    events = jsonl.plan(jsonl.parse_lines(lines, default_screen), 1, common.AGENT, "import", lambda n: "")
    chunks = []
    for e in events:
        who = f"{e.agent} <{e.agent}@halo> {epoch_seconds(e.time)} +0000"
        msg = commit_message(e).encode()
        data = to_yaml(e)
        chunks.append(b"commit refs/heads/main\nauthor %s\ncommitter %s\ndata %d\n%s\nM 100644 inline %s\ndata %d\n%s\n"
                      % (who.encode(), who.encode(), len(msg), msg, event_path(e.number).encode(), len(data), data))
    stream = b"".join(chunks)
    repo = work / "fast-import.git"
    env = {**os.environ, "GIT_DIR": str(repo), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(work)}
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True, env=env)
    t0 = time.perf_counter()
    subprocess.run(["git", "fast-import", "--quiet"], input=stream, check=True, env=env)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    args = common.parser(__doc__).parse_args(argv)
    n = 10_000 if args.quick else 100_000
    sample = 2_000 if args.quick else 5_000
    lines = common.event_lines(n)
    with tempfile.TemporaryDirectory(prefix="halo-bench-import-") as tmp:
        work = Path(tmp)
        seconds = halo_import(work / "root", lines)
        pack_bytes = common.disk_bytes(work / "root" / f"{common.AGENT}.git" / "objects")[0]
        t0 = time.perf_counter()
        items = jsonl.parse_lines(lines, default_screen)
        parse = time.perf_counter() - t0
        events = jsonl.plan(items, 1, common.AGENT, "import", lambda k: "")
        t0 = time.perf_counter()
        for e in events:
            to_yaml(e)
        yaml = time.perf_counter() - t0
        git_seconds = fast_import(work, lines)
        git_bytes = common.disk_bytes(work / "fast-import.git" / "objects")[0]
        saved, store_repo.PACK_BATCH_MIN = store_repo.PACK_BATCH_MIN, len(lines) + 1
        try:
            loose = halo_import(work / "loose", lines[:sample])
        finally:
            store_repo.PACK_BATCH_MIN = saved
    rate = n / seconds
    print(f"import of {n:,} events through Halo.import_lines: {seconds:.1f} s = {rate:,.0f} events/s "
          f"(target >= 2,000: {common.verdict(rate >= 2000)})")
    print(f"  of which parsing, validating and screening the lines {parse:.1f} s, YAML {yaml:.1f} s, "
          f"store {seconds - parse - yaml:.1f} s")
    print(f"  pack written: {pack_bytes / n:.0f} bytes per event (after the background consolidation)")
    print("baselines in the same run:")
    print(f"  git fast-import, same commits: {git_seconds:.1f} s = {n / git_seconds:,.0f} events/s, "
          f"{git_bytes / n:.0f} bytes per event;  HALO / git = {rate / (n / git_seconds):.2f} of its speed")
    print(f"  same import writing loose objects ({sample:,} events): {sample / loose:,.0f} events/s;  "
          f"the pack path is {rate / (sample / loose):.1f}x faster")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
