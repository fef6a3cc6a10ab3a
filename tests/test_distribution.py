"""What a user installs: the sdist and the wheel, built from this tree, and a
store that works where ``fcntl`` does not exist (Windows)."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# scripts/test.sh with HALO_WHEEL runs the suite from a copy without the sources
needs_sources = pytest.mark.skipif(not (REPO / "halo_git").is_dir(), reason="builds from the source tree (absent: the suite runs against an installed wheel)")


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "License classifiers are deprecated" not in r.stderr and "license` value" not in r.stderr  # no deprecation warning
    return next(out.glob("*.whl")), next(out.glob("*.tar.gz"))


@needs_sources
def test_wheel_carries_the_real_template_and_the_license(dists):
    wheel, _ = dists
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        template = {n for n in names if n.startswith("halo_git/site_template/")}
        assert {"halo_git/site_template/mkdocs.yml", "halo_git/site_template/assets/stylesheets/halo.css"} <= template
        assert z.read("halo_git/site_template/mkdocs.yml") == (REPO / "site_template" / "mkdocs.yml").read_bytes()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in meta and "License-File: LICENSE" in meta
    assert not any(n.startswith("tests/") for n in names)


@needs_sources
def test_wheel_metadata_a_package_index_shows(dists):
    """Classifiers (every Python of the test matrix), project URLs, PEP 561's py.typed, the
    site extra, and a README whose links work where PyPI shows it (absolute, never relative)."""
    import re

    import yaml

    wheel, _ = dists
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "halo_git/py.typed" in names
    matrix = yaml.safe_load((REPO / ".github/workflows/tests.yml").read_text())["jobs"]["test"]["strategy"]["matrix"]["python"]
    for version in matrix:
        assert f"Classifier: Programming Language :: Python :: {version}\n" in meta
    assert "Classifier: Typing :: Typed" in meta
    urls = dict(line[len("Project-URL: "):].split(", ", 1) for line in meta.splitlines() if line.startswith("Project-URL: "))
    assert {"Homepage", "Repository", "Issues", "Documentation"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    assert "Provides-Extra: site" in meta and re.search(r"^Requires-Dist: mkdocs[<>=.,0-9]+; extra == \"site\"$", meta, re.M)
    assert not re.search(r"^Requires-Dist: mkdocs[^;]*$", meta, re.M)  # not for a plain install
    body = meta.split("\n\n", 1)[1]
    links = re.findall(r"\]\(([^)]+)\)", body)
    assert links and [u for u in links if not u.startswith(("https://", "#"))] == []


@needs_sources
def test_sdist_ships_no_half_test_tree_and_builds_the_same_wheel(dists, tmp_path):
    _, sdist = dists
    with tarfile.open(sdist) as t:
        names = [n.split("/", 1)[1] for n in t.getnames() if "/" in n]
        t.extractall(tmp_path, filter="data")
    assert "LICENSE" in names and "site_template/mkdocs.yml" in names and "setup.py" in names
    assert not [n for n in names if n.startswith("tests/")]  # none rather than one without conftest.py
    src = next(tmp_path.iterdir())
    r = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "w"), str(src)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    with zipfile.ZipFile(next((tmp_path / "w").glob("*.whl"))) as z:
        assert "halo_git/site_template/mkdocs.yml" in z.namelist()


@needs_sources
def test_no_symlink_in_the_package():
    """A Windows clone checks a symlink out as a text file."""
    assert not [p for p in (REPO / "halo_git").rglob("*") if p.is_symlink()]


def test_store_works_without_fcntl(tmp_path):
    """As on Windows: ``fcntl`` cannot be imported; the package imports and the
    store appends, packs and reads through the lock shim's fallback."""
    code = f"""
import sys
sys.modules["fcntl"] = None
from halo_git import Halo
from halo_git.store import locking, maintenance
assert locking.BACKEND in ("msvcrt", "process"), locking.BACKEND
with Halo({str(tmp_path / "root")!r}) as h:
    h.import_lines("demo", ['{{"kind": "observe", "summary": "x"}}'] * 120)
    h.log("demo", "observe", "one more")
    print(len(h.events("demo")), h.trace("demo", limit=1))
print(maintenance.run(h.store.repo("demo").path) is not None)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("121 e121 [")
    assert r.stdout.splitlines()[1] == "True"
    git = subprocess.run(["git", "--git-dir", str(tmp_path / "root" / "demo.git"), "fsck", "--full"], capture_output=True, text=True)
    assert git.returncode == 0, git.stderr


def test_the_lock_shim_uses_flock_here_and_excludes_within_the_process(tmp_path):
    from halo_git.store import locking

    assert locking.BACKEND == "fcntl"
    path = tmp_path / "l"
    with open(path, "a") as a, open(path, "a") as b:
        assert locking.try_lock(a)
        assert not locking.try_lock(b)  # flock locks belong to the open file, so b is refused
    with open(path, "a") as c:
        assert locking.try_lock(c)  # closing released it
