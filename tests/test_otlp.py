"""OTLP export checked with the OpenTelemetry protobuf definitions (``opentelemetry-proto``):
the JSON parses into an ``ExportTraceServiceRequest``; one trace per session, one span per
event, parents and links from about/uses, GenAI and halo.* attributes, ids stable across
exports; and a local OTLP/HTTP receiver gets the same spans from ``--endpoint``."""

from __future__ import annotations

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from halo_git.formats.otlp import export_request, span_id, trace_id, unix_nano
from halo_git.formats.otlp_http import traces_url
from halo_git.errors import InvalidCall
from tests.conftest import run_cli
from tests.test_atif import scenario

HEX = {"traceId": 32, "spanId": 16, "parentSpanId": 16}


def to_proto_json(obj):
    """OTLP/JSON writes ids as hex, protobuf's JSON mapping reads bytes as base64: convert,
    checking each id is lowercase hex of the right length (a 32-digit hex string is also
    valid base64, so parsing it unconverted would silently give 24 wrong bytes)."""
    if isinstance(obj, list):
        return [to_proto_json(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        if k in HEX:
            assert re.fullmatch(f"[0-9a-f]{{{HEX[k]}}}", v), (k, v)
            v = base64.b64encode(bytes.fromhex(v)).decode()
        out[k] = to_proto_json(v)
    return out


def parse(text_or_obj) -> ExportTraceServiceRequest:
    obj = json.loads(text_or_obj) if isinstance(text_or_obj, (str, bytes)) else text_or_obj
    return json_format.Parse(json.dumps(to_proto_json(obj)), ExportTraceServiceRequest())


def attrs(kvs) -> dict:
    out = {}
    for kv in kvs:
        which = kv.value.WhichOneof("value")
        out[kv.key] = [x.string_value for x in kv.value.array_value.values] if which == "array_value" else getattr(kv.value, which)
    return out


def test_export_parses_as_otlp_with_traces_spans_parents_and_links(halo):
    scenario(halo)
    log = halo.event_log("demo")
    req = parse(export_request(log.events, agent="demo", branch="main", head=log.head, exporter_version="0.1.0"))
    [rs] = req.resource_spans
    assert attrs(rs.resource.attributes) == {"service.name": "demo", "halo.agent": "demo", "halo.branch": "main", "halo.head": log.head}
    [ss] = rs.scope_spans
    assert (ss.scope.name, ss.scope.version) == ("halo-git", "0.1.0")
    spans = {attrs(s.attributes)["halo.id"]: s for s in ss.spans}
    assert list(spans) == [f"e{i}" for i in range(1, 11)]  # one span per event, commit order
    by_trace = {}
    for s in ss.spans:
        by_trace.setdefault(s.trace_id, set()).add(attrs(s.attributes)["gen_ai.conversation.id"])
    assert len(by_trace) == 2 and all(len(v) == 1 for v in by_trace.values())  # one trace per session
    assert spans["e1"].trace_id == bytes.fromhex(trace_id("demo", "main", "day1"))
    assert spans["e5"].trace_id == bytes.fromhex(trace_id("demo", "main", "day2"))
    for i, s in spans.items():
        assert s.span_id == bytes.fromhex(span_id("demo", "main", i))
        assert s.kind == s.SPAN_KIND_INTERNAL
        assert s.start_time_unix_nano == unix_nano(log.events[int(i[1:]) - 1].time)

    def parent(i):
        p = spans[i].parent_span_id
        return next((j for j, s in spans.items() if s.span_id == p), None) if p else None

    def links(i):
        return [(next(j for j, s in spans.items() if s.span_id == link.span_id), attrs(link.attributes)["halo.link"],
                 link.trace_id == spans[i].trace_id) for link in spans[i].links]

    assert parent("e1") is None and not spans["e1"].links
    assert parent("e2") == "e1"
    assert parent("e3") == "e1" and links("e3") == [("e2", "uses", True)]
    assert parent("e4") == "e3"  # an outcome hangs under its act
    assert parent("e5") is None and links("e5") == [("e2", "uses", False)]  # cross-session recall: a link to day1's trace
    assert parent("e7") == "e6" and links("e7") == [("e5", "uses", True)]  # about first, uses as a link
    assert parent("e8") is None and links("e8") == [("e3", "about", False)]  # outcome about a day1 act
    assert parent("e10") is None  # an act with no basis is a root span of its trace

    e3 = attrs(spans["e3"].attributes)
    assert spans["e3"].name == "execute_tool halo_act"
    assert e3 == {
        "gen_ai.agent.name": "demo", "gen_ai.conversation.id": "day1", "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "halo_act", "gen_ai.tool.call.id": "e3",
        "halo.id": "e3", "halo.kind": "act", "halo.category": "Action", "halo.agent": "demo", "halo.session": "day1",
        "halo.summary": "set the reminder", "halo.uses": ["e1", "e2"], "halo.trigger": "request", "halo.form": "execution",
        "halo.channels": ["S→A", "M→A"], "halo.branch": "main",
    }
    assert spans["e3"].end_time_unix_nano == spans["e4"].start_time_unix_nano  # the act lasts until its outcome
    e1 = attrs(spans["e1"].attributes)
    assert spans["e1"].name == "halo_observe" and "gen_ai.operation.name" not in e1
    assert e1["halo.summary"] == 'user asked: "remind me at 9:30"\nsecond line ✓'
    assert attrs(spans["e9"].attributes)["halo.governance"] == "bounded"
    assert spans["e9"].end_time_unix_nano == spans["e9"].start_time_unix_nano


def test_ids_are_stable_and_differ_by_branch_and_agent(halo):
    scenario(halo)
    log = halo.event_log("demo")
    a = export_request(log.events, agent="demo", branch="main", head=log.head)
    assert export_request(log.events, agent="demo", branch="main", head=log.head) == a  # re-export is idempotent
    b = export_request(log.events, agent="demo", branch="prompt-v2", head=log.head)
    ids_a = {s["spanId"] for s in a["resourceSpans"][0]["scopeSpans"][0]["spans"]}
    ids_b = {s["spanId"] for s in b["resourceSpans"][0]["scopeSpans"][0]["spans"]}
    assert len(ids_a) == 10 and not ids_a & ids_b
    assert span_id("demo", "main", "e1") != span_id("other", "main", "e1")


def test_validation_can_fail():
    """The conversion refuses an id that is not hex of the right length, and protobuf refuses a bad field."""
    with pytest.raises(AssertionError):
        to_proto_json({"traceId": "abc"})
    with pytest.raises(json_format.ParseError):
        json_format.Parse(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"nmae": "x"}]}]}]}), ExportTraceServiceRequest())


class Receiver:
    """A local OTLP/HTTP endpoint on 127.0.0.1: keeps each POST, answers with ``reply``."""

    def __init__(self, reply: dict | None = None, status: int = 200):
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, self.headers["Content-Type"], body))
                data = json.dumps(reply or {}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_cli_prints_otlp_and_posts_the_same_spans_to_a_collector(root, halo):
    scenario(halo)
    printed = run_cli("export", "--agent", "demo", "--format", "otlp", root=root)
    assert printed.returncode == 0, printed.stderr
    assert len(printed.stdout.splitlines()) == 1  # one request per line, as a collector's file exporter writes
    expected = parse(printed.stdout)
    with Receiver() as rx:
        r = run_cli("export", "--agent", "demo", "--format", "otlp", "--endpoint", rx.url, root=root)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "" and f"posted 10 spans to {rx.url}/v1/traces" in r.stderr
        [(path, ctype, body)] = rx.received
    assert (path, ctype) == ("/v1/traces", "application/json")
    assert parse(body) == expected


def test_cli_reports_collector_errors(root, halo):
    scenario(halo)
    with Receiver({"partialSuccess": {"rejectedSpans": "3", "errorMessage": "spans too old"}}) as rx:
        r = run_cli("export", "--agent", "demo", "--format", "otlp", "--endpoint", rx.url + "/custom/path", root=root)
        assert rx.received[0][0] == "/custom/path"  # a URL with a path is used as given
    assert r.returncode == 1 and "rejected 3 of 10 spans: spans too old" in r.stderr
    with Receiver(status=404) as rx:
        r = run_cli("export", "--agent", "demo", "--format", "otlp", "--endpoint", rx.url, root=root)
    assert r.returncode == 1 and "answered HTTP 404" in r.stderr
    with Receiver() as rx:
        dead = rx.url
    r = run_cli("export", "--agent", "demo", "--format", "otlp", "--endpoint", dead, root=root)
    assert r.returncode == 1 and "could not reach the collector" in r.stderr and "--endpoint" in r.stderr
    r = run_cli("export", "--agent", "demo", "--format", "otlp", "--endpoint", "localhost:4318", root=root)
    assert r.returncode == 2 and "not an http(s) URL" in r.stderr
    r = run_cli("export", "--agent", "demo", "--endpoint", "http://localhost:4318", root=root)
    assert r.returncode == 2 and "--endpoint applies to --format otlp" in r.stderr
    with pytest.raises(InvalidCall):
        traces_url("ftp://x")
    assert traces_url("https://c.example:4318/") == "https://c.example:4318/v1/traces"
