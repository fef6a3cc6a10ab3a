"""One canonical event file on every machine, whichever PyYAML is installed.

The canonical bytes are defined by HALO's own emitter (``halo_git.eventfile``,
docs/storage.md "The event file format"): they are what libyaml wrote, and a
file an earlier version wrote where PyYAML had no libyaml (the legacy form)
still verifies. These tests run the real ``halo-git`` in processes where
PyYAML's C classes are removed before ``halo_git`` is imported, and in
processes where they are present, and cross the two: events written in one
kind of process verify, export and read back exactly in the other, on every
field with non-ASCII, emoji, control and combining characters.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from halo_git import eventfile
from halo_git.model import Event, from_yaml, legacy_yaml, to_yaml
from tests.conftest import PYTHON, git

AGENT = "portable"
HAS_C = getattr(yaml, "CSafeDumper", None) is not None

SUMMARIES = [
    "user sent 👍", "café naïve – “quotes” ‘single’ → done", "e\u0301 combining a\u0308\u0332 and ﬁ ligature",
    "tab\there", "carriage\rreturn and\r\nwindows", "two\nlines\n\nand a blank one", "next line\x85here",
    "line\u2028separator and paragraph\u2029separator", "bom\ufeffinside", "no-break\xa0space", "漢字 and 𠀀 (plane 2)",
    "zwj 👩\u200d💻 flag 🇫🇷 keycap 1\ufe0f\u20e3", "private \U0010fffd use", "yes", "- starts like a list",
    "'single' and \"double\"", "key: value # not a comment", " leading space", "trailing space ", "👍",
    "\U0001F44D\u2028\U0001F44E", "ends with a colon:", "😀 " * 40,
]
SESSIONS = ["day 👍", "se\u0301ance", "no-break\xa0label", "漢字", "plain"]
TARGETS = ["prompt 👍 v2", "rule e\u0301", "nel\x85target", "tab\ttarget", "𠀀 skill"]

# The C classes PyYAML may have; a process without them is what a pure-Python
# PyYAML (no libyaml) machine looks like.
_NO_C = """
import sys, yaml
for name in ("CSafeLoader", "CSafeDumper", "CLoader", "CDumper", "CBaseLoader", "CBaseDumper", "CFullLoader",
             "CUnsafeLoader", "CParser", "CEmitter"):
    if hasattr(yaml, name):
        delattr(yaml, name)
yaml.__with_libyaml__ = False
"""
_CHECK_NO_C = """
import halo_git.eventfile, halo_git.model
assert halo_git.eventfile._Loader is yaml.SafeLoader and halo_git.model._Loader is yaml.SafeLoader
"""


def _process(mode: str, body: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``body`` in a fresh Python, with PyYAML's C classes removed (``mode``
    "pure") or present ("c")."""
    head = _NO_C + _CHECK_NO_C if mode == "pure" else "import sys, yaml\n"
    return subprocess.run([PYTHON, "-c", head + textwrap.dedent(body), *args], capture_output=True, text=True, timeout=300)


def _cli(mode: str, root: Path, *args: str) -> subprocess.CompletedProcess:
    return _process(mode, "from halo_git.cli import main\nsys.exit(main(sys.argv[1:]))\n", *args, "--root", str(root))


_WRITE = """
import json
from halo_git import Halo
summaries, sessions, targets = json.loads(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
with Halo(sys.argv[1]) as h:
    for i, s in enumerate(summaries):
        h.log("portable", "observe", s, session=sessions[i % len(sessions)], time="2026-03-01T10:%02d:00Z" % i)
    for i, t in enumerate(targets):
        h.log("portable", "revise", "changed " + t, session=sessions[i % len(sessions)], target=t, made_by="agent",
              governance="bounded", time="2026-03-01T11:%02d:00Z" % i)
"""


def _write(mode: str, root: Path, prelude: str = "", summaries: list[str] = SUMMARIES, targets: list[str] = TARGETS) -> None:
    r = _process(mode, prelude + _WRITE, str(root), json.dumps(summaries), json.dumps(SESSIONS), json.dumps(targets))
    assert r.returncode == 0, r.stderr


def _expected(summaries: list[str], targets: list[str]) -> list[tuple[str, str, str | None]]:
    out = [(s, SESSIONS[i % len(SESSIONS)], None) for i, s in enumerate(summaries)]
    return out + [("changed " + t, SESSIONS[i % len(SESSIONS)], t) for i, t in enumerate(targets)]


def _read_back(mode: str, root: Path, summaries: list[str] = SUMMARIES, targets: list[str] = TARGETS) -> None:
    """verify passes and export gives back every field exactly, in a process of ``mode``."""
    v = _cli(mode, root, "verify", "--agent", AGENT)
    assert v.returncode == 0, v.stderr
    assert f"{len(summaries) + len(targets)} events" in v.stdout, v.stdout
    export = _cli(mode, root, "export", "--agent", AGENT)
    assert export.returncode == 0, export.stderr
    got = [json.loads(line) for line in export.stdout.split("\n") if line]  # (a summary may hold U+2028: no splitlines)
    assert [(d["summary"], d["session"], d.get("target")) for d in got] == _expected(summaries, targets)


MODES = ["pure", "c"] if HAS_C else ["pure"]


@pytest.mark.parametrize("writer", MODES)
def test_events_written_in_either_process_are_canonical_and_verify_in_both(tmp_path, writer):
    root = tmp_path / writer
    _write(writer, root)
    repo = root / f"{AGENT}.git"
    first = git(repo, "show", "main:events/00/00/e1.yaml").stdout
    assert 'summary: "user sent \\U0001F44D"\n' in first  # the canonical form, whichever PyYAML wrote it
    for reader in MODES:
        _read_back(reader, root)


def test_both_processes_write_the_same_bytes(tmp_path):
    if not HAS_C:
        pytest.skip(f"PyYAML {yaml.__version__} here has no libyaml: only the pure process can run")
    for mode in MODES:
        _write(mode, tmp_path / mode)
    heads = {m: git(tmp_path / m / f"{AGENT}.git", "rev-parse", "main").stdout for m in MODES}
    assert heads["pure"] == heads["c"]  # same events, same times: the same commits, byte for byte


# What earlier versions wrote: PyYAML's own dump, with or without libyaml.
_EARLIER = """
import halo_git.store.repo as _repo
def _earlier(event, _dumper=yaml.{dumper}):
    return yaml.dump(event.to_dict(), Dumper=_dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=1 << 30, encoding="utf-8")
_repo.to_yaml = _earlier
"""


@pytest.mark.parametrize("dumper", ["SafeDumper", "CSafeDumper"])
def test_files_earlier_versions_wrote_keep_verifying_in_both_processes(tmp_path, dumper):
    if dumper == "CSafeDumper" and not HAS_C:
        pytest.skip(f"PyYAML {yaml.__version__} here has no libyaml")
    root = tmp_path / dumper
    # Pure PyYAML wrote NEL (U+0085) raw inside a single-quoted scalar, where YAML
    # folds it: such a file never read back as its event, even on the machine
    # that wrote it (verify refused it there too). The canonical form escapes it.
    keep = (lambda t: "\x85" not in t) if dumper == "SafeDumper" else (lambda t: True)
    summaries, targets = [t for t in SUMMARIES if keep(t)], [t for t in TARGETS if keep(t)]
    _write("c" if dumper == "CSafeDumper" else "pure", root, prelude=_EARLIER.format(dumper=dumper), summaries=summaries, targets=targets)
    repo = root / f"{AGENT}.git"
    first = git(repo, "show", "main:events/00/00/e1.yaml").stdout
    if dumper == "SafeDumper":
        assert "summary: user sent 👍\n" in first  # the legacy form, emoji raw
    for reader in MODES:
        _read_back(reader, root, summaries, targets)
    # a new event on top of them is written in the canonical form
    log = _cli(MODES[0], root, "log", "observe", "--agent", AGENT, "--summary", "user sent 👍 again", "--session", "s")
    assert log.returncode == 0, log.stderr
    n = len(summaries) + len(targets) + 1
    assert 'summary: "user sent \\U0001F44D again"' in git(repo, "show", f"main:events/00/00/e{n}.yaml").stdout
    assert _cli(MODES[-1], root, "verify", "--agent", AGENT).returncode == 0


def test_a_file_in_neither_form_is_still_refused(tmp_path):
    """Accepting the legacy form loosens nothing else: the same event written
    double-quoted where both forms write it plain is not HALO's."""
    e = Event("e1", "observe", AGENT, "s", "2026-03-01T10:00:00Z", "plain words")
    data = to_yaml(e).replace(b"summary: plain words", b'summary: "plain words"')
    assert from_yaml(data) == e  # the same event to a YAML parser
    assert data not in (to_yaml(e), legacy_yaml(e))
    assert eventfile.parse_canonical(data) is None


# -- the emitter against PyYAML's, field by field ---------------------------------------

_OPTIONS = dict(sort_keys=False, allow_unicode=True, default_flow_style=False, width=1 << 30, encoding="utf-8")
_ALPHABET = st.sampled_from(list("ab yn01:#-?'\"!&*,[]{}|>%@`.~=<\\ \t\r\n") + [
    "\x85", "\u2028", "\u2029", "\ufeff", "\xa0", "\x07", "\x1b", "\x7f", "\x9f", "é", "\u0301", "\u200b", "→",
    "👍", "\U0010fffd", "\ud7ff", "\ue000", "\ufffd", "---", "...", "true", "null", "2026-01-01", "0x1F", "<<"])


def _all_fields(text: str) -> Event:
    """An event with ``text`` in every free-text field (session, summary, target, and ``merged_from`` where it exists)."""
    e = Event("e2", "revise", AGENT, text, "2026-03-01T10:00:00Z", text, ("e1",),
              {"target": text, "made_by": "agent", "governance": "none"}, ("S→R",))
    if "merged_from" in Event.__dataclass_fields__:
        e = dataclasses.replace(e, merged_from=text)
    return e


@given(st.lists(_ALPHABET, max_size=10).map("".join))
@settings(max_examples=1500, deadline=None)
def test_the_emitter_is_libyaml_and_the_legacy_form_is_pure_pyyaml(text):
    e = _all_fields(text)
    if HAS_C:
        assert to_yaml(e) == yaml.dump(e.to_dict(), Dumper=yaml.CSafeDumper, **_OPTIONS)
    assert legacy_yaml(e) == yaml.dump(e.to_dict(), Dumper=yaml.SafeDumper, **_OPTIONS)
    assert yaml.load(to_yaml(e), Loader=yaml.SafeLoader) == e.to_dict()  # any YAML parser reads the event back
    assert from_yaml(to_yaml(e)) == e
    truth = yaml.load(legacy_yaml(e), Loader=yaml.SafeLoader)
    assert eventfile.load(legacy_yaml(e)) == truth  # the reader never disagrees with a YAML parser
    assert eventfile.parse_canonical(legacy_yaml(e)) in (None, truth)


def test_summaries_of_the_issue_sample_are_libyaml_bytes():
    """20,000 random summaries over the characters the original report used:
    every one is the bytes libyaml writes, and reads back."""
    import random

    rnd = random.Random(23)
    pool = [chr(c) for c in range(0x20, 0x7F)] + list("é→—“”👍🎉😀\u0301\u200d\xa0\x85\u2028\t\n") + ["𠀀", "🇫🇷"]
    for _ in range(20_000):
        text = "".join(rnd.choice(pool) for _ in range(rnd.randint(1, 24))).strip() or "x"
        e = Event("e1", "observe", AGENT, "s", "2026-03-01T10:00:00Z", text)
        data = to_yaml(e)
        if HAS_C:
            assert data == yaml.dump(e.to_dict(), Dumper=yaml.CSafeDumper, **_OPTIONS), text
        assert from_yaml(data) == e
