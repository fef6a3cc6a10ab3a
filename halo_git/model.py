"""The HALO event model: kinds, validation, channels, YAML and trace lines.

Pure functions over plain data: no Git, no MCP, no files. Everything the
tools page fixes (parameter names, enums, reply and trace forms) lives here so
the MCP server, the CLI, the importer and ``verify`` all apply the same rules.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

import yaml

from .errors import InvalidCall, UnknownEvents, ids_hint

from . import eventfile

try:  # the C loader is 5-10x faster; fall back only where libyaml is missing
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]


@dataclass(frozen=True)
class Kind:
    """One event kind and the tool that logs it."""

    name: str
    category: str
    letter: str
    tool: str
    fields: tuple[str, ...]  # the kind's own fields, in YAML/trace order


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("observe", "Sensing", "S", "halo_observe", ()),
        Kind("outcome", "Sensing", "S", "halo_outcome", ("about",)),
        Kind("remember", "Memory", "M", "halo_remember", ()),
        Kind("recall", "Memory", "M", "halo_recall", ()),
        Kind("act", "Action", "A", "halo_act", ("trigger", "form")),
        Kind("revise", "Mechanism", "R", "halo_revise", ("target", "made_by", "governance")),
    )
}
LETTERS = ("S", "M", "A", "R")
CATEGORY_OF_LETTER = {"S": "Sensing", "M": "Memory", "A": "Action", "R": "Mechanism"}

ENUMS: dict[str, tuple[str, ...]] = {
    "trigger": ("request", "self"),
    "form": ("silence", "communication", "preparation", "execution"),
    "made_by": ("agent", "user"),
    "governance": ("approved", "bounded", "none"),
}
DEFAULTS: dict[str, str] = {"form": "communication"}

SHARED_PARAMS = ("summary", "uses", "session", "agent")

# Limits keep one event small enough to stay a cheap commit and a readable line.
MAX_SUMMARY = 10_000
MAX_USES = 50
MAX_TARGET = 200
MAX_SESSION = 100

AGENT_RULE = (
    "1-64 characters from letters, digits, '.', '_' and '-', "
    "starting with a letter or digit"
)
_AGENT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_ID_RE = re.compile(r"e([1-9][0-9]*)\Z")
# Control characters other than newline and tab cannot travel through a commit
# message or a terminal safely; U+2028/9 and NEL would split a trace line.
_BAD_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE_BREAKS = {"\r\n": "\\r\\n", "\n": "\\n", "\r": "\\r", "\x85": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_LINE_BREAK_RE = re.compile("|".join(map(re.escape, _LINE_BREAKS)))


@dataclass(frozen=True, slots=True)
class Event:
    """One logged step, exactly as its YAML file holds it."""

    id: str
    kind: str
    agent: str
    session: str
    time: str
    summary: str
    uses: tuple[str, ...] = ()
    fields: Mapping[str, str] = field(default_factory=dict)  # the kind's own fields
    channels: tuple[str, ...] = ()
    merged_from: str | None = None  # "<source> e<N> <commit>" on an event a merge appended (``merge_origin``)

    @property
    def number(self) -> int:
        return int(self.id[1:])

    @property
    def category(self) -> str:
        return KINDS[self.kind].category

    @property
    def letter(self) -> str:
        return KINDS[self.kind].letter

    @property
    def about(self) -> str | None:
        return self.fields.get("about")

    def sources(self) -> tuple[str, ...]:
        """Ids this event builds on: ``about`` first, then ``uses`` (deduplicated)."""
        about = self.fields.get("about")
        if about is None:
            return self.uses
        return (about,) + tuple(u for u in self.uses if u != about)

    def to_dict(self) -> dict[str, Any]:
        """The YAML mapping in the contract's key order."""
        d: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "category": self.category,
            "agent": self.agent,
            "session": self.session,
            "time": self.time,
            "summary": self.summary,
            "uses": list(self.uses),
        }
        for name in KINDS[self.kind].fields:
            d[name] = self.fields[name]
        if self.merged_from is not None:
            d["merged_from"] = self.merged_from
        d["channels"] = list(self.channels)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Event":
        """Rebuild an event from its mapping (YAML file, cache or JSONL export)."""
        kind = KINDS[d["kind"]]
        return cls(
            id=d["id"],
            kind=kind.name,
            agent=d["agent"],
            session=d["session"],
            time=d["time"],
            summary=d["summary"],
            uses=tuple(d.get("uses") or ()),
            fields={name: d[name] for name in kind.fields},
            channels=tuple(d.get("channels") or ()),
            merged_from=d.get("merged_from"),
        )


# --- merged events ----------------------------------------------------------------

MAX_SOURCE = 300
_MERGED_FROM_RE = re.compile(r"(?P<source>[^\x00-\x1f\x7f\x85\u2028\u2029]{1,%d}) (?P<id>e[1-9][0-9]{0,12}) (?P<commit>[0-9a-f]{40})\Z" % MAX_SOURCE)


@dataclass(frozen=True)
class MergeOrigin:
    """Where a merged event came from: the branch or remote it was merged from,
    its id there and the commit that first recorded it (its original)."""

    source: str
    id: str
    commit: str

    def text(self) -> str:
        return f"{self.source} {self.id} {self.commit}"


def merge_origin(value: Any) -> MergeOrigin:
    """Parse a ``merged_from`` value (``<source> e<N> <40-hex commit>``), or refuse it."""
    m = _MERGED_FROM_RE.match(value) if isinstance(value, str) else None
    if m is None or not m.group("source").strip():
        raise InvalidCall(f"'merged_from' must read '<source> e<N> <commit id>' on one line, got {_quoted(str(value), 80)}")
    return MergeOrigin(m.group("source"), m.group("id"), m.group("commit"))


# --- names, ids, labels --------------------------------------------------------


def _quoted(value: Any, limit: int = 40) -> str:
    """A refused value as a refusal may show it (``screening.quoted``: never a secret)."""
    from .screening import quoted  # screening imports this module, so not at the top

    return quoted(value, limit)


def _quoted_repr(value: Any, limit: int) -> str:
    """As ``_quoted``, but the value's repr cut at ``limit`` characters (how an event id is shown)."""
    shown = _quoted(value, 1 << 20)
    if shown.startswith("(withheld"):
        return shown
    r = repr(value)
    return r if len(r) <= limit else r[:limit] + "…"


def check_agent_name(name: Any) -> str:
    """Return ``name`` if it follows the agent naming rule, else refuse."""
    if not isinstance(name, str) or not _AGENT_RE.match(name):
        raise InvalidCall(f"invalid agent name {_quoted(name, 80)}: an agent name is {AGENT_RULE}")
    return name


def agent_name_from_client(client_name: str | None) -> str | None:
    """Turn an MCP client's name into a valid agent name, or None if nothing is left.

    Rule: every character outside letters, digits, '.', '_' and '-' becomes '-';
    leading characters that are not a letter or digit are dropped; the result is
    cut to 64 characters.
    """
    if not client_name:
        return None
    name = re.sub(r"[^A-Za-z0-9._-]", "-", client_name)
    name = re.sub(r"^[^A-Za-z0-9]+", "", name)[:64]
    return name or None


def parse_id(value: Any, param: str = "uses") -> int:
    """Parse ``e<N>`` into N, refusing anything that is not a canonical id."""
    if isinstance(value, str):
        m = _ID_RE.match(value)
        if m and len(m.group(1)) <= 13:
            return int(m.group(1))
    raise InvalidCall(
        f"invalid event id {_quoted_repr(value, 60)} in '{param}': ids look like e1, e2, … (lowercase e, "
        "then a number without leading zeros)",
        hints=ids_hint(None, "to see the ids of your earlier events"),
    )


def new_session_label() -> str:
    """A label for one connection: UTC time of connect plus a random suffix."""
    now = datetime.now(timezone.utc)
    return f"s{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def check_session(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidCall(f"'session' must be a string label, got {_type_name(value)}; pass a short label such as \"day2\" or omit it")
    if not value.strip():
        raise InvalidCall("'session' is empty; pass a short label such as \"day2\" or omit it to use this connection's session")
    if len(value) > MAX_SESSION:
        raise InvalidCall(f"'session' is {len(value)} characters; the limit is {MAX_SESSION}, use a short label such as \"day2\"")
    if _BAD_CONTROL_RE.search(value) or "\n" in value or "\t" in value or _LINE_BREAK_RE.search(value) or "[" in value or "]" in value:
        raise InvalidCall("'session' may not contain line breaks, control characters or square brackets; use a short label such as \"day2\"")
    _check_encodable(value, "session")
    return value


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# Git cannot date a commit before 1970 and HALO refuses times before 1971 (time
# zones may push a 1970 commit time below zero); a clock that reads earlier (an
# unset real-time clock) dates events at this time instead, as ``verify`` accepts.
EARLIEST = "1971-01-01T00:00:00Z"


def clock_time(reading: str) -> str:
    """The time a clock reading dates an event at: the reading, or EARLIEST."""
    return not_before(reading, EARLIEST)


def normalize_time(value: Any) -> str:
    """Return an ISO 8601 UTC time as ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``."""
    if not isinstance(value, str):
        raise InvalidCall(f"'time' must be an ISO 8601 string such as 2026-11-30T09:30:00Z, got {_type_name(value)}")
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        raise InvalidCall(f"'time' {value[:40]!r} is not ISO 8601; use a form such as 2026-11-30T09:30:00Z") from None
    if t.tzinfo is None:
        raise InvalidCall(f"'time' {value[:40]!r} has no time zone; add 'Z' for UTC, e.g. 2026-11-30T09:30:00Z")
    t = t.astimezone(timezone.utc)
    if t.year < 1971:
        raise InvalidCall(f"'time' {value[:40]!r} is before 1971; Git cannot date commits that early")
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if t.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    return t.strftime(fmt)


def epoch_seconds(iso: str) -> int:
    """Commit time (whole seconds) for an event time."""
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def time_before(a: str, b: str) -> bool:
    """True when the event time ``a`` is earlier than ``b`` (both as HALO writes them)."""
    return _parse_utc(a) < _parse_utc(b)


def not_before(when: str, floor: str | None) -> str:
    """``when``, or ``floor`` if ``when`` is earlier (the clock policy: a clock
    reading behind the parent event's time, or before 1971, is raised to it)."""
    return floor if floor is not None and time_before(when, floor) else when


def _parse_utc(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00") if iso.endswith("Z") else iso)


# --- validation of a call -------------------------------------------------------


@dataclass(frozen=True)
class Draft:
    """A validated call, before history gives it an id and channels."""

    kind: str
    summary: str
    uses: tuple[str, ...]
    fields: Mapping[str, str]
    session: str | None  # None: the caller's default
    agent: str | None  # None: the caller's default


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", list: "an array", dict: "an object", type(None): "null"}.get(type(value), "a string" if isinstance(value, str) else type(value).__name__)


# Bidirectional embeddings, overrides and isolates reorder how text displays (e.g. a
# summary that reads as another id or command on a terminal or the site).
_BIDI_RE = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _check_encodable(text: str, param: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidCall(f"'{param}' contains a lone surrogate (invalid Unicode); send valid UTF-8 text") from None
    bidi = _BIDI_RE.search(text)
    if bidi:
        raise InvalidCall(f"'{param}' contains the bidirectional control U+{ord(bidi.group()):04X}, which makes text display "
                          "in another order than it is stored; remove it and log again")


def check_summary(value: Any, screen: Callable[[str], list[str]] | None = None) -> str:
    """A non-empty summary within limits, with no secrets or personal data."""
    if value is None:
        raise InvalidCall("'summary' is required: say what happened in a few words")
    if not isinstance(value, str):
        raise InvalidCall(f"'summary' must be a string, got {_type_name(value)}; say what happened in a few words")
    if not value.strip():
        raise InvalidCall("'summary' is empty: say what happened in a few words")
    if len(value) > MAX_SUMMARY:
        raise InvalidCall(
            f"'summary' is {len(value)} characters; the limit is {MAX_SUMMARY}: say what happened in a few words "
            "and keep details out of the log"
        )
    _check_encodable(value, "summary")
    bad = _BAD_CONTROL_RE.search(value)
    if bad:
        raise InvalidCall(
            f"'summary' contains the control character U+{ord(bad.group()):04X}; remove it "
            "(only newlines, carriage returns and tabs are allowed)"
        )
    if screen is not None:
        found = screen(value)
        if found:
            raise InvalidCall(
                f"'summary' looks like it contains {', '.join(found)}; summaries must not carry secrets or "
                "raw personal data: describe it instead (e.g. 'sent the reset link to the user') and log again"
            )
    return value


_SCREEN_HINTS = {
    "target": "name what changed (a prompt, rule, skill or policy) without it and log again",
    "session": 'use a plain label such as "day2" and log again',
    "agent": 'use a plain name such as "demo" and log again',
}


def _screen_label(value: str, param: str, screen: Callable[[str], list[str]] | None) -> None:
    """Targets, session labels and agent names are agent text kept forever too."""
    if screen is not None:
        found = screen(value)
        if found:
            raise InvalidCall(
                f"'{param}' looks like it contains {', '.join(found)}; it must not carry secrets or raw "
                f"personal data: {_SCREEN_HINTS[param]}"
            )


def check_uses(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidCall(f"'uses' must be an array of event ids such as [\"e3\", \"e7\"], got {_type_name(value)}")
    if len(value) > MAX_USES:
        raise InvalidCall(f"'uses' names {len(value)} events; the limit is {MAX_USES}: name the events this step relied on most")
    seen: dict[str, None] = {}
    for item in value:
        parse_id(item, "uses")
        seen.setdefault(item, None)
    return tuple(seen)


def check_call(kind: str, args: Mapping[str, Any], screen: Callable[[str], list[str]] | None = None) -> Draft:
    """Validate a logging call's arguments (types, enums, required, unknown names).

    Raises:
        InvalidCall: with a message that says how to fix the call.
    """
    if kind not in KINDS:
        raise InvalidCall(f"unknown event kind {_quoted(kind)}; use one of: {', '.join(KINDS)}")
    spec = KINDS[kind]
    allowed = SHARED_PARAMS + spec.fields
    unknown = [k for k in args if k not in allowed]
    if unknown:
        names = ", ".join(_quoted(k) for k in unknown)
        hint = ""
        if any(k.startswith("use") or k == "uses_ids" for k in unknown):
            hint = " (did you mean 'uses'?)"
        raise InvalidCall(f"unknown parameter(s) {names} for {spec.tool}{hint}; its parameters are: {', '.join(allowed)}")
    summary = check_summary(args.get("summary"), screen)
    uses = check_uses(args.get("uses"))
    fields: dict[str, str] = {}
    for name in spec.fields:
        value = args.get(name, DEFAULTS.get(name))
        if value is None:
            raise InvalidCall(f"'{name}' is required for {spec.tool}; {_field_help(name)}")
        if not isinstance(value, str):
            raise InvalidCall(f"'{name}' must be a string, got {_type_name(value)}; {_field_help(name)}")
        if name in ENUMS and value not in ENUMS[name]:
            raise InvalidCall(f"'{name}' must be one of {', '.join(ENUMS[name])}; got {_quoted(value)}")
        if name == "about":
            parse_id(value, "about")
        if name == "target":
            if not value.strip():
                raise InvalidCall("'target' is empty; name what changed: a prompt, rule, skill, schedule policy, or similar")
            if len(value) > MAX_TARGET or _BAD_CONTROL_RE.search(value) or "\n" in value:
                raise InvalidCall(f"'target' must be one line of at most {MAX_TARGET} characters naming what changed")
            _check_encodable(value, "target")
            _screen_label(value, "target", screen)
        fields[name] = value
    session = args.get("session")
    if session is not None:
        session = check_session(session)
        _screen_label(session, "session", screen)
    agent = args.get("agent")
    if agent is not None:
        agent = check_agent_name(agent)
        _screen_label(agent, "agent", screen)
    return Draft(kind, summary, uses, fields, session, agent)


def _field_help(name: str) -> str:
    return {
        "trigger": "use 'request' if the user asked for it or set it up, 'self' if the agent decided on its own",
        "form": "use one of silence, communication, preparation, execution",
        "about": "name the earlier act event this outcome is about, such as \"e4\"",
        "target": "name what changed: a prompt, rule, skill, schedule policy, or similar",
        "made_by": "use 'agent' or 'user'",
        "governance": "use 'approved', 'bounded' or 'none'",
    }[name]


def resolve(
    draft: Draft,
    number: int,
    agent: str,
    session: str,
    time: str,
    kind_of: Callable[[int], str],
) -> Event:
    """Give a draft its id and channels against the branch's history.

    ``number`` is the id the event will get; ``kind_of(n)`` returns the kind of
    the existing event ``e<n>`` (1 <= n < number).

    Raises:
        UnknownEvents: ids at or after ``number`` (future or unknown ids).
        InvalidCall: an outcome whose ``about`` is not an act.
    """
    refs = list(draft.uses)
    about = draft.fields.get("about")
    if about is not None and about not in refs:
        refs.insert(0, about)
    unknown = [r for r in refs if int(r[1:]) >= number]
    if unknown:
        raise UnknownEvents(agent, sorted(unknown, key=lambda r: int(r[1:])))
    letters: dict[str, str] = {}
    if about is not None:
        about_kind = kind_of(int(about[1:]))
        if about_kind != "act":
            raise InvalidCall(
                f"'about' must name an earlier act event, but {about} is {'an' if about_kind[0] in 'aeiou' else 'a'} {about_kind} event",
                hints=ids_hint(agent, "to find the id of the act this outcome is about"),
            )
        letters[about] = "A"
    for u in draft.uses:
        if u not in letters:
            letters[u] = KINDS[kind_of(int(u[1:]))].letter
    me = KINDS[draft.kind].letter
    channels = tuple(dict.fromkeys(f"{x}→{me}" for x in letters.values()))
    return Event(
        id=f"e{number}",
        kind=draft.kind,
        agent=agent,
        session=session,
        time=time,
        summary=draft.summary,
        uses=draft.uses,
        fields=dict(draft.fields),
        channels=channels,
    )


# --- replies and lines ---------------------------------------------------------


def logged_reply(event: Event) -> dict[str, str]:
    """The logging tools' reply object."""
    note = f"Logged {event.id} ({event.category}, {event.kind})."
    if event.channels:
        note += f" Channels: {', '.join(event.channels)}."
    return {"id": event.id, "agent": event.agent, "session": event.session, "note": note}


def one_line(text: str) -> str:
    """Show line breaks as escapes so a summary stays on one line."""
    return _LINE_BREAK_RE.sub(lambda m: _LINE_BREAKS[m.group()], text)


def trace_line(event: Event) -> str:
    """``e4 [day2] act: reminded at 9:30 (uses e3) {trigger=self, form=communication}``."""
    line = f"{event.id} [{event.session}] {event.kind}: {one_line(event.summary)}"
    if event.uses:
        line += f" (uses {', '.join(event.uses)})"
    own = KINDS[event.kind].fields
    if own:
        line += " {" + ", ".join(f"{k}={one_line(event.fields[k])}" for k in own) + "}"
    return line


FIRST_EVENT_HINT = {"mcp": "log the first with halo_observe", "cli": "log the first with halo-git log observe"}


def empty_trace_text(agent: str, session: str = "", interface: str = "mcp") -> str:
    how = FIRST_EVENT_HINT[interface]
    if session:
        return f"No events yet in session '{session}' for agent '{agent}'; {how}."
    return f"No events yet for agent '{agent}'; {how}."


def trace_text(events: Iterable[Event], agent: str, session: str = "", interface: str = "mcp") -> str:
    lines = [trace_line(e) for e in events]
    return "\n".join(lines) if lines else empty_trace_text(agent, session, interface)


def check_limit(value: Any) -> int:
    if value is None:
        return 20
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidCall(f"'limit' must be an integer from 1 to 200, got {_type_name(value)}")
    if not 1 <= value <= 200:
        raise InvalidCall(f"'limit' must be from 1 to 200, got {value}; use 20 for the recent events")
    return value


def commit_message(event: Event) -> str:
    """``e5 act: <summary shortened to one line>``."""
    first = " ".join(event.summary.split())
    if len(first) > 72:
        first = first[:71] + "…"
    return f"{event.id} {event.kind}: {first}\n"


# --- YAML -------------------------------------------------------------------------


def to_yaml(event: Event) -> bytes:
    """The event's file in HALO's canonical form (``eventfile``: the same bytes
    on every machine, whichever PyYAML is installed); every summary round-trips exactly."""
    return eventfile.dump(event.to_dict())


def legacy_yaml(event: Event) -> bytes:
    """The file an earlier version wrote for ``event`` where PyYAML had no
    libyaml (it differs from ``to_yaml`` only for NEL and characters beyond U+FFFF)."""
    return eventfile.dump(event.to_dict(), legacy=True)


def from_yaml(data: bytes | str) -> Event:
    """The event in a file; an alias bomb, an oversized file or a tag is refused
    (``eventfile.Refused``, a ValueError) before any value is built."""
    d = eventfile.load(data)
    if not isinstance(d, dict):
        raise ValueError("event file is not a mapping")
    return Event.from_dict(d)


def load_event_file(data: bytes | str) -> Any:
    """The value of an event file, with ``from_yaml``'s limits, for callers that validate it themselves."""
    return eventfile.load(data)


def load_yaml(data: bytes | str) -> Any:
    """Parse YAML with the safe (C) loader; for callers that validate themselves."""
    return yaml.load(data, Loader=_Loader)
