"""Where one `halo_observe` over MCP stdio spends its time, against `halo_guide`.

    python bench/profile_write.py           # 300 calls of each kind
    python bench/profile_write.py --quick   # 60 calls of each kind
    python bench/profile_write.py --lever   # only the lever (3.), and one packing pass over both repositories

Not a figure with a target but the measurement behind one (``bench_mcp.py``'s
observe / guide ratio): the same client as ``bench_mcp.py`` calls one tool
``N`` times on a fresh server, for each tool:

1. the server under ``strace -c -f`` (when strace is installed): system calls
   per call of each tool, and the difference (what storing an event adds);
2. ``cProfile`` of ``Halo.log_call`` in this process, the function the
   server's ``halo_observe`` calls (the server runs tools in a worker thread,
   which ``cProfile`` does not follow): milliseconds per call in its parts:
   writing the six loose objects, the ref compare-and-swap, the rest;
3. the lever, measured: appends through ``Halo.log`` on two fresh roots,
   alternating, one as shipped (six loose objects) and one whose append writes
   its six objects as one small pack instead (``PackWriter``, patched in here
   only, not a shipped mode), up to 240 events (before the packing pass);
4. the round trips themselves, ``halo_observe`` and ``halo_guide`` alternating
   on one session (``bench_mcp.halo``), so the difference can be set against 2.
"""

from __future__ import annotations

import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def calls(command: list[str], tool: str, n: int, cwd: Path) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd))
    async with Client(params, mode="legacy") as c:
        for i in range(n):
            args = {"agent": common.AGENT, "summary": f"user asked for a reminder at 9:{i % 60:02d}"} if tool == "halo_observe" else {}
            r = await c.call_tool(tool, args)
            assert not r.is_error, r


def strace_counts(work: Path, tool: str, n: int) -> dict[str, int]:
    out = work / f"strace-{tool}.txt"
    root = work / f"strace-root-{tool}"
    cmd = ["strace", "-c", "-f", "-o", str(out), sys.executable, "-m", "halo_git.cli", "serve", "--root", str(root)]
    anyio.run(calls, cmd, tool, n, work)
    counts: dict[str, int] = {}
    for line in out.read_text().splitlines():
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
        if m:
            counts[m.group(2)] = int(m.group(1))
    return counts


def profile(work: Path, n: int) -> tuple[pstats.Stats, float]:
    import cProfile
    import time

    from halo_git import Halo

    with Halo(work / "profile-root") as h:
        h.log_call("observe", {"agent": common.AGENT, "summary": "warm-up"})
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        for i in range(n):
            h.log_call("observe", {"agent": common.AGENT, "summary": f"user asked for a reminder at 9:{i % 60:02d}"})
        prof.disable()
        seconds = time.perf_counter() - t0
    return pstats.Stats(prof), seconds


def cumulative(stats: pstats.Stats, file_part: str, name: str) -> tuple[float, int]:
    total, count = 0.0, 0
    for (file, _line, func), (_cc, nc, _tt, ct, _callers) in stats.stats.items():
        if func == name and file_part in file:
            total += ct
            count += nc
    return total, count


def micro_pack_lever(work: Path, n: int) -> tuple[list[float], list[float], int]:
    import time

    from halo_git import Halo
    from halo_git.store import maintenance
    from halo_git.store.repo import AgentRepo

    def write_pack(self, repo, items):
        writer = maintenance.PackWriter(self.path / "objects" / "pack", fsync=self.fsync)
        for item in items:
            writer.add(item.sha, item.type_num, item.raw)
        writer.install()

    loose: list[float] = []
    packed: list[float] = []
    shipped = AgentRepo._write_loose
    with Halo(work / "lever-loose") as a, Halo(work / "lever-pack") as b:
        for i in range(n):
            for h, times, patch in ((a, loose, shipped), (b, packed, write_pack)):
                AgentRepo._write_loose = patch
                try:
                    t0 = time.perf_counter()
                    h.log(common.AGENT, "observe", f"user asked for a reminder at 9:{i % 60:02d}")
                    times.append(time.perf_counter() - t0)
                finally:
                    AgentRepo._write_loose = shipped
    n_packs = len(list((work / "lever-pack" / f"{common.AGENT}.git" / "objects" / "pack").glob("*.pack")))
    return loose, packed, n_packs


def lookups(repo_path: Path) -> float:
    """Seconds per object to read every object reachable from the head in a
    fresh dulwich repository (what a cold reader pays per object)."""
    import time

    from dulwich.repo import Repo

    with Repo(str(repo_path)) as r:
        shas = []
        c = r[r.refs[b"refs/heads/main"]]
        while True:
            shas.append(c.tree)
            shas.append(c.id)
            if not c.parents:
                break
            c = r[c.parents[0]]
        t0 = time.perf_counter()
        for sha in shas:
            r.object_store.get_raw(sha)
        return (time.perf_counter() - t0) / len(shas)


def fold(repo_path: Path) -> tuple[int, int, float, float]:
    """One packing pass over a repository (what folds the small packs), then
    (packs before, packs after, objects/ bytes per event after, a cold
    reader's lookup after)."""
    from halo_git.store import maintenance

    pack_dir = repo_path / "objects" / "pack"
    before = len(maintenance.packs(pack_dir))
    maintenance.run(repo_path)
    events = int(subprocess.run(["git", "--git-dir", str(repo_path), "rev-list", "--count", "main"], capture_output=True, text=True, check=True).stdout)
    return before, len(maintenance.packs(pack_dir)), common.disk_bytes(repo_path / "objects")[0] / events, lookups(repo_path)


def lever_only(n: int) -> int:
    """The lever alone (``--lever``): appends, lookups, and what one packing pass makes of both repositories."""
    with tempfile.TemporaryDirectory(prefix="halo-profile-") as tmp:
        work = Path(tmp)
        loose, packed, n_packs = micro_pack_lever(work, n)
        per_object = {name: lookups(work / name / f"{common.AGENT}.git") for name in ("lever-loose", "lever-pack")}
        folded = {name: fold(work / name / f"{common.AGENT}.git") for name in ("lever-loose", "lever-pack")}
    print(f"the lever, {len(loose)} appends each, alternating (median): six loose objects {common.median_ms(loose):.2f} ms; "
          f"one small pack per append {common.median_ms(packed):.2f} ms (ratio {common.median_ms(packed) / common.median_ms(loose):.2f})")
    print(f"  a cold reader's object lookup before the pass: {per_object['lever-loose'] * 1e6:.0f} us among loose objects, "
          f"{per_object['lever-pack'] * 1e6:.0f} us among {n_packs} small packs")
    for name, label in (("lever-loose", "loose objects"), ("lever-pack", "small packs")):
        before, after, per_event, lookup = folded[name]
        print(f"  after one packing pass over the {label}: {before} -> {after} packs, lookup {lookup * 1e6:.0f} us, "
              f"{per_event / 1024:.2f} KB per event under objects/")
    print(f"machine: {common.machine_note()}")
    return 0


def main() -> int:
    p = common.parser(__doc__)
    p.add_argument("--lever", action="store_true", help="only the one-small-pack-per-append lever and what a packing pass makes of it")
    args = p.parse_args()
    n = 60 if args.quick else 300
    if args.lever:
        return lever_only(min(n, 240))
    with tempfile.TemporaryDirectory(prefix="halo-profile-") as tmp:
        work = Path(tmp)
        if shutil.which("strace"):
            # warm-up calls (imports, first repository) are in both runs alike; the
            # difference of two runs with n and 2n calls removes them
            per: dict[str, dict[str, float]] = {}
            for tool in ("halo_observe", "halo_guide"):
                small = strace_counts(work, tool, n)
                big = strace_counts(work, tool, 2 * n)
                per[tool] = {k: (big.get(k, 0) - small.get(k, 0)) / n for k in set(big) | set(small)}
            print(f"system calls per call (strace -c -f, difference of runs with {2 * n} and {n} calls):")
            names = sorted(per["halo_observe"], key=lambda k: -(per["halo_observe"][k] - per["halo_guide"].get(k, 0)))
            for k in names[:14]:
                o, g = per["halo_observe"][k], per["halo_guide"].get(k, 0.0)
                if o - g >= 0.5 or o >= 5:
                    print(f"  {k:14} halo_observe {o:6.1f}   halo_guide {g:6.1f}   added {o - g:+6.1f}")
        else:
            print("strace not installed: no system call counts")
        obs, seconds = profile(work, n)
        lever = micro_pack_lever(work, min(n, 240))
        per_object = {name: lookups(work / name / f"{common.AGENT}.git") for name in ("lever-loose", "lever-pack")}
        from bench_mcp import halo

        observe, guide = anyio.run(halo, work / "mcp-root", n)
    rows = [
        ("Halo.log_call (validate, build, append)", "halo_git/api.py", "log_call"),
        ("  AgentRepo.append", "store/repo.py", "append"),
        ("    six loose objects (_write_loose)", "store/repo.py", "_write_loose"),
        ("      of which creating files (os.open)", "~", "<built-in method posix.open>"),
        ("      of which renaming them (os.rename)", "~", "<built-in method posix.rename>"),
        ("      of which renaming them (os.replace)", "~", "<built-in method posix.replace>"),
        ("      of which mkdir", "~", "<built-in method posix.mkdir>"),
        ("    the event's objects built (_event_objects)", "store/repo.py", "_event_objects"),
        ("    ref compare-and-swap (set_if_equals)", "dulwich/refs.py", "set_if_equals"),
        ("      of which fsync", "~", "<built-in method posix.fsync>"),
    ]
    print(f"cProfile of {n} Halo.log_call('observe') in one process (cumulative ms per call; {seconds / n * 1e3:.2f} ms per call under the profiler):")
    for label, file_part, name in rows:
        total, count = cumulative(obs, file_part, name)
        if count:
            print(f"  {label:48} {total / n * 1e3:6.2f} ms  ({count / n:.1f} calls each)")
    (loose, packed, n_packs) = lever
    print(f"the lever, {len(loose)} appends each, alternating (median / p95): six loose objects {common.median_ms(loose):.2f} / "
          f"{common.p95_ms(loose):.2f} ms; one small pack per append {common.median_ms(packed):.2f} / {common.p95_ms(packed):.2f} ms "
          f"(ratio {common.median_ms(packed) / common.median_ms(loose):.2f}; {n_packs} packs left for the packing pass to fold)")
    k = len(packed) // 4
    print(f"  as the small packs pile up: first {k} appends {common.median_ms(packed[:k]):.2f} ms, last {k} {common.median_ms(packed[-k:]):.2f} ms "
          f"(loose: {common.median_ms(loose[:k]):.2f} / {common.median_ms(loose[-k:]):.2f} ms)")
    print(f"  a cold reader's object lookup: {per_object['lever-loose'] * 1e6:.0f} us among loose objects, "
          f"{per_object['lever-pack'] * 1e6:.0f} us among {n_packs} small packs")
    mo, mg = common.median_ms(observe), common.median_ms(guide)
    print(f"MCP stdio round trips, {n} each alternating on one session (median): halo_observe {mo:.2f} ms, "
          f"halo_guide {mg:.2f} ms, ratio {mo / mg:.2f}; observe - guide = {mo - mg:.2f} ms")
    print(f"machine: {common.machine_note()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
