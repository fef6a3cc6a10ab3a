"""Stage 3, render: an agent's revisions page, the audit trail of how it changed itself.

Room: the site's renderer (pure, deterministic), called by ``render.render_site``
for each agent. It formats ``revisions.Audit`` (collected with the very log the
other pages show): a table of targets, then one section per target with its
versions as a timeline — each version's event, summary, who made it, under which
governance, on what evidence, its commit, what relied on it, whether its
approval is **proven** or **claimed**, and its full impact (the session before
against the session after). Agent text goes through ``escape_md``; headings and
anchors use safe text only (a target's own words may be hostile); ids link to
their trace anchors like everywhere else.
"""

from __future__ import annotations

from ..markdown import escape_md, md_table
from ..revisions import CLAIMED, PROVEN, Audit, Target, Version, audit, impact_rows, impact_text
from .collect import AgentData
from .pages import AgentSite, plain
from .render import _id_links, _ref, _short, _when, event_link, front

_LABEL = {PROVEN: "proven", CLAIMED: "claimed", "none": "none"}


def audit_of(data: AgentData) -> Audit:
    """The audit of collected data that carries none (no signatures read: nothing proven)."""
    log = data.log
    return audit(log.events, log.commits, agent=data.name, branch=log.branch, head=log.head)


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _anchor(n: int) -> str:
    return f"target-{n}"


def _badge(status: str) -> str:
    return f'<span class="halo-approval halo-approval-{status}">{_LABEL[status]}</span>'


def render_revisions_page(a: AgentSite, audit: Audit) -> str:
    page = a.revisions
    link = event_link(a, page)

    def ref(i: str) -> str:
        return _ref(i, link)

    ungoverned = set(a.data.diagnosis.mechanism.ungoverned)
    versions = audit.versions()
    proven = sum(1 for v in versions if v.approval == PROVEN)
    claimed = sum(1 for v in versions if v.approval == CLAIMED)
    checked = (
        "Signatures were checked against the allowed-signers file."
        if audit.signatures_checked
        else "No allowed-signers file was given when the site was built, so no approval is proven."
    )
    body = [
        f"# Revisions of {escape_md(a.name)}",
        "",
        f"Every durable change the agent logged to how it works, by target: {_n(len(versions), 'revision')} of "
        f"{_n(len(audit.targets), 'target')}, {len(ungoverned & {v.id for v in versions})} ungoverned (made by the agent with "
        f"governance none); approvals {proven} proven, {claimed} claimed. **Proven** means an approval commit signed "
        "by an allowed signer (checked as `git verify-commit` does); **claimed** means only a label: governance=approved "
        f"in the agent's own event, or an unsigned approval. {checked} Commit ids pin each entry to the repository history.",
        "",
    ]
    if not audit.targets:
        body.append("No revisions on this branch.")
        return front(f"{a.name} · revisions", "\n".join(body))
    rows = []
    for n, t in enumerate(audit.targets, 1):
        v = t.in_force
        flag = ' <span class="halo-flag">ungoverned</span>' if v.id in ungoverned else ""
        rows.append([
            f"[{escape_md(t.name)}](#{_anchor(n)})",
            str(len(t.versions)),
            f"{ref(v.id)}{flag}",
            f"{v.made_by} · {v.governance}",
            _badge(v.approval),
            f"{_when(v.time)}<br>{_short(v.commit)}",
        ])
    body += ["## Targets", ""]
    body += md_table(["Target", "Versions", "In force", "Made by · governance", "Approval", "Time · commit"], rows, "lrllll")
    body.append("")
    for n, t in enumerate(audit.targets, 1):
        body += _target_section(a, audit, t, n, ref, link)
    return front(f"{a.name} · revisions", "\n".join(body))


def _target_section(a: AgentSite, audit: Audit, t: Target, n: int, ref, link) -> list[str]:
    title = plain(t.name, f"Target {n}")
    lines = [
        f"## {escape_md(title)} {{ #{_anchor(n)} }}",
        "",
        f"Target “{escape_md(t.name)}”: {len(t.versions)} version(s), oldest first; in force at the head: {ref(t.in_force.id)}.",
        "",
    ]
    for v in t.versions:
        lines += _version(a, audit, v, ref, link)
    return lines


def _version(a: AgentSite, audit: Audit, v: Version, ref, link) -> list[str]:
    i = audit.impacts[v.id]
    force = " · in force" if v.in_force else ""
    lines = [
        f"### v{v.number} · {v.id}{force} {{ #rev-{v.id} }}",
        "",
        escape_md(v.summary),
        "",
        f"- {_when(v.time)} · session {escape_md(v.session)} · commit {_short(v.commit)} · event {ref(v.id)}",
        f"- made by **{v.made_by}** · governance **{v.governance}** · basis {_id_links(v.basis, link, a) or 'none'}",
        f"- approval {_badge(v.approval)}" + ("" if v.approvals else ": nobody claims one"),
    ]
    for x in v.approvals:
        lines.append(f"    - {ref(x.event)} by {escape_md(x.by)}: {_badge(x.status)} {escape_md(x.how)}")
    lines.append(f"- relied on by {_id_links(v.relied_on_by, link, a) or 'nothing yet'}")
    lines.append(f"- impact: {impact_text(i, ref)}")
    lines.append("")
    rows = impact_rows(i)
    if rows:
        lines += md_table(
            ["Measure", f"Before: session {escape_md(i.before.session)}", f"After: session {escape_md(i.after.session)}"],  # type: ignore[union-attr]
            rows, "lrr",
        )
        lines.append("")
    return lines
