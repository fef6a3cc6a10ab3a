"""Where events come from and what rests on them: merge plans, history, blame, beliefs.

A pure room beside ``diagnosis``: events (and their commit ids) in, plain data
out; no Git, no files. ``store.merge`` calls ``plan_merge`` to turn a diverged
copy's events into the events a merge appends; ``Halo.history``,
``Halo.blame`` and ``Halo.beliefs`` (the CLI commands, the MCP resources and the
site's Beliefs page) call the rest.

**Identity across copies.** An event's *origin* is the commit that first
recorded it: its own commit, or for an event a merge appended, the commit its
``merged_from`` names. Two copies hold the same event exactly when they hold
the same origin, whatever id it has on each side; that is how a second merge
from the same source appends only what is new, and how an event that went back
and forth between two copies is never appended twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from .diagnosis import approved_revision
from .errors import InvalidCall
from .model import KINDS, MAX_SESSION, Draft, Event, check_call, merge_origin, resolve

# --- merge planning ------------------------------------------------------------------


def origin(event: Event, commit: str) -> str:
    """The commit that first recorded ``event`` (held at ``commit`` here)."""
    return merge_origin(event.merged_from).commit if event.merged_from is not None else commit


@dataclass(frozen=True)
class MergePlan:
    """What merging a source into a target appends.

    ``appended``: the new events, numbered after the target's head, in the
    source's order; ``ids``: source id -> target id for every source event
    (held already or appended); ``held``: how many source events the target
    already held; ``renamed``: source session label -> the label its merged
    events carry (labels the target uses for other events of its own).
    """

    appended: list[Event]
    ids: dict[str, str]
    held: int
    renamed: dict[str, str] = field(default_factory=dict)


def session_tag(source: str) -> str:
    """The short origin a renamed session label carries: ``day2@<tag>``."""
    tag = "".join(c if c.isalnum() or c in "._-/:" else "-" for c in source).strip("-/")
    return tag[-40:] or "merged"


def plan_merge(
    agent: str,
    target: Sequence[Event],
    target_commits: Sequence[str],
    source: Sequence[Event],
    source_commits: Sequence[str],
    label: str,
    tag: str | None = None,
) -> MergePlan:
    """The events that merging ``source`` into ``target`` appends.

    Every source event whose origin the target does not hold is appended with
    the next id, keeping kind, session, time, summary and fields; its ``uses``
    and ``about`` are mapped to the target's ids, and ``merged_from`` names
    ``label``, its source id and its commit (an event that was itself merged
    keeps the origin it names). A session label the target uses for events of
    its own gets ``@tag`` so both sessions stay apart in every report.

    Raises:
        InvalidCall: a mapped event that is no longer a valid call (e.g. over
            the ``uses`` limit), naming the source event.
    """
    held = {origin(e, c): e.id for e, c in zip(target, target_commits)}
    source_origins = {origin(e, c) for e, c in zip(source, source_commits)}
    own_sessions = {e.session for e, c in zip(target, target_commits) if origin(e, c) not in source_origins}
    tag = session_tag(tag or label)
    ids: dict[str, str] = {}
    kinds: dict[int, str] = {e.number: e.kind for e in target}
    appended: list[Event] = []
    renamed: dict[str, str] = {}
    number = len(target)
    n_held = 0
    for e, c in zip(source, source_commits):
        o = origin(e, c)
        if o in held:
            ids[e.id] = held[o]
            n_held += 1
            continue
        number += 1
        new_id = f"e{number}"
        session = e.session
        if session in own_sessions:
            wanted = f"{session}@{tag}"
            if len(wanted) > MAX_SESSION:
                wanted = wanted[:MAX_SESSION]
            if len(session) + 2 <= MAX_SESSION:
                session = renamed.setdefault(e.session, wanted)
        args: dict[str, Any] = {"summary": e.summary, "uses": [ids[u] for u in e.uses]}
        for name in KINDS[e.kind].fields:
            args[name] = ids[e.fields[name]] if name == "about" else e.fields[name]
        try:
            draft = check_call(e.kind, args)
        except InvalidCall as err:
            raise InvalidCall(f"cannot merge {e.id} of {label} as {new_id}: {err.base}; nothing was merged") from None
        uses = draft.uses
        if len(uses) != len(e.uses):
            raise InvalidCall(f"cannot merge {e.id} of {label}: its uses would name one event twice after mapping ids; nothing was merged")
        event = resolve(Draft(e.kind, draft.summary, uses, draft.fields, None, None), number, agent, session, e.time, lambda n: kinds[n])
        merged_from = e.merged_from if e.merged_from is not None else f"{label} {e.id} {c}"
        event = replace(event, merged_from=merged_from)
        kinds[number] = e.kind
        ids[e.id] = new_id
        held[o] = new_id
        appended.append(event)
    return MergePlan(appended, ids, n_held, renamed)


# --- history of one event ---------------------------------------------------------------

_WITHDRAW = ("withdraw", "retract", "forget", "revoke", "no longer", "obsolete", "drop ", "dropped", "remove", "delete", "cancel")


def target_key(target: str) -> str:
    """Targets match ignoring case and spacing (as the revision audit does)."""
    return " ".join(target.split()).casefold()


def is_approval(e: Event, by_id: dict[str, Event]) -> bool:
    """A user's approval of an earlier revision of the same target: an approval, not a
    version of its own (the diagnosis' and the revision audit's one rule, ``approved_revision``)."""
    return approved_revision(e, by_id) is not None


def _brief(e: Event, commit: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"id": e.id, "kind": e.kind, "session": e.session, "time": e.time, "summary": e.summary}
    if e.kind == "revise":
        d.update(target=e.fields["target"], made_by=e.fields["made_by"], governance=e.fields["governance"])
    if e.merged_from is not None:
        d["merged_from"] = e.merged_from
    if commit:
        d["commit"] = commit
    return d


class Graph:
    """The events of one branch with their links both ways (built once, O(events))."""

    def __init__(self, events: Sequence[Event], commit_of: "Callable[[str], str] | None" = None):
        self.events = events
        self._commit_of = commit_of
        self.by_id = {e.id: e for e in self.events}
        self.used_by: dict[str, list[str]] = {}
        for e in self.events:
            for s in e.sources():
                self.used_by.setdefault(s, []).append(e.id)

    def commit_of(self, event_id: str) -> str:
        return self._commit_of(event_id) if self._commit_of is not None else ""

    def get(self, event_id: str) -> Event:
        return self.by_id[event_id]


MAX_DEPTH = 30  # levels of the rests-on tree; deeper ancestry is in "ancestry" (a flat list), never lost


def _tree(g: Graph, e: Event) -> dict[str, Any]:
    """The rests-on tree of ``e``, built without recursion (a trail can chain
    100,000 events): in pre-order, each event expanded at its first mention
    (later mentions say ``seen``), at most ``MAX_DEPTH`` levels (a node cut
    there says ``deeper``)."""
    seen: set[str] = {e.id}
    root: dict[str, Any] = {"rests_on": []}
    stack: list[tuple[str, list, int]] = [(s, root["rests_on"], 1) for s in reversed(e.sources())]
    while stack:
        sid, siblings, depth = stack.pop()
        x = g.get(sid)
        node = _brief(x)
        siblings.append(node)
        if sid in seen:
            node["seen"] = True
            continue
        node["rests_on"] = []
        if depth >= MAX_DEPTH and x.sources():
            node["deeper"] = True
            continue
        seen.add(sid)
        stack.extend((s, node["rests_on"], depth + 1) for s in reversed(x.sources()))
    return root


def history(g: Graph, event_id: str, approvals: dict[str, str] | None = None, seals: Sequence[dict] = ()) -> dict[str, Any]:
    """Everything about one event: what it rests on (a tree over ``about``/``uses``,
    each event shown once, later mentions marked ``seen``), what rests on it
    later (every event whose ancestry reaches it, with the id it names on the
    way), the versions of its target, and the approvals and seals covering it.

    ``approvals``: approval event id -> ``proven`` or ``claimed`` (by default
    every approval counts as ``claimed``); ``seals``: dicts with ``events``
    (how many events the seal covers) and anything else to show.
    """
    e = g.get(event_id)
    root = _tree(g, e)
    ancestry: set[str] = set()
    frontier = list(e.sources())
    while frontier:
        s = frontier.pop()
        if s not in ancestry:
            ancestry.add(s)
            frontier.extend(g.get(s).sources())
    later: list[dict[str, Any]] = []
    via: dict[str, str] = {}
    frontier = [event_id]
    while frontier:
        nxt = []
        for s in frontier:
            for u in g.used_by.get(s, ()):
                if u not in via:
                    via[u] = s
                    nxt.append(u)
        frontier = nxt
    for u in sorted(via, key=lambda i: int(i[1:])):
        d = _brief(g.get(u))
        d["via"] = via[u]
        later.append(d)
    versions = []
    if e.kind == "revise":
        key = target_key(e.fields["target"])
        versions = [_brief(x, g.commit_of(x.id)) for x in g.events if x.kind == "revise" and target_key(x.fields["target"]) == key and not is_approval(x, g.by_id)]
    approvals = approvals or {}
    covering = []
    for u in g.used_by.get(event_id, ()):
        x = g.get(u)
        if x.kind == "revise" and x.fields["made_by"] == "user" and x.fields["governance"] == "approved":
            d = _brief(x)
            d["approval"] = approvals.get(u, "claimed")
            covering.append(d)
    return {
        "event": {**_brief(e, g.commit_of(event_id)), "uses": list(e.uses), **({"about": e.about} if e.about else {})},
        "rests_on": root["rests_on"],
        "ancestry": sorted(ancestry, key=lambda i: int(i[1:])),
        "rested_on_by": later,
        "target_versions": versions,
        "approvals": covering,
        "seals": [s for s in seals if s.get("events", 0) >= e.number],
    }


def history_lines(h: dict[str, Any]) -> list[str]:
    """``history`` as indented text lines."""
    e = h["event"]
    out = [f"{e['id']} [{e['session']}] {e['kind']}: {_one(e['summary'])}" + (f" (merged from {e['merged_from']})" if e.get("merged_from") else "")]
    if e.get("commit"):
        out.append(f"  commit {e['commit']}")
    out.append("rests on:" if h["rests_on"] else "rests on: nothing (no uses, no about)")

    stack = [(n, 1) for n in reversed(h["rests_on"])]
    while stack:
        n, depth = stack.pop()
        who = f" {{made_by={n['made_by']}, governance={n['governance']}}}" if n["kind"] == "revise" else ""
        more = " (see above)" if n.get("seen") else " (rests on more: see ancestry)" if n.get("deeper") else ""
        out.append(f"{'  ' * depth}- {n['id']} [{n['session']}] {n['kind']}: {_one(n['summary'])}{who}{more}")
        stack.extend((c, depth + 1) for c in reversed(n.get("rests_on", [])))
    if h.get("ancestry"):
        out.append(f"ancestry ({len(h['ancestry'])} events): " + ", ".join(h["ancestry"][:200]) + (" …" if len(h["ancestry"]) > 200 else ""))
    out.append("rested on by:" if h["rested_on_by"] else "rested on by: nothing later")
    for n in h["rested_on_by"]:
        out.append(f"  - {n['id']} [{n['session']}] {n['kind']}: {_one(n['summary'])} (via {n['via']})")
    if h["target_versions"]:
        out.append(f"versions of its target ({h['target_versions'][0]['target']}):")
        for n in h["target_versions"]:
            out.append(f"  - {n['id']} [{n['session']}] made_by={n['made_by']}, governance={n['governance']}: {_one(n['summary'])}")
    out.append("approvals: " + (", ".join(f"{a['id']} ({a['approval']})" for a in h["approvals"]) or "none"))
    out.append("seals: " + (", ".join(f"{s.get('name', '')} (e1..e{s['events']}, sealed by {s.get('sealed_by', '?')})" for s in h["seals"]) or "none"))
    return out


def _one(text: str) -> str:
    from .model import one_line

    return one_line(text)


# --- blame: each version of a target ---------------------------------------------------------


def blame_rows(target) -> list[dict[str, Any]]:
    """Each version of a target of the revision audit (``revisions.Target``), oldest
    first: event, who made it, governance, approval (proven, claimed or none,
    with the approving events) and what used it."""
    return [
        {
            "version": v.number, "id": v.id, "commit": v.commit, "session": v.session, "time": v.time, "summary": v.summary,
            "target": v.target, "made_by": v.made_by, "governance": v.governance, "approval": v.approval,
            "approved_by": [a.event for a in v.approvals if a.event != v.id], "used_by": list(v.relied_on_by),
            "in_force": v.in_force,
        }
        for v in target.versions
    ]


# --- beliefs in force ------------------------------------------------------------------------


def _age(since: str, now: str) -> str:
    from .model import _parse_utc

    seconds = max(0, int((_parse_utc(now) - _parse_utc(since)).total_seconds()))
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def beliefs(events: Sequence[Event], approvals: dict[str, str] | None = None) -> dict[str, Any]:
    """The memories and rules in force after ``events`` (a branch up to a point).

    A memory (a ``remember``) is in force unless a later ``remember`` or
    ``revise`` names it: that one supersedes it, or withdraws it when its
    summary says so (withdraw, retract, forget, revoke, no longer, ...). A rule
    is the latest revision of each target (approvals are not versions). Each
    comes with its age at the point, when it was last read (the last event
    naming it), and whether it was reviewed: for a memory, the user's revision
    naming it; for a rule, its approval (``approvals``: approval id ->
    ``proven``/``claimed``; governance=approved in its own event is claimed).
    """
    approvals = approvals or {}
    by_id = {e.id: e for e in events}
    now = events[-1].time if events else ""
    named_by: dict[str, list[Event]] = {}
    for e in events:
        for s in e.sources():
            named_by.setdefault(s, []).append(e)
    memories = []
    for e in events:
        if e.kind != "remember":
            continue
        later = named_by.get(e.id, [])
        replaced = next((x for x in later if x.kind in ("remember", "revise") and not is_approval(x, by_id)), None)
        if replaced is not None:
            continue
        reviewers = [x.id for x in later if x.kind == "revise" and x.fields["made_by"] == "user"]
        memories.append({
            **_brief(e), "age": _age(e.time, now), "last_read": later[-1].id if later else None,
            "read_by": [x.id for x in later if x.kind == "recall"], "reviewed": bool(reviewers), "reviewed_by": reviewers,
        })
    withdrawn = []
    for e in events:
        if e.kind == "remember":
            for x in named_by.get(e.id, []):
                if x.kind in ("remember", "revise") and any(w in x.summary.casefold() for w in _WITHDRAW):
                    withdrawn.append({"id": e.id, "by": x.id})
                    break
    latest: dict[str, Event] = {}
    for e in events:
        if e.kind == "revise" and not is_approval(e, by_id):
            latest[target_key(e.fields["target"])] = e
    approved_by: dict[str, list[str]] = {}
    for e in events:
        approved = approved_revision(e, by_id)
        if approved is not None:
            approved_by.setdefault(approved, []).append(e.id)
    rules = []
    for e in sorted(latest.values(), key=lambda x: x.number):
        later = named_by.get(e.id, [])
        by = approved_by.get(e.id, [])
        status = "proven" if any(approvals.get(a) == "proven" for a in by) else "claimed" if by or e.fields["governance"] == "approved" else "none"
        rules.append({
            **_brief(e), "age": _age(e.time, now), "last_read": later[-1].id if later else None,
            "reviewed": status != "none", "approval": status, "approved_by": by,
        })
    return {"at": events[-1].id if events else None, "time": now or None, "memories": memories, "rules": rules, "withdrawn": withdrawn}


def beliefs_lines(b: dict[str, Any]) -> list[str]:
    """``beliefs`` as text lines."""
    out = [f"beliefs in force at {b['at'] or 'the start'}" + (f" ({b['time']})" if b["time"] else "")]
    out.append(f"memories ({len(b['memories'])}):" if b["memories"] else "memories: none in force")
    for m in b["memories"]:
        read = f"last read {m['last_read']}" if m["last_read"] else "never read"
        rev = f"reviewed by {', '.join(m['reviewed_by'])}" if m["reviewed"] else "not reviewed"
        out.append(f"  - {m['id']} [{m['session']}] {_one(m['summary'])} (age {m['age']}, {read}, {rev})")
    out.append(f"rules ({len(b['rules'])}):" if b["rules"] else "rules: none")
    for r in b["rules"]:
        read = f"last read {r['last_read']}" if r["last_read"] else "never read"
        out.append(f"  - {r['target']}: {r['id']} [{r['session']}] {_one(r['summary'])} (made_by={r['made_by']}, "
                   f"governance={r['governance']}, approval {r['approval']}, age {r['age']}, {read})")
    return out
