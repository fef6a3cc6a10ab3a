"""``halo-git check``: a CI gate over the diagnosis findings.

Prints each finding at or above ``--fail-on`` as one GitHub Actions workflow
command (``::error``, ``::warning``, ``::notice``), so a pull request run shows
them as annotations, and exits 1 when there is any; 0 when there is none; 2 on a
usage error (unknown agent or session, bad option), which must never pass for
"no findings".
"""

from __future__ import annotations

import sys

from ..diagnosis import SEVERITIES, Finding, at_or_above
from ..errors import NotFound
from . import add_common, open_halo

LEVEL = {"high": "error", "medium": "warning", "low": "notice", "info": "notice"}
MAX_IDS = 20  # ids named per annotation; a session finding can list thousands of acts


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check",
        help="print diagnosis findings as GitHub Actions annotations; exit 1 if any reach --fail-on",
        description="Fail a pipeline on the diagnosis findings of an agent's trace (or one session): "
        "prints one annotation line per finding at or above --fail-on, exits 1 if there is any, 0 if none, "
        "2 on usage errors.",
    )
    add_common(p)
    p.add_argument("--session", default="", help="check one session (default: the whole trace)")
    p.add_argument(
        "--fail-on", choices=SEVERITIES[:3], default="high",
        help="lowest severity that fails the check (default: high)",
    )
    p.set_defaults(run=run)


def _data(text: str) -> str:
    """Escape a workflow command's message (GitHub's rules: %, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    """Escape a workflow command's property value (also ':' and ',')."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding) -> str:
    """One finding as one workflow command line: its events, the first event's summary quoted,
    what happened, why it matters and the next step (the same context as the report)."""
    title = _prop(f"{f.rule} {f.name} ({f.severity})")
    ids = ", ".join(f.ids[:MAX_IDS]) + (f" and {len(f.ids) - MAX_IDS} more" if len(f.ids) > MAX_IDS else "")
    quote = f" “{f.quote}”" if f.quote else ""
    why = f" Why it matters: {f.why}" if f.why else ""
    step = f" Next step: {f.next_step}" if f.next_step else f" Remedy: {f.remedy}"
    return f"::{LEVEL[f.severity]} title={title}::{_data(f'{ids}{quote}: {f.message}{why}{step}')}"


def run(args) -> int:
    with open_halo(args) as h:
        if args.agent not in h.agents():
            known = ", ".join(h.agents()[:10]) or "none yet"
            print(f"halo-git: error: no agent '{args.agent}' in {h.root} (agents: {known}); check --agent and --root",
                  file=sys.stderr)
            return 2
        try:
            d = h.diagnosis(args.agent, session=args.session, branch=args.branch)
        except NotFound as e:
            print(f"halo-git: error: {e}", file=sys.stderr)
            return 2
    failing = at_or_above(d.findings, args.fail_on)
    for f in failing:
        print(annotation(f))
    head = (d.head or "no commit")[:12]
    print(
        f"halo-git check: {len(failing)} finding(s) at or above {args.fail_on} of {len(d.findings)} "
        f"for agent {d.agent}, {d.scope}, branch {d.branch} at {head}",
        file=sys.stderr,
    )
    return 1 if failing else 0
