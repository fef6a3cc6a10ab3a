"""OTLP's protobuf encoding of the export request ``otlp.export_request`` builds.

A room of the ``formats`` package: pure (the OTLP/JSON data in, protobuf bytes
out), called by ``formats/otlp_http.py`` for ``http/protobuf``, the protocol the
OpenTelemetry exporters default to and that collectors such as Phoenix require.
Hand-written over the few messages a trace export uses, so a plain install needs
no protobuf runtime; the suite decodes the bytes with the official generated
classes (``opentelemetry-proto``) and compares them with the JSON.

Field numbers are those of ``opentelemetry/proto/{collector/trace/v1,trace/v1,
common/v1,resource/v1}/*.proto``.
"""

from __future__ import annotations

import struct
from typing import Any

_VARINT, _FIXED64, _BYTES = 0, 1, 2


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 negatives as two's complement, as protobuf does
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _bytes(field: int, data: bytes) -> bytes:
    return _key(field, _BYTES) + _varint(len(data)) + data


def _str(field: int, text: str) -> bytes:
    return _bytes(field, text.encode("utf-8")) if text else b""


def _any(value: dict[str, Any]) -> bytes:
    # AnyValue: string_value=1, bool_value=2, int_value=3, array_value=5
    if "stringValue" in value:
        return _bytes(1, value["stringValue"].encode("utf-8"))
    if "boolValue" in value:
        return _key(2, _VARINT) + _varint(1 if value["boolValue"] else 0)
    if "intValue" in value:
        return _key(3, _VARINT) + _varint(int(value["intValue"]))
    if "arrayValue" in value:  # ArrayValue: values=1
        return _bytes(5, b"".join(_bytes(1, _any(v)) for v in value["arrayValue"]["values"]))
    raise ValueError(f"no protobuf form for OTLP value {value!r}")


def _attributes(field: int, attrs: list[dict[str, Any]]) -> bytes:
    # KeyValue: key=1, value=2
    return b"".join(_bytes(field, _str(1, a["key"]) + _bytes(2, _any(a["value"]))) for a in attrs)


def _span(span: dict[str, Any]) -> bytes:
    # Span: trace_id=1, span_id=2, parent_span_id=4, name=5, kind=6, start=7, end=8, attributes=9, links=13
    out = _bytes(1, bytes.fromhex(span["traceId"])) + _bytes(2, bytes.fromhex(span["spanId"]))
    if span.get("parentSpanId"):
        out += _bytes(4, bytes.fromhex(span["parentSpanId"]))
    out += _str(5, span["name"]) + _key(6, _VARINT) + _varint(span["kind"])
    out += _key(7, _FIXED64) + struct.pack("<Q", int(span["startTimeUnixNano"]))
    out += _key(8, _FIXED64) + struct.pack("<Q", int(span["endTimeUnixNano"]))
    out += _attributes(9, span.get("attributes", []))
    for link in span.get("links", []):  # Link: trace_id=1, span_id=2, attributes=4
        body = _bytes(1, bytes.fromhex(link["traceId"])) + _bytes(2, bytes.fromhex(link["spanId"]))
        out += _bytes(13, body + _attributes(4, link.get("attributes", [])))
    return out


def encode_request(request: dict[str, Any]) -> bytes:
    """An OTLP/JSON ``ExportTraceServiceRequest`` (as ``otlp.export_request`` returns it) as protobuf bytes."""
    out = b""
    for rs in request["resourceSpans"]:  # ExportTraceServiceRequest: resource_spans=1
        body = _bytes(1, _attributes(1, rs["resource"]["attributes"]))  # ResourceSpans: resource=1; Resource: attributes=1
        for ss in rs["scopeSpans"]:  # ResourceSpans: scope_spans=2; ScopeSpans: scope=1, spans=2
            scope = _str(1, ss["scope"].get("name", "")) + _str(2, ss["scope"].get("version", ""))
            body += _bytes(2, _bytes(1, scope) + b"".join(_bytes(2, _span(s)) for s in ss["spans"]))
        out += _bytes(1, body)
    return out


def _fields(data: bytes):
    i = 0
    while i < len(data):
        key, i = _read_varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, i = _read_varint(data, i)
        elif wire == _BYTES:
            n, i = _read_varint(data, i)
            value, i = data[i : i + n], i + n
        elif wire == _FIXED64:
            value, i = data[i : i + 8], i + 8
        elif wire == 5:
            value, i = data[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield field, value


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    shift = n = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, i
        shift += 7


def partial_success(response: bytes) -> tuple[int, str]:
    """(rejected spans, error message) of a protobuf ``ExportTraceServiceResponse``; (0, "") when
    the collector reported full success or the body cannot be read."""
    try:
        for field, value in _fields(response):
            if field == 1 and isinstance(value, bytes):  # partial_success
                rejected, message = 0, ""
                for f, v in _fields(value):
                    if f == 1 and isinstance(v, int):
                        rejected = v
                    elif f == 2 and isinstance(v, bytes):
                        message = v.decode("utf-8", "replace")
                return rejected, message
    except ValueError:
        pass
    return 0, ""
