"""The channel graph as inline SVG, drawn in Python.

Material would fetch mermaid from a CDN at view time; an SVG written at build
time renders offline, costs a few hundred bytes and is deterministic. Nodes are
the four categories (S, M, A, R), edges the channels ``X→Y`` with their counts;
a pair of opposite edges bends apart, a channel from a category to itself is a
loop on the outer side of its node.
"""

from __future__ import annotations

import math
from typing import Mapping

from ..model import CATEGORY_OF_LETTER, LETTERS

WIDTH, HEIGHT, RADIUS = 520, 420, 34
# Memory on top, sensing and action at the base, mechanism in the middle: the
# complete graph on four nodes drawn without crossings.
POSITIONS = {"M": (260, 95), "S": (90, 340), "A": (430, 340), "R": (260, 225)}
CENTRE = (260, 258)  # the triangle's centroid; loops point away from it
LOOP_DIRECTION = {"R": (0.0, 1.0)}  # the middle node's loop hangs down, clear of the edges


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _width(count: int, top: int) -> float:
    return 1.5 + 3.5 * math.log1p(count) / math.log1p(top)


def _edge(x: str, y: str, bend: bool) -> tuple[str, tuple[float, float]]:
    """Path data from node x to node y and the point where its label goes."""
    (x1, y1), (x2, y2) = POSITIONS[x], POSITIONS[y]
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux  # normal: bends opposite edges to opposite sides
    off = 28 if bend else 0
    mx, my = (x1 + x2) / 2 + nx * off, (y1 + y2) / 2 + ny * off
    # shorten both ends to the node circles (approximately along the curve)
    sx, sy = x1 + ux * RADIUS + nx * off * 0.25, y1 + uy * RADIUS + ny * off * 0.25
    ex, ey = x2 - ux * (RADIUS + 4) + nx * off * 0.25, y2 - uy * (RADIUS + 4) + ny * off * 0.25
    d = f"M{_fmt(sx)},{_fmt(sy)} Q{_fmt(mx)},{_fmt(my)} {_fmt(ex)},{_fmt(ey)}"
    label = ((sx + 2 * mx + ex) / 4, (sy + 2 * my + ey) / 4)
    return d, label


def _loop(x: str) -> tuple[str, tuple[float, float]]:
    """A loop on the side of node x that faces away from the centre."""
    px, py = POSITIONS[x]
    if x in LOOP_DIRECTION:
        ox, oy = LOOP_DIRECTION[x]
    else:
        ox, oy = px - CENTRE[0], py - CENTRE[1]
        n = math.hypot(ox, oy)
        ox, oy = ox / n, oy / n
    tx, ty = -oy, ox
    a = (px + (ox * 0.8 + tx * 0.6) * RADIUS, py + (oy * 0.8 + ty * 0.6) * RADIUS)
    b = (px + (ox * 0.8 - tx * 0.6) * RADIUS, py + (oy * 0.8 - ty * 0.6) * RADIUS)
    c1 = (a[0] + ox * 55 + tx * 20, a[1] + oy * 55 + ty * 20)
    c2 = (b[0] + ox * 55 - tx * 20, b[1] + oy * 55 - ty * 20)
    d = f"M{_fmt(a[0])},{_fmt(a[1])} C{_fmt(c1[0])},{_fmt(c1[1])} {_fmt(c2[0])},{_fmt(c2[1])} {_fmt(b[0])},{_fmt(b[1])}"
    # label beside the loop, not beyond it, where other edges' labels sit
    return d, (px + ox * (RADIUS + 30) + tx * 38, py + oy * (RADIUS + 30) + ty * 38)


def channel_svg(channels: Mapping[tuple[str, str], int], element_id: str = "halo-channels") -> str:
    """An SVG element (one line per shape, no blank lines) drawing ``channels``.

    Args:
        channels: ``(from_letter, to_letter) -> count``; zero counts are skipped.
        element_id: id of the ``<svg>``; also prefixes the arrow marker id.
    """
    edges = sorted((k, n) for k, n in channels.items() if n > 0)
    top = max((n for _, n in edges), default=1)
    marker = f"{element_id}-arrow"
    described = ", ".join(f"{x}→{y} {n}" for (x, y), n in edges) or "no channels yet"
    out = [
        f'<svg id="{element_id}" class="halo-graph" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-labelledby="{element_id}-title">',
        f'<title id="{element_id}-title">Channel graph: {described}</title>',
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="halo-graph-head"/></marker></defs>',
    ]
    present = {k for k, _ in edges}
    for (x, y), n in edges:
        if x == y:
            d, (lx, ly) = _loop(x)
        else:
            d, (lx, ly) = _edge(x, y, bend=(y, x) in present)
        out.append(
            f'<g class="halo-graph-edge" data-channel="{x}→{y}"><path d="{d}" fill="none" '
            f'stroke-width="{_fmt(_width(n, top))}" marker-end="url(#{marker})"/>'
            f'<text x="{_fmt(lx)}" y="{_fmt(ly)}" text-anchor="middle" dominant-baseline="middle">{n}</text></g>'
        )
    for letter in LETTERS:
        px, py = POSITIONS[letter]
        out.append(
            f'<g class="halo-graph-node halo-cat-{letter}"><circle cx="{px}" cy="{py}" r="{RADIUS}"/>'
            f'<text x="{px}" y="{py - 4}" text-anchor="middle" class="halo-graph-letter">{letter}</text>'
            f'<text x="{px}" y="{py + 14}" text-anchor="middle" class="halo-graph-name">{CATEGORY_OF_LETTER[letter]}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out)
