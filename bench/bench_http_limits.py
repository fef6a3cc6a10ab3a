"""The HTTP server's memory and admission under two floods (docs/security.md, threat 3).

1. ``bodies``: N requests (default 120) with a body just under the 4 MiB limit sent at
   once; prints the server's resident set before, its peak (VmHWM) and after, and the
   status codes.
2. ``streams``: every slot of the session table (default 1,000) held by a session with
   an open SSE stream, then 200 newcomers' ``initialize``; prints the resident set and
   how many newcomers got in.

Usage: ``python bench/bench_http_limits.py [bodies|streams] [N]`` (Linux: reads /proc).
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

import httpx2

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}


def serve() -> tuple[subprocess.Popen, str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "halo_git.cli", "serve", "--root", tempfile.mkdtemp(), "--transport",
                             "http", "--port", "0", "--agent", "bench"], stderr=subprocess.PIPE, text=True)
    port = None
    while port is None:
        m = re.search(r":(\d+)/mcp", proc.stderr.readline())
        port = int(m.group(1)) if m else None
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # never block on a full pipe
    return proc, f"http://127.0.0.1:{port}/mcp", port


def mib(pid: int, key: str) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) // 1024
    raise KeyError(key)


def session(url: str) -> dict:
    r = httpx2.post(url, content=json.dumps(INIT), headers=HEADERS, timeout=60)
    h = HEADERS | {"mcp-session-id": r.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    httpx2.post(url, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=h, timeout=60)
    return h


def bodies(n: int) -> None:
    proc, url, _ = serve()
    h = session(url)
    summary = "x" * (4 * 1024 * 1024 - 400)
    codes: list = []

    def one(i: int) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                           "params": {"name": "halo_observe", "arguments": {"summary": summary}}})
        with httpx2.Client(timeout=120) as c:
            codes.append(c.post(url, content=body, headers=h).status_code)

    before = mib(proc.pid, "VmRSS")
    started = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - started
    time.sleep(1)
    peak, after = mib(proc.pid, "VmHWM"), mib(proc.pid, "VmRSS")
    proc.terminate()
    proc.wait()
    print(f"{n} bodies of 4 MiB at once: RSS {before} MiB before, peak {peak} MiB (+{peak - before}), {after} MiB after; "
          f"{took:.1f} s; statuses { {c: codes.count(c) for c in sorted(set(codes))} }")


def streams(n: int) -> None:
    proc, url, port = serve()
    before = mib(proc.pid, "VmRSS")
    held = []
    for _ in range(n):
        sid = session(url)["mcp-session-id"]
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall((f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\nmcp-session-id: {sid}\r\n"
                   "mcp-protocol-version: 2025-06-18\r\n\r\n").encode())
        s.recv(4096)
        held.append(s)
    full = mib(proc.pid, "VmRSS")
    codes = [httpx2.post(url, content=json.dumps(INIT), headers=HEADERS, timeout=60).status_code for _ in range(200)]
    print(f"{n} sessions holding SSE streams: RSS {before} MiB before, {full} MiB held, peak {mib(proc.pid, 'VmHWM')} MiB; "
          f"200 newcomers: { {c: codes.count(c) for c in sorted(set(codes))} }")
    proc.terminate()
    proc.wait()


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "bodies"
    size = int(sys.argv[2]) if len(sys.argv) > 2 else (120 if what == "bodies" else 1000)
    {"bodies": bodies, "streams": streams}[what](size)
