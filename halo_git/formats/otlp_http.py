"""Post an export request to an OTLP/HTTP collector (``export --format otlp --endpoint [URL]``).

The one network call of the ``formats`` package, kept apart so ``otlp.py`` stays
pure; called by ``commands/export.py``. Standard library only. It follows the
OpenTelemetry exporter conventions:

* the endpoint: ``--endpoint URL``; given without a URL, the environment's
  ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as given) or
  ``OTEL_EXPORTER_OTLP_ENDPOINT`` (a base: ``/v1/traces`` is appended). A URL
  passed with no path (``http://localhost:4318``) gets ``/v1/traces`` too;
* headers: ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` or ``OTEL_EXPORTER_OTLP_HEADERS``,
  ``key=value`` pairs separated by commas, values percent-decoded (an
  ``Authorization=Basic …`` for Langfuse, an API key for a hosted collector);
* the protocol: ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`` or
  ``OTEL_EXPORTER_OTLP_PROTOCOL``, ``http/protobuf`` (the default, as in every
  OpenTelemetry SDK; ``formats/otlp_proto.py``) or ``http/json``.

Header values are never printed.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Mapping

from ..errors import HaloError, InvalidCall
from .otlp_proto import encode_request, partial_success

TRACES_PATH = "/v1/traces"
PROTOCOLS = {"http/protobuf": "application/x-protobuf", "http/json": "application/json"}
DEFAULT_PROTOCOL = "http/protobuf"
FROM_ENVIRONMENT = ""  # --endpoint given without a URL


def _check(endpoint: str, where: str) -> urllib.parse.SplitResult:
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidCall(f"{where} {endpoint!r} is not an http(s) URL; pass the collector's OTLP/HTTP address, "
                          "e.g. http://localhost:4318")
    return parts


def traces_url(endpoint: str) -> str:
    """The URL to post to for ``--endpoint URL``; refuses anything but an http(s) URL with a host."""
    parts = _check(endpoint, "--endpoint")
    if parts.path in ("", "/"):
        parts = parts._replace(path=TRACES_PATH)
    return urllib.parse.urlunsplit(parts)


def endpoint_from(env: Mapping[str, str]) -> str:
    """The traces URL the OpenTelemetry environment variables name."""
    signal = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if signal:
        _check(signal, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        return signal
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if not base:
        raise InvalidCall("--endpoint without a URL reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, "
                          "and neither is set; pass --endpoint URL or set one of them (e.g. http://localhost:4318)")
    parts = _check(base, "OTEL_EXPORTER_OTLP_ENDPOINT")
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + TRACES_PATH))


def headers_from(env: Mapping[str, str]) -> dict[str, str]:
    """The extra request headers the OpenTelemetry environment variables name."""
    name = "OTEL_EXPORTER_OTLP_TRACES_HEADERS" if env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") else "OTEL_EXPORTER_OTLP_HEADERS"
    out: dict[str, str] = {}
    for item in (env.get(name) or "").split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InvalidCall(f"{name} holds {key.strip()[:40]!r} without '=': give key=value pairs separated by commas, "
                              "e.g. Authorization=Basic%20dXNlcjpwYXNz")
        out[urllib.parse.unquote(key.strip())] = urllib.parse.unquote(value.strip())
    return out


def protocol_from(env: Mapping[str, str]) -> str:
    name = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" if env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") else "OTEL_EXPORTER_OTLP_PROTOCOL"
    value = (env.get(name) or DEFAULT_PROTOCOL).strip()
    if value not in PROTOCOLS:
        raise InvalidCall(f"{name}={value!r} is not supported; use http/protobuf (the default) or http/json "
                          "(gRPC is not: point the endpoint at the collector's OTLP/HTTP port, 4318 by default)")
    return value


def post(endpoint: str, request: dict, *, timeout: float = 30.0, env: Mapping[str, str] | None = None) -> str:
    """Post ``request`` (``otlp.export_request``); returns a one-line account of what the collector accepted.

    ``endpoint``: a URL, or ``FROM_ENVIRONMENT`` to read the OpenTelemetry variables.

    Raises:
        InvalidCall: a bad endpoint, header list or protocol.
        HaloError: the collector could not be reached, answered with an error
            status, or rejected spans (its partial-success message is quoted).
    """
    env = os.environ if env is None else env
    url = traces_url(endpoint) if endpoint else endpoint_from(env)
    headers = headers_from(env)
    protocol = protocol_from(env)
    body = encode_request(request) if protocol == "http/protobuf" else json.dumps(request, ensure_ascii=False).encode("utf-8")
    sent = sum(len(s["spans"]) for rs in request["resourceSpans"] for s in rs["scopeSpans"])
    req = urllib.request.Request(url, data=body, method="POST", headers={**headers, "Content-Type": PROTOCOLS[protocol]})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            answer = resp.read()
            kind = resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        detail = e.read()[:300].decode("utf-8", "replace").strip()
        hint = (" (a 415 names the encoding: set OTEL_EXPORTER_OTLP_PROTOCOL=http/json or http/protobuf)" if e.code == 415
                else " (set the credentials it expects in OTEL_EXPORTER_OTLP_HEADERS)" if e.code in (401, 403) else "")
        raise HaloError(f"the collector at {url} answered HTTP {e.code}{': ' + detail if detail else ''}{hint}; "
                        f"check that it accepts OTLP {protocol} on this path") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise HaloError(f"could not reach the collector at {url} ({reason}); check --endpoint and that the collector "
                        "listens for OTLP/HTTP (port 4318 by default)") from None
    if "json" in kind or (protocol == "http/json" and "protobuf" not in kind):
        try:
            partial = (json.loads(answer) if answer.strip() else {}).get("partialSuccess") or {}
        except (ValueError, AttributeError):
            partial = {}
        rejected, message = int(partial.get("rejectedSpans") or 0), partial.get("errorMessage") or ""
    else:
        rejected, message = partial_success(answer)
    if rejected:
        raise HaloError(f"the collector at {url} rejected {rejected} of {sent} spans: {message or 'no reason given'}")
    return f"posted {sent} spans to {url} ({protocol})"
