"""JSONL export and import of events: pure functions, no Git.

Export writes one event per line with the same fields as its YAML file.
Import reads that form (``id`` optional, ``category``/``channels``/``agent``
recomputed), validates the whole file before anything is written, and renumbers
events to continue the branch, remapping ``uses``/``about`` that name ids of
the file itself. Ids a line names that are not in the file refer to events the
branch already holds. ``duplicates`` finds lines the branch already holds (a
second import of the same file), which ``Halo.import_lines`` refuses unless
duplicates are allowed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from .errors import InvalidCall
from .model import KINDS, Draft, Event, check_call, clock_time, normalize_time, now_iso, parse_id, resolve
from .screening import quoted

# merged_from names a commit of the exporting repository, which an import cannot hold: the imported
# event is a record of its own (its summary, session and time still say what it was)
_RECOMPUTED = ("id", "kind", "category", "agent", "channels", "time", "merged_from")


def export_lines(events: Iterable[Event]) -> Iterator[str]:
    for e in events:
        yield json.dumps(e.to_dict(), ensure_ascii=False)


@dataclass(frozen=True)
class ImportItem:
    line: int
    file_id: str | None
    draft: Draft
    time: str
    time_given: bool = True


def parse_lines(lines: Iterable[str], screen: Callable[[str], list[str]] | None = None, clock: Callable[[], str] = now_iso) -> list[ImportItem]:
    """Parse and validate every line; the first bad line refuses the file.
    A line without a time is dated by ``clock`` (never before 1971); the store
    then keeps times in order along the branch."""
    items: list[ImportItem] = []
    seen: set[str] = set()
    for lineno, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            try:
                obj = json.loads(raw)
            except ValueError as e:
                raise InvalidCall(f"not valid JSON ({e.msg})") from None
            except RecursionError:
                raise InvalidCall("nested too deeply to be an event (an event is one flat JSON object)") from None
            if not isinstance(obj, dict):
                raise InvalidCall("each line must be one JSON object (an event)")
            kind = obj.get("kind")
            if not isinstance(kind, str) or kind not in KINDS:  # (a list is unhashable)
                raise InvalidCall(f"'kind' must be one of {', '.join(KINDS)}")
            if "category" in obj and obj["category"] != KINDS[kind].category:
                raise InvalidCall(f"'category' {quoted(obj['category'])} does not match kind {kind!r} ({KINDS[kind].category})")
            file_id = obj.get("id")
            if file_id is not None:
                parse_id(file_id, "id")
                if file_id in seen:
                    raise InvalidCall(f"id {file_id} appears twice in the file")
                seen.add(file_id)
            time = normalize_time(obj["time"]) if obj.get("time") is not None else clock_time(clock())
            call = {k: v for k, v in obj.items() if k not in _RECOMPUTED}
            draft = check_call(kind, call, screen)
        except InvalidCall as e:
            raise InvalidCall(f"line {lineno}: {e}; nothing was imported") from None
        items.append(ImportItem(lineno, file_id, draft, time, obj.get("time") is not None))
    return items


def plan(items: list[ImportItem], first: int, agent: str, default_session: str, kind_of: Callable[[int], str]) -> list[Event]:
    """Number the items from ``first`` and remap their references.

    ``kind_of(n)`` gives the kind of existing event ``e<n>`` (n < first).
    """
    mapping = {it.file_id: f"e{first + i}" for i, it in enumerate(items) if it.file_id}
    events: list[Event] = []

    def kind(n: int) -> str:
        return events[n - first].kind if n >= first else kind_of(n)

    for i, it in enumerate(items):
        number = first + i
        try:
            uses = tuple(dict.fromkeys(_remap(u, mapping, first, it) for u in it.draft.uses))
            fields = dict(it.draft.fields)
            if "about" in fields:
                fields["about"] = _remap(fields["about"], mapping, first, it)
            draft = Draft(it.draft.kind, it.draft.summary, uses, fields, it.draft.session, it.draft.agent)
            events.append(resolve(draft, number, agent, it.draft.session or default_session, it.time, kind))
        except InvalidCall as e:
            raise InvalidCall(f"line {it.line}: {e}; nothing was imported") from None
    return events


def _remap(ref: str, mapping: dict[str, str], first: int, it: ImportItem) -> str:
    if ref in mapping:
        return mapping[ref]
    if int(ref[1:]) >= first:
        held = f"an event the branch already holds (e1..e{first - 1})" if first > 1 else "an event of the branch (it holds none yet)"
        raise InvalidCall(
            f"{ref} is neither an id in the file nor {held}; to refer to an earlier line of the file, "
            f"give that line an \"id\" (e.g. \"id\": \"{ref}\") and name that id in 'uses' or 'about'"
        )
    return ref


def _key(kind: str, session: str, summary: str, time: str | None) -> tuple:
    return (kind, session, summary, time)


def duplicates(items: list[ImportItem], existing: Iterable[Event], default_session: str) -> list[tuple[int, str]]:
    """Lines that repeat an event the branch already holds: ``(line, id)`` pairs.

    An event repeats when kind, session, summary and time are the same (a line
    without ``time`` matches on the other three), which is what importing the
    same file, or an export of the same branch, twice produces. Pure: the
    caller reads the branch."""
    timed: dict[tuple, str] = {}
    untimed: dict[tuple, str] = {}
    for e in existing:
        timed.setdefault(_key(e.kind, e.session, e.summary, e.time), e.id)
        untimed.setdefault(_key(e.kind, e.session, e.summary, None), e.id)
    found = []
    for it in items:
        session = it.draft.session or default_session
        if it.time_given:
            hit = timed.get(_key(it.draft.kind, session, it.draft.summary, it.time))
        else:
            hit = untimed.get(_key(it.draft.kind, session, it.draft.summary, None))
        if hit is not None:
            found.append((it.line, hit))
    return found
