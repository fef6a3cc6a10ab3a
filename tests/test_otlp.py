"""OTLP export checked with the OpenTelemetry protobuf definitions (``opentelemetry-proto``):
the JSON parses into an ``ExportTraceServiceRequest`` and the protobuf bytes decode to the
same one; one trace per session under one ``invoke_agent`` root span, one span per event,
parents and links from about/uses, GenAI and halo.* attributes, ids stable across exports;
and a local OTLP/HTTP receiver gets the same spans from ``--endpoint``, with the headers,
endpoint and protocol the OpenTelemetry environment variables name."""

from __future__ import annotations

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from halo_git.formats.otlp import export_request, session_span_id, span_id, trace_id, unix_nano
from halo_git.formats.otlp_http import endpoint_from, headers_from, protocol_from, traces_url
from halo_git.formats.otlp_proto import encode_request, partial_success
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
    roots = {attrs(s.attributes)["session.id"]: s for s in ss.spans if "halo.id" not in attrs(s.attributes)}
    assert list(roots) == ["day1", "day2"]  # one invoke_agent root per session, first
    assert [s.name for s in ss.spans[:2]] == ["invoke_agent demo", "invoke_agent demo"]
    spans = {attrs(s.attributes)["halo.id"]: s for s in ss.spans[2:]}
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
        if p == roots[attrs(spans[i].attributes)["session.id"]].span_id:
            return None  # the session's root: no event of the session is its basis
        return next(j for j, s in spans.items() if s.span_id == p)

    for session, root in roots.items():
        assert root.parent_span_id == b"" and root.span_id == bytes.fromhex(session_span_id("demo", "main", session))
        assert attrs(root.attributes) == {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "demo",
                                          "gen_ai.conversation.id": session, "session.id": session,
                                          "halo.session": session, "halo.branch": "main"}
        children = [s for s in spans.values() if s.trace_id == root.trace_id]
        assert root.start_time_unix_nano == min(s.start_time_unix_nano for s in children)
        assert root.end_time_unix_nano == max(s.end_time_unix_nano for s in children)
        assert all(s.parent_span_id for s in children)  # one root per trace

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
    assert parent("e10") is None  # an act with no basis hangs under the session's root

    e3 = attrs(spans["e3"].attributes)
    assert spans["e3"].name == "halo_act"  # no tool call claimed: the event names no tool
    assert e3 == {
        "gen_ai.agent.name": "demo", "gen_ai.conversation.id": "day1", "session.id": "day1",
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
    # ids are pinned values, not just equal on a second call: a collector dedupes a re-export by them,
    # across processes and releases
    first = a["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert (first[0]["traceId"], first[0]["spanId"]) == ("83ac00604b4e7ed8ddeb712983c3d63d", "3ed4658dad720bac")  # day1's root
    assert first[2]["spanId"] == span_id("demo", "main", "e1") == "38b2d32887f3a614"
    b = export_request(log.events, agent="demo", branch="prompt-v2", head=log.head)
    ids_a = {s["spanId"] for s in a["resourceSpans"][0]["scopeSpans"][0]["spans"]}
    ids_b = {s["spanId"] for s in b["resourceSpans"][0]["scopeSpans"][0]["spans"]}
    assert len(ids_a) == 12 and not ids_a & ids_b  # 10 events and 2 session roots
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
        received_headers = self.headers = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, self.headers["Content-Type"], body))
                received_headers.append(dict(self.headers))
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
        assert r.stdout == "" and f"posted 12 spans to {rx.url}/v1/traces (http/protobuf)" in r.stderr
        [(path, ctype, body)] = rx.received
    assert (path, ctype) == ("/v1/traces", "application/x-protobuf")  # the OpenTelemetry exporters' default
    assert ExportTraceServiceRequest.FromString(body) == expected


def test_cli_reports_collector_errors(root, halo):
    scenario(halo)
    with Receiver({"partialSuccess": {"rejectedSpans": "3", "errorMessage": "spans too old"}}) as rx:
        r = run_cli("export", "--agent", "demo", "--format", "otlp", "--endpoint", rx.url + "/custom/path", root=root)
        assert rx.received[0][0] == "/custom/path"  # a URL with a path is used as given
    assert r.returncode == 1 and "rejected 3 of 12 spans: spans too old" in r.stderr
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


def test_protobuf_bytes_decode_to_the_same_request_as_the_json(halo):
    scenario(halo)
    log = halo.event_log("demo")
    request = export_request(log.events, agent="demo", branch="main", head=log.head, exporter_version="0.1.0")
    decoded = ExportTraceServiceRequest.FromString(encode_request(request))
    assert decoded == parse(request)
    assert len(decoded.resource_spans[0].scope_spans[0].spans) == 12


def test_partial_success_is_read_from_a_protobuf_response():
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    reply = ExportTraceServiceResponse()
    reply.partial_success.rejected_spans = 4
    reply.partial_success.error_message = "too old"
    assert partial_success(reply.SerializeToString()) == (4, "too old")
    assert partial_success(ExportTraceServiceResponse().SerializeToString()) == (0, "")
    assert partial_success(b"\xff") == (0, "")  # unreadable: no claim of rejection


def test_opentelemetry_environment_variables(root, halo, tmp_path):
    """--endpoint without a URL reads OTEL_EXPORTER_OTLP_ENDPOINT (a base, /v1/traces appended),
    OTEL_EXPORTER_OTLP_HEADERS (percent-decoded) and OTEL_EXPORTER_OTLP_PROTOCOL."""
    import os
    import subprocess

    from tests.conftest import PYTHON

    scenario(halo)
    with Receiver() as rx:
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": rx.url + "/otel",
               "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20YW5uOnMzY3JldA==,x-team=halo%2Freview",
               "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
        r = subprocess.run([PYTHON, "-m", "halo_git.cli", "export", "--agent", "demo", "--format", "otlp", "--endpoint",
                            "--root", str(root)], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "YW5u" not in r.stderr  # header values are never printed
        [(path, ctype, body)] = rx.received
        [headers] = rx.headers
    assert (path, ctype) == ("/otel/v1/traces", "application/json")
    headers = {k.lower(): v for k, v in headers.items()}  # HTTP header names are case-insensitive
    assert headers["authorization"] == "Basic YW5uOnMzY3JldA==" and headers["x-team"] == "halo/review"
    assert len(parse(body).resource_spans[0].scope_spans[0].spans) == 12
    assert endpoint_from({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}) \
        == "http://c:4318/custom"  # the signal's own endpoint is used as given, and wins
    assert endpoint_from({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}) == "http://c:4318/v1/traces"
    assert headers_from({"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_HEADERS": "b=2"}) == {"a": "1"}
    assert protocol_from({}) == "http/protobuf"
    with pytest.raises(InvalidCall, match="neither is set"):
        endpoint_from({})
    with pytest.raises(InvalidCall, match="gRPC is not"):
        protocol_from({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    with pytest.raises(InvalidCall, match="without '='"):
        headers_from({"OTEL_EXPORTER_OTLP_HEADERS": "Authorization"})
