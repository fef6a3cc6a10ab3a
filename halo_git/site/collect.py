"""Stage 1, collect: read each agent's branch head and its diagnosis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..api import Halo
from ..diagnosis import Diagnosis, diagnose
from ..errors import InvalidCall, NotFound
from ..observed import Observed
from ..store import EventLog


@dataclass(frozen=True)
class AgentData:
    """One agent's events at a branch head, their commits and the diagnosis."""

    name: str
    log: EventLog
    diagnosis: Diagnosis
    audit: Any = None  # revisions.Audit of this very log (the revisions page, the report's Mechanism)


def collect(halo: Halo, agents: Sequence[str] = (), branch: str | None = None,
            observed: Mapping[str, Observed] | None = None) -> list[AgentData]:
    """Read the named agents (default: every agent under the root with events).

    ``observed`` maps an agent to its observed evidence (key "" for the one agent shown).

    Raises:
        NotFound: a named agent has no events on the branch, or nothing has.
        InvalidCall: observed evidence for an agent the site does not show, or
            evidence without an agent name when the site shows several.
    """
    branch = branch or halo.branch
    names = list(dict.fromkeys(agents)) or halo.agents()
    observed = dict(observed or {})
    if "" in observed:
        if len(names) != 1:
            raise InvalidCall("--observed FILE needs a site of one agent; name the agent: --observed AGENT=FILE")
        observed[names[0]] = observed.pop("")
    for name in observed:
        if name not in names:
            raise InvalidCall(f"--observed names agent '{name}', which this site does not show; add --agent {name} or fix the name")
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
        out.append(AgentData(name, log, diagnose(log.events, agent=name, branch=log.branch, head=log.head,
                                                   observed=observed.get(name)), halo.audit(name, branch, log=log)))
    if not out:
        raise NotFound(f"no agent under {halo.root} has events on branch '{branch}'; log some (or run 'halo-git demo') and build again")
    return out
