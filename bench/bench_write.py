"""Issue 24's write-path row: one `halo_observe` over MCP stdio against the durable floor.

    python bench/bench_write.py                      # 400 rounds
    python bench/bench_write.py --quick              # 60 rounds
    python bench/bench_write.py --against OTHER_TREE # also a server run from another checkout

The durable floor is what a user would otherwise pick for a durable log: the
same session answering ``halo_guide`` (the protocol round trip, no storage)
plus one SQLite commit in WAL mode with ``synchronous=FULL`` on the same disk
(one event-sized row inserted, then the commit, which syncs the log). Target:
median ``halo_observe`` <= 1.3 x (median ``halo_guide`` + median SQLite commit).

Every round makes one call of each, in turn, so all of them see the same
machine noise: ``halo_observe`` then ``halo_guide`` on the server of this
checkout, the same two on the server of ``--against`` (a checkout or an export
of another version, run with that tree first on ``PYTHONPATH``), and the
SQLite commit (in this process, its file beside the servers' roots); each
round starts one step further along that cycle, so no step always follows
another's sync. The
servers run as ``halo-git serve`` does by default (the ref fsynced; see
docs/security.md, "Durability"); ``--fsync`` runs them with ``--fsync``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import common
from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = Path(__file__).resolve().parents[1]


def sqlite_floor(path: Path):
    """A function committing one event-sized row to a WAL database with a full sync."""
    db = sqlite3.connect(str(path), isolation_level=None)
    assert db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    body = json.dumps({"kind": "observe", "category": "Sensing", "agent": common.AGENT, "session": "s",
                       "time": "2026-12-02T10:00:00Z", "summary": "user asked for a reminder at 9:00", "uses": []})

    def commit(i: int) -> float:
        t0 = time.perf_counter()
        db.execute("BEGIN")
        db.execute("INSERT INTO events (body) VALUES (?)", (body.replace("9:00", f"9:{i % 60:02d}"),))
        db.execute("COMMIT")
        return time.perf_counter() - t0

    return db, commit


class DiskProbe:
    """What the file system charges for the files a Git append must touch,
    measured beside the servers on the same disk, without Python's or HALO's
    work: the ``write_*`` functions do only the system calls (the objects'
    fan-out folders already exist, as in a repository past its first
    appends)."""

    KINDS = ("ref alone", "6 loose objects + ref", "1 pack + index + ref", "overwrite in place + fdatasync")

    def __init__(self, folder: Path):
        self.d = os.fspath(folder)
        for i in range(256):
            os.makedirs(f"{self.d}/objects/{i:02x}", exist_ok=True)
        os.makedirs(f"{self.d}/objects/pack", exist_ok=True)
        self.fixed = os.open(f"{self.d}/fixed", os.O_RDWR | os.O_CREAT, 0o644)
        os.write(self.fixed, b"0" * 4096)
        os.fsync(self.fixed)
        self.times: dict[str, list[float]] = {k: [] for k in self.KINDS}

    def _file(self, path: str, data: bytes, sync: bool = False) -> None:
        fd = os.open(path + ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        os.write(fd, data)
        if sync:
            os.fsync(fd)
        os.close(fd)
        os.rename(path + ".lock", path)

    def _ref(self, i: int) -> None:  # git's ref protocol, as dulwich and HALO write a branch: lock, write, fsync, rename
        self._file(f"{self.d}/ref", b"%040x\n" % i, sync=True)

    def round(self, i: int, count: bool) -> None:
        for kind in self.KINDS:
            t0 = time.perf_counter()
            if kind == "ref alone":
                self._ref(i)
            elif kind.startswith("6 loose"):
                for j in range(6):
                    name = hashlib.sha1(b"%d %d" % (i, j)).hexdigest()
                    self._file(f"{self.d}/objects/{name[:2]}/{name[2:]}", b"x" * 200)
                self._ref(i)
            elif kind.startswith("1 pack"):
                self._file(f"{self.d}/objects/pack/pack-{i:040x}.pack", b"x" * 900)
                self._file(f"{self.d}/objects/pack/pack-{i:040x}.idx", b"x" * 1200)
                self._ref(i)
            else:
                os.pwrite(self.fixed, b"%040x\n" % i, 0)
                os.fdatasync(self.fixed)
            if count:
                self.times[kind].append(time.perf_counter() - t0)

    def close(self) -> None:
        os.close(self.fixed)


async def run(work: Path, rounds: int, trees: list[tuple[str, Path]], fsync: bool, probe: DiskProbe | None = None) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"sqlite": []}
    db, commit = sqlite_floor(work / "floor.db")
    async with AsyncExitStack() as stack:
        clients = []
        for label, tree in trees:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
            args = ["-m", "halo_git.cli", "serve", "--root", str(work / f"root-{label}")] + (["--fsync"] if fsync else [])
            params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(tree))
            clients.append((label, await stack.enter_async_context(Client(params, mode="legacy"))))
            times[f"{label} observe"] = []
            times[f"{label} guide"] = []
        steps: list = [(label, c) for label, c in clients] + [("sqlite", None)] + ([("disk", None)] if probe is not None else [])
        for i in range(rounds + 20):  # the first 20 rounds warm up and are not counted
            k = i % len(steps)  # each round starts with the next one, so none always follows another's sync
            for label, c in steps[k:] + steps[:k]:
                if label == "disk":
                    probe.round(i, i >= 20)
                    continue
                if c is None:
                    dt = commit(i)
                    if i >= 20:
                        times["sqlite"].append(dt)
                    continue
                for tool, args in (("halo_observe", {"agent": common.AGENT, "summary": f"user asked for a reminder at 9:{i % 60:02d}"}),
                                   ("halo_guide", {})):
                    t0 = time.perf_counter()
                    r = await c.call_tool(tool, args)
                    dt = time.perf_counter() - t0
                    assert not r.is_error, r
                    if i >= 20:
                        times[f"{label} {tool[5:]}"].append(dt)
    db.close()
    return times


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--against", type=Path, help="another checkout whose server is measured in the same rounds")
    p.add_argument("--fsync", action="store_true", help="run the servers with --fsync")
    args = p.parse_args(argv)
    rounds = 60 if args.quick else 400
    trees = [("this", HERE)] + ([("other", args.against.resolve())] if args.against else [])
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="halo-bench-write-") as tmp:
        probe = DiskProbe(Path(tmp) / "probe")
        try:
            times = anyio.run(run, Path(tmp), rounds, trees, args.fsync, probe)
        finally:
            probe.close()
    sq = common.median_ms(times["sqlite"])
    print(f"MCP stdio, {rounds} rounds, each: halo_observe and halo_guide per server, then one SQLite commit "
          f"(WAL, synchronous=FULL) on the same disk; servers {'with' if args.fsync else 'without'} --fsync (median / p95):")
    print(f"  SQLite commit:          {sq:6.2f} ms / {common.p95_ms(times['sqlite']):6.2f} ms")
    for label, tree in trees:
        mo, mg = common.median_ms(times[f"{label} observe"]), common.median_ms(times[f"{label} guide"])
        floor = mg + sq
        ratio = mo / floor
        name = "this checkout" if label == "this" else str(tree)
        print(f"  {name}:")
        print(f"    halo_observe:         {mo:6.2f} ms / {common.p95_ms(times[f'{label} observe']):6.2f} ms")
        print(f"    halo_guide:           {mg:6.2f} ms / {common.p95_ms(times[f'{label} guide']):6.2f} ms")
        print(f"    durable floor (guide + SQLite commit): {floor:.2f} ms")
        print(f"    ratio observe / durable floor: {ratio:.2f} (observe / guide {mo / mg:.2f})   (target <= 1.3: {common.verdict(ratio <= 1.3)})")
    disk = {k: common.median_ms(v) for k, v in probe.times.items()}
    print("  the file system alone, same rounds, same disk (system calls only, median / p95):")
    for k, v in probe.times.items():
        print(f"    {k + ':':34} {disk[k]:6.2f} ms / {common.p95_ms(v):6.2f} ms")
    mg = common.median_ms(times["this guide"])
    bound = 1.3 * (mg + sq)
    print(f"  the target allows halo_observe {bound:.2f} ms; with no Python at all, halo_guide plus the file system's share of an append "
          f"that keeps Git's format would take {mg + disk['ref alone']:.2f} ms (ref alone), {mg + disk['1 pack + index + ref']:.2f} ms "
          f"(one pack), {mg + disk['6 loose objects + ref']:.2f} ms (six loose objects, as shipped)")
    print(f"machine: {common.machine_note()} (1-minute load at the start: {load_before:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
