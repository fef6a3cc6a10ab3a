"""The CI gate's formats: ``render(gate, fmt, path_of)`` dispatches to the modules.

* ``github`` — GitHub Actions workflow commands (annotations), the default;
* ``plain`` — ``text`` for a terminal, ``md`` for a job summary or a
  pull-request comment, ``json`` for scripts;
* ``sarif`` — SARIF 2.1.0 for code scanning (one rule per HALO rule);
* ``junit`` — JUnit XML for the test-report views of other CI systems.

Each is a pure function from a ``gate.Gate`` to text, tested without Git.
Locations name the event's file inside the agent's repository
(``events/<shard>/e<N>.yaml``); the caller passes the store's path function as
``path_of(event_id)``, so this package never imports the store.
Called by ``commands/check.py``.
"""

from __future__ import annotations

from typing import Callable

from ..gate import Gate
from . import github, junit, plain, sarif

PathOf = Callable[[str], str]

FORMATS = ("github", "text", "md", "json", "sarif", "junit")


def render(gate: Gate, fmt: str, path_of: PathOf) -> str:
    """``gate`` in format ``fmt`` (one of ``FORMATS``)."""
    if fmt == "github":
        return github.render_annotations(gate, path_of)
    if fmt == "text":
        return plain.render_text(gate, path_of)
    if fmt == "md":
        return plain.render_markdown(gate)
    if fmt == "json":
        return plain.render_json(gate, path_of)
    if fmt == "sarif":
        return sarif.render_sarif(gate, path_of)
    if fmt == "junit":
        return junit.render_junit(gate, path_of)
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
