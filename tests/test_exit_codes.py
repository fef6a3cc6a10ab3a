"""The CLI's one exit-code table (cli.EXIT_CODES, docs/cli.md), walked command
by command through a missing root, an unknown agent and a bad argument."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from halo_git import Halo
from halo_git.cli import COMMANDS, EXIT_CODES
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parent.parent

# command -> {case: (arguments after the command, expected exit code)}; "{remote}"
# is a bare repository that holds agent demo's history, "{file}" a valid JSONL file.
WALK: dict[str, dict[str, tuple[list[str], int]]] = {
    "serve": {  # stdin is empty: the server starts, sees end of input, stops
        "missing root": (["--agent", "demo"], 0),
        "unknown agent": (["--agent", "nobody"], 0),  # a new agent may start
        "bad argument": (["--port", "eighty"], 2),
    },
    "log": {  # writing commands create the root and the agent
        "missing root": (["observe", "--agent", "demo", "--summary", "first"], 0),
        "unknown agent": (["observe", "--agent", "nobody", "--summary", "first"], 0),
        "bad argument": (["observe", "--agent", "demo", "--summary", " "], 2),
    },
    "trace": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "--limit", "0"], 2),
    },
    "report": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "--session", "x" * 101], 2),
    },
    "diff": {
        "missing root": (["--agent", "demo", "main"], 1),
        "unknown agent": (["--agent", "nobody", "main"], 1),
        "bad argument": (["--agent", "demo", "main", "--format", "xml"], 2),
    },
    "branch": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "bad..name"], 2),
    },
    "push": {
        "missing root": (["--agent", "demo", "{remote}"], 1),
        "unknown agent": (["--agent", "nobody", "{remote}"], 1),
        "bad argument": (["--agent", "../demo", "{remote}"], 2),
    },
    "pull": {
        "missing root": (["--agent", "demo", "{remote}"], 1),
        "unknown agent": (["--agent", "nobody", "{remote}"], 1),
        "bad argument": (["--agent", "demo"], 2),
    },
    "clone": {  # cloning into a new root and a new agent is the point of clone
        "missing root": (["{remote}", "--agent", "demo"], 0),
        # demo's history under another agent's name is refused: its events name agent demo
        "unknown agent": (["{remote}", "--agent", "nobody"], 1),
        "bad argument": (["{remote}", "--agent", "../demo"], 2),
    },
    "check": {  # a gate: 1 means findings, so every error is 2 (commands/check.py EXIT_CODES, docs/ci.md)
        "missing root": (["--agent", "demo"], 2),
        "unknown agent": (["--agent", "nobody"], 2),
        "bad argument": (["--agent", "demo", "--fail-on", "info"], 2),
    },
    "verify": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "--branch", "bad..name"], 2),
    },
    "revisions": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "--format", "xml"], 2),
    },
    "approve": {  # approving is a person's act on an existing revision
        "missing root": (["--agent", "demo", "e1", "--by", "Ann", "--email", "ann@example.com"], 1),
        "unknown agent": (["--agent", "nobody", "e1", "--by", "Ann", "--email", "ann@example.com"], 1),
        "bad argument": (["--agent", "demo", "E1", "--by", "Ann", "--email", "ann@example.com"], 2),
    },
    "seal": {
        "missing root": (["--agent", "demo", "--by", "Ann", "--email", "ann@example.com"], 1),
        "unknown agent": (["--agent", "nobody", "--by", "Ann", "--email", "ann@example.com"], 1),
        "bad argument": (["--agent", "demo", "--sign", "rsa"], 2),
    },
    "redact": {
        "missing root": (["--agent", "demo", "e1", "--reason", "asked", "--by", "Ann", "--email", "ann@example.com"], 1),
        "unknown agent": (["--agent", "nobody", "e1", "--reason", "asked", "--by", "Ann", "--email", "ann@example.com"], 1),
        "bad argument": (["--agent", "demo", "E1", "--reason", "asked", "--by", "Ann", "--email", "ann@example.com"], 2),
    },
    "export": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "--format", "xml"], 2),
    },
    "import": {
        "missing root": (["--agent", "demo", "{file}"], 0),
        "unknown agent": (["--agent", "nobody", "{file}"], 0),
        "bad argument": (["--agent", "demo", "{missing}"], 2),
    },
    "demo": {  # demo takes no --agent: it is always agent demo in its own root
        "missing root": ([], 0),
        "unknown agent": (["--agent", "nobody"], 2),
        "bad argument": (["--out"], 2),
    },
    "agents": {  # agents takes no --agent: it lists them all
        "missing root": ([], 1),
        "unknown agent": (["--agent", "nobody"], 2),
        "bad argument": (["--json", "yes"], 2),
    },
    "merge": {
        "missing root": (["--agent", "demo", "main2"], 1),
        "unknown agent": (["--agent", "nobody", "main2"], 1),
        "bad argument": (["--agent", "demo", "main2", "--format", "xml"], 2),
    },
    "history": {
        "missing root": (["--agent", "demo", "e1"], 1),
        "unknown agent": (["--agent", "nobody", "e1"], 1),
        "bad argument": (["--agent", "demo", "E1"], 2),
    },
    "blame": {
        "missing root": (["--agent", "demo", "--target", "tone"], 1),
        "unknown agent": (["--agent", "nobody", "--target", "tone"], 1),
        "bad argument": (["--agent", "demo"], 2),
    },
    "beliefs": {
        "missing root": (["--agent", "demo"], 1),
        "unknown agent": (["--agent", "nobody"], 1),
        "bad argument": (["--agent", "demo", "--at", "e0"], 2),
    },
    "site": {  # --out in the test's folder: a site that did build must not land in the working directory
        "missing root": (["--out", "{base}/site-missing"], 1),
        "unknown agent": (["--agent", "nobody", "--out", "{base}/site-unknown"], 1),
        "bad argument": (["--compare", "no-colon", "--out", "{base}/site-bad"], 2),
    },
}

READING = {"agents", "trace", "report", "diff", "branch", "push", "check", "verify", "export", "site", "revisions", "approve",
           "history", "blame", "beliefs", "merge"}  # pull: says to clone


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    base = tmp_path_factory.mktemp("walk")
    root = base / "root"
    with Halo(root) as h:
        h.log("demo", "observe", "inbox checked", session="s1")
        h.log("demo", "act", "replied", ["e1"], "s1", trigger="request")
        h.log("other", "observe", "started", session="s1")
    (base / "events.jsonl").write_text('{"kind": "observe", "summary": "imported"}\n', encoding="utf-8")
    return {"root": root, "base": base, "remote": str(root / "demo.git"), "file": str(base / "events.jsonl"),
            "missing": str(base / "no-such-file.jsonl")}


def _run(command: str, case: str, places) -> tuple[str, str, object]:
    args, _ = WALK[command][case]
    args = [a.format(**{k: str(v) for k, v in places.items()}) for a in args]
    if case == "missing root":
        root = places["base"] / f"missing-{command}" / "root"
    elif command in READING:
        root = places["root"]
    else:  # a writing command gets its own copy, so the readers' root stays as it was
        root = places["base"] / f"copy-{command}-{case.replace(' ', '-')}"
        shutil.copytree(places["root"], root)
    return command, case, run_cli(command, *args, root=root, input="")


def test_the_walk_covers_every_command_and_the_table_is_documented():
    assert sorted(WALK) == sorted(c.rstrip("_") for c in COMMANDS)
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES:
        assert f"| {code} | {meaning} |" in page


def test_every_command_through_missing_root_unknown_agent_and_bad_argument(places):
    jobs = [(c, case) for c in WALK for case in WALK[c]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: _run(*job, places), jobs))
    wrong = []
    for command, case, r in results:
        want = WALK[command][case][1]
        if r.returncode != want:
            wrong.append(f"{command} / {case}: exit {r.returncode}, want {want}: {r.stderr.strip()[-300:]}")
            continue
        if want == 0:
            continue
        assert r.stderr.startswith(("halo-git: error: ", "usage: halo-git")), (command, case, r.stderr)
        assert "Traceback" not in r.stderr, (command, case)
        if command in READING and case == "missing root":
            missing = places["base"] / f"missing-{command}" / "root"
            assert str(missing) in r.stderr, (command, r.stderr)
            assert not missing.exists(), command  # a reading command creates nothing
        if command in READING - {"site", "agents"} and case == "unknown agent":
            assert f"in {places['root']}" in r.stderr and "demo, other" in r.stderr, (command, r.stderr)
    assert not wrong, "\n".join(wrong)


# (arguments, expected exit code, a phrase the message must hold); "{root}" holds agents demo and
# other, "{file}" is a regular file, "{empty}" an empty folder, "{remote}" demo's repository
ODD: list[tuple[list[str], int, str]] = [
    (["trace", "--agent", "demo", "--root", "{file}"], 2, "is a file, not a folder"),
    (["log", "observe", "--agent", "demo", "--summary", "x", "--root", "{file}"], 2, "is a file, not a folder"),
    (["demo", "--root", "{file}"], 2, "is a file, not a folder"),
    (["serve", "--root", "{file}"], 2, "is a file, not a folder"),
    (["push", "--all", "--root", "{base}/nope", "{base}/remotes"], 1, "no HALO root at"),
    (["pull", "--all", "--root", "{empty}", "{base}/remotes"], 1, "no agents under"),
    (["agents", "--root", "{root}", "--branch", "nosuch"], 1, "no agent in"),
    (["agents", "--root", "{root}", "--branch", "bad..x"], 2, "invalid branch name"),
    (["trace", "--agent", "demo", "--session", "nosuch", "--root", "{root}"], 1, "its sessions: s1"),
    (["site", "--root", "{root}", "--out", "{base}/site-prev", "--previous", "{base}/no.json"], 2, "--previous"),
    (["site", "--root", "{root}", "--out", "{base}/site-ghost", "--agent", "ghost"], 1, "its agents: demo, other"),
    (["serve", "--root", "{root}", "--transport", "http", "--port", "99999"], 2, "is not a port"),
    (["serve", "--root", "{root}", "--port", "1234"], 2, "apply to --transport http only"),
    (["serve", "--root", "{root}", "--push-every", "0"], 2, "too small"),
    (["report", "--agent", "demo", "--root", "{root}", "--observed-window", "-5"], 2, "above 0"),
    (["clone", "--all", "{base}/remotes", "--root", "{base}/r2", "--agents-file", "{base}/no-list"], 2, "cannot read --agents-file"),
    (["clone", "{remote}", "--agent", "dmeo", "--root", "{base}/r3"], 1, "pass --agent demo"),
    (["demo", "--root", "{base}/demo-root", "--out", "{file}/site"], 2, "cannot create --out"),
    (["agents", "--root", "{root}", "extra"], 2, "usage: halo-git agents"),
]


def test_odd_roots_values_and_names_get_a_message_and_the_table_code(places):
    places = {**places, "file": places["base"] / "a-file", "empty": places["base"] / "empty"}
    places["file"].write_text("not a folder\n", encoding="utf-8")
    places["empty"].mkdir(exist_ok=True)
    wrong = []
    for args, want, phrase in ODD:
        args = [a.format(**{k: str(v) for k, v in places.items()}) for a in args]
        r = run_cli(*args, input="")
        if r.returncode != want or phrase not in r.stderr or "Traceback" in r.stderr:
            wrong.append(f"{' '.join(args)}: exit {r.returncode}, want {want} with {phrase!r}: {r.stderr.strip()[-300:]}")
    assert not wrong, "\n".join(wrong)
    assert not (places["base"] / "demo-root").exists()  # the demo stopped before it logged anything
    assert not (places["base"] / "site-prev").exists() and not (places["base"] / "site-ghost").exists()


def test_a_busy_port_is_one_message(places, tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run_cli("serve", "--root", str(places["root"]), "--transport", "http", "--port", str(port), input="")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"halo-git: error: port {port} on 127.0.0.1 is already in use (another server?); "
                                "pass --port with another number, or --port 0 for a free one")
