"""Screen summaries for secrets and raw personal data before anything is committed.

(Initial version: the full, configurable pattern list is built under the
reliability work; the interface stays ``Screen.__call__(text) -> list[str]``.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    name: str
    regex: re.Pattern[str]


class Screen:
    """Callable returning the names of what was found (never the text itself)."""

    def __init__(self, patterns: list[Pattern]):
        self.patterns = patterns

    def __call__(self, text: str) -> list[str]:
        return [p.name for p in self.patterns if p.regex.search(text)]


default_screen = Screen([
    Pattern("a private key block", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
])
