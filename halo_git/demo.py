"""The demo: a scripted two-day assistant logging through the real MCP server.

Each day is its own MCP connection to ``halo-git serve --agent demo`` over stdio
(day two has a second one, which starts with the self-review prompt),
exactly as an agent runtime would connect, so the demo exercises the server,
the store and the reading tools end to end. Steps name earlier steps by key;
the server assigns the ids, so the script works on a fresh root and on a root
that already holds an earlier run: a second run continues the agent's life with
the next days (``day3``, ``day4``, …) instead of failing or overwriting.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .api import Halo
from .errors import HaloError
from .store import expand_root

AGENT = "demo"
DEFAULT_ROOT = Path("halo-demo")


@dataclass(frozen=True)
class Step:
    """One scripted call; ``uses`` and ``about`` name earlier steps by key."""

    key: str
    kind: str
    summary: str
    uses: tuple[str, ...] = ()
    fields: Mapping[str, str] = field(default_factory=dict)


def _act(key: str, summary: str, trigger: str, form: str, uses: tuple[str, ...] = ()) -> Step:
    return Step(key, "act", summary, uses, {"trigger": trigger, "form": form})


def _revise(key: str, summary: str, made_by: str, governance: str, uses: tuple[str, ...]) -> Step:
    return Step(key, "revise", summary, uses, {"target": "reminder timing rule", "made_by": made_by, "governance": governance})


# Day one: a request, a memory, a scheduled reminder, a preference and a rule
# change the user approves.
DAY_ONE = (
    Step("ask", "observe", "user asked for a reminder before the dentist appointment on Thursday at 9:30"),
    Step("keep_appt", "remember", "dentist on Thursday at 9:30; the user wants a reminder beforehand", ("ask",)),
    _act("schedule", "scheduled a reminder for Thursday morning", "request", "preparation", ("keep_appt",)),
    Step("scheduled", "outcome", "the reminder is in the calendar and the user confirmed it", (), {"about": "schedule"}),
    Step("pref", "observe", "user said evening reminders get lost and morning ones work"),
    Step("keep_pref", "remember", "the user prefers reminders in the morning", ("pref",)),
    _revise("rule_morning", "send reminders between 8:00 and 10:00; the user approved the rule", "user", "approved", ("pref", "keep_pref")),
)

# Day two, a new connection: recall across sessions, act on its own (one
# message, one execution left without an outcome), revise a rule without
# approval, then handle a request.
DAY_TWO = (
    Step("morning", "observe", "Thursday 8:40: the calendar shows the dentist at 9:30"),
    Step("recall", "recall", "looked up the dentist appointment and the morning preference", ("keep_appt", "keep_pref")),
    _act("remind", "reminded the user about the dentist at 9:30", "self", "communication", ("morning", "recall")),
    Step("reminded", "outcome", "the user thanked me and left on time", (), {"about": "remind"}),
    _act("taxi", "booked a taxi for 9:05 without being asked", "self", "execution", ("recall", "reminded")),
    _revise("rule_lead", "remind 50 minutes before appointments instead of at a fixed hour", "agent", "none", ("reminded",)),
    Step("invoice", "observe", "user asked me to file the dentist's invoice"),
    _act("file", "filed the invoice in the documents folder", "request", "execution", ("invoice",)),
    Step("filed", "outcome", "the user found the invoice where expected", (), {"about": "file"}),
    Step("keep_folder", "remember", "invoices go in the documents folder", ("file", "filed")),
)

# Later on day two the agent wakes up again (a new connection). It reads the
# session-start self-review first and acts on it: the rule it changed on its
# own is put to the user, who approves it, and the approval is logged.
DAY_TWO_REVIEW = (
    _act("ask_approval", "asked the user to approve reminding 50 minutes before appointments", "self", "communication", ("rule_lead",)),
    Step("approval", "outcome", "the user approved the 50-minute reminder rule", (), {"about": "ask_approval"}),
    _revise("rule_approved", "the user approved reminding 50 minutes before appointments", "user", "approved", ("rule_lead", "approval")),
)

DAYS = (DAY_ONE, DAY_TWO)


@dataclass
class DemoRun:
    """What one demo run logged and read back."""

    root: Path
    sessions: list[str]
    ids: dict[str, str]  # step key -> event id
    trace: str
    report: str
    review: str = ""  # the self-review prompt the agent read on day two


def next_day(halo: Halo) -> int:
    """The first day number not used yet by an earlier run on this root."""
    days = [int(m.group(1)) for e in halo.events(AGENT) if (m := re.fullmatch(r"day(\d+)", e.session))]
    return max(days, default=0) + 1


def _arguments(step: Step, session: str, ids: Mapping[str, str]) -> dict:
    args: dict = {"summary": step.summary, "session": session}
    if step.uses:
        args["uses"] = [ids[k] for k in step.uses]
    for name, value in step.fields.items():
        args[name] = ids[value] if name == "about" else value
    return args


async def _call(client, tool: str, args: dict) -> str:
    result = await client.call_tool(tool, args)
    text = "".join(getattr(c, "text", "") for c in result.content)
    if result.is_error:
        raise HaloError(f"the demo's call to {tool} was refused: {text}")
    return text


async def _review(client, ids: dict[str, str]) -> str:
    """Read the self-review prompt; it must bring up the day's unapproved rule change."""
    result = await client.get_prompt("halo_self_review", {"agent": AGENT})
    text = "".join(getattr(m.content, "text", "") for m in result.messages)
    if f"\n   {ids['rule_lead']} [" not in text or "HALO-R1" not in text:
        raise HaloError(f"the self-review did not bring up the unapproved revision {ids['rule_lead']}:\n{text}")
    return text


async def _day(
    root: Path, steps: tuple[Step, ...], session: str, ids: dict[str, str], read_back: int = 0, review: list[str] | None = None
) -> tuple[str, str]:
    """One connection to the real server; logs ``steps``, optionally reads back.
    With ``review`` (a list to put the text in), first reads the self-review prompt."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "halo_git.cli", "serve", "--root", str(root), "--agent", AGENT, "--quiet"],
    )
    async with Client(params) as client:
        if review is not None:
            review.append(await _review(client, ids))
        for step in steps:
            reply = json.loads(await _call(client, f"halo_{step.kind}", _arguments(step, session, ids)))
            ids[step.key] = reply["id"]
        if not read_back:
            return "", ""
        trace = await _call(client, "halo_trace", {"limit": min(read_back, 200)})
        report = await _call(client, "halo_report", {})
        return trace, report


def run_demo(root: str | Path | None = None) -> DemoRun:
    """Run both days through ``halo-git serve`` over stdio; return what was logged."""
    import anyio

    root = expand_root(root) if root is not None else DEFAULT_ROOT
    with Halo(root) as halo:
        first = next_day(halo)
    sessions = [f"day{first + i}" for i in range(len(DAYS))]
    ids: dict[str, str] = {}
    logged = sum(len(d) for d in DAYS) + len(DAY_TWO_REVIEW)
    for steps, session in zip(DAYS, sessions):
        anyio.run(_day, root, steps, session, ids)
    review: list[str] = []
    trace, report = anyio.run(_day, root, DAY_TWO_REVIEW, sessions[-1], ids, logged, review)
    return DemoRun(root, sessions, ids, trace, report, review[0])
