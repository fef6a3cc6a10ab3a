"""Scale and packing on real repositories, checked with the real git binary.

Appends stay flat from 1,000 to 20,000 events of history; automatic packing
keeps the repository small and readable by git and by readers that run while
it packs (in this process and in another); merging packs that share objects,
an import that loses a race, and the event snapshot stay correct.
The benchmarks in ``bench/`` carry the real figures; bounds here are loose
enough for a busy machine.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import threading
import time
from pathlib import Path

import pytest
from dulwich.repo import Repo

from bench.bench_report import synthetic_events
from halo_git import Halo, jsonl
from halo_git.store import event_path, maintenance
from halo_git.store.maintenance import OBJ_BLOB, OBJ_TREE, Item, PackWriter, object_id
from tests.conftest import PYTHON, git

AGENT = "scale"


def lines(n: int) -> list[str]:
    return list(jsonl.export_lines(synthetic_events(n, agent=AGENT)))


def fsck(repo: Path) -> str:
    r = git(repo, "fsck", "--full", "--strict", "--no-dangling", check=False)
    assert r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr
    return r.stdout


def objects_bytes(repo: Path) -> int:
    """Bytes allocated on disk under ``objects/``."""
    return sum(os.lstat(os.path.join(d, f)).st_blocks * 512 for d, _, files in os.walk(repo / "objects") for f in files)


def loose_count(repo: Path) -> int:
    return len(maintenance.loose_objects(repo / "objects"))


@pytest.mark.slow
def test_appends_stay_flat_from_1k_to_20k_events_and_git_is_clean(tmp_path):
    data = lines(20_000)
    small, big = tmp_path / "small", tmp_path / "big"
    with Halo(small) as h:
        h.import_lines(AGENT, data[:1_000])
    with Halo(big) as h:
        for start in range(0, 20_000, 5_000):
            h.import_lines(AGENT, data[start : start + 5_000])
    times: dict[Path, list[float]] = {small: [], big: []}
    with Halo(small) as a, Halo(big) as b:
        for i in range(200):  # alternate, so both histories see the same machine noise
            for root, h in ((small, a), (big, b)) if i % 2 else ((big, b), (small, a)):
                t0 = time.perf_counter()
                h.log(AGENT, "observe", f"step {i}", session="scale")
                times[root].append(time.perf_counter() - t0)
    ratio = statistics.median(times[big]) / statistics.median(times[small])
    assert ratio <= 2.0, f"append at 20k is {ratio:.2f}x the append at 1k"
    repo = big / f"{AGENT}.git"
    fsck(repo)
    assert git(repo, "rev-list", "--count", "main").stdout.strip() == "20200"
    assert "id: e20200\n" in git(repo, "show", f"main:{event_path(20200)}").stdout
    assert git(repo, "log", "-1", "--format=%s", "main~20199").stdout.strip().startswith("e1 ")


READER = r"""
import json, subprocess, sys, traceback
from pathlib import Path
from halo_git import Halo
root, agent, stop = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
reads, errors = 0, []
while not stop.exists() or reads < 3:
    try:
        with Halo(root) as h:  # a fresh reader each time: nothing cached in memory
            ids = [int(line.split()[0][1:]) for line in h.trace(agent, 20).splitlines()]
            assert len(ids) == 20 and ids == list(range(ids[0], ids[0] + 20)), ids
            if reads % 4 == 0:
                numbers = [e.number for e in h.events(agent)]
                assert numbers == list(range(1, len(numbers) + 1)) and numbers[-1] >= ids[-1]
        r = subprocess.run(["git", "--git-dir", str(root / (agent + ".git")), "log", "-n", "20", "--format=%s", "main"],
                           capture_output=True, text=True)
        assert r.returncode == 0 and len(r.stdout.splitlines()) == 20, r.stderr
        reads += 1
    except Exception:
        errors.append(traceback.format_exc())
print(json.dumps({"reads": reads, "errors": errors[:3], "failed": len(errors)}))
"""


class Readers:
    """A reader in another process and one in a thread of this process, each
    looping over trace, full reads and ``git log`` until stopped."""

    def __init__(self, root: Path, tmp: Path):
        self.root = root
        self.stop = tmp / "stop-readers"
        self.proc = subprocess.Popen([PYTHON, "-c", READER, str(root), AGENT, str(self.stop)], stdout=subprocess.PIPE, text=True)
        self.thread_reads = 0
        self.thread_errors: list[str] = []
        self._halt = threading.Event()
        self.thread = threading.Thread(target=self._loop)
        self.thread.start()

    def _loop(self) -> None:
        with Halo(self.root) as h:
            while not self._halt.is_set() or self.thread_reads < 3:
                try:
                    ids = [int(line.split()[0][1:]) for line in h.trace(AGENT, 20).splitlines()]
                    assert ids == list(range(ids[0], ids[0] + 20)), ids
                    numbers = [e.number for e in h.events(AGENT)]
                    assert numbers == list(range(1, len(numbers) + 1))
                    self.thread_reads += 1
                except Exception as e:  # recorded, asserted on by the test
                    self.thread_errors.append(repr(e))

    def finish(self) -> dict:
        self._halt.set()
        self.stop.touch()
        self.thread.join(timeout=120)
        out, _ = self.proc.communicate(timeout=300)
        result = json.loads(out)
        result["thread_reads"], result["thread_errors"] = self.thread_reads, self.thread_errors
        return result


@pytest.mark.slow
def test_automatic_packing_keeps_git_readable_and_readers_never_fail(root, tmp_path, monkeypatch):
    monkeypatch.setattr(maintenance, "PACK_EVERY", 100)  # many passes (and merges) while the readers read
    with Halo(root) as h:
        for i in range(30):
            h.log(AGENT, "observe", f"warm-up {i}")
    readers = Readers(root, tmp_path)
    with Halo(root) as h:
        for i in range(1_170):  # up to e1200, a multiple of PACK_EVERY: the last pass packs everything
            h.log(AGENT, "observe", f"step {i} of the scale test", session=f"s{i // 300}")
        packer = h.store.repo(AGENT)._packer
    result = readers.finish()
    assert result["failed"] == 0 and not result["thread_errors"], result
    assert result["reads"] >= 3 and result["thread_reads"] >= 3
    assert packer.error is None and len(packer.passes) >= 5, (packer.passes, packer.error)
    assert any(p.merged for p in packer.passes)
    repo = root / f"{AGENT}.git"
    assert loose_count(repo) == 0
    assert len(maintenance.packs(repo / "objects" / "pack")) <= 5
    fsck(repo)
    subjects = git(repo, "log", "--format=%s", "main").stdout.splitlines()
    assert len(subjects) == 1_200 and subjects[0].startswith("e1200 ") and subjects[-1].startswith("e1 ")


@pytest.mark.slow
def test_a_pass_over_a_large_backlog_never_fails_a_reader(root, tmp_path, monkeypatch):
    with Halo(root) as h:
        for start in range(0, 3_000, 1_000):
            h.import_lines(AGENT, lines(1_000), allow_duplicates=True)  # three packs to merge
    monkeypatch.setattr(maintenance, "PACK_EVERY", 10**9)  # appends stay loose until the pass below
    with Halo(root) as h:
        for i in range(800):
            h.log(AGENT, "observe", f"loose {i}")
    repo = root / f"{AGENT}.git"
    assert loose_count(repo) == 800 * 6
    readers = Readers(root, tmp_path)
    time.sleep(1.0)
    done = maintenance.run(repo)
    time.sleep(1.0)
    result = readers.finish()
    assert done is not None and done.packed == 800 * 6 and done.merged >= 2, done
    assert result["failed"] == 0 and not result["thread_errors"], result
    assert loose_count(repo) == 0
    fsck(repo)
    assert git(repo, "rev-list", "--count", "main").stdout.strip() == "3800"


@pytest.mark.slow
def test_disk_per_event_after_automatic_packing_is_small(root):
    with Halo(root) as h:
        for i in range(1_000):
            h.log(AGENT, "observe", f"user asked for a reminder at 9:{i % 60:02d}", session=f"day{i // 100}")
    repo = root / f"{AGENT}.git"
    assert loose_count(repo) == 0
    per_event = objects_bytes(repo) / 1_000
    assert per_event <= 1_500, per_event
    fsck(repo)


def test_merging_packs_that_share_objects_keeps_one_copy_and_repoints_deltas(root):
    with Halo(root) as h:
        h.import_lines(AGENT, lines(300))  # one pack
    repo = root / f"{AGENT}.git"
    pack_dir = repo / "objects" / "pack"
    [first] = maintenance.packs(pack_dir)
    with Repo(str(repo)) as r:
        head = r[r.refs[b"refs/heads/main"]]
        newest = r[r[r[head.tree][b"events"][1]][b"00"][1]][b"02"][1]  # the tree events/00/02, already packed
        raw = r[newest].as_raw_string()
    never = raw[raw.index(b"\0") + 21 :]  # without its first entry: a tree that never existed, a new object
    blob = b"a new blob\n"
    items = [
        Item(object_id(OBJ_TREE, never), OBJ_TREE, never, b"events/00/02"),
        Item(object_id(OBJ_TREE, raw), OBJ_TREE, raw, b"events/00/02"),  # the group's newest: whole, a duplicate
        Item(object_id(OBJ_BLOB, blob), OBJ_BLOB, blob, None),
    ]
    never_id, raw_id = items[0].sha.hex(), items[1].sha.hex()
    writer = PackWriter(pack_dir)
    writer.add_grouped(items)
    second = writer.install()
    assert delta_base(repo, pack_dir / f"{second}.idx", never_id) == raw_id

    merged = maintenance.merge(pack_dir, [first.name, second])
    assert [(p.name, p.count) for p in maintenance.packs(pack_dir)] == [(merged, first.count + 2)]
    listing = git(repo, "verify-pack", "-v", str(pack_dir / f"{merged}.idx")).stdout
    ids = [line.split()[0] for line in listing.splitlines() if line[:40].isalnum() and len(line.split()) >= 5]
    assert len(ids) == len(set(ids)) == first.count + 2
    assert delta_base(repo, pack_dir / f"{merged}.idx", never_id) == raw_id  # now by id: its old base was dropped
    with Repo(str(repo)) as r:
        assert r.object_store[never_id.encode()].as_raw_string() == never
        assert r.object_store[items[2].sha.hex().encode()].as_raw_string() == blob
    fsck(repo)


def delta_base(repo: Path, idx: Path, sha: str) -> str | None:
    """The id of the object ``sha`` is stored as a delta against in a pack."""
    for line in git(repo, "verify-pack", "-v", str(idx)).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == sha:
            return parts[6] if len(parts) == 7 else None
    raise AssertionError(f"{sha} not in {idx.name}")


def test_an_import_that_loses_the_race_leaves_no_pack_behind(root):
    data = lines(150)
    with Halo(root) as first, Halo(root) as other:
        first.log(AGENT, "observe", "before the import")
        items = jsonl.parse_lines(data)
        raced = []

        def build(number, kind_of):
            if not raced:
                raced.append(number)
                other.log(AGENT, "observe", "another writer got there first")
            return jsonl.plan(items, number, AGENT, "import", kind_of)

        done = first.store.repo(AGENT).append_many("main", build)
    assert raced == [2] and done[0].event.id == "e3" and done[-1].event.id == "e152"
    repo = root / f"{AGENT}.git"
    fsck(repo)
    unreachable = git(repo, "fsck", "--unreachable", "--no-reflogs").stdout
    assert unreachable.strip() == "", unreachable  # the losing attempt's pack was removed
    assert git(repo, "rev-list", "--count", "main").stdout.strip() == "152"


def test_abandoned_temporary_packs_are_removed_after_an_hour(root):
    with Halo(root) as h:
        h.log(AGENT, "observe", "one")
    pack_dir = root / f"{AGENT}.git" / "objects" / "pack"
    pack_dir.mkdir(exist_ok=True)
    old, new = pack_dir / "tmp_pack_halo_old", pack_dir / "tmp_pack_halo_new"
    old.write_bytes(b"PACK")
    new.write_bytes(b"PACK")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    maintenance.run(root / f"{AGENT}.git")
    assert not old.exists() and new.exists()


def test_the_snapshot_grows_by_the_new_events_only_and_a_foreign_one_is_rewritten(root, tmp_path):
    with Halo(root) as h:
        h.import_lines(AGENT, lines(600))
        h.events(AGENT)  # writes the snapshot
    [snapshot] = (root / f"{AGENT}.git" / "halo").glob("events-*.jsonl")
    before = snapshot.read_bytes()
    assert before.count(b"\n") == 601
    with Halo(root) as h:
        h.import_lines(AGENT, lines(600), allow_duplicates=True)  # ids e601.. are renumbered e601-e1200 after the first 600
        assert len(h.events(AGENT)) == 1_200
    after = snapshot.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 1_201

    other = tmp_path / "other"
    with Halo(other) as h:  # the same number of events, another history
        h.import_lines(AGENT, [json.dumps({**json.loads(line), "summary": "different"}) for line in lines(1_200)])
    assert not list((other / f"{AGENT}.git" / "halo").glob("events-*"))
    (other / f"{AGENT}.git" / "halo" / snapshot.name).write_bytes(after)
    with Halo(other) as h:
        events = h.events(AGENT)
        assert len(events) == 1_200 and {e.summary for e in events} == {"different"}
    rewritten = (other / f"{AGENT}.git" / "halo" / snapshot.name).read_text()
    assert '"summary": "different"' in rewritten and rewritten.count("\n") == 1_201


@pytest.mark.slow
@pytest.mark.parametrize("script", ["bench_append", "bench_import", "bench_read", "bench_disk", "bench_mcp", "bench_clone", "bench_cold", "bench_write"])
def test_each_storage_benchmark_runs_in_its_quick_form(script):
    bench = Path(__file__).resolve().parents[1] / "bench"
    r = subprocess.run([PYTHON, str(bench / f"{script}.py"), "--quick"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "target" in r.stdout and "machine:" in r.stdout, r.stdout


def test_issue_24s_table_is_one_command_over_the_benchmarks_that_own_its_rows():
    """bench/bench_issue24.py runs each row's own benchmark (which measures the row beside its anchor); every
    benchmark it names exists and has a quick form, and an unknown row is refused by name."""
    from bench import bench_issue24
    bench = Path(__file__).resolve().parents[1] / "bench"
    assert [k for k, *_ in bench_issue24.ROWS] == ["write", "cold", "resources20k", "resources", "agents", "disk"]
    for _, _, target, script, _ in bench_issue24.ROWS:
        assert target and "--quick" in (bench / script).read_text(), script
    r = subprocess.run([PYTHON, str(bench / "bench_issue24.py"), "--only", "disk,speed"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown row(s) speed" in r.stderr and "choose from write, cold" in r.stderr


@pytest.mark.slow
def test_issue_24s_table_runs_a_row_in_its_quick_form():
    bench = Path(__file__).resolve().parents[1] / "bench"
    r = subprocess.run([PYTHON, str(bench / "bench_issue24.py"), "--only", "disk", "--quick"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "== disk: disk per event after packing" in r.stdout and "target <= 0.9 KB" in r.stdout
    assert "bench_disk.py took" in r.stdout and "exit 0" in r.stdout


@pytest.mark.slow
def test_the_findings_benchmark_splits_out_the_clients_reassembly_of_the_reply():
    """bench_resources.py measures the findings resource through a real client and prints, for the same reply,
    what the client's line reassembly costs; ``--events`` picks the size and a size below 1 is refused."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    r = subprocess.run([PYTHON, str(bench / "bench_resources.py"), "--events", "300"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("300 events") and "right after an append, median of 5" in r.stdout, r.stdout
    assert "of which the MCP client putting the" in r.stdout and "joined once" in r.stdout, r.stdout
    r = subprocess.run([PYTHON, str(bench / "bench_resources.py"), "--events", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and "--events must be 1 or more, not 0" in r.stderr


@pytest.mark.slow
def test_the_append_reach_measurement_counts_what_one_append_changes():
    """bench_append_reach.py diagnoses every prefix of some labelled traces: its counts hold together (appends
    that changed an earlier finding are at most all appends; the kinds of change add up to the changes)."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    r = subprocess.run([PYTHON, str(bench / "bench_append_reach.py"), "--quick", "--events", "300"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    nums = {line.split(":")[0]: [int(x.replace(",", "")) for x in re.findall(r"\b\d[\d,]*\b", line.split(":", 1)[1])]
            for line in r.stdout.splitlines() if ":" in line}
    appends, changing = nums["appends"][0], nums["appends"][1]
    changed, linked, unlinked = nums["findings about an earlier event changed"][:3]
    assert 0 < changing <= appends and changed == linked + unlinked >= changing
    assert sum(nums["what changed"]) == changed
    assert "worded trace of 300 events" in r.stdout
    r = subprocess.run([PYTHON, str(bench / "bench_append_reach.py"), "--events", "1"], capture_output=True, text=True)
    assert r.returncode == 2 and "--events must be 2 or more" in r.stderr
