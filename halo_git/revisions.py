"""The revision audit trail: per-target history, impact, and proven approvals.

Room: the pure core, beside ``diagnosis`` (events in, plain data out; no Git,
no files). ``Halo.audit`` feeds it a branch's events, their commits and the
approvals the store read back (``Signoff``); ``halo-git revisions``, the
report's Mechanism section (``mechanism_lines``), ``check
--require-signed-approvals`` (``unproven_approval_findings``) and the site's
revisions page (``site/revisions.py``) read the result.

**History.** Revisions are grouped by target (case and spacing ignored, as rule
HALO-R3 does). Each revise event is a version, oldest first; the last one is in
force at the head. An approval (a revise made_by=user, governance=approved
whose uses name only an earlier revise of the same target, as
``halo-git approve`` logs it) is not a version: it is listed under the version
it approves — as the user's own commit when ``approve`` wrote it, as the
agent's account of an approval when the agent logged it.

**Approval status** of a version:

* ``proven``: an approval commit signed by a key the allowed-signers file lists;
* ``claimed``: only a label: ``governance=approved`` in the version's own event
  (the agent's account), or an approval commit that is unsigned or whose
  signature was not proven;
* ``none``: nobody claims an approval (governance bounded or none).

**Impact** of a revision logged in session S: the session that started just
before S (``before``) against the session that started just after S
(``after``), sessions ordered by their first event, approval events left out
(they are the user's act, not the agent's behaviour). S itself mixes behaviour
from both sides of the change and is in neither window. Each window is
given the measures ``halo-git report --session`` gives that session (the same
``diagnose``, run on the slice of the branch those measures depend on, see
``session_slice``): loop metrics, channel counts and findings by rule; rules firing only after are "introduced", only before
"resolved", counted only when some event of the session after rests on the revision (a session that
never used it says nothing about it). Acts citing the revision are the acts anywhere later that name it
in ``uses``. Everything is ordered by ids, so the same head gives the same bytes.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from .diagnosis import Diagnosis, Finding, Ratio, _finding, approved_revision, diagnose, is_user_rule, reviewed_memory
from .markdown import escape_md, shorten
from .model import Event

PROVEN, CLAIMED, NONE = "proven", "claimed", "none"
SUMMARY_CHARS = 120


@dataclass(frozen=True)
class Signoff:
    """An approval commit written by ``halo-git approve``, as the store read it."""

    event: str  # the approval event
    approves: str  # the approved revision (the commit's Halo-Approval trailer)
    approver: str  # ``NAME <EMAIL>``, the commit's author
    signature: str  # "good", "unsigned", "unchecked", "unknown-signer", "bad-signature", "unsupported"
    principal: str = ""  # the allowed signer, when good
    key: str = ""  # the signing key's fingerprint, when known
    format: str = ""  # "ssh", "gpg" or ""
    commit: str = ""

    @property
    def proven(self) -> bool:
        return self.signature == "good"


@dataclass(frozen=True)
class Approval:
    """One approval of a version: an approval event, or the version's own label."""

    event: str  # the approval event, or the version itself for a label in its own event
    by: str
    status: str  # PROVEN or CLAIMED
    how: str  # one line, plain text


@dataclass(frozen=True)
class Version:
    """One revise event of a target."""

    number: int  # 1-based within the target
    id: str
    time: str
    session: str
    summary: str
    target: str  # as this event spells it
    made_by: str
    governance: str
    basis: tuple[str, ...]  # uses: the evidence it rests on
    commit: str
    relied_on_by: tuple[str, ...]  # later events naming it in uses/about (approvals apart)
    approvals: tuple[Approval, ...]
    approval: str  # PROVEN, CLAIMED or NONE
    in_force: bool


@dataclass(frozen=True)
class Target:
    name: str  # the first spelling
    versions: tuple[Version, ...]

    @property
    def in_force(self) -> Version:
        return self.versions[-1]


@dataclass(frozen=True)
class Window:
    """One session's behaviour, measured as its session report measures it."""

    session: str
    events: int
    first: str
    last: str
    metrics: tuple[tuple[str, Ratio], ...]  # (metric name, share), in the diagnosis' order
    channels: tuple[tuple[str, int], ...]  # ("S→A", count), used channels only, in letter order
    findings: tuple[tuple[str, int], ...]  # (rule, count), by rule id


@dataclass(frozen=True)
class Impact:
    revision: str
    session: str
    before: Window | None  # None: no session started before the revision's
    after: Window | None  # None: no session started after it yet
    introduced: tuple[str, ...]  # rules firing after, not before
    resolved: tuple[str, ...]  # rules firing before, not after
    acts: tuple[str, ...]  # later acts naming the revision in uses


@dataclass
class Audit:
    agent: str
    branch: str
    head: str | None
    targets: list[Target]  # in order of each target's first revision
    impacts: dict[str, Impact]  # revision id -> impact (every version)
    approval_events: frozenset[str] = field(default_factory=frozenset)  # written by halo-git approve
    signatures_checked: bool = False  # an allowed-signers file was given

    def versions(self) -> list[Version]:
        return sorted((v for t in self.targets for v in t.versions), key=lambda v: int(v.id[1:]))

    def target(self, name: str) -> Target | None:
        key = _key(name)
        return next((t for t in self.targets if _key(t.name) == key), None)


def _key(target: str) -> str:
    """Targets match ignoring case and spacing (the same rule as HALO-R3)."""
    return " ".join(target.split()).casefold()


def approval_events(events: Sequence[Event], signoffs: Mapping[str, Signoff]) -> set[str]:
    """Ids of the approvals ``approve`` wrote: a signoff naming a revise of the same target."""
    by_id = {e.id: e for e in events}
    return {s.event for s in signoffs.values() if s.event in by_id and approved_revision(by_id[s.event], by_id) == s.approves}


def _signoff_approval(s: Signoff) -> Approval:
    if s.proven:
        key = f", {s.format.upper()} key {s.key}" if s.key else ""
        return Approval(s.event, s.approver, PROVEN, f"approval commit signed by allowed signer {s.principal}{key}")
    why = {
        "unsigned": "approval commit authored by the user, unsigned",
        "unchecked": "approval commit signed, but no allowed signers were given to check it",
        "unknown-signer": "approval commit signed by a key no allowed signer holds",
        "bad-signature": "approval commit whose signature does not prove it (it does not match its contents, or the key is not the approver's own)",
        "unsupported": f"approval commit with a {s.format.upper() or 'foreign'} signature halo-git does not check",
    }.get(s.signature, f"approval commit, signature {s.signature}")
    return Approval(s.event, s.approver, CLAIMED, why)


def audit(
    events: Sequence[Event],
    commits: Sequence[str],
    *,
    agent: str,
    branch: str,
    head: str | None,
    signoffs: Mapping[str, Signoff] | None = None,
    signatures_checked: bool = False,
    impacts_for: Iterable[str] | None = None,
) -> Audit:
    """History and impact of every revision of a branch (``commits[i]`` holds ``events[i]``).

    ``impacts_for`` limits the impact (the costly part: one diagnosis per
    window session) to those revisions; the report asks only for the ones it lists.
    """
    signoffs = signoffs or {}
    by_id = {e.id: e for e in events}
    signed_off = approval_events(events, signoffs)  # written by halo-git approve: the user's commits
    logged = {e.id for e in events if e.id not in signed_off and approved_revision(e, by_id)}  # the agent's account of one
    approvals = signed_off | logged
    used_by: dict[str, list[str]] = {}
    for e in events:
        for s in e.sources():
            used_by.setdefault(s, []).append(e.id)
    commit_of = {e.id: c for e, c in zip(events, commits)}
    groups: dict[str, list[Event]] = {}
    for e in events:
        if e.kind == "revise" and e.id not in approvals:
            groups.setdefault(_key(e.fields["target"]), []).append(e)
    approvals_of: dict[str, list[Approval]] = {}
    for i in sorted(approvals, key=lambda x: int(x[1:])):
        if i in signed_off:
            approvals_of.setdefault(signoffs[i].approves, []).append(_signoff_approval(signoffs[i]))
        else:
            approvals_of.setdefault(by_id[i].uses[0], []).append(Approval(
                i, "the user, by the agent's account", CLAIMED,
                "an approval event the agent logged (made_by=user, governance=approved), not a commit the user authored",
            ))
    targets = []
    for group in groups.values():
        versions = []
        for n, e in enumerate(group, 1):
            f = e.fields
            found = list(approvals_of.get(e.id, ()))
            if f["governance"] == "approved":
                who = "the user (as the agent logged it)" if f["made_by"] == "user" else "the user, by the agent's account"
                found.insert(0, Approval(e.id, who, CLAIMED, "governance=approved in the revision's own event, logged by the agent"))
            status = PROVEN if any(a.status == PROVEN for a in found) else CLAIMED if found else NONE
            versions.append(Version(
                n, e.id, e.time, e.session, e.summary, f["target"], f["made_by"], f["governance"], e.uses,
                commit_of.get(e.id, ""), tuple(u for u in used_by.get(e.id, ()) if u not in approvals),
                tuple(found), status, n == len(group),
            ))
        targets.append(Target(group[0].fields["target"], tuple(versions)))
    last = next((c for c in reversed(commits)), None)
    wanted = None if impacts_for is None else set(impacts_for)
    impacts = _impacts(events, targets, signed_off, used_by, wanted, agent=agent, branch=branch, head=head or last)
    return Audit(agent, branch, head, targets, impacts, frozenset(signed_off), signatures_checked)


REPORT_REVISIONS = 50  # revisions the report lists (and measures the impact of); the rest: halo-git revisions


def report_impacts(revision_ids: Sequence[str], limit: int = REPORT_REVISIONS) -> list[str]:
    """The revisions whose impact the report shows: the first ``limit`` by id."""
    return sorted(revision_ids, key=lambda i: int(i[1:]))[:limit]


def from_diagnosis(d: Diagnosis, limit: int = REPORT_REVISIONS) -> Audit:
    """The audit of a diagnosis' own events, when no store is at hand (no commits, no signoffs)."""
    ids = report_impacts([r.id for r in d.mechanism.revisions], limit)
    return audit(d.events, [""] * len(d.events), agent=d.agent, branch=d.branch, head=d.head, impacts_for=ids)


# --- impact ------------------------------------------------------------------------


def _rests_on(revision: str, session_events: Sequence[Event], used_by: Mapping[str, Sequence[str]],
              limit: int = 20_000) -> bool:
    """Whether some event of a session rests on ``revision`` (over uses/about, at any depth): only then
    can findings that appear or go away in that session be credited to the revision."""
    wanted = {e.id for e in session_events}
    seen = {revision}
    todo = deque([revision])
    while todo and len(seen) < limit:
        for u in used_by.get(todo.popleft(), ()):
            if u in wanted:
                return True
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return False


def _impacts(
    events: Sequence[Event], targets: list[Target], approvals: set[str], used_by: dict[str, list[str]],
    wanted: set[str] | None, *, agent: str, branch: str, head: str | None,
) -> dict[str, Impact]:
    order: list[str] = []  # sessions by first event, approvals left out
    members: dict[str, list[Event]] = {}
    for e in events:
        if e.id in approvals:
            continue
        if e.session not in members:
            order.append(e.session)
            members[e.session] = []
        members[e.session].append(e)
    index = {s: i for i, s in enumerate(order)}
    by_id = {e.id: e for e in events}
    kinds = {e.id: e.kind for e in events}
    groups: dict[str, list[str]] = {}  # target key -> every revise of it (approvals too, as diagnose sees them)
    for e in events:
        if e.kind == "revise":
            groups.setdefault(_key(e.fields["target"]), []).append(e.id)
    cache: dict[str, Window] = {}

    def window(session: str) -> Window:
        if session not in cache:
            cache[session] = _measure(events, by_id, used_by, groups, members[session], session, agent=agent, branch=branch, head=head)
        return cache[session]

    out: dict[str, Impact] = {}
    for t in targets:
        for v in t.versions:
            if wanted is not None and v.id not in wanted:
                continue
            i = index.get(v.session)
            before = window(order[i - 1]) if i is not None and i > 0 else None
            after = window(order[i + 1]) if i is not None and i + 1 < len(order) else None
            introduced = resolved = ()
            if before is not None and after is not None and _rests_on(v.id, members[order[i + 1]], used_by):
                b, a = dict(before.findings), dict(after.findings)
                introduced = tuple(r for r in sorted(a) if r not in b)
                resolved = tuple(r for r in sorted(b) if r not in a)
            acts = tuple(u for u in used_by.get(v.id, ()) if kinds.get(u) == "act" and v.id in by_id[u].uses)
            out[v.id] = Impact(v.id, v.session, before, after, introduced, resolved, acts)
    return out


def session_slice(
    events: Sequence[Event], by_id: Mapping[str, Event], used_by: Mapping[str, Sequence[str]], scoped: Sequence[Event],
    groups: Mapping[str, Sequence[str]],
) -> list[Event]:
    """The few events ``diagnose(..., session=S)`` needs to give session S the
    loop metrics, channel counts and findings it gets on the whole branch: S's
    events, the events they name (their kinds decide several rules), the later
    events naming them, two revisions of each target S revises (rule HALO-R3
    fires once per target revised more than once on the branch), and the
    branch's last event (so "the trace goes on after it" holds as on the whole
    branch), and for each act the shortest path up to what grounds it (HALO-S2:
    a rule the user made or approved, or a reviewed memory with what it keeps
    and what checked the acts it keeps). Authority
    paths are cut short here; no measure of a window uses them. Other rules that
    look further than one step (retained material of other sessions, what
    follows from a memory, adverse outcomes of kept acts, later repeats) are
    measured on this slice, so their counts in a window can differ from the
    session report's."""
    need = {e.id for e in scoped}
    for e in scoped:
        need.update(s for s in e.sources() if s in by_id)
        need.update(used_by.get(e.id, ()))
        if e.kind == "act":
            need.update(_grounding(e, by_id, used_by))
    for key in {_key(e.fields["target"]) for e in scoped if e.kind == "revise"}:
        group = groups.get(key, ())
        if len(group) > 1:
            need.update(group[:2])
    if events:
        need.add(events[-1].id)
    return sorted((by_id[i] for i in need), key=lambda e: int(e.id[1:]))


def _checks(act: str, before: int, by_id: Mapping[str, Event], used_by: Mapping[str, Sequence[str]]) -> list[str]:
    """The outcomes about ``act`` and observations naming it logged before event number ``before``."""
    return [u for u in used_by.get(act, ()) if int(u[1:]) < before and (
        (by_id[u].kind == "outcome" and by_id[u].fields["about"] == act) or (by_id[u].kind == "observe" and act in by_id[u].uses))]


def _grounding(act: Event, by_id: Mapping[str, Event], used_by: Mapping[str, Sequence[str]], limit: int = 5000) -> list[str]:
    """The events a window needs to tell, as the whole branch does, that ``act`` is
    grounded: the shortest path up to a rule the user made or approved, or to a
    reviewed memory (see ``diagnosis._Graph``) with its sources and the events that
    checked the acts it keeps; [] when none lies within ``limit`` events."""
    parent: dict[str, str] = {act.id: ""}
    queue = deque([act.id])
    while queue and len(parent) < limit:
        i = queue.popleft()
        for s in by_id[i].sources():
            if s in parent or s not in by_id:
                continue
            parent[s] = i
            e, extra = by_id[s], None
            if is_user_rule(e):
                extra = []
            elif e.kind == "remember":
                srcs = [x for x in e.sources() if x in by_id]
                checks = {a: _checks(a, int(s[1:]), by_id, used_by) for a in srcs if by_id[a].kind == "act"}
                if reviewed_memory([by_id[x] for x in srcs], [a for a, found in checks.items() if not found]):
                    extra = srcs + [c for cs in checks.values() for c in cs]
            if extra is not None:
                path = list(extra)
                while s != act.id:
                    path.append(s)
                    s = parent[s]
                return path
            queue.append(s)
    return []


def _measure(events, by_id, used_by, groups, scoped: list[Event], session: str, *, agent: str, branch: str, head: str | None) -> Window:
    d = diagnose(session_slice(events, by_id, used_by, scoped, groups), agent=agent, branch=branch, head=head, session=session)
    return window_of(d, session)


def window_of(d: Diagnosis, session: str) -> Window:
    """The measures of one session's diagnosis."""
    metrics = tuple((f.name.replace("_", " "), getattr(d.metrics, f.name)) for f in dataclasses.fields(d.metrics))
    channels = tuple((f"{x}→{y}", n) for (x, y), n in d.channels.items() if n)
    findings = tuple(sorted(Counter(f.rule for f in d.findings).items()))
    return Window(session, len(d.events), d.events[0].id if d.events else "", d.events[-1].id if d.events else "", metrics, channels, findings)


# --- policy: approvals must be signed ------------------------------------------------


UNPROVEN_RULE = "HALO-R4"


def unproven_approval_findings(a: Audit, session: str = "") -> list[Finding]:
    """``check --require-signed-approvals``: one finding per agent self-revision
    (of ``session``, default all) whose approval is claimed but not proven by an
    allowed signer's signature."""
    out = []
    for v in a.versions():
        if v.made_by == "agent" and v.approval == CLAIMED and (not session or v.session == session):
            cited = [v.id] + [x.event for x in v.approvals if x.event != v.id]
            how = "; ".join(x.how for x in v.approvals)
            out.append(_finding(
                UNPROVEN_RULE, cited,
                f"the agent's revision of “{shorten(v.target, SUMMARY_CHARS)}” is approved only by claim ({how}); "
                "no allowed signer's signature proves it.",
            ))
    return out


def with_policy(findings: Sequence[Finding], a: Audit, session: str = "") -> list[Finding]:
    """``findings`` plus the unproven-approval findings, worst severity first (stable)."""
    from .diagnosis import SEVERITY_RANK

    return sorted([*findings, *unproven_approval_findings(a, session)], key=lambda f: SEVERITY_RANK[f.severity])


# --- Markdown for the report's Mechanism section ----------------------------------------


def _pct(r: Ratio) -> str:
    return "—" if r.value is None else f"{round(100 * r.value)}%"


def approval_text(v: Version) -> str:
    """``**proven** by …`` / ``**claimed** (…)`` / ``none`` as inline Markdown."""
    if v.approval == PROVEN:
        p = next(x for x in v.approvals if x.status == PROVEN)
        return f"**proven** by {escape_md(p.by)} ({p.event})"
    if v.approval == CLAIMED:
        return "**claimed** (" + "; ".join(escape_md(x.how) for x in v.approvals) + ")"
    return "none"


def impact_text(i: Impact, ref: Callable[[str], str]) -> str:
    """One line: what changed from the session before to the session after."""
    if i.before is None and i.after is None:
        return "no session before or after it to compare"
    if i.after is None:
        return f"no later session yet (before: {escape_md(i.before.session)})" + _acts(i, ref)  # type: ignore[union-attr]
    if i.before is None:
        return f"no earlier session (after: {escape_md(i.after.session)})" + _acts(i, ref)
    b, a = dict(i.before.metrics), dict(i.after.metrics)
    changed = [f"{name} {_pct(b[name])} → {_pct(a[name])}" for name in a if name in b and _pct(b[name]) != _pct(a[name])]
    parts = [f"{escape_md(i.before.session)} → {escape_md(i.after.session)}: " + (", ".join(changed) if changed else "loop metrics unchanged")]
    if i.introduced or i.resolved:
        parts.append("findings introduced " + (", ".join(i.introduced) or "none") + ", resolved " + (", ".join(i.resolved) or "none"))
    return "; ".join(parts) + _acts(i, ref)


def _acts(i: Impact, ref: Callable[[str], str]) -> str:
    return "; cited by acts " + ", ".join(ref(x) for x in i.acts) if i.acts else ""


def mechanism_lines(a: Audit, ref: Callable[[str], str], only: Sequence[str] | None = None, limit: int = REPORT_REVISIONS) -> list[str]:
    """Short audit lines for the report: per revision, its version of the
    target, approval (proven or claimed) and impact. ``ref(id)`` formats an id;
    at most ``limit`` revisions are listed (``halo-git revisions`` shows all)."""
    wanted = set(only) if only is not None else None
    rows = []
    for t in a.targets:
        for v in t.versions:
            if wanted is not None and v.id not in wanted:
                continue
            force = ", in force" if v.in_force else ""
            impact = a.impacts.get(v.id)
            rows.append((int(v.id[1:]), (
                f"- {ref(v.id)} “{escape_md(shorten(t.name, SUMMARY_CHARS))}” v{v.number}/{len(t.versions)}{force}: "
                f"approval {approval_text(v)}; impact {impact_text(impact, ref) if impact else 'not measured here (halo-git revisions)'}"
            )))
    if not rows:
        return []
    note = "checked against the allowed signers" if a.signatures_checked else "no allowed-signers file given, so none is proven"
    lines = [
        f"Revision audit: each revision's version of its target, its approval (**proven**: signed by an allowed signer; "
        f"**claimed**: a label or an unsigned approval; {note}) and its impact (the session before it against the session "
        "after it, as their session reports measure them):",
        "",
    ]
    rows.sort()
    lines += [r for _, r in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"- and {len(rows) - limit} more revisions: halo-git revisions --agent {a.agent} lists them all")
    approvals = sorted(a.approval_events, key=lambda x: int(x[1:]))
    if approvals:
        shown = ", ".join(ref(x) for x in approvals[:limit]) + (f" and {len(approvals) - limit} more" if len(approvals) > limit else "")
        lines += ["", f"Approvals logged with halo-git approve (authored by the user, not the agent): {shown}."]
    return lines + [""]


# --- JSON for ``halo-git revisions --format json`` -----------------------------------------


def _window_json(w: Window | None):
    if w is None:
        return None
    return {
        "session": w.session,
        "events": w.events,
        "first": w.first,
        "last": w.last,
        "metrics": {name: {"share": r.value, "counts": str(r)} for name, r in w.metrics},
        "channels": dict(w.channels),
        "findings": dict(w.findings),
    }


def to_json(a: Audit, target: str | None = None) -> dict:
    """The audit as plain JSON data (one target or all)."""
    targets = [t for t in a.targets if target is None or _key(t.name) == _key(target)]
    return {
        "agent": a.agent,
        "branch": a.branch,
        "head": a.head,
        "signatures_checked": a.signatures_checked,
        "targets": [
            {
                "target": t.name,
                "in_force": t.in_force.id,
                "versions": [
                    {
                        "version": v.number,
                        "id": v.id,
                        "time": v.time,
                        "session": v.session,
                        "summary": v.summary,
                        "target": v.target,
                        "made_by": v.made_by,
                        "governance": v.governance,
                        "basis": list(v.basis),
                        "commit": v.commit,
                        "in_force": v.in_force,
                        "relied_on_by": list(v.relied_on_by),
                        "approval": v.approval,
                        "approvals": [dataclasses.asdict(x) for x in v.approvals],
                        "impact": {
                            "before": _window_json(a.impacts[v.id].before),
                            "after": _window_json(a.impacts[v.id].after),
                            "introduced": list(a.impacts[v.id].introduced),
                            "resolved": list(a.impacts[v.id].resolved),
                            "acts": list(a.impacts[v.id].acts),
                        },
                    }
                    for v in t.versions
                ],
            }
            for t in targets
        ],
    }


def to_markdown(a: Audit, target: str | None = None, ref: Callable[[str], str] = lambda i: i) -> str:
    """``halo-git revisions --format md``: a section per target, its versions as a timeline."""
    from .markdown import md_table

    targets = [t for t in a.targets if target is None or _key(t.name) == _key(target)]
    lines = [f"# Revisions of {escape_md(a.agent)}", ""]
    lines.append(
        f"Branch {escape_md(a.branch)} at commit `{(a.head or 'none')[:12]}`: {len(targets)} target(s). "
        + ("Signatures checked against the allowed signers." if a.signatures_checked else "No allowed-signers file given: no approval is proven.")
    )
    lines.append("")
    for t in targets:
        lines += [f"## {escape_md(t.name)}", "", f"{len(t.versions)} version(s); in force at the head: {ref(t.in_force.id)}.", ""]
        for v in t.versions:
            i = a.impacts[v.id]
            force = " (in force)" if v.in_force else ""
            lines.append(f"### v{v.number} {v.id}{force}")
            lines.append("")
            lines.append(f"- {v.time} · session {escape_md(v.session)} · commit `{v.commit[:12]}`")
            lines.append(f"- {escape_md(v.summary)}")
            lines.append(f"- made by {v.made_by} · governance {v.governance} · basis {', '.join(ref(x) for x in v.basis) or 'none'}")
            lines.append(f"- approval {approval_text(v)}")
            lines.append(f"- relied on by {', '.join(ref(x) for x in v.relied_on_by) or 'nothing yet'}")
            lines.append(f"- impact {impact_text(i, ref)}")
            lines.append("")
            rows = impact_rows(i)
            if rows:
                lines += md_table(["measure", escape_md(i.before.session) + " (before)", escape_md(i.after.session) + " (after)"], rows, "lrr")  # type: ignore[union-attr]
                lines.append("")
    if not targets:
        lines.append("No revisions on this branch." if target is None else f"No revision of target {escape_md(target)}.")
    return "\n".join(lines).rstrip("\n") + "\n"


def impact_rows(i: Impact) -> list[list[str]]:
    """Before/after rows: events, every loop metric, every channel and rule seen in either window."""
    if i.before is None or i.after is None:
        return []
    b, a = i.before, i.after
    rows = [["events", f"{b.events} ({b.first}–{b.last})", f"{a.events} ({a.first}–{a.last})"]]
    bm, am = dict(b.metrics), dict(a.metrics)
    rows += [[name, f"{_pct(bm[name])} ({bm[name]})", f"{_pct(am[name])} ({am[name]})"] for name in am if name in bm]
    bc, ac = dict(b.channels), dict(a.channels)
    rows += [[f"channel {c}", str(bc.get(c, 0)), str(ac.get(c, 0))] for c in sorted(set(bc) | set(ac), key=_channel_order)]
    bf, af = dict(b.findings), dict(a.findings)
    rows += [[f"findings {r}", str(bf.get(r, 0)), str(af.get(r, 0))] for r in sorted(set(bf) | set(af))]
    return rows


def _channel_order(c: str) -> tuple[int, int]:
    order = "SMAR"
    return order.index(c[0]), order.index(c[-1])
