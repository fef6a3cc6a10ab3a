"""The behavioral-authority paths: which acts and revisions earlier material holds authority over, and the
decisive chain back to it.

Room: diagnosis, a stage before the rules. ``diagnose`` calls ``_authority`` once per diagnosis
(``Diagnosis.authority``); the act -> memory-of-another-session map it also returns becomes the
rule context's ``cross_of``, which HALO-A4 (``actions``) reads.
"""

from __future__ import annotations

from ..model import KINDS, Event
from .graph import _ALL_KINDS, _KIND_BIT, _MEMORY_BITS, _UNGOVERNED_BIT, _Graph
from .result import PATHS_LISTED, Authority, AuthorityPath


def _sink_classes(e: Event, cross: bool) -> tuple[str, ...]:
    out = []
    if e.kind == "act":
        if e.fields["form"] == "execution":
            out.append("execution")
        if e.fields["trigger"] == "self":
            out.append("self")
    else:
        out.append("revise")
    if cross:
        out.append("cross-session")
    return tuple(out)


def _authority(scoped: list[Event], g: _Graph) -> tuple[Authority, dict[str, tuple[str, bool]]]:
    """Sinks, their upstream summary, and the most salient decisive chains (see ``Authority``).

    A sink is every execution (any trigger), every self-initiated act, every
    revision and every act whose ancestry holds memory kept in another session.
    Sinks are ranked by what lies upstream (memory of another session,
    ungoverned revision, retained memory, outcomes, revisions) and by what the
    sink is (execution, self-initiated, revision); the top ones get their
    decisive chain: the shortest one back to the most salient event upstream.
    Chains of the same shape from the same event are merged.
    """
    sinks: list[Event] = []
    cross_of: dict[str, tuple[str, bool]] = {}
    classes = dict.fromkeys(("execution", "self", "revise", "cross-session"), 0)
    score: dict[str, int] = {}
    for e in scoped:
        if e.kind == "act":
            m, unreviewed = g.cross_memory(e)
            if m is not None:
                cross_of[e.id] = (m, unreviewed)
            if m is None and e.fields["form"] != "execution" and e.fields["trigger"] != "self":
                continue
        elif e.kind != "revise":
            continue
        else:
            m = None
        sinks.append(e)
        for c in _sink_classes(e, m is not None):
            classes[c] += 1
        up = g.up[e.id]
        s = (16 + (4 if cross_of[e.id][1] else 0)) if m is not None else 0
        s += 8 if up & _UNGOVERNED_BIT else 0
        s += 4 if up & _MEMORY_BITS else 0
        s += 2 if up & _KIND_BIT["outcome"] else 0
        s += 2 if up & _KIND_BIT["revise"] else 0
        if e.kind == "act":
            s += 3 if e.fields["form"] == "execution" else 0
            s += 1 if e.fields["trigger"] == "self" else 0
        else:
            s += 2
        score[e.id] = s
    if not sinks:
        return Authority([], 0, 0, classes=classes), cross_of
    pos = g.pos
    ranked = sorted(sinks, key=lambda e: (-score[e.id], pos[e.id]))
    chains: list[AuthorityPath] = []
    for e in ranked[: PATHS_LISTED * 4]:
        chains.append(_decisive(e, g, cross_of.get(e.id), score[e.id]))
    merged: dict[tuple, AuthorityPath] = {}
    for p in chains:
        sink = g.by_id[p.sink]
        shape = (p.ids[0], tuple(g.by_id[i].kind for i in p.ids), sink.kind, sink.fields.get("form"), sink.fields.get("trigger"))
        if shape in merged and len(p.ids) > 1:
            q = merged[shape]
            merged[shape] = AuthorityPath(q.sink, q.ids, q.truncated, q.carriers, q.salience, q.also + (p.sink,), q.score)
        else:
            merged[shape if len(p.ids) > 1 else (p.sink,)] = p
    paths = sorted(merged.values(), key=lambda p: (-p.score, len(p.ids), pos[p.sink]))[:PATHS_LISTED]
    listed = sum(1 + len(p.also) for p in paths)
    kinds_of: dict[int, tuple[str, ...]] = {}  # one tuple per distinct bit set
    for e in sinks:
        b = g.up[e.id] & _ALL_KINDS
        if b not in kinds_of:
            kinds_of[b] = tuple(k for k in KINDS if b & _KIND_BIT[k])
    upstream = {e.id: kinds_of[g.up[e.id] & _ALL_KINDS] for e in sinks}
    ungoverned = [e.id for e in sinks if g.up[e.id] & _UNGOVERNED_BIT]
    auth = Authority(
        paths, len(sinks), len(sinks) - listed, upstream=upstream, ungoverned_upstream=ungoverned,
        classes=classes, cross_session=[e.id for e in sinks if e.id in cross_of],
    )
    return auth, cross_of


def _decisive(e: Event, g: _Graph, cross: tuple[str, bool] | None, score: int) -> AuthorityPath:
    up = g.up[e.id]
    found: tuple[tuple[str, ...], bool] | None = None
    if cross is not None:
        found = (g.walk_to(e.id, cross[0]), False)
    else:
        for bit, hit in (
            (_UNGOVERNED_BIT, lambda x: x.kind == "revise" and bool(g.own[x.id] & _UNGOVERNED_BIT)),
            (_KIND_BIT["remember"], lambda x: x.kind == "remember"),
            (_KIND_BIT["recall"], lambda x: x.kind == "recall"),
            (_KIND_BIT["outcome"], lambda x: x.kind == "outcome"),
            (_KIND_BIT["revise"], lambda x: x.kind == "revise"),
        ):
            if up & bit:
                r = g.search(e.id, hit)
                if r is not None:
                    found = (r[0], False)
                    break
    if found is None:
        found = g.root_walk(e.id)
    ids, truncated = found
    by_id = g.by_id
    kinds = {by_id[i].kind for i in ids[:-1]}
    salience: list[str] = []
    if cross is not None:
        m = by_id[cross[0]]
        salience.append(f"memory kept in session {m.session}" + (" from the agent's own output" if cross[1] else ""))
    for i in ids[:-1]:
        if g.own.get(i, 0) & _UNGOVERNED_BIT:
            salience.append(f"ungoverned self-revision {i}")
            break
    if cross is None and kinds & {"remember", "recall"}:
        salience.append("retained memory")
    if "outcome" in kinds:
        salience.append("outcome")
    if "revise" in kinds and not any(s.startswith("ungoverned") for s in salience):
        salience.append("earlier revision")
    carriers = tuple(k for k in KINDS if k in kinds)
    return AuthorityPath(e.id, ids, truncated, carriers, tuple(salience), (), score)
