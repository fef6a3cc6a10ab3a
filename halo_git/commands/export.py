"""``halo-git export``: an agent's events as JSONL, ATIF trajectories or OTLP/JSON spans.

JSONL has one event per line with the fields of its YAML file, which is what
import reads back; ATIF writes one trajectory per session; OTLP one span per
event, a trace per session.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .. import __version__
from ..atif import SCHEMA_VERSION, SCHEMA_VERSIONS, session_dirname, trajectories
from ..errors import InvalidCall
from ..formats.otlp import export_request
from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser(
        "export",
        help="write an agent's events as JSONL (one event per line, the YAML's fields), as ATIF trajectories "
        "(one per session) or as OpenTelemetry spans (OTLP/JSON)",
    )
    add_common(p)
    p.add_argument(
        "--format",
        choices=("jsonl", "atif", "otlp"),
        default="jsonl",
        help="jsonl (default; what import reads), atif (Agent Trajectory Interchange Format, one trajectory per "
        "session: one line each, or one trajectory.json per session with --out) or otlp (one OTLP/JSON "
        "ExportTraceServiceRequest: a trace per session, a span per event)",
    )
    p.add_argument("--out", metavar="DIR", help="atif only: write DIR/<session>/trajectory.json per session "
                   "(DIR must be new or empty) instead of printing")
    p.add_argument("--atif-version", choices=SCHEMA_VERSIONS, default=SCHEMA_VERSION,
                   help=f"atif only: schema version to write (default: {SCHEMA_VERSION})")
    p.add_argument("--endpoint", metavar="URL", nargs="?", const="",
                   help="otlp only: post the spans to this OTLP/HTTP collector instead of printing (e.g. "
                   "http://localhost:4318; /v1/traces is added to a URL without a path); without URL, the one "
                   "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT names. Headers from "
                   "OTEL_EXPORTER_OTLP_HEADERS, protocol from OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or http/json)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.out and args.format != "atif":
        raise InvalidCall("--out applies to --format atif; for jsonl or otlp redirect stdout to a file")
    if args.endpoint is not None and args.format != "otlp":
        raise InvalidCall("--endpoint applies to --format otlp; add --format otlp or drop --endpoint")
    with open_halo(args) as h:
        h.require_agent(args.agent)
        if args.format == "jsonl":
            for line in h.export_lines(args.agent):
                print(line)
            return 0
        log = h.event_log(args.agent)
    if args.format == "otlp":
        request = export_request(log.events, agent=args.agent, branch=log.branch, head=log.head, exporter_version=__version__)
        if args.endpoint is not None:
            from ..formats.otlp_http import post

            print(post(args.endpoint, request), file=sys.stderr)
        else:
            print(json.dumps(request, ensure_ascii=False))
        return 0
    out = trajectories(log.events, agent=args.agent, branch=log.branch, head=log.head,
                       exporter=f"halo-git {__version__}", schema_version=args.atif_version)
    if not args.out:
        for trajectory in out:
            print(json.dumps(trajectory, ensure_ascii=False))
        return 0
    for path in _write_dir(Path(args.out), out):
        print(path)
    return 0


def _write_dir(target: Path, out: list[dict]) -> list[Path]:
    """Write every file into a temporary folder beside ``target``, then move it into place:
    a failure leaves no half-written export behind."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidCall(f"--out {target} exists and is not an empty folder; pass a new folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".halo-atif-", dir=target.parent))
    try:
        names: list[str] = []
        for t in out:
            names.append(session_dirname(t["session_id"], names))
            (tmp / names[-1]).mkdir()
            (tmp / names[-1] / "trajectory.json").write_text(json.dumps(t, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        if target.exists():
            target.rmdir()
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [target / n / "trajectory.json" for n in names]
