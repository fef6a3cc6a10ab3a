"""``halo-git check``: a CI gate over the diagnosis findings.

Fails (exit 1) when a finding at or above ``--fail-on`` is not accepted — with
``--baseline REV``, only when it is new relative to that branch or commit
(matched by rule and event content, as ``halo-git diff`` matches findings);
exits 0 otherwise. Every error exits 2 (``EXIT_CODES`` below, the table
docs/ci.md shows and the review action reads): an unknown root, agent,
session, branch or baseline, a bad option, a broken accept file, a trace that
cannot be read — so an error never passes for "no findings", nor for findings.

``--format`` picks what goes to stdout: ``github`` (default: one workflow
command per failing finding, so a pull request shows annotations), ``text``,
``md``, ``json``, ``sarif`` or ``junit``; ``--output FORMAT=FILE`` also writes
other formats from the same run. Accepted findings come from ``--accept FILE``,
else ``halo-accept.yaml`` in the working directory when it exists.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..diagnosis import SEVERITIES
from ..errors import IntegrityError, InvalidCall
from ..formats.check import FORMATS, render
from ..gate import Gate
from ..store import event_path
from . import add_accept, add_common, add_observed, load_accept, load_observed, open_halo


# The gate's exit codes: shown in docs/ci.md, read by .github/actions/review (its `case $rc`).
EXIT_CODES: list[tuple[int, str]] = [
    (0, "passed: no open finding at or above `--fail-on` (with `--baseline`: no new one)"),
    (1, "failed: open findings at or above `--fail-on` (with `--baseline`: new ones); accepted findings never count"),
    (2, "could not check: a usage error, a root, agent, branch, baseline or session that does not exist, a broken "
        "accept file, a trace that cannot be read, an output file that cannot be written"),
]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help="fail a pipeline on diagnosis findings (new ones only with --baseline); annotations, text, md, json, SARIF or JUnit",
        description="Fail a pipeline on the diagnosis findings of an agent's trace (or one session): exits 1 if a finding "
        "at or above --fail-on is not accepted (with --baseline: is new relative to that branch or commit), 0 if none, "
        "2 on any error (so 1 always means findings).",
    )
    add_common(p)
    p.add_argument("--session", default="", help="check one session (default: the whole trace; not with --baseline)")
    p.add_argument(
        "--fail-on", choices=SEVERITIES[:3], default="high",
        help="lowest severity that fails the check (default: high)",
    )
    add_observed(p)
    p.add_argument(
        "--baseline", metavar="REV",
        help="branch or commit id to compare with (e.g. main): fail only on findings new relative to it, list resolved ones",
    )
    add_accept(p, "not failing the check")
    p.add_argument("--format", choices=FORMATS, default="github", help="what to print on stdout (default: github annotations)")
    p.add_argument(
        "--output", action="append", default=[], metavar="FORMAT=FILE",
        help="also write FORMAT to FILE (repeatable), e.g. --output sarif=halo.sarif --output md=summary.md",
    )
    p.add_argument(
        "--require-signed-approvals", action="store_true",
        help="policy: an agent's self-revision whose approval is only claimed (not signed by an allowed signer) "
        "is a finding (HALO-R4, high); signers from $HALO_ALLOWED_SIGNERS or <root>/allowed_signers",
    )
    p.set_defaults(run=run)


def _outputs(specs: list[str]) -> list[tuple[str, Path]]:
    out = []
    for spec in specs:
        fmt, eq, path = spec.partition("=")
        if not eq or not path or fmt not in FORMATS:
            raise InvalidCall(f"--output {spec!r}: give FORMAT=FILE with FORMAT one of {', '.join(FORMATS)}, e.g. sarif=halo.sarif")
        out.append((fmt, Path(path)))
    return out


def path_of(event_id: str) -> str:
    """The event's file inside the agent repository (the store's layout)."""
    return event_path(int(event_id[1:]))


def _summary(gate: Gate, total: int) -> str:
    head = (gate.head or "no commit")[:12]
    n = len(gate.failing)
    if gate.baseline:
        line = (f"halo-git check: {n} new finding(s) at or above {gate.fail_on} relative to baseline {gate.baseline} "
                f"({gate.count('unchanged')} unchanged, {len(gate.resolved)} resolved) of {total}")
    else:
        line = f"halo-git check: {n} finding(s) at or above {gate.fail_on} of {total}"
    line += f" for agent {gate.agent}, {gate.scope}, branch {gate.branch} at {head}"
    if gate.accept_file:
        line += f"; {gate.count('accepted')} accepted, {len(gate.stale)} stale entr{'y' if len(gate.stale) == 1 else 'ies'} in {gate.accept_file}"
    return line


def run(args) -> int:
    outputs = _outputs(args.output)
    entries, accept_file = load_accept(args)
    observed = load_observed(args)
    with open_halo(args) as h:
        h.require_agent(args.agent)
        try:
            gate = h.check(args.agent, session=args.session, branch=args.branch, fail_on=args.fail_on,
                           baseline=args.baseline, accepted=entries, accept_file=accept_file, observed=observed,
                           require_signed_approvals=args.require_signed_approvals)
        except IntegrityError as e:  # a trace that cannot be read: bad input, never "findings"
            print(f"halo-git: error: {e}", file=sys.stderr)
            return 2
    for fmt, path in outputs:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(gate, fmt, path_of), encoding="utf-8")
        except OSError as e:
            print(f"halo-git: error: cannot write --output {fmt}={path}: {e.strerror or e}; pick a writable path", file=sys.stderr)
            return 2
    sys.stdout.write(render(gate, args.format, path_of))
    print(_summary(gate, len(gate.items)), file=sys.stderr)
    return 1 if gate.failed else 0
