"""The real ``halo-git serve`` over stdio, spoken to line by line (JSON-RPC).

The SDK client hides the server process and refuses to send some bytes (lone
surrogates); the crash and fuzz tests need the process id (to kill it) and the
raw wire (to send what a broken client might). Replies are matched by id, so a
request the server never answers shows up as a timeout, not a hang.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

PROTOCOL = "2025-06-18"


class RawServer:
    def __init__(self, root: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, stderr: Path | None = None):
        self._stderr = open(stderr, "ab") if stderr else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "halo_git.cli", "serve", "--root", str(root), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def initialize(self, client: str = "raw-test", timeout: float = 60) -> dict | None:
        reply = self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": client, "version": "1"}},
            timeout=timeout,
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def send(self, message: dict | bytes) -> bool:
        # ASCII JSON: a lone surrogate travels as its \ud800 escape, as JSON allows.
        data = message if isinstance(message, bytes) else json.dumps(message).encode("ascii")
        try:
            self.proc.stdin.write(data.rstrip(b"\n") + b"\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, ValueError, OSError):
            return False

    def request(self, method: str, params: Any, timeout: float = 60, raw: Callable[[int], bytes] | None = None) -> dict | None:
        """Send one request (or the line ``raw(id)`` builds) and wait for the
        reply with its id; None when the server died or did not answer in time."""
        self._next += 1
        rid = self._next
        if raw is not None:
            ok = self.send(raw(rid))
        else:
            ok = self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if not ok:
            return None
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                return None
            if line is None:
                self._lines.put(None)
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") == rid:
                return message

    def call(self, tool: str, arguments: Any, timeout: float = 60) -> dict | None:
        """``tools/call``; returns the JSON-RPC message (``result`` or ``error``)."""
        return self.request("tools/call", {"name": tool, "arguments": arguments}, timeout=timeout)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._close_files()

    def close(self, timeout: float = 30) -> int:
        """Close stdin (a clean shutdown) and wait for the exit code."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            self._close_files()

    def _close_files(self) -> None:
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()


def result_payload(message: dict) -> tuple[bool, Any]:
    """(is_error, parsed text) of a tools/call reply."""
    result = message["result"]
    text = result["content"][0]["text"]
    try:
        payload = json.loads(text)
    except ValueError:
        payload = text
    return bool(result.get("isError")), payload
