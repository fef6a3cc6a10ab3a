"""Benchmark: one append through the Python API at 1,000 and at 100,000 events of history.

    python bench/bench_append.py           # 1k vs 100k history, 1,000 appends each
    python bench/bench_append.py --quick   # 1k vs 10k history, 300 appends each

Targets: median append <= 3 ms, and median at 100k / median at 1k <= 1.2 (flat).

Each sample is one ``Halo.log`` call (validation, screening, YAML, six Git
objects, compare-and-swap of the branch), exactly what a tool call costs the
server. The appends alternate between the two repositories in random order, so
both histories see the same machine noise. Automatic packing stays on, as in
production: each repository crosses a multiple of 1,000 events once, so a
background pass runs during the measurement.

Baselines, measured in the same run:
- the ``git`` binary making the same commit (same YAML file at the same path)
  through plumbing: ``hash-object -w``, ``mktree`` for each of the four trees,
  ``commit-tree``, ``update-ref`` (7 processes per event);
- one JSON line appended to an open file, with ``fsync`` (the physical floor of
  a durable log) and without.

And where an append's time goes, from the same run: the six loose object files
it writes (dulwich ``add_object``), the compare-and-swap of the branch ref, and
for comparison the same six objects written as one pack instead.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from bench_report import synthetic_events

from dulwich.objects import Blob
from dulwich.repo import Repo

from halo_git import Halo
from halo_git.model import commit_message, epoch_seconds, to_yaml
from halo_git.store import event_path
from halo_git.store.maintenance import OBJ_BLOB, PackWriter, object_id


def measure_halo(small: Path, big: Path, samples: int) -> tuple[list[float], list[float]]:
    times: dict[Path, list[float]] = {small: [], big: []}
    rng = random.Random(1)
    with Halo(small) as a, Halo(big) as b:
        pairs = [(small, a), (big, b)]
        for i in range(samples):
            rng.shuffle(pairs)
            for root, h in pairs:
                t0 = time.perf_counter()
                h.log(common.AGENT, "observe", f"user asked for a reminder at 9:{i % 60:02d}", session="bench-append")
                times[root].append(time.perf_counter() - t0)
    return times[small], times[big]


def git_plumbing(work: Path, samples: int) -> list[float]:
    """Per-event seconds of the same commit made by the git binary."""
    repo = work / "plumbing.git"
    env = {**os.environ, "GIT_DIR": str(repo), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(work)}
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True, env=env)

    def git(*args: str, data: bytes | None = None) -> str:
        return subprocess.run(["git", *args], input=data, capture_output=True, check=True, env=env).stdout.decode().strip()

    entries: dict[str, dict[str, tuple[str, str, str]]] = {}  # directory -> name -> (mode, type, id)
    parent = None
    times = []
    for event in synthetic_events(samples, agent=common.AGENT):
        t0 = time.perf_counter()
        parts = event_path(event.number).split("/")
        child = ("100644", "blob", git("hash-object", "-w", "--stdin", data=to_yaml(event)))
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            entries.setdefault(folder, {})[parts[depth]] = child
            listing = "".join(f"{m} {t} {s}\t{n}\n" for n, (m, t, s) in entries[folder].items())
            child = ("040000", "tree", git("mktree", data=listing.encode()))
        env.update(GIT_AUTHOR_NAME=event.agent, GIT_AUTHOR_EMAIL=f"{event.agent}@halo", GIT_COMMITTER_NAME=event.agent,
                   GIT_COMMITTER_EMAIL=f"{event.agent}@halo", GIT_AUTHOR_DATE=f"{epoch_seconds(event.time)} +0000",
                   GIT_COMMITTER_DATE=f"{epoch_seconds(event.time)} +0000")
        commit = git("commit-tree", child[2], *(["-p", parent] if parent else []), "-m", commit_message(event))
        git("update-ref", "refs/heads/main", commit, *([parent] if parent else []))
        parent = commit
        times.append(time.perf_counter() - t0)
    return times


def parts(work: Path, samples: int) -> dict[str, list[float]]:
    """Seconds for the storage steps of an append, on a scratch repository."""
    path = work / "parts.git"
    times: dict[str, list[float]] = {"loose": [], "pack": [], "ref": [], "create": []}
    with Repo.init_bare(str(path), mkdir=True) as repo:
        old = None
        for i in range(samples):
            datas = [f"object {i}.{k} ".encode() * 12 for k in range(6)]
            t0 = time.perf_counter()
            for d in datas:
                repo.object_store.add_object(Blob.from_string(d))
            times["loose"].append(time.perf_counter() - t0)
            new = Blob.from_string(datas[0]).id
            t0 = time.perf_counter()
            assert repo.refs.set_if_equals(b"refs/heads/main", old or b"0" * 40, new)
            times["ref"].append(time.perf_counter() - t0)
            old = new
            t0 = time.perf_counter()
            writer = PackWriter(path / "objects" / "pack")
            for d in datas:
                writer.add(object_id(OBJ_BLOB, d + b"+"), OBJ_BLOB, d + b"+")
            writer.install()
            times["pack"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            fd = os.open(work / f"create-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.close(fd)
            times["create"].append(time.perf_counter() - t0)
    return times


def json_lines(work: Path, samples: int, fsync: bool) -> list[float]:
    times = []
    line = b'{"id": "e1", "kind": "observe", "summary": "user asked for a reminder at 9:30"}\n'
    with open(work / f"log-{fsync}.jsonl", "ab") as f:
        for _ in range(samples):
            t0 = time.perf_counter()
            f.write(line)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
            times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    args = common.parser(__doc__).parse_args(argv)
    big_n = 10_000 if args.quick else 100_000
    samples = 300 if args.quick else 1_000
    with tempfile.TemporaryDirectory(prefix="halo-bench-append-") as tmp:
        work = Path(tmp)
        lines = common.event_lines(big_n)
        common.build(work / "small", 1_000, lines[:1_000])
        built = common.build(work / "big", big_n, lines)
        print(f"built histories of 1,000 and {big_n:,} events (the big one in {built:.0f} s)")
        small, big = measure_halo(work / "small", work / "big", samples)
        plumbing = git_plumbing(work, 20 if args.quick else 50)
        steps = parts(work, 200 if args.quick else 500)
        synced = json_lines(work, samples, fsync=True)
        unsynced = json_lines(work, samples, fsync=False)
    m_small, m_big = common.median_ms(small), common.median_ms(big)
    ratio = m_big / m_small
    print(f"\nappend through Halo.log, {samples} samples each (median / p95):")
    print(f"  history {1_000:>7,}: {m_small:6.2f} ms / {common.p95_ms(small):6.2f} ms")
    print(f"  history {big_n:>7,}: {m_big:6.2f} ms / {common.p95_ms(big):6.2f} ms")
    print(f"  ratio {big_n // 1000}k / 1k: {ratio:.2f}   (target <= 1.2: {common.verdict(ratio <= 1.2)})")
    print(f"  median at {big_n // 1000}k: {m_big:.2f} ms (target <= 3 ms: {common.verdict(m_big <= 3)})")
    print("baselines in the same run (median):")
    m_git = common.median_ms(plumbing)
    print(f"  git plumbing, same commit ({len(plumbing)} events): {m_git:7.2f} ms   HALO / git = {m_big / m_git:.2f}")
    print(f"  JSON line + fsync:                  {common.median_ms(synced):7.3f} ms   HALO / it = {m_big / common.median_ms(synced):.1f}")
    print(f"  JSON line, no fsync:                {common.median_ms(unsynced):7.3f} ms")
    print("where an append's time goes (median, same run, scratch repository):")
    print(f"  six loose object files: {common.median_ms(steps['loose']):.2f} ms; ref compare-and-swap: {common.median_ms(steps['ref']):.2f} ms; "
          f"creating one empty file: {common.median_ms(steps['create']):.3f} ms")
    print(f"  the same six objects as one pack instead: {common.median_ms(steps['pack']):.2f} ms")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
