"""Stage 1, collect: read each agent's branch head and its diagnosis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..api import Halo
from ..diagnosis import Diagnosis, diagnose
from ..errors import NotFound
from ..store import EventLog


@dataclass(frozen=True)
class AgentData:
    """One agent's events at a branch head, their commits and the diagnosis."""

    name: str
    log: EventLog
    diagnosis: Diagnosis
    audit: Any = None  # revisions.Audit of this very log (the revisions page, the report's Mechanism)


def collect(halo: Halo, agents: Sequence[str] = (), branch: str | None = None) -> list[AgentData]:
    """Read the named agents (default: every agent under the root with events).

    Raises:
        NotFound: a named agent has no events on the branch, or nothing has.
    """
    branch = branch or halo.branch
    names = list(dict.fromkeys(agents)) or halo.agents()
    out = []
    for name in names:
        has_branch = branch in halo.store.repo(name).branches()
        log = halo.event_log(name, branch) if has_branch else None
        if log is None or not log.events:
            if agents:
                raise NotFound(f"agent '{name}' has no events on branch '{branch}' under {halo.root}; check --agent, --branch and --root")
            continue
        # diagnose this very log, so the pages and the report pin the same head
        # even while the agent keeps appending
        out.append(AgentData(name, log, diagnose(log.events, agent=name, branch=log.branch, head=log.head), halo.audit(name, branch, log=log)))
    if not out:
        raise NotFound(f"no agent under {halo.root} has events on branch '{branch}'; log some (or run 'halo-git demo') and build again")
    return out
