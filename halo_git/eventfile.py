"""HALO's canonical event file: the emitter that defines its bytes, and the reader.

A room at the bottom, beside ``model`` (pure: no Git, no files). ``model.to_yaml``
and ``model.from_yaml`` call it; the store's ``verify`` and ``snapshot`` compare
files with the bytes it emits. docs/storage.md, "The event file format",
describes the format for people; this module is its definition.

Why HALO owns the emitter: an event file must hash to the same Git blob on
every machine, but PyYAML's two emitters disagree. libyaml (``CSafeDumper``)
treats characters beyond U+FFFF and NEL (U+0085) as unprintable and writes the
scalar double-quoted with escapes (``"user sent \\U0001F44D"``); pure-Python
PyYAML writes them raw (``user sent 👍``). The canonical form is the first one,
which is what almost every file written so far holds; this module writes it
with no help from either PyYAML emitter. ``dump(..., legacy=True)`` writes the
other form, which earlier versions wrote on machines without libyaml: readers
and ``verify`` accept both, writers produce only the canonical one.

The format, exactly (what ``dump`` does):

* one block mapping, keys in the order given, ``key: value`` per line, UTF-8,
  ``\\n`` line ends, no document markers, no anchors, aliases or tags;
* a list value: ``key: []`` when empty, else ``key:`` and one ``- item`` line
  per item (not indented); a mapping value: ``key:`` and its lines indented by
  two spaces; integers, booleans and null as ``5``, ``true``, ``null``;
* a string takes the first style it may (the YAML 1.1 rules, as libyaml applies them):

  - **plain** (as it is) unless it is empty, starts or ends with a space or
    line break, holds a line break, an unprintable character (below), ``: ``
    or `` #``, ends in ``:``, starts with one of ``#,[]{}&*!|>'"%@``` ``, with
    ``---`` or ``...``, or with ``?``, ``:`` or ``-`` followed by a space (or
    alone), or reads as another type in YAML 1.1 (``yes``, ``no``, ``1.5``,
    ``~``, ``null``, a date, ``=``, ``<<``, ...);
  - **single-quoted** (``'`` doubled) unless it holds an unprintable character,
    or a space next to a line break; a run of line breaks is written as the
    breaks themselves, each ``\\n`` as a newline and one more newline before a
    run that starts with ``\\n`` (YAML folds a single one), followed by the
    continuation indent (two spaces more than the key);
  - **double-quoted** otherwise, on one line, escaping ``"``, ``\\``, every
    line break and every unprintable character: ``\\0 \\a \\b \\t \\n \\v \\f
    \\r \\e \\N \\L \\P``, else ``\\xXX``, ``\\uXXXX`` or ``\\UXXXXXXXX``
    (upper-case hex).

  Printable: newline, U+0020–U+007E, U+00A0–U+D7FF, U+E000–U+FFFD except the
  byte order mark U+FEFF. (The legacy form also counts NEL and U+10000–U+10FFFE
  printable; that is its only difference.)

Reading (``load``) refuses before building any value: a file over
``MAX_FILE`` bytes, and any anchor, alias, tag or nesting deeper than
``MAX_DEPTH`` (a canonical file has none of them, and a YAML alias bomb of half
a kilobyte expands to gigabytes). A canonical (or legacy) file is read by a
line parser whose result is accepted only when emitting it again gives the
file's exact bytes; anything else goes through PyYAML's safe loader after
those checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

try:  # the C parser only speeds up reading files that are not in canonical form
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

# An event file holds at most a 10,000-character summary, which double-quoted
# escapes can make 10 bytes per character, plus short fields: 256 KiB is ample.
MAX_FILE = 256 * 1024
MAX_DEPTH = 8
INDENT = 2

_BREAKS = "\n\x85\u2028\u2029"
_BLANKZ = "\0 \t\r\n\x85\u2028\u2029"
# Characters outside the printable set (canonical: libyaml's; legacy: pure PyYAML's).
_UNPRINTABLE = re.compile("[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
_UNPRINTABLE_LEGACY = re.compile("[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]")
# What a double-quoted scalar escapes (the same in both forms).
_ESCAPED = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff\U00010000-\U0010ffff]')
_ESCAPES = {"\0": "0", "\x07": "a", "\x08": "b", "\x09": "t", "\x0a": "n", "\x0b": "v", "\x0c": "f", "\x0d": "r",
            "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P"}

# YAML 1.1 implicit types (PyYAML's resolver, written down here so that the
# format does not change with it): a plain scalar matching one of these would
# read back as something other than a string, so it is quoted.
_IMPLICIT: dict[str, list[re.Pattern]] = {}


def _implicit(pattern: str, first: str | list[str]) -> None:
    compiled = re.compile(pattern, re.X)
    for ch in first:
        _IMPLICIT.setdefault(ch, []).append(compiled)


_implicit(r"""^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$""", "yYnNtTfFoO")
_implicit(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
            |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
            |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))$""", "-+0123456789.")
_implicit(r"""^(?:[-+]?0b[0-1_]+
            |[-+]?0[0-7_]+
            |[-+]?(?:0|[1-9][0-9_]*)
            |[-+]?0x[0-9a-fA-F_]+
            |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""", "-+0123456789")
_implicit(r"^(?:<<)$", "<")
_implicit(r"""^(?: ~ |null|Null|NULL | )$""", ["~", "n", "N", ""])
_implicit(r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
            |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
             (?:[Tt]|[ \t]+)[0-9][0-9]?
             :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
             (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", "0123456789")
_implicit(r"^(?:=)$", "=")
_implicit(r"^(?:!|&|\*)$", "!&*")


def reads_as_string(value: str) -> bool:
    """True when ``value`` written plain reads back as a string (YAML 1.1)."""
    return not any(p.match(value) for p in _IMPLICIT.get(value[:1], ()))


# A one-line value made only of these, not starting with an indicator, needs
# no further analysis to be written plain (most ids, kinds, labels, summaries).
_SIMPLE_CHARS = "A-Za-z0-9_()./,;:#=+'\"@$%&*!?~\\-\u00a0-\u2027\u202a-\ud7ff"
_SIMPLE = re.compile(f"[A-Za-z0-9_(][{_SIMPLE_CHARS}]*(?: [{_SIMPLE_CHARS}]+)*\\Z")
_memo: dict[str, str] = {}  # canonical form at the usual indent, by value


def scalar(value: str, indent: int = INDENT, legacy: bool = False) -> str:
    """``value`` as the format writes it after ``key: `` or ``- ``; ``indent``:
    the column continuation lines of a single-quoted scalar start at."""
    usual = indent == INDENT and not legacy
    if usual:
        found = _memo.get(value)
        if found is not None:
            return found
    if _SIMPLE.match(value) and value[-1] != ":" and ": " not in value and " #" not in value:
        # nothing but its reading as another type (a date, a number, yes) can keep it from being plain
        out = value if value[0] not in _IMPLICIT or reads_as_string(value) else "'" + value.replace("'", "''") + "'"
    else:
        style = _style(value, legacy)
        if style == "plain":
            out = value
        elif style == "single":
            out = _single_quoted(value, indent)
        else:
            out = _double_quoted(value)
    if usual and len(value) <= 200 and len(_memo) < 50_000:
        _memo[value] = out  # agents, sessions, kinds, targets and ids repeat
    return out


def _style(s: str, legacy: bool) -> str:
    """'plain', 'single' or 'double': libyaml's (and PyYAML's) analysis of a
    scalar in block context, for a value that must read back as a string."""
    if not s:
        return "single"  # plain '' reads as null
    block_indicators = s.startswith("---") or s.startswith("...")
    line_breaks = special = False
    leading_space = leading_break = trailing_space = trailing_break = break_space = space_break = False
    previous_space = previous_break = False
    preceded_by_ws = True
    n = len(s)
    followed_by_ws = n == 1 or s[1] in _BLANKZ
    unprintable = _UNPRINTABLE_LEGACY if legacy else _UNPRINTABLE
    special = unprintable.search(s) is not None
    for i, ch in enumerate(s):
        if i == 0:
            if ch in "#,[]{}&*!|>'\"%@`":
                block_indicators = True
            if ch in "?:" and followed_by_ws:
                block_indicators = True
            if ch == "-" and followed_by_ws:
                block_indicators = True
        else:
            if ch == ":" and followed_by_ws:
                block_indicators = True
            if ch == "#" and preceded_by_ws:
                block_indicators = True
        if ch in _BREAKS:
            line_breaks = True
        if ch == " ":
            leading_space = leading_space or i == 0
            trailing_space = trailing_space or i == n - 1
            break_space = break_space or previous_break
            previous_space, previous_break = True, False
        elif ch in _BREAKS:
            leading_break = leading_break or i == 0
            trailing_break = trailing_break or i == n - 1
            space_break = space_break or previous_space
            previous_space, previous_break = False, True
        else:
            previous_space = previous_break = False
        preceded_by_ws = ch in _BLANKZ
        followed_by_ws = i + 2 >= n or s[i + 2] in _BLANKZ
    plain = not (leading_space or leading_break or trailing_space or trailing_break or break_space
                 or space_break or special or line_breaks or block_indicators)
    if plain and reads_as_string(s):
        return "plain"
    if not (break_space or space_break or special):
        return "single"
    return "double"


def _single_quoted(s: str, indent: int) -> str:
    out = ["'"]
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch in _BREAKS:
            j = i
            while j < n and s[j] in _BREAKS:
                j += 1
            run = s[i:j]
            if run[0] == "\n":
                out.append("\n")
            out.append(run)
            out.append(" " * indent)
            i = j
        else:
            j = i
            while j < n and s[j] not in _BREAKS:
                j += 1
            out.append(s[i:j].replace("'", "''"))
            i = j
    out.append("'")
    return "".join(out)


def _escape(m: re.Match) -> str:
    ch = m.group()
    short = _ESCAPES.get(ch)
    if short is not None:
        return "\\" + short
    code = ord(ch)
    if code <= 0xFF:
        return "\\x%02X" % code
    if code <= 0xFFFF:
        return "\\u%04X" % code
    return "\\U%08X" % code


def _double_quoted(s: str) -> str:
    return '"' + _ESCAPED.sub(_escape, s) + '"'


_KEY = re.compile(r"[a-z_][a-z0-9_]*\Z")
_keys: set[str] = set()


def _check_key(key: Any) -> str:
    if key in _keys:
        return key
    if not (isinstance(key, str) and _KEY.match(key)):
        raise ValueError(f"event file keys are lower-case names, got {str(key)[:40]!r}")
    if len(_keys) < 1000:
        _keys.add(key)
    return key


def _atom(value: Any, indent: int, legacy: bool) -> str:
    if isinstance(value, str):
        return scalar(value, indent, legacy)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    raise TypeError(f"the event file format holds strings, numbers, booleans, null, lists and mappings, not {type(value).__name__}")


def _mapping(d: Mapping[str, Any], column: int, legacy: bool, out: list[str]) -> None:
    pad = " " * column
    inner = column + INDENT
    for key, value in d.items():
        key = _check_key(key)
        kind = type(value)
        if kind is str:
            out.append(f"{pad}{key}: {scalar(value, inner, legacy)}\n")
        elif kind is list or kind is tuple:
            if not value:
                out.append(f"{pad}{key}: []\n")
                continue
            out.append(f"{pad}{key}:\n")
            for item in value:  # a sequence in a mapping is not indented
                if type(item) is str:
                    out.append(f"{pad}- {scalar(item, inner, legacy)}\n")
                elif isinstance(item, (list, tuple, dict)):
                    raise TypeError("the event file format holds lists of strings, numbers, booleans or null only")
                else:
                    out.append(f"{pad}- {_atom(item, inner, legacy)}\n")
        elif isinstance(value, Mapping):
            if not value:
                out.append(f"{pad}{key}: {{}}\n")
                continue
            out.append(f"{pad}{key}:\n")
            _mapping(value, inner, legacy, out)
        else:
            out.append(f"{pad}{key}: {_atom(value, inner, legacy)}\n")


def dump(d: Mapping[str, Any], *, legacy: bool = False) -> bytes:
    """The canonical bytes of the mapping ``d`` (keys in its order); ``legacy``:
    the form earlier versions wrote where PyYAML had no libyaml."""
    if not d:
        return b"{}\n"
    out: list[str] = []
    _mapping(d, 0, legacy, out)
    return "".join(out).encode("utf-8")


# -- reading ---------------------------------------------------------------------


class Refused(ValueError):
    """An event file refused before parsing: too large, or YAML features HALO never writes."""


_LINE = re.compile(r"([a-z_][a-z0-9_]*):(?: (.*))?\Z")
_DQ_ESCAPE = re.compile(r'\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)', re.S)
_DQ_SHORT = {v: k for k, v in _ESCAPES.items()}


def _unescape(m: re.Match) -> str:
    code = m.group(1)
    if len(code) == 1:
        return _DQ_SHORT[code]  # KeyError: not an escape the format writes (the caller falls back)
    return chr(int(code[1:], 16))


def _value(text: str) -> str | None:
    """A one-line scalar's string, None when the line parser cannot tell."""
    if not text:
        return None
    first = text[0]
    if first == "'":
        if len(text) < 2 or text[-1] != "'":
            return None
        return text[1:-1].replace("''", "'")
    if first == '"':
        if len(text) < 2 or text[-1] != '"':
            return None
        try:
            return _DQ_ESCAPE.sub(_unescape, text[1:-1])
        except (KeyError, ValueError):
            return None
    return text


_LEGACY_DIFFERS = re.compile("[\x85\U00010000-\U0010ffff]")  # where the two forms can differ


_ITEM, _VALUE, _OPEN, _EMPTY = range(4)
_line_memo: dict[str, tuple] = {}  # short lines repeat across files: "kind: act", "- e3", "agent: demo"


def _read_line(line: str) -> tuple | None:
    """(shape, key, value, canonical?, legacy?) of one line, None when the line
    parser cannot read it; the value is proven by emitting it again."""
    if line.startswith("- "):
        shape, key, raw = _ITEM, None, line[2:]
    else:
        m = _LINE.match(line)
        if m is None:
            return None  # a multi-line scalar, a nested mapping, anything unusual: the full parser decides
        key, raw = m.groups()
        if raw is None:
            return _OPEN, key, None, True, True
        if raw == "[]":
            return _EMPTY, key, None, True, True
        shape = _VALUE
    v = _value(raw)
    if v is None:
        return None
    ok = scalar(v) == raw
    legacy = ok if _LEGACY_DIFFERS.search(v) is None else scalar(v, legacy=True) == raw
    if not (ok or legacy):
        return None
    return shape, key, v, ok, legacy


def parse_canonical(data: bytes) -> dict[str, Any] | None:
    """The mapping of a file in canonical (or legacy) form, None for any other file.

    Each line's value is parsed, then proven: it must be exactly what the
    emitter writes for the parsed value (all lines in one form), so the file is
    what ``dump`` writes for the mapping and any YAML parser reads it as this mapping.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.endswith("\n") or "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return None  # (raw breaks other than newline only occur in multi-line scalars: the full parser reads those)
    d: dict[str, Any] = {}
    items: list[str] | None = None
    canonical = legacy = True
    memo = _line_memo
    for line in text[:-1].split("\n"):
        read = memo.get(line)
        if read is None:
            read = _read_line(line)
            if read is None:
                return None
            if len(line) <= 100 and len(memo) < 50_000:
                memo[line] = read
        shape, key, v, ok, old = read
        if shape == _ITEM:
            if items is None:
                return None
            items.append(v)
        else:
            if items is not None and not items:
                return None  # "key:" with no items: the emitter writes "key: []"
            if key in d:
                return None
            if shape == _VALUE:
                d[key] = v
                items = None
            elif shape == _OPEN:
                items = d[key] = []
            else:
                d[key] = []
                items = None
        if not ok:
            canonical = False
        if not old:
            legacy = False
        if not (canonical or legacy):
            return None
    if items is not None and not items:
        return None
    return d


def check_plain_yaml(data: bytes | str) -> None:
    """Refuse (``Refused``) what no event file needs, before any value is built:
    more than ``MAX_FILE`` bytes, anchors, aliases, explicit tags, nesting
    deeper than ``MAX_DEPTH``."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_FILE:
        raise Refused(f"it is {size} bytes; an event file is at most {MAX_FILE}")
    depth = 0
    for event in yaml.parse(data, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise Refused("it uses YAML anchors or aliases, which event files never hold")
        if getattr(event, "tag", None) is not None:
            raise Refused("it carries an explicit YAML tag, which event files never hold")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise Refused(f"it nests deeper than {MAX_DEPTH} levels, which event files never do")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def load(data: bytes | str) -> Any:
    """The value of an event file (or any small YAML HALO reads from agents'
    repositories), refusing alias bombs, huge files and tags before building it.

    Raises:
        Refused: the checks of ``check_plain_yaml``.
        yaml.YAMLError: not YAML.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > MAX_FILE:
        raise Refused(f"it is {len(raw)} bytes; an event file is at most {MAX_FILE}")
    d = parse_canonical(raw)
    if d is not None:
        return d
    check_plain_yaml(raw)
    return yaml.load(raw, Loader=_Loader)


__all__ = ["MAX_FILE", "MAX_DEPTH", "Refused", "dump", "load", "parse_canonical", "scalar", "reads_as_string", "check_plain_yaml"]
