"""Erasure and retention: the cost of ``redact`` on a large history.

Measures, in fresh temporary roots (each built by import, as ``common.build``):

* ``redact`` of one event at e100 of a 20,000-event history (every later
  commit re-created, the record written, the caches rebuilt, every unreachable
  object removed), split into its stages; baseline: ``verify`` of the same
  branch (one walk reading every commit, which any rewrite must at least do);
* the retention pass over 100,000 events: the dry run (the policy applied to
  every event) and ``--apply`` of a policy selecting the first session (the
  whole history after it is re-created). Target: <= 60 s.

Each redaction also prints the repository's size before and after (the new
objects less the removed ones) and the first read after it in a fresh
process (``events``: the rebuilt cache file proven against the new history,
which every cold reader does).

``--quick`` runs 2,000 and 10,000 events.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import AGENT, build, disk_bytes, machine_note, parser  # noqa: E402

from halo_git import Halo  # noqa: E402
from halo_git.store import erasure, verify_branch  # noqa: E402
from halo_git.store.signing import Identity  # noqa: E402

WHO = Identity("Bench Eraser", "bench@example.com")


def timed_redact(root: Path, numbers: list[int]) -> tuple[float, dict[str, float], int]:
    """Seconds for one redaction, the share of its stages, commits re-created."""
    stages: dict[str, float] = {}
    originals = {name: getattr(erasure, name) for name in ("_rebuild_caches", "prune")}

    def timing(name):
        def run(*a, **k):
            t = time.perf_counter()
            try:
                return originals[name](*a, **k)
            finally:
                stages[name] = stages.get(name, 0.0) + time.perf_counter() - t
        return run

    for name in originals:
        setattr(erasure, name, timing(name))
    try:
        with Halo(root) as h:
            repo = h.store.repo(AGENT)
            t0 = time.perf_counter()
            done = erasure.redact(repo, "main", numbers, WHO, "bench erasure")
            total = time.perf_counter() - t0
    finally:
        for name, fn in originals.items():
            setattr(erasure, name, fn)
    stages["rewrite and record"] = total - sum(stages.values())
    return total, stages, done.rewritten


def after(root: Path, size_before: int) -> str:
    """The repository's size change and the first read after a redaction."""
    size = disk_bytes(root / f"{AGENT}.git")[0]
    with Halo(root) as h:
        t = time.perf_counter()
        h.events(AGENT)
        read = time.perf_counter() - t
        problem = h.store.repo(AGENT).cache_problem("main")
    return (f"  repository {size_before / 1e6:.0f} MB -> {size / 1e6:.0f} MB; first read after, by a fresh Halo (a cold reader): {read:.1f} s"
            + (f" (cache rejected: {problem})" if problem else " (rebuilt cache accepted)"))


def main() -> int:
    args = parser(__doc__).parse_args()
    small, big = (2_000, 10_000) if args.quick else (20_000, 100_000)
    with tempfile.TemporaryDirectory(prefix="halo-bench-erasure-") as tmp:
        root = Path(tmp) / "a"
        built = build(root, small)
        with Halo(root) as h:
            t = time.perf_counter()
            verify_branch(h.store.repo(AGENT), "main")
            walk = time.perf_counter() - t
            h.events(AGENT)  # the caches a reader leaves, which the redaction must rebuild
        size = disk_bytes(root / f"{AGENT}.git")[0]
        total, stages, rewritten = timed_redact(root, [100])
        print(f"redact e100 of {small:,} events: {total:.1f} s ({rewritten:,} commits re-created); "
              + ", ".join(f"{k} {v:.1f} s" for k, v in stages.items()))
        print(f"  baseline verify of the same branch: {walk:.1f} s (ratio {total / walk:.1f}x); built by import in {built:.0f} s")
        print(after(root, size))

        root = Path(tmp) / "b"
        built = build(root, big)
        policy = Path(tmp) / "halo-retention.yaml"
        with Halo(root) as h:
            first = h.events(AGENT)[0].session
            policy.write_text(f"reason: bench retention\nrules:\n  - session: '{first}'\n    after: 1d\n")
            t = time.perf_counter()
            plan = h.retention(AGENT, str(policy))
            dry = time.perf_counter() - t
        ids = [int(i[1:]) for i in plan.events]
        print(f"retention dry run over {big:,} events: {dry:.1f} s, {len(ids):,} event(s) due (session {first!r}, e{ids[0]}..e{ids[-1]})")
        size = disk_bytes(root / f"{AGENT}.git")[0]
        total, stages, rewritten = timed_redact(root, ids)
        print(f"retention apply over {big:,} events: {total:.1f} s ({rewritten:,} commits re-created; target <= 60 s); "
              + ", ".join(f"{k} {v:.1f} s" for k, v in stages.items()))
        print(after(root, size))
    print(machine_note())
    return 0


if __name__ == "__main__":
    sys.exit(main())
