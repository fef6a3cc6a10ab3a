"""Safe Markdown building blocks shared by the report and the site builder.

Agent text is untrusted. ``escape_md`` turns it into inline Markdown that
renders as the same literal text on GitHub (CommonMark/GFM) and in MkDocs
(Python-Markdown with Material's usual extensions): it cannot open HTML, a
link, emphasis, a code span, a table cell, an attribute list (``{: ...}``), a
template expression (``{{ ... }}``), math, strikethrough, marks or emoji, and it
cannot end the line. Characters Python-Markdown does not accept backslash
escapes for become HTML character references instead, which both renderers
decode to the literal character.
"""

from __future__ import annotations

import re
from typing import Sequence

from .model import one_line

_BACKSLASHED = "\\`*_[]"
_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "|": "&#124;",
    "{": "&#123;",
    "}": "&#125;",
    "~": "&#126;",
    "^": "&#94;",
    "$": "&#36;",
    "==": "&#61;&#61;",
}
# ``:name:`` is an emoji shortcode on GitHub and with pymdownx.emoji: break its first
# colon, but leave clock times (``09:30:00``) readable, as no shortcode is two digits.
_SPECIAL_RE = re.compile(r"[\\`*_\[\]&<>|{}~^$]|==|:(?!\d\d?:)(?=[\w+-]+:)")
_URL_UNSAFE_RE = re.compile(r"[\s()<>\[\]\\`\"']")


def _escape_char(m: re.Match[str]) -> str:
    s = m.group()
    if s in _BACKSLASHED:
        return "\\" + s
    return _ENTITIES.get(s, "&#58;")


def escape_md(text: str) -> str:
    """Agent text as inline Markdown that shows literally, on one line.

    Line breaks become visible ``\\n`` (as in trace lines), so a summary can
    never start a new block, heading or table row.
    """
    return _SPECIAL_RE.sub(_escape_char, one_line(text).replace("\t", " "))


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters with an ellipsis (before escaping)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def safe_url(url: str) -> str:
    """Percent-encode what could end or break a Markdown link destination."""
    return _URL_UNSAFE_RE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), url)


def md_link(label: str, url: str) -> str:
    """``[label](url)`` with the label escaped and the destination made safe."""
    return f"[{escape_md(label)}]({safe_url(url)})"


def md_table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    """A GFM table as lines. Cells must already be Markdown (escape agent text first).

    ``align`` holds one letter per column: ``l`` (default) or ``r``.
    """
    marks = ["---:" if align[i:i + 1] == "r" else "---" for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(marks) + "|"]
    for row in rows:
        cells = [c if c else " " for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return lines
