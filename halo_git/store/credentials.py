"""Git's credential helpers for HTTPS remotes, through ``git credential``.

``git clone`` answers a server's 401 by asking the configured helpers
(``credential.helper=store``, ``cache``, ``osxkeychain``, ``manager``, …) for a
user name and password; ``halo-git clone``, ``push``, ``pull`` and ``serve
--push`` do the same: when the ``git`` binary exists, a 401 runs ``git
credential fill`` for the remote's protocol and host (and path, when
``credential.useHttpPath`` says so: git decides), retries once with what it
returns, then reports the result back (``approve`` or ``reject``) as git does.
Git never prompts on a terminal here (``GIT_TERMINAL_PROMPT=0``): a server
process must not hang on a question nobody sees.

Called by ``store.remote`` only; the credentials stay in memory for one client
and are never printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from urllib.parse import urlsplit


def _run(action: str, fields: dict[str, str]) -> dict[str, str] | None:
    text = "".join(f"{k}={v}\n" for k, v in fields.items()) + "\n"
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        r = subprocess.run(["git", "credential", action], input=text, capture_output=True, text=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


class GitCredentials:
    """Wraps a client's urllib3 pool manager: a 401 is answered once with ``git credential fill``."""

    def __init__(self, pool_manager, url: str):
        self._pool = pool_manager
        parts = urlsplit(url)
        self._ask = {"protocol": parts.scheme, "host": parts.netloc, "path": parts.path.lstrip("/")}
        self._answer: dict[str, str] | None = None
        self._tried = False

    def __getattr__(self, name: str):
        return getattr(self._pool, name)

    def _header(self) -> dict[str, str] | None:
        if not self._tried:
            self._tried = True
            answer = _run("fill", self._ask)
            if answer and answer.get("username"):
                self._answer = answer
        if self._answer is None:
            return None
        import urllib3.util

        return urllib3.util.make_headers(basic_auth=f"{self._answer['username']}:{self._answer.get('password', '')}")

    def request(self, method: str, url: str, *args, **kwargs):
        header = self._header() if self._answer is not None else None
        if header:
            kwargs["headers"] = {**(kwargs.get("headers") or {}), **header}
        response = self._pool.request(method, url, *args, **kwargs)
        if response.status != 401 or header is not None:
            return response
        header = self._header()
        if header is None:
            return response  # no helper had an answer: the caller reports the 401
        kwargs["headers"] = {**(kwargs.get("headers") or {}), **header}
        retried = self._pool.request(method, url, *args, **kwargs)
        _run("reject" if retried.status == 401 else "approve", self._answer or {})
        if retried.status == 401:
            self._answer = None
        return retried


def with_git_credentials(client, url: str):
    """``client`` answering 401s from the user's Git credential helpers, when ``url`` is
    HTTP(S) without credentials of its own and the ``git`` binary exists."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or "@" in parts.netloc or shutil.which("git") is None:
        return client
    pool = getattr(client, "pool_manager", None)
    if pool is not None:
        client.pool_manager = GitCredentials(pool, url)
    return client
