"""The demo with observed evidence: run ``halo-git demo`` into a new root, write the ATIF
trajectories its runtime would have recorded, and print the coverage the report shows.

The generated runtime did one tool call for each observation and act the agent logged
(a few seconds before logging it), called HALO's tools to log, and made one call the agent
never logged: an e-mail to the dentist on day two. So the expected figure is 9 of 10
observed calls reported, with one high HALO-O1 finding naming ``send_email``::

    python scripts/observed_demo.py [--out DIR]   # DIR keeps the root and the trajectories
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from halo_git import Halo
from halo_git.demo import AGENT, run_demo
from halo_git.observed import load
from halo_git.report import render_report

# the tool the runtime called for each logged step, by summary prefix
TOOLS = {
    "user asked for a reminder": ("read_message", {"channel": "chat"}),
    "scheduled a reminder": ("calendar_create_event", {"title": "dentist reminder", "when": "Thursday 08:40"}),
    "user said evening": ("read_message", {"channel": "chat"}),
    "Thursday 8:40": ("calendar_list_events", {"day": "Thursday"}),
    "reminded the user": ("send_message", {"to": "user", "text": "dentist at 9:30"}),
    "booked a taxi": ("book_taxi", {"pickup": "09:05"}),
    "user asked me to file": ("read_message", {"channel": "chat"}),
    "filed the invoice": ("move_file", {"src": "downloads/invoice.pdf", "dst": "documents/"}),
    "asked the user to approve": ("send_message", {"to": "user", "text": "may I remind you 50 minutes before?"}),
}
UNLOGGED = ("send_email", {"to": "dentist", "subject": "confirming Thursday 9:30"})


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def observed_trajectories(events) -> list[dict]:
    """One runtime trajectory per session (ATIF-v1.6, as an agent harness records it)."""
    out: dict[str, dict] = {}
    for e in events:
        t = out.setdefault(e.session, {"schema_version": "ATIF-v1.6", "session_id": e.session,
                                       "agent": {"name": "assistant-runtime", "version": "1.0"}, "steps": []})
        steps = t["steps"]
        when = datetime.fromisoformat(e.time.replace("Z", "+00:00"))
        tool = next((v for k, v in TOOLS.items() if e.summary.startswith(k)), None)
        calls = []
        if tool:
            calls.append((when - timedelta(seconds=2), *tool))
        calls.append((when, f"halo_{e.kind}", {"summary": e.summary}))  # the logging call itself
        if e.summary.startswith("booked a taxi"):
            calls.append((when + timedelta(seconds=20), *UNLOGGED))
        for at, name, args in calls:
            steps.append({"step_id": len(steps) + 1, "timestamp": _iso(at), "source": "agent", "message": "",
                          "tool_calls": [{"tool_call_id": f"call_{len(steps) + 1}", "function_name": name, "arguments": args}]})
    return list(out.values())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="keep the demo root and the trajectories in this new folder")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.out) if args.out else Path(tmp)
        base.mkdir(parents=True, exist_ok=bool(not args.out))
        done = run_demo(base / "root")
        with Halo(done.root) as h:
            events = h.events(AGENT)
            observed_dir = base / "observed"
            for t in observed_trajectories(events):
                f = observed_dir / t["session_id"] / "trajectory.json"
                f.parent.mkdir(parents=True)
                f.write_text(json.dumps(t, indent=2) + "\n", encoding="utf-8")
            d = h.diagnosis(AGENT, observed=load(observed_dir))
        report = render_report(d)
        boundary = report.split("## Channels")[0]
        print("\n".join(line for line in boundary.splitlines() if line.startswith("- Observed") or line.startswith("- Coverage")
                        or line.startswith("- Logged executions")))
        for f in d.findings:
            if f.rule.startswith("HALO-O"):
                print(f"{f.severity} {f.rule} {f.name}: {', '.join(f.ids) or '—'}: {f.message}")
        al = d.observed
        print(f"coverage: {len(al.reported)}/{al.total}")
        if args.out:
            print(f"kept: {base / 'root'} and {observed_dir}; try: halo-git report --root {base / 'root'} --agent {AGENT} "
                  f"--observed {observed_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
