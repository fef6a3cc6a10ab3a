"""Who may talk to ``halo-git serve --transport http``, and what a flood costs.

Real servers as subprocesses, the real SDK client (with an Authorization header
where a token is set) and raw HTTP requests for what a hostile client sends.
All traffic stays on this machine: the non-loopback address is one of its own
interfaces (or, without one, a 0.0.0.0 bind reached through 127.0.0.1).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation

from tests.conftest import PYTHON, git

TOKEN = "s3cret-token-for-tests-0123456789"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def own_non_loopback_address() -> str | None:
    """An IPv4 address of one of this machine's own interfaces, if it has one."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        out = []
    for addr in out:
        if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", addr) and not addr.startswith("127."):
            try:  # it must be bindable here, i.e. really ours
                with socket.socket() as s:
                    s.bind((addr, 0))
                return addr
            except OSError:
                continue
    return None


OWN = own_non_loopback_address()
# (address to bind, address to connect to): traffic never leaves this machine
REMOTE_BIND = (OWN, OWN) if OWN else ("0.0.0.0", "127.0.0.1")


def start(root: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    environment = {k: v for k, v in os.environ.items() if k != "HALO_TOKEN"} | (env or {})
    return subprocess.Popen(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--transport", "http", "--port", "0", *extra],
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )


@contextmanager
def running(root: Path, *extra: str, connect: str = "127.0.0.1", env: dict[str, str] | None = None):
    """A served HTTP endpoint; yields (url, process)."""
    proc = start(root, *extra, env=env)
    try:
        deadline = time.monotonic() + 30
        port = None
        while port is None:
            assert time.monotonic() < deadline, "server did not announce its URL"
            line = proc.stderr.readline()
            if not line:
                raise RuntimeError(f"server exited ({proc.wait()}) before announcing its URL")
            m = re.search(r"on http://\S+:(\d+)/mcp", line)
            if m:
                port = int(m.group(1))
        yield f"http://{connect}:{port}/mcp", proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def authed_client(url: str, token: str = TOKEN, mode: str = "legacy", **kw) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode, **kw)


def post(url: str, body: dict = INIT, **headers: str) -> httpx2.Response:
    with httpx2.Client(timeout=30) as c:
        return c.post(url, content=json.dumps(body), headers=JSON_HEADERS | headers)


# -- item: a non-loopback bind needs authentication ---------------------------------------


def test_non_loopback_bind_without_a_token_is_refused(root):
    host = REMOTE_BIND[0]
    proc = start(root, "--host", host)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert f"refusing to serve HTTP on {host}" in err
    assert "HALO_TOKEN" in err and "--token-file" in err and "127.0.0.1" in err
    assert "Traceback" not in err
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("content", ["", "short", "two words here and more"])
def test_a_weak_or_empty_token_file_is_refused(root, tmp_path, content):
    f = tmp_path / "token"
    f.write_text(content)
    proc = start(root, "--host", REMOTE_BIND[0], "--token-file", str(f))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "at least 16 characters" in err and "secrets.token_urlsafe" in err


def test_token_options_only_apply_to_http(root, tmp_path):
    proc = subprocess.run(
        [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--allow-origin", "https://x.example"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and "--transport http only" in proc.stderr


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_non_loopback_with_token_file_401_403_421_and_success_through_the_client(root, tmp_path, mode):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    bind, connect = REMOTE_BIND
    with running(root, "--host", bind, "--token-file", str(token_file), "--allow-origin", "https://review.example.org",
                 connect=connect) as (url, _):
        host = url.split("/")[2]
        missing = post(url)
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].startswith('Bearer realm="halo"')
        assert "Authorization: Bearer" in missing.json()["error"]
        wrong = post(url, Authorization="Bearer " + "x" * len(TOKEN))
        assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
        assert post(url, Authorization=f"Basic {TOKEN}").status_code == 401
        # the right token but a foreign Origin (a web page in the user's browser): 403
        foreign = post(url, Authorization=f"Bearer {TOKEN}", Origin="https://evil.example")
        assert foreign.status_code == 403
        # a Host nobody allowed (DNS rebinding): 421
        rebound = post(url, Authorization=f"Bearer {TOKEN}", Host="evil.example:80")
        assert rebound.status_code == 421
        # the allowed Origin and the server's own Host pass
        ok = post(url, Authorization=f"Bearer {TOKEN}", Origin="https://review.example.org", Host=host)
        assert ok.status_code == 200, ok.text

        async def main():
            async with authed_client(url, mode=mode) as c:
                r = await c.call_tool("halo_observe", {"agent": "remote", "summary": "logged over authenticated HTTP"})
                assert not r.is_error, r.content
                assert json.loads(r.content[0].text)["id"] == "e1"

        anyio.run(main)
    # the refused requests committed nothing; the one call through the client did
    assert git(root / "remote.git", "rev-list", "--count", "main").stdout.strip() == "1"


def test_token_from_the_environment_and_required_on_loopback_too(root):
    with running(root, env={"HALO_TOKEN": TOKEN}) as (url, proc):
        assert post(url).status_code == 401
        assert post(url, Authorization=f"Bearer {TOKEN}").status_code == 200

        async def main():
            async with authed_client(url, token="wrong-token-0123456789") as c:
                await c.list_tools()

        with pytest.raises(Exception):
            anyio.run(main)


def test_loopback_without_token_still_checks_origin_and_host(root):
    with running(root) as (url, _):
        assert post(url, Origin="https://evil.example").status_code == 403
        assert post(url, Host="evil.example").status_code == 421
        assert post(url, Origin="http://localhost:3000").status_code == 200


# -- item: bounded memory per client identity, no lockout by a flood ------------------------


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_huge_client_versions_do_not_grow_the_server(root):
    """250 stateless 2026-07-28 clients each naming a 3 MB version: RSS stays bounded
    (before the cap on labels, this grew the server by about 800 MB)."""
    huge = "v" * (3 * 1024 * 1024)
    with running(root, "--agent", "flood") as (url, proc):
        async def one(i: int) -> str:
            info = Implementation(name=f"flood-{i % 5}", version=huge + str(i))
            async with Client(url, mode="2026-07-28", client_info=info) as c:
                r = await c.call_tool("halo_trace", {})
                assert not r.is_error
                return r.content[0].text

        async def main(n: int) -> None:
            for i in range(n):
                await one(i)

        anyio.run(main, 10)
        before = rss_kb(proc.pid)
        anyio.run(main, 250)
        after = rss_kb(proc.pid)
    print(f"RSS before {before} kB, after {after} kB")
    assert after - before < 120 * 1024, (before, after)


def test_client_label_is_cut_and_table_bounded(root):
    """Many distinct stateless identities: the session labels stay valid and the
    same identity keeps its label (a cut label still tells clients apart by prefix)."""
    with running(root, "--agent", "labels") as (url, _):
        async def session_of(name: str, version: str) -> str:
            async with Client(url, mode="2026-07-28", client_info=Implementation(name=name, version=version)) as c:
                r = await c.call_tool("halo_observe", {"summary": "hello"})
                assert not r.is_error, r.content
                return json.loads(r.content[0].text)["session"]

        async def main():
            a1 = await session_of("client-a", "1" * 1000)
            a2 = await session_of("client-a", "1" * 1000)
            b = await session_of("client-b", "1")
            assert a1 == a2 != b

        anyio.run(main)


def test_a_flood_of_initialize_calls_does_not_lock_out_new_clients(root):
    """With the session table full of idle sessions, a new client still gets in:
    the least recently active idle session is closed for it (the SDK default
    answered 503 until the 30-minute idle timeout)."""
    cap = 20
    with running(root, "--agent", "flood", "--max-sessions", str(cap)) as (url, _):
        ids = []
        for _ in range(cap * 3):
            r = post(url)
            assert r.status_code == 200, r.text
            ids.append(r.headers["mcp-session-id"])

        async def main():
            with anyio.fail_after(60):
                async with Client(url, mode="legacy") as c:
                    r = await c.call_tool("halo_observe", {"summary": "got in after the flood"})
                    assert not r.is_error

        anyio.run(main)
        # the oldest flood sessions were closed (404), the newest still answer
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert post(url, ping, **{"mcp-session-id": ids[0], "mcp-protocol-version": "2025-06-18"}).status_code == 404
        assert post(url, ping, **{"mcp-session-id": ids[-1], "mcp-protocol-version": "2025-06-18"}).status_code == 200


def test_a_half_open_connection_is_closed_by_the_read_timeout(root):
    """A client that connects and sends half a request is disconnected (15 s),
    instead of holding the connection forever."""
    with running(root) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
            started = time.monotonic()
            data = s.recv(100)  # b"" once the server closes
            waited = time.monotonic() - started
        assert data == b"" or data.startswith(b"HTTP/1.1 4")
        assert 10 < waited < 40, waited
