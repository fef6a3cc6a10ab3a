"""What reads show is what Git holds: the parsed-event cache under a repository
can never change an answer, and ``verify`` reports a cache changed outside HALO.

Every test edits the real cache file the way a person with write access to the
repository folder would, then asks the real CLI in fresh processes.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from halo_git import Halo
from halo_git.store import snapshot
from tests.conftest import git, run_cli

AGENT = "selfmod"
N = 520  # past SNAPSHOT_EVERY, so a read writes the cache


def _lines(n: int) -> list[str]:
    out = [json.dumps({"id": "e1", "kind": "observe", "summary": "user asked for a change", "time": "2026-01-01T00:00:00Z"})]
    out.append(json.dumps({"kind": "revise", "summary": "rewrote my own rules", "uses": ["e1"], "target": "system prompt",
                           "made_by": "agent", "governance": "none", "time": "2026-01-01T00:00:01Z"}))
    for i in range(3, n + 1):
        out.append(json.dumps({"kind": "observe", "summary": f"step {i}: a: b # c", "time": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"}))
    return out


def _root_with_cache(root: Path) -> Path:
    with Halo(root) as h:
        h.import_lines(AGENT, _lines(N))
        assert len(h.events(AGENT)) == N  # writes the cache
    [cache] = (root / f"{AGENT}.git" / "halo").glob("events-*.jsonl")
    return cache


def _forge(cache: Path, old: str, new: str) -> None:
    text = cache.read_text(encoding="utf-8")
    assert text.count(old) == 1
    cache.write_text(text.replace(old, new), encoding="utf-8")


def _answers(root: Path) -> tuple[str, str, str]:
    report = run_cli("report", "--agent", AGENT, root=root)
    export = run_cli("export", "--agent", AGENT, root=root)
    trace = run_cli("trace", "--agent", AGENT, "--limit", "200", root=root)
    assert report.returncode == export.returncode == trace.returncode == 0, (report.stderr, export.stderr)
    return report.stdout, export.stdout, trace.stdout


def _truth_is_shown(root: Path, truth: tuple[str, str, str]) -> None:
    check = run_cli("check", "--agent", AGENT, "--fail-on", "high", root=root)
    assert check.returncode == 1 and "HALO-R1" in check.stdout, (check.stdout, check.stderr)
    assert _answers(root) == truth
    export = truth[1]
    assert json.loads(export.splitlines()[1])["governance"] == "none"


def test_an_edited_cache_entry_is_never_served_and_verify_reports_it(root):
    cache = _root_with_cache(root)
    truth = _answers(root)
    _forge(cache, '"governance": "none"', '"governance": "approved"')
    forged = cache.read_bytes()

    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 1, verify.stdout
    assert "parsed-event cache" in verify.stderr and "changed outside HALO" in verify.stderr
    assert "entry e2" in verify.stderr and f"({N} events verified" in verify.stderr
    assert cache.read_bytes() == forged  # verify only reads

    # git itself shows the truth; so must every read, from a fresh process each
    assert "governance: none" in git(root / f"{AGENT}.git", "show", "main:events/00/00/e2.yaml").stdout
    _truth_is_shown(root, truth)
    # the first read rewrote the cache from Git: verify is green again, and stays so
    assert b'"governance": "approved"' not in cache.read_bytes()
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 0 and f"matches Git ({N} events)" in verify.stdout, verify.stderr


def test_a_forged_entry_with_a_matching_blob_id_is_refused_by_the_tree(root):
    cache = _root_with_cache(root)
    truth = _answers(root)
    lines = cache.read_text(encoding="utf-8").splitlines(keepends=True)
    commit, _blob, d = json.loads(lines[2])
    d["governance"] = "approved"
    from halo_git.model import Event

    lines[2] = json.dumps([commit, snapshot.blob_id(Event.from_dict(d)), d], ensure_ascii=False) + "\n"
    cache.write_text("".join(lines), encoding="utf-8")
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 1 and "entry e2 names blob" in verify.stderr
    _truth_is_shown(root, truth)


def test_forged_commit_ids_in_the_cache_never_reach_an_answer(root):
    cache = _root_with_cache(root)
    lines = cache.read_text(encoding="utf-8").splitlines(keepends=True)
    _commit, blob, d = json.loads(lines[2])
    lines[2] = json.dumps(["f" * 40, blob, d], ensure_ascii=False) + "\n"
    cache.write_text("".join(lines), encoding="utf-8")
    truth = git(root / f"{AGENT}.git", "rev-list", "--reverse", "main").stdout.split()
    with Halo(root) as h:
        log = h.event_log(AGENT)
        assert log.commit_of("e2") == truth[1] and log.commits == truth
    with Halo(root) as h:  # loaded from the cache, then extended by an append: still Git's ids
        h.event_log(AGENT)
        h.log(AGENT, "observe", "one more")
        log = h.event_log(AGENT)
        assert log.commits == git(root / f"{AGENT}.git", "rev-list", "--reverse", "main").stdout.split()
        assert log.commit_of("e2") == truth[1] and len(log.commits) == N + 1
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 1 and f"entry e2 names commit {'f' * 12}" in verify.stderr


def test_a_cache_holding_more_events_than_the_branch_is_ignored(root):
    cache = _root_with_cache(root)
    lines = cache.read_text(encoding="utf-8").splitlines(keepends=True)
    commit, _blob, d = json.loads(lines[-1])
    d = {**d, "id": f"e{N + 1}", "summary": "never happened"}
    from halo_git.model import Event

    lines.append(json.dumps([commit, snapshot.blob_id(Event.from_dict(d)), d]) + "\n")
    cache.write_text("".join(lines), encoding="utf-8")
    trace = run_cli("trace", "--agent", AGENT, "--limit", "1", root=root)
    assert "never happened" not in trace.stdout and f"e{N} " in trace.stdout
    export = run_cli("export", "--agent", AGENT, root=root)
    assert len(export.stdout.splitlines()) == N and "never happened" not in export.stdout


_AWKWARD = ["a: b", "x #y", "it's", " lead", "trail ", "-x", "- x", "no", "12", "a\tb", "✓ done", "", "x:", "?x",
            "[x", "%x", "a\u00a0b", "\ufeffx", "a  b", "~", "null", "0x1F", "1e3", ".5", "<<", "=", "a\x85b",
            "\U0001F600 ok", "line\nbreak", "---x", "...", "x\u2028y", "'q'", '"dq"', "yes", "2026-01-01", "-.5", "--x"]


def _event(text: str):
    from halo_git.model import Event

    return Event("e1", "act", "a", "s", "2026-01-01T00:00:00.250Z", text, ("e1",), {"trigger": "self", "form": text}, ("S→A",))


def test_the_canonical_yaml_reads_back_as_the_event_and_equals_pyyaml():
    """The cache check trusts an entry when the canonical bytes hash to the
    committed blob, so those bytes must read back as exactly that entry (sound);
    they are libyaml's bytes, and the legacy form pure PyYAML's."""
    import yaml

    from halo_git.model import from_yaml, legacy_yaml, to_yaml

    options = dict(sort_keys=False, allow_unicode=True, default_flow_style=False, width=1 << 30, encoding="utf-8")
    for text in _AWKWARD:
        e = _event(text)
        assert from_yaml(to_yaml(e)) == e, text
        assert snapshot.canonical_yaml(e) == to_yaml(e)
        assert legacy_yaml(e) == yaml.dump(e.to_dict(), Dumper=yaml.SafeDumper, **options), text
        if getattr(yaml, "CSafeDumper", None) is not None:
            assert to_yaml(e) == yaml.dump(e.to_dict(), Dumper=yaml.CSafeDumper, **options), text


@given(st.text(max_size=40))
@settings(max_examples=400, deadline=None)
def test_the_canonical_yaml_is_sound_on_any_text(text):
    from halo_git.model import from_yaml, to_yaml

    e = _event(text)
    assert from_yaml(to_yaml(e)) == e


def test_verify_reports_a_cache_longer_than_the_branch(root):
    cache = _root_with_cache(root)
    lines = cache.read_text(encoding="utf-8").splitlines(keepends=True)
    commit, _blob, d = json.loads(lines[-1])
    d = {**d, "id": f"e{N + 1}", "summary": "never happened"}
    from halo_git.model import Event

    lines.append(json.dumps([commit, snapshot.blob_id(Event.from_dict(d)), d]) + "\n")
    cache.write_text("".join(lines), encoding="utf-8")
    verify = run_cli("verify", "--agent", AGENT, root=root)
    assert verify.returncode == 1 and f"it holds {N + 1} events, the branch only {N}" in verify.stderr
