"""HTTPS remotes behind a password, as a Git host serves them: halo-git asks the user's Git
credential helpers (``git credential fill``) on a 401, as ``git clone`` does.

The remote is the real ``git http-backend`` behind a small HTTP server that wants Basic
authentication; the helper is Git's own ``store`` in a temporary home."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from halo_git import Halo
from tests.conftest import PYTHON, git

USER, PASSWORD = "ann", "s3cret-token"


class GitHost(BaseHTTPRequestHandler):
    project_root: Path
    seen: list[str]

    def log_message(self, *args) -> None:
        pass

    def _serve(self) -> None:
        auth = self.headers.get("Authorization", "")
        self.seen.append(auth)
        if auth != "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="halo"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        env = {**os.environ, "GIT_PROJECT_ROOT": str(self.project_root), "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
               "QUERY_STRING": query, "REQUEST_METHOD": self.command, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": USER, "GIT_CONFIG_NOSYSTEM": "1"}
        r = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, timeout=60)
        head, _, payload = r.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(": ")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _serve


@pytest.fixture
def host(tmp_path):
    served = tmp_path / "served"
    with Halo(served) as h:
        h.log("demo", "observe", "user asked for a reminder", session="s1")
        h.log("demo", "observe", "user said thanks", session="s1")
    handler = type("Host", (GitHost,), {"project_root": served, "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {"url": f"http://127.0.0.1:{server.server_address[1]}/demo.git", "port": server.server_address[1], "seen": handler.seen}
    server.shutdown()


def halo_git(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    env.pop("GIT_ASKPASS", None)
    env.pop("SSH_ASKPASS", None)
    return subprocess.run([PYTHON, "-m", "halo_git.cli", *args], capture_output=True, text=True, env=env, timeout=300)


def home_with_store(tmp_path: Path, line: str | None) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[credential]\n\thelper = store\n", encoding="utf-8")
    if line is not None:
        (home / ".git-credentials").write_text(line + "\n", encoding="utf-8")
    return home


def test_clone_uses_the_store_helper_like_git_clone(host, tmp_path):
    home = home_with_store(tmp_path, f"http://{USER}:{PASSWORD}@127.0.0.1:{host['port']}")
    # plain git clone works through the helper: the setup is a real one
    r = subprocess.run(["git", "clone", "-q", "--bare", host["url"], str(tmp_path / "by-git.git")], capture_output=True, text=True,
                       env={**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}, timeout=120)
    assert r.returncode == 0, r.stderr
    root = tmp_path / "root"
    r = halo_git(home, "clone", "--root", str(root), "--agent", "demo", "--", host["url"])
    assert r.returncode == 0, r.stderr
    assert PASSWORD not in r.stdout + r.stderr
    assert git(root / "demo.git", "log", "--format=%s", "main").stdout.splitlines() == ["e2 observe: user said thanks",
                                                                                         "e1 observe: user asked for a reminder"]
    assert host["seen"][0] == ""  # asked without credentials first, as git does
    # pull and push go through the helper too
    with Halo(root) as h:
        h.log("demo", "observe", "a third step", session="s2")
    r = halo_git(home, "push", "--root", str(root), "--agent", "demo", host["url"])
    assert r.returncode == 0, r.stderr
    assert git(tmp_path / "served" / "demo.git", "log", "-1", "--format=%s", "main").stdout.strip() == "e3 observe: a third step"


def test_without_a_helper_the_error_says_where_credentials_go(host, tmp_path):
    home = tmp_path / "bare-home"
    home.mkdir()
    r = halo_git(home, "clone", "--root", str(tmp_path / "root"), "--agent", "demo", "--", host["url"])
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "asked for credentials and no Git credential helper had them (git credential fill)" in r.stderr
    assert not (tmp_path / "root" / "demo.git").exists()


def test_a_wrong_stored_password_is_rejected_and_erased_as_git_does(host, tmp_path):
    home = home_with_store(tmp_path, f"http://{USER}:wrong@127.0.0.1:{host['port']}")
    r = halo_git(home, "clone", "--root", str(tmp_path / "root"), "--agent", "demo", "--", host["url"])
    assert r.returncode == 1 and "asked for credentials" in r.stderr and "wrong" not in r.stderr
    assert "wrong" not in (home / ".git-credentials").read_text()  # git credential reject erased it


@pytest.mark.skipif(sys.platform == "win32", reason="PATH without git is set up for POSIX shells")
def test_credentials_in_the_url_never_reach_the_helper(host, tmp_path):
    home = home_with_store(tmp_path, None)
    url = host["url"].replace("http://", f"http://{USER}:{PASSWORD}@")
    r = halo_git(home, "clone", "--root", str(tmp_path / "root"), "--agent", "demo", "--", url)
    assert r.returncode == 0, r.stderr
    assert not (home / ".git-credentials").exists()  # nothing approved into the store
