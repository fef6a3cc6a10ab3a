"""Stage 1, collect: read each agent's branch head and its diagnosis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..accept import Accepted, accepted_for
from ..api import Halo
from ..diagnosis import Diagnosis, Finding, diagnose
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
    accepted: tuple[tuple[Finding, str], ...] = ()  # findings a reviewer accepted, with the reason and who

    @property
    def open_findings(self) -> list[Finding]:
        """The findings nobody accepted: what the overview, the home page and the counts show."""
        if not self.accepted:
            return self.diagnosis.findings
        taken = {f for f, _ in self.accepted}
        return [f for f in self.diagnosis.findings if f not in taken]


def collect(halo: Halo, agents: Sequence[str] = (), branch: str | None = None,
            observed: Mapping[str, Observed] | None = None, accepted: Sequence[Accepted] = ()) -> list[AgentData]:
    """Read the named agents (default: every agent under the root with events).

    ``observed`` maps an agent to its observed evidence (key "" for the one agent shown);
    ``accepted`` holds the accept file's entries (``accept.load_accepted``).

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
                known = halo.agents()
                shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
                raise NotFound(f"agent '{name}' has no events on branch '{branch}' under {halo.root} "
                               + (f"(its agents: {shown})" if known else "(it holds no agents yet)")
                               + "; check --agent, --branch and --root")
            continue
        # diagnose this very log, so the pages and the report pin the same head
        # even while the agent keeps appending
        d = diagnose(log.events, agent=name, branch=log.branch, head=log.head, observed=observed.get(name))
        out.append(AgentData(name, log, d, halo.audit(name, branch, log=log),
                             tuple(accepted_for(d, accepted)) if accepted else ()))
    if not out:
        raise NotFound(f"no agent under {halo.root} has events on branch '{branch}'; log some (or run 'halo-git demo') and build again")
    return out
