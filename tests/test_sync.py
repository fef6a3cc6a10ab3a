"""Traces reach a Git host without a person: ``serve --push`` in the background,
``push --all``, ``pull --all``, ``clone --all`` and ``halo-git agents``, against bare
repositories made by the real ``git`` binary, reached as paths and through
``git daemon`` on 127.0.0.1; a dead or hanging remote never slows or fails an append."""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from halo_git import Halo
from halo_git.errors import InvalidCall
from halo_git.store.sync import read_state, remote_url
from tests.conftest import PYTHON, git, run_cli
from tests.test_remote import daemon, free_port, make_bare  # noqa: F401  (daemon is a fixture)

AGENTS = ("alpha", "beta", "gamma")


def fill(root: Path, agents=AGENTS, n: int = 3, session: str = "s1") -> None:
    with Halo(root) as h:
        for a in agents:
            for i in range(n):
                h.log(a, "observe", f"{a} saw thing {i}", session=session)


def remote_events(repo: Path) -> int:
    r = git(repo, "rev-list", "--count", "main", check=False)
    return int(r.stdout) if r.returncode == 0 else 0


def wait_for(predicate, timeout: float = 60.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(step)


def test_remote_url_places_the_agent_name():
    assert remote_url("/srv/traces/", "demo") == "/srv/traces/demo.git"
    assert remote_url("git@github.com:org", "demo") == "git@github.com:org/demo.git"
    assert remote_url("https://h/org/{agent}-trace.git", "demo") == "https://h/org/demo-trace.git"
    with pytest.raises(InvalidCall):
        remote_url("https://h/org", "../etc")


def test_push_all_pull_all_clone_all_through_a_folder_of_bare_repositories(tmp_path):
    root, served = tmp_path / "root", tmp_path / "served"
    fill(root)
    for a in AGENTS:
        make_bare(served / f"{a}.git")
    r = run_cli("push", "--all", str(served), root=root)
    assert r.returncode == 0, r.stderr
    assert "3 of 3 agent(s) pushed" in r.stdout
    for a in AGENTS:
        assert remote_events(served / f"{a}.git") == 3
        assert git(served / f"{a}.git", "fsck", "--strict").returncode == 0

    # CI side: discover and clone every agent of the folder, then pull what is new
    ci = tmp_path / "ci"
    r = run_cli("clone", str(served), "--all", root=ci)
    assert r.returncode == 0, r.stderr
    assert "3 of 3 agent(s) cloned" in r.stdout
    fill(root, ("beta",), n=2, session="s2")
    assert run_cli("push", "--all", str(served), root=root).returncode == 0
    r = run_cli("pull", "--all", f"file://{served}", root=ci)
    assert r.returncode == 0, r.stderr
    assert "agent 'beta' branch 'main': fast-forwarded with 2 event(s)" in r.stdout
    assert "agent 'alpha' branch 'main': already up to date" in r.stdout
    with Halo(ci) as h:
        assert [len(h.events(a)) for a in AGENTS] == [3, 5, 3]

    # the agents listing shows what was pushed, where, and when
    r = run_cli("agents", root=root)
    assert r.returncode == 0, r.stderr
    lines = {line.split()[0]: line for line in r.stdout.splitlines()[1:]}
    assert set(lines) == set(AGENTS)
    assert lines["beta"].split()[1:3] == ["5", "2"]
    assert f"pushed {git(served / 'beta.git', 'rev-parse', 'main').stdout[:10]} to {served}/beta.git" in lines["beta"]
    rows = [json.loads(line) for line in run_cli("agents", "--json", root=ci).stdout.splitlines()]
    assert [(x["agent"], x["events"], x["push"]) for x in rows] == [("alpha", 3, None), ("beta", 5, None), ("gamma", 3, None)]


def test_fleet_commands_report_each_failure_and_go_on(tmp_path):
    root, served = tmp_path / "root", tmp_path / "served"
    fill(root)
    make_bare(served / "alpha.git")
    make_bare(served / "gamma.git")  # beta has no repository on the remote
    r = run_cli("push", "--all", str(served), root=root)
    assert r.returncode == 1
    assert "2 of 3 agent(s) pushed; 1 failed: beta" in r.stdout
    assert "agent 'beta': FAILED:" in r.stderr
    assert remote_events(served / "gamma.git") == 3
    state = read_state(root / "beta.git")["main"]
    assert state.status == "failing" and state.failures == 1 and state.error
    assert "FAILING" in run_cli("agents", root=root).stdout

    # a Git host's namespace cannot be listed over Git: the refusal says what to pass
    r = run_cli("clone", "https://git.example.com/org", "--all", root=tmp_path / "ci")
    assert r.returncode == 2 and "--agents a,b or --agents-file FILE" in r.stderr
    r = run_cli("clone", str(served), "--all", "--agents-file", "-", root=tmp_path / "ci", input="alpha.git\nbeta\n")
    assert r.returncode == 1 and "1 of 2 agent(s) cloned; 1 failed: beta" in r.stdout
    assert run_cli("push", str(served), root=root).returncode == 2  # neither --agent nor --all


def _serve_params(root: Path, log: Path, *extra: str) -> StdioServerParameters:
    # the server's log (stderr) goes to a file the test reads
    cmd = " ".join([PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), *extra])
    return StdioServerParameters(command="sh", args=["-c", f"exec {cmd} 2>>{log}"])


def test_serve_push_sends_each_session_and_the_rest_at_shutdown_to_git_daemon(tmp_path, daemon):  # noqa: F811
    base, url = daemon
    remote = make_bare(base / "demo.git")
    root, log = tmp_path / "root", tmp_path / "server.log"

    async def scenario():
        params = _serve_params(root, log, "--agent", "demo", "--push", url, "--push-idle", "600", "--push-every", "1000")
        async with Client(params, mode="legacy") as c:
            for i in range(3):
                r = await c.call_tool("halo_observe", {"summary": f"day one, step {i}", "session": "day1"})
                assert not r.is_error
            # a new session label: day1 has ended, so the branch goes out now
            r = await c.call_tool("halo_observe", {"summary": "day two begins", "session": "day2"})
            assert not r.is_error
            await anyio.to_thread.run_sync(lambda: wait_for(lambda: remote_events(remote) >= 4))
            r = await c.call_tool("halo_observe", {"summary": "day two, later", "session": "day2"})
            assert not r.is_error
            await anyio.sleep(0.5)
            assert remote_events(remote) == 4  # mid-session, below --push-every: not yet
        # the connection closed: the server pushed the rest before it exited

    anyio.run(scenario)
    assert remote_events(remote) == 5
    assert git(remote, "fsck", "--strict").returncode == 0
    text = log.read_text()
    assert f"halo-git push: pushing each agent's branch to {url}/<agent>.git" in text
    assert "halo-git push: agent 'demo' branch 'main': created with 4 event(s)" in text
    assert "halo-git push: agent 'demo' branch 'main': fast-forwarded with 1 event(s)" in text
    state = read_state(root / "demo.git")["main"]
    assert state.status == "pushed" and state.commit == git(remote, "rev-parse", "main").stdout.strip()


def _median_append_ms(h: Halo, agent: str, n: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        h.log(agent, "observe", f"step {i}", session="s")
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def test_a_dead_remote_never_slows_or_fails_an_append(tmp_path):
    dead = f"git://127.0.0.1:{free_port()}"  # nothing listens there
    lines: list[str] = []
    with Halo(tmp_path / "plain") as plain, Halo(tmp_path / "pushing") as pushing:
        pushing.start_push(dead, every=1, idle=0.01, backoff=(0.2, 1.0), log=lines.append)
        _median_append_ms(plain, "warm", 5)
        _median_append_ms(pushing, "warm", 5)
        base, with_push = [], []
        for _ in range(4):  # interleaved, so a busy machine hits both alike
            base += _median_append_ms(plain, "demo", 15)
            with_push += _median_append_ms(pushing, "demo", 15)
        wait_for(lambda: sum("failed (attempt" in x for x in lines) >= 3, timeout=60)
        assert len(pushing.events("demo")) == 60
        t0 = time.monotonic()
    assert time.monotonic() - t0 < 30  # closing makes one last attempt and returns
    ratio = statistics.median(with_push) / statistics.median(base)
    assert ratio < 2, (statistics.median(with_push), statistics.median(base))
    state = read_state(tmp_path / "pushing" / "demo.git")["main"]
    assert state.status == "failing" and state.failures >= 2 and state.error
    assert any("retrying in" in x for x in lines)


def test_a_hanging_remote_is_given_up_after_the_timeout(tmp_path):
    """A remote that accepts the connection and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    lines: list[str] = []
    try:
        with Halo(tmp_path / "root") as h:
            h.start_push(f"git://127.0.0.1:{listener.getsockname()[1]}", idle=0.01, timeout=1.0, log=lines.append)
            t0 = time.perf_counter()
            for i in range(20):
                h.log("demo", "observe", f"step {i}", session="s")
            assert time.perf_counter() - t0 < 10
            wait_for(lambda: any("timed out after 1 s" in x for x in lines), timeout=30)
            closing = time.monotonic()
        assert time.monotonic() - closing < 10
        assert len(Halo(tmp_path / "root").events("demo")) == 20
    finally:
        stop.set()
        listener.close()
        for s in held:
            s.close()


def test_http_server_pushes_what_is_pending_when_terminated(tmp_path):
    """SIGTERM (what a service manager sends) is a shutdown: the pending events go out first."""
    import re
    import signal
    import subprocess

    served = make_bare(tmp_path / "served" / "demo.git")
    root, log = tmp_path / "root", tmp_path / "server.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0",
             "--agent", "demo", "--push", str(tmp_path / "served"), "--push-idle", "600"],
            stderr=err, stdout=subprocess.DEVNULL,
        )
    try:
        wait_for(lambda: re.search(r"http://127\.0\.0\.1:\d+/mcp", log.read_text()), timeout=60)
        url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", log.read_text()).group(1)

        async def scenario():
            async with Client(url, mode="legacy") as c:
                for i in range(3):
                    assert not (await c.call_tool("halo_observe", {"summary": f"step {i}", "session": "s1"})).is_error

        anyio.run(scenario)
        time.sleep(0.3)
        assert remote_events(served) == 0  # idle 600 s, 3 events below --push-every: nothing pushed yet
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert remote_events(served) == 3, log.read_text()
    assert "created with 3 event(s)" in log.read_text()


def test_a_starting_server_pushes_what_was_logged_while_nothing_pushed(tmp_path):
    root, served = tmp_path / "root", tmp_path / "served"
    fill(root)  # logged with no server pushing
    for a in AGENTS:
        make_bare(served / f"{a}.git")
    assert run_cli("push", "--agent", "alpha", str(served / "alpha.git"), root=root).returncode == 0
    lines: list[str] = []
    with Halo(root) as h:
        h.start_push(str(served), idle=600, log=lines.append)
        wait_for(lambda: all(remote_events(served / f"{a}.git") == 3 for a in AGENTS), timeout=60)
    assert sum("created with 3 event(s)" in x for x in lines) == 2  # beta and gamma; alpha was pushed (and recorded) before
    assert not any("alpha" in x for x in lines[1:])
    assert all(read_state(root / f"{a}.git")["main"].status == "pushed" for a in AGENTS)
