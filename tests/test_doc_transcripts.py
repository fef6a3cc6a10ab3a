"""Docs whose examples show output: every block marked ``<!-- transcript -->`` (an HTML
comment on the line before its fence, invisible on GitHub and in the docs site) is a
terminal session. Its ``$ `` lines (``\\`` continues one) run in order, page by page, in
a fresh folder with a fresh home, and what each printed (standard output and error, in
the order a terminal shows them) must match the lines under it. A command that is meant to
fail shows it the shell's way, ``… || echo "exit $?"``, so its exit code is compared too.

Matching forgives only what differs between two honest runs: commit and tree ids,
times, epoch seconds, key fingerprints and signatures (normalised on both sides), and
what the page elides with ``…`` (inside a line: any text; a line of its own: any lines).
A command with no lines under it must succeed; its output is not compared.
``<!-- transcript: NAME -->`` runs in its own folder NAME, apart from the page's
other blocks (a walkthrough that needs a second, different history).

A page whose commands post to ``localhost:4318`` gets a local OTLP/HTTP receiver there
while it runs (the docs' collector), which checks that each POST is one protobuf export.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MARK = re.compile(r"^<!-- transcript(?::\s*([\w-]+))? -->$")
FENCE = re.compile(r"^```(console|text)\s*$")
# pages that must keep at least this many transcript blocks (removing a marker fails)
EXPECTED = {"docs/auditing.md": 6, "docs/branches.md": 6, "docs/interop.md": 3, "docs/ci.md": 1, "docs/security.md": 1}
COLLECTOR = ("127.0.0.1", 4318)  # the OTLP/HTTP port the docs post to

VOLATILE = [
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b"), "‹time›"),
    (re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} +\d{1,2} \d\d:\d\d:\d\d \d{4} [+-]\d{4}\b"), "‹date›"),
    (re.compile(r"SHA256:[A-Za-z0-9+/]{43}"), "‹fingerprint›"),
    (re.compile(r"(?<=> )\d{9,11} [+-]\d{4}$"), "‹epoch›"),
    (re.compile(r"\b[0-9a-f]{7,40}\b"), "‹id›"),
]


def normalise(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        for pattern, placeholder in VOLATILE:
            line = pattern.sub(placeholder, line)
        lines.append(line.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


def expected_pattern(expected: list[str]) -> re.Pattern:
    parts = []
    for line in expected:
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(re.escape(piece) for piece in line.split("…")) + r"\n")
    return re.compile("".join(parts))


def matches(expected: list[str], actual: str) -> bool:
    want = normalise("\n".join(expected))
    got = "\n".join(normalise(actual)) + "\n"
    return expected_pattern(want).fullmatch(got) is not None


def transcripts(path: Path) -> list[tuple[int, str, list[tuple[str, list[str]]]]]:
    """(line number, world, [(command, expected output lines)]) of every marked block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for i, line in enumerate(lines):
        m = MARK.match(line.strip())
        if not m:
            continue
        assert i + 1 < len(lines) and FENCE.match(lines[i + 1]), f"{path.name}:{i + 1}: a transcript mark must sit right above a console or text fence"
        end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
        steps: list[tuple[str, list[str]]] = []
        body = lines[i + 2 : end]
        k = 0
        while k < len(body):
            assert body[k].startswith("$ "), f"{path.name}:{i + 3 + k}: a transcript starts each command with '$ '"
            command = body[k][2:]
            while command.endswith("\\"):  # bash reads the backslash-newline as one line
                k += 1
                command += "\n" + body[k]
            k += 1
            output = []
            while k < len(body) and not body[k].startswith("$ "):
                output.append(body[k])
                k += 1
            steps.append((command, output))
        found.append((i + 3, m.group(1) or "", steps))
    return found


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_the_matcher_forgives_ids_and_elisions_and_nothing_else():
    actual = "ok: 21 events, head f526b37f09ab5d4aa1f2af227de691402157ff7f\nDate:   Tue Dec 1 21:36:39 2026 +0000\nx\ny\nlast\n"
    assert matches(["ok: 21 events, head 1ce46b8d74f6…", "Date:   Tue Dec 1 08:49:25 2026 +0000", "…", "last"], actual)
    assert not matches(["ok: 18 events, head 1ce46b8d74f6…", "…", "last"], actual)  # a count is not an id
    assert not matches(["ok: 21 events, head 1ce46b8d74f6…"], actual)  # lines after it are not elided
    assert matches(["author A <a@x> 1796114965 +0000"], "author A <a@x> 1796160999 +0000\n")
    assert not matches(["ok: 21 events, head 1ce46b8d74f6…", "Date: …", "x", "last"], actual)  # y is not elided


def test_the_marked_pages_keep_their_transcripts():
    counts = {str(p.relative_to(REPO)): len(transcripts(p)) for p in pages()}
    for page, least in EXPECTED.items():
        assert counts[page] >= least, (page, counts[page])


@contextlib.contextmanager
def collector(posts: list):
    """An OTLP/HTTP receiver on ``COLLECTOR`` keeping (path, content type, body) of each POST.
    The port is fixed by the docs: if another run holds it, wait for it a while."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            posts.append((self.path, self.headers["Content-Type"], self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")  # an empty ExportTraceServiceResponse: all accepted
            self.end_headers()

        def log_message(self, *args):
            pass

    deadline = time.monotonic() + 60
    while True:
        try:
            server = ThreadingHTTPServer(COLLECTOR, Handler)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("page", [p for p in pages() if transcripts(p)], ids=lambda p: p.name)
def test_transcripts_match_the_product(page, tmp_path):
    blocks = transcripts(page)
    posts: list = []
    needs_collector = any("localhost:4318" in command for _, _, steps in blocks for command, _ in steps)
    with collector(posts) if needs_collector else contextlib.nullcontext():
        check_transcripts(page, blocks, tmp_path)
    if needs_collector:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        assert posts and all(path == "/v1/traces" and ctype == "application/x-protobuf" for path, ctype, _ in posts), posts
        assert all(ExportTraceServiceRequest.FromString(body).resource_spans for _, _, body in posts)


def check_transcripts(page: Path, blocks, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("HALO_ROOT", "HALO_SCREEN", "HALO_ALLOWED_SIGNERS")}
    env.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", COLUMNS="100",
               GIT_CONFIG_NOSYSTEM="1", PYTHONUNBUFFERED="1", PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]))
    for name in ("no_proxy", "NO_PROXY"):  # the docs' collector is local
        env[name] = ",".join(filter(None, [env.get(name), "localhost", "127.0.0.1"]))
    wrong = []
    for line, world, steps in blocks:
        cwd = tmp_path / (world or "page")
        cwd.mkdir(exist_ok=True)
        for command, expected in steps:
            # one pipe for both streams, Python unbuffered: the lines come in the order they were written
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            where = f"{page.relative_to(REPO)}:{line} $ {command.splitlines()[0]}"
            assert r.returncode == 0, f"{where} exited {r.returncode}:\n{r.stdout[-4000:]}"
            if expected and not matches(expected, r.stdout):
                wrong.append(f"{where}\n--- the page shows:\n" + "\n".join(expected) + "\n--- the product printed:\n" + r.stdout)
    assert not wrong, "\n\n".join(wrong)


# --- JSON the docs show ----------------------------------------------------------------------


def json_matches(expected, actual, where: str = "$") -> list[str]:
    """Differences between a documented JSON value and the real one. A string with ``…``
    matches any text there (ids normalised as above); a list ending with ``"…"`` matches
    one that goes on; a key ``"…"`` lets an object hold more keys."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: an object, got {actual!r:.80}"]
        wrong = [] if "…" in expected or set(expected) == set(actual) else [f"{where}: keys {sorted(expected)} != {sorted(actual)}"]
        for key, value in expected.items():
            if key != "…":
                wrong += [f"{where}.{key}: missing"] if key not in actual else json_matches(value, actual[key], f"{where}.{key}")
        return wrong
    if isinstance(expected, list):
        more = bool(expected) and expected[-1] == "…"
        items = expected[:-1] if more else expected
        if not isinstance(actual, list) or len(actual) < len(items) or (not more and len(actual) != len(items)):
            return [f"{where}: {len(items)}{'+' if more else ''} items, got {actual!r:.120}"]
        return [w for i, item in enumerate(items) for w in json_matches(item, actual[i], f"{where}[{i}]")]
    if isinstance(expected, str) and isinstance(actual, str):
        return [] if matches([expected], actual) else [f"{where}: {expected!r} does not match {actual!r}"]
    return [] if expected == actual else [f"{where}: {expected!r} != {actual!r}"]


def test_json_matcher():
    assert json_matches({"a": "x…", "b": [1, "…"]}, {"a": "xyz", "b": [1, 2]}) == []
    assert json_matches({"a": "x…"}, {"a": "xyz", "c": 1}) != []  # an undocumented key
    assert json_matches({"b": [1]}, {"b": [1, 2]}) != []  # a list the page does not elide
    assert json_matches({"head": "3f2c8e1…"}, {"head": "424647d9403c9c50e7c2a3d7f5e5f111aec749c9"}) == []


def test_tools_page_findings_json_is_what_the_server_returns(tmp_path):
    import json

    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from tests.conftest import run_cli, server_params

    page = (REPO / "docs/tools.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- findings-json -->\n```json\n(.*?)```", page, re.S)
    assert block, "docs/tools.md lost its findings JSON example"
    documented = json.loads(block[1])
    root = tmp_path / "root"
    assert run_cli("demo", "--root", str(root)).returncode == 0

    async def read():
        async with stdio_client(server_params(root)) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                result = await s.read_resource("halo://agents/demo/findings")
                return json.loads(result.contents[0].text)

    assert json_matches(documented, anyio.run(read)) == []


# --- the tools page: a reply, a trace and every refusal it shows -------------------------------

# the refusals table's calls, as made (the page's "call" column → tool and arguments)
REFUSAL_CALLS = {
    '`uses: ["e42"]` on a 5-event trace': ("halo_act", {"summary": "x", "uses": ["e42"], "trigger": "self"}),
    '`use: ["e1"]` (typo)': ("halo_observe", {"summary": "x", "use": ["e1"]}),
    '`trigger: "maybe"`': ("halo_act", {"summary": "x", "trigger": "maybe"}),
    '`about: "e1"` naming an observe': ("halo_outcome", {"summary": "x", "about": "e1"}),
    '`summary: "  "`': ("halo_observe", {"summary": "  "}),
    "`summary: 42`": ("halo_observe", {"summary": 42}),
    '`uses: ["e01"]`': ("halo_observe", {"summary": "x", "uses": ["e01"]}),
    "`limit: 0`": ("halo_trace", {"limit": 0}),
}
# rows not made here, and why
REFUSALS_ELSEWHERE = {
    "no agent anywhere": "the client's name is the default agent; tests/test_server.py starts a server a nameless client reaches",
    "a likely secret or personal data": "its row describes the message instead of quoting it",
}
# the example the page's reply and trace show: an act using an observation and a recall
TOOLS_PAGE_FLOW = [
    ("halo_observe", {"summary": "user asked to be reminded at 9:30", "session": "day1"}),
    ("halo_remember", {"summary": "reminder at 9:30", "uses": ["e1"], "session": "day1"}),
    ("halo_recall", {"summary": "looked up the 9:30 reminder", "uses": ["e2"], "session": "day2"}),
    ("halo_act", {"summary": "reminded at 9:30", "uses": ["e3"], "trigger": "self", "session": "day2"}),
    ("halo_act", {"summary": "confirmed the next reminder", "uses": ["e1", "e3"], "trigger": "request", "session": "day2"}),
]


def test_tools_page_reply_trace_and_refusals_are_what_the_server_says(tmp_path):
    import json

    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from tests.conftest import server_params

    page = (REPO / "docs/tools.md").read_text(encoding="utf-8")
    reply = re.search(r"### Replies\n\n```json\n(.*?)\n```", page, re.S)
    trace = re.search(r"- \*\*`halo_trace`\*\*.*?```text\n(.*?)\n\s*```", page, re.S)
    section = page.split("### Refusals", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.M)[2:]  # after the header and its rule
    assert reply and trace and len(rows) >= len(REFUSAL_CALLS), "docs/tools.md lost its reply, trace or refusals examples"
    documented_trace = [line.strip() for line in trace[1].splitlines()]
    unmapped = [call for call, _ in rows if call not in REFUSAL_CALLS and call not in REFUSALS_ELSEWHERE]
    assert not unmapped, f"rows of the refusals table this test does not make: {unmapped}"

    async def run():
        async with stdio_client(server_params(tmp_path / "root")) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                replies = []
                for tool, args in TOOLS_PAGE_FLOW:
                    result = await s.call_tool(tool, {"agent": "demo", **args})
                    assert not result.is_error, result.content[0].text
                    replies.append(result.content[0].text)
                lines = (await s.call_tool("halo_trace", {"agent": "demo", "limit": len(documented_trace)})).content[0].text
                refusals = {}
                for call, (tool, args) in REFUSAL_CALLS.items():
                    result = await s.call_tool(tool, {"agent": "demo", **args})
                    refusals[call] = (result.is_error, result.content[0].text)
                return replies, lines, refusals

    replies, lines, refusals = anyio.run(run)
    assert reply[1] in replies, (reply[1], replies)  # byte for byte, as the page says
    assert lines.splitlines() == documented_trace
    wrong = []
    for call, shown in rows:
        if call in REFUSALS_ELSEWHERE:
            continue
        is_error, text = refusals[call]
        message = json.loads(text).get("error", "") if is_error else f"not refused: {text}"
        if not (shown.startswith("`") and shown.endswith("`") and matches([shown[1:-1]], message)):
            wrong.append(f"{call}\n  the page: {shown}\n  the server: {message}")
    assert not wrong, "\n".join(wrong)


def test_api_page_error_tree_is_the_class_tree():
    import inspect

    from halo_git import errors

    page = (REPO / "docs/api.md").read_text(encoding="utf-8")
    block = re.search(r"## Errors\n.*?```text\n(.*?)```", page, re.S)
    assert block, "docs/api.md lost its error tree"
    shown, parents = {}, []  # name -> the class above it in the drawing
    for line in block[1].splitlines():
        m = re.match(r"^([│├└─ ]*)(\w+)\s", line + " ")
        depth = len(m[1]) // 4
        parents[depth:] = [m[2]]
        shown[m[2]] = parents[depth - 1] if depth else None
    real = {name: (None if c is errors.HaloError else c.__base__.__name__)
            for name, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, errors.HaloError)}
    assert shown == real
