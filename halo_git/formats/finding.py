"""A finding's context as one line of text, the same in every check format.

Called by the GitHub, SARIF, JUnit and plain formatters so that each carries
what the report says of a finding: the first event's summary quoted, what
happened, why it matters in this trace and one next step.
"""

from __future__ import annotations

from ..diagnosis import Finding


def described(f: Finding) -> str:
    """`` “quote”: message Why it matters: … Next step: …`` (the remedy of the
    rule when the finding has no next step of its own); to follow the ids."""
    quote = f" “{f.quote}”" if f.quote else ""
    why = f" Why it matters: {f.why}" if f.why else ""
    step = f" Next step: {f.next_step}" if f.next_step else f" Remedy: {f.remedy}"
    return f"{quote}: {f.message}{why}{step}"
