"""Regenerate the generated parts of ``docs/report.md``: the rule table and the example report.

The example is a two-day assistant trace logged through ``Halo`` into a
temporary root with fixed times and sessions, so its commits, and therefore the
report, are the same on every run::

    python docs/gen_report_example.py          # rewrite docs/report.md
    python docs/gen_report_example.py --check  # exit 1 if the page is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from halo_git import Halo
from halo_git.diagnosis import RULES
from halo_git.markdown import escape_md, md_table
from halo_git.report import render_report

PAGE = Path(__file__).with_name("report.md")
AGENT = "demo"

# (session, time, kind, summary, uses, fields): the story a demo tells. Day 1: the user
# sets up a reminder, the agent keeps it, prepares an agenda nobody asked for and
# agrees a rule with the user. Day 2: it reads the memory back, reminds on schedule,
# moves a reminder on its own, changes its reminder rule without asking, and the
# user then changes that rule properly.
STORY: list[tuple[str, str, str, str, list[str], dict[str, str]]] = [
    ("day1", "2026-11-30T08:00:00Z", "observe", "user asked for a reminder of the 9:30 standup every weekday", [], {}),
    ("day1", "2026-11-30T08:00:05Z", "remember", "standup reminder: 9:30 on weekdays", ["e1"], {}),
    ("day1", "2026-11-30T08:00:10Z", "act", "confirmed the weekday standup reminder", ["e1", "e2"], {"trigger": "request"}),
    ("day1", "2026-11-30T08:01:00Z", "outcome", "user replied: thanks", [], {"about": "e3"}),
    ("day1", "2026-11-30T08:05:00Z", "observe", "user said they prefer short messages", [], {}),
    ("day1", "2026-11-30T08:05:05Z", "remember", "user prefers short messages", ["e5"], {}),
    ("day1", "2026-11-30T08:30:00Z", "act", "drafted a standup agenda from the open tickets", ["e1"],
     {"trigger": "self", "form": "preparation"}),
    ("day1", "2026-11-30T08:40:00Z", "outcome", "user said the agenda was not needed", [], {"about": "e7"}),
    ("day1", "2026-11-30T08:41:00Z", "observe", "user asked not to draft agendas unless asked", [], {}),
    ("day1", "2026-11-30T08:42:00Z", "revise", "draft agendas only on request; user approved", ["e8", "e9"],
     {"target": "agenda drafting rule", "made_by": "agent", "governance": "approved"}),
    ("day2", "2026-12-01T09:29:00Z", "recall", "looked up the standup reminder", ["e2"], {}),
    ("day2", "2026-12-01T09:30:00Z", "act", "reminded the user of the 9:30 standup", ["e11"], {"trigger": "request"}),
    ("day2", "2026-12-01T09:31:00Z", "outcome", "user joined the standup a few minutes late", [], {"about": "e12"}),
    ("day2", "2026-12-01T10:00:00Z", "observe", "calendar shows tomorrow's standup moved to 9:45", [], {}),
    ("day2", "2026-12-01T10:00:10Z", "act", "moved tomorrow's standup reminder to 9:45", ["e14", "e11"],
     {"trigger": "self", "form": "execution"}),
    ("day2", "2026-12-01T10:01:00Z", "revise", "remind 10 minutes before a meeting instead of at its start", ["e13"],
     {"target": "reminder rule", "made_by": "agent", "governance": "none"}),
    ("day2", "2026-12-01T11:00:00Z", "recall", "looked up how the user likes messages", ["e6"], {}),
    ("day2", "2026-12-01T11:05:00Z", "observe", "user asked for a summary of the standup notes", [], {}),
    ("day2", "2026-12-01T11:06:00Z", "act", "sent a short summary of the standup notes", ["e18"], {"trigger": "request"}),
    ("day2", "2026-12-01T12:00:00Z", "observe", "user said reminders should come 5 minutes before, not 10", [], {}),
    ("day2", "2026-12-01T12:01:00Z", "revise", "user set reminders to 5 minutes before a meeting", ["e20", "e16"],
     {"target": "Reminder rule", "made_by": "user", "governance": "approved"}),
    ("day2", "2026-12-01T12:01:30Z", "remember", "reminders go 5 minutes before meetings", [], {}),
    ("day2", "2026-12-01T14:00:00Z", "act", "stayed silent during the user's focus block", [],
     {"trigger": "request", "form": "silence"}),
]


def build(halo: Halo, agent: str = AGENT) -> None:
    """Log the story for ``agent`` (the ids come out as e1, e2, … in story order)."""
    for session, time, kind, summary, uses, fields in STORY:
        halo.log(agent, kind, summary, uses=uses, session=session, time=time, **fields)


def example_report() -> str:
    with tempfile.TemporaryDirectory() as tmp, Halo(tmp) as h:
        build(h)
        text = render_report(h.diagnosis(AGENT))
    # Inside the docs page the report sits one heading level down.
    return "\n".join("#" + line if line.startswith("#") else line for line in text.splitlines()) + "\n"


def rule_table() -> str:
    rows = [[r.id, escape_md(r.name), r.severity, escape_md(r.trigger), escape_md(r.remedy)] for r in RULES.values()]
    return "\n".join(md_table(["rule", "name", "severity", "fires on", "remedy"], rows)) + "\n"


def _fill(page: str, marker: str, body: str) -> str:
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if not pattern.search(page):
        raise SystemExit(f"{PAGE}: markers {start} … {end} are missing")
    return pattern.sub(lambda _: f"{start}\n{body}{end}", page)


def render_page(page: str) -> str:
    """``page`` with its generated blocks brought up to date."""
    return _fill(_fill(page, "rules", rule_table()), "example", example_report())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is up to date")
    args = parser.parse_args(argv)
    old = PAGE.read_text(encoding="utf-8")
    new = render_page(old)
    if args.check:
        if new != old:
            print(f"{PAGE} is out of date: run python docs/gen_report_example.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
