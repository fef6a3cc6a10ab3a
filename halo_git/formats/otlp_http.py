"""Post an OTLP/JSON request to an OTLP/HTTP collector (``export --format otlp --endpoint URL``).

The one network call of the ``formats`` package, kept apart so ``otlp.py`` stays
pure; called by ``commands/export.py``. Standard library only. An endpoint with
no path (``http://localhost:4318``) gets the signal path ``/v1/traces``, as the
OpenTelemetry exporters do with a base endpoint; any other path is used as given.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from ..errors import HaloError, InvalidCall

TRACES_PATH = "/v1/traces"


def traces_url(endpoint: str) -> str:
    """The URL to post to; refuses anything but an http(s) URL with a host."""
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidCall(f"--endpoint {endpoint!r} is not an http(s) URL; pass the collector's OTLP/HTTP address, "
                          "e.g. http://localhost:4318")
    if parts.path in ("", "/"):
        parts = parts._replace(path=TRACES_PATH)
    return urllib.parse.urlunsplit(parts)


def post(endpoint: str, request: dict, *, timeout: float = 30.0) -> str:
    """Post ``request`` (OTLP/JSON); returns a one-line account of what the collector accepted.

    Raises:
        HaloError: the collector could not be reached, answered with an error
            status, or rejected spans (its partial-success message is quoted).
    """
    url = traces_url(endpoint)
    body = json.dumps(request, ensure_ascii=False).encode("utf-8")
    sent = sum(len(s["spans"]) for rs in request["resourceSpans"] for s in rs["scopeSpans"])
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            answer = resp.read()
    except urllib.error.HTTPError as e:
        detail = e.read()[:300].decode("utf-8", "replace").strip()
        raise HaloError(f"the collector at {url} answered HTTP {e.code}{': ' + detail if detail else ''}; "
                        "check that it accepts OTLP/JSON on this path") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise HaloError(f"could not reach the collector at {url} ({reason}); check --endpoint and that the collector "
                        "listens for OTLP/HTTP (port 4318 by default)") from None
    try:
        partial = (json.loads(answer) if answer.strip() else {}).get("partialSuccess") or {}
    except (ValueError, AttributeError):
        partial = {}
    rejected = int(partial.get("rejectedSpans") or 0)
    if rejected:
        raise HaloError(f"the collector at {url} rejected {rejected} of {sent} spans: "
                        f"{partial.get('errorMessage') or 'no reason given'}")
    return f"posted {sent} spans to {url}"
