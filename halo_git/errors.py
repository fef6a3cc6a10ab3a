"""Every error halo-git raises, rooted in one exception.

    HaloError                    any refusal or failure; ``str(e)`` says how to fix it
    ├── InvalidCall              a tool call or CLI input breaks the contract
    │   └── UnknownEvents        ``uses``/``about`` name ids the branch does not hold
    ├── NotFound                 an agent, branch or revision that does not exist
    ├── Conflict                 the store could not apply the change (busy, diverged)
    └── IntegrityError           a repository that does not match the storage contract

The MCP server turns any ``HaloError`` into ``{"error": str(e)}`` in one place,
the CLI into exit code 2 (usage) or 1 (everything else) in one place.
"""

from __future__ import annotations


class HaloError(Exception):
    """Root of every halo-git error. The message is written for the caller."""

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
            f"unknown event id(s) {', '.join(ids)} for agent '{agent}'; "
            "call halo_trace to see the ids of your earlier events"
        )


class NotFound(HaloError):
    """An agent, branch, session or revision that does not exist."""


class Conflict(HaloError):
    """The change could not be applied: the branch is busy or histories diverged."""


class IntegrityError(HaloError):
    """A repository breaks the storage contract (found by ``verify``)."""

    def __init__(self, message: str, commit: str | None = None):
        self.commit = commit
        super().__init__(message)
