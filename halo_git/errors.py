"""Every error halo-git raises, rooted in one exception.

    HaloError                    any refusal or failure; ``str(e)`` says how to fix it
    ├── InvalidCall              a tool call or CLI input breaks the contract
    │   └── UnknownEvents        ``uses``/``about`` name ids the branch does not hold
    ├── NotFound                 a root, agent, branch, session or revision that does not exist
    ├── Conflict                 the store could not apply the change (busy, diverged)
    └── IntegrityError           a repository that does not match the storage contract

A message is written once, for every interface; where the way to fix the call
depends on where it is shown (an MCP tool or the command line), the error
carries one hint per interface (``hints``) and ``for_interface`` joins the
message with the right one. ``str(e)`` is the MCP form (the tools' replies are a
byte-exact contract).

The MCP server turns any ``HaloError`` into ``{"error": str(e)}`` in one place,
the CLI into an exit code in one place (``cli.EXIT_CODES``): 2 for
``InvalidCall`` (usage or bad input), 1 for everything else (not found,
refused, failed a check).
"""

from __future__ import annotations

from typing import Mapping

MCP = "mcp"
CLI = "cli"


class HaloError(Exception):
    """Root of every halo-git error. The message is written for the caller.

    Args:
        message: what is wrong (and how to fix it, when that is the same on
            every interface).
        hints: per-interface advice, e.g. ``{"mcp": "call halo_trace …",
            "cli": "run halo-git trace …"}``, appended after ``"; "``.
    """

    def __init__(self, message: str = "", *args: object, hints: Mapping[str, str] | None = None):
        self.hints = dict(hints or {})
        super().__init__(message, *args)

    @property
    def base(self) -> str:
        return str(self.args[0]) if self.args else ""

    def for_interface(self, interface: str) -> str:
        """The message with the hint for ``interface`` (``"mcp"`` or ``"cli"``)."""
        hint = self.hints.get(interface)
        return f"{self.base}; {hint}" if hint else self.base

    def __str__(self) -> str:
        return self.for_interface(MCP)

    @property
    def message(self) -> str:
        return str(self)


class InvalidCall(HaloError):
    """The input breaks the contract; nothing was written."""


class UnknownEvents(InvalidCall):
    """``uses`` or ``about`` names ids that are not earlier events of the agent."""

    def __init__(self, agent: str, ids: list[str]):
        self.agent = agent
        self.ids = ids
        super().__init__(
            f"unknown event id(s) {', '.join(ids)} for agent '{agent}'",
            hints=ids_hint(agent, "to see the ids of your earlier events"),
        )


class NotFound(HaloError):
    """A root, agent, branch, session or revision that does not exist."""


class Conflict(HaloError):
    """The change could not be applied: the branch is busy or histories diverged."""


class IntegrityError(HaloError):
    """A repository breaks the storage contract (found by ``verify``)."""

    def __init__(self, message: str, commit: str | None = None):
        self.commit = commit
        super().__init__(message)


def ids_hint(agent: str | None, purpose: str) -> dict[str, str]:
    """Where to look up event ids, per interface: ``halo_trace`` for an agent,
    ``halo-git trace`` on the command line."""
    who = f" --agent {agent}" if agent else ""
    cli_purpose = purpose.replace("your earlier", "its earlier")
    return {MCP: f"call halo_trace {purpose}", CLI: f"run halo-git trace{who} {cli_purpose}"}
