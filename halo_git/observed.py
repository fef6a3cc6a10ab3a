"""Observed evidence: what an agent was seen doing, set beside what it logged.

A room of the core, beside ``diagnosis``: ``diagnose(..., observed=...)`` calls
``align`` and turns its findings into ``Finding`` records; ``report`` prints
``markdown_lines`` in its Boundary and evidence section; the ``report``,
``check`` and ``site`` commands call ``load`` for ``--observed FILE``. Nothing
here imports the diagnosis, so it can be re-wired without touching this file.

Three stages, the first the only one that does I/O:

1. ``load(path)`` reads a file or a folder (every ``*.json``/``*.jsonl`` below
   it, in path order; files that are neither format are skipped and named) and
   hands each document to ``parse_document``.
2. ``parse_document`` (pure) turns an ATIF trajectory (Harbor; any
   ``ATIF-v1.x``) or OTLP/JSON spans (one ``ExportTraceServiceRequest`` per
   document or per line, as a collector's file exporter writes them) into
   ``ObservedCall`` records: tool name, time, session, a short argument
   summary. ATIF: every ``tool_calls`` entry of a root step, at the step's
   ``timestamp``, session ``session_id``. OTLP: every span with
   ``gen_ai.operation.name`` = ``execute_tool`` (or a ``gen_ai.tool.name``), at
   its start time, session ``gen_ai.conversation.id`` (span, else resource;
   ``session.id`` also counts). Calls to HALO's own tools (the logging itself)
   are counted apart; HALO's own exports are refused, being self-report.
3. ``align`` (pure) pairs observed calls with logged steps, per session.

Alignment rule (documented on the docs' Interop page):

* An observed session is the logged session with the same label. Calls that
  carry no session are aligned against the whole scope by time alone.
* A call is *reported* when it is paired with a logged ``observe`` or ``act``
  (form other than silence) of that session within ``window`` seconds of it,
  either side (default ``DEFAULT_WINDOW``: clocks and logging lag differ).
  Each logged step reports at most one call, and pairs keep time order on
  both sides (no crossing pairs), so a clock offset inside the window shifts
  nothing. Among such pairings the one with the most pairs wins; ties go to
  the better kinds (an ``act`` with form=execution for a side-effecting or
  unknown call, an ``observe`` for a read-only one), then to the smallest
  total time gap.
* Whether a call looks side-effecting is read from its tool name
  (``effect_of``): a verb that changes things (write, delete, send, run, …)
  makes it side-effecting, else a reading verb (read, list, search, …) makes
  it read-only, else it is unknown.

Findings: ``HALO-O1`` an observed call no logged step reports (high when
side-effecting, medium when unknown, low when read-only), naming the tool, its
time and the nearest logged step; one ``HALO-O1`` per observed session that
matches no logged session; ``HALO-O2`` a logged act with form=execution in an
observed session that no observed call matches.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .errors import InvalidCall
from .markdown import escape_md, shorten
from .model import Event
from .screening import Screen, builtin_patterns

DEFAULT_WINDOW = 120.0  # seconds either side of a logged step
ARGS_CHARS = 120
SEVERITY_OF_EFFECT = {"side-effecting": "high", "unknown": "medium", "read-only": "low"}

# (id, name, usual severity, trigger, remedy): the diagnosis registers these in its RULES.
RULE_SPECS = (
    (
        "HALO-O1", "unreported-action", "high / medium / low",
        "an observed tool call (ATIF or OpenTelemetry, --observed) that no logged observe or act reports within the "
        "alignment window; high when the tool looks side-effecting, medium when unknown, low when read-only; also one "
        "finding per observed session that matches no logged session",
        "Log every tool call the agent makes (halo_observe for what it read, halo_act with form=execution for what it "
        "changed), or find out why this call ran unlogged.",
    ),
    (
        "HALO-O2", "act-without-observed-call", "medium",
        "a logged act with form=execution, in a session with observed evidence, that no observed tool call matches "
        "within the alignment window",
        "Check whether the execution happened: the agent may claim an action it did not take, or the observed "
        "trajectory may be incomplete or its clock off by more than the window.",
    ),
)

_SIDE = set(
    "write edit create delete del remove rm mv move rename update put post patch send exec execute run bash shell sh "
    "terminal command cmd deploy install uninstall commit push merge apply set insert upsert drop kill pay transfer "
    "email mail book submit upload save append replace modify click type fill schedule cancel approve publish "
    "reset restart stop start chmod chown mkdir touch cp copy purge archive".split()
)
_READ = set(
    "read get list ls search find view cat grep glob query lookup show describe fetch inspect stat head tail browse "
    "look check status diff log recall count exists info print peek scan".split()
)
_HALO_TOOL = re.compile(r"(?:^|[_.:/-])halo_(?:observe|outcome|remember|recall|act|revise|trace|report|guide)$")
_SECRET_KEY = re.compile(r"pass|secret|token|key|auth|cookie|credential", re.I)
_SCREEN = Screen(builtin_patterns())


@dataclass(frozen=True)
class ObservedCall:
    """One tool call seen in an observed trajectory."""

    tool: str
    time: str | None  # UTC, ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``; None when the source gives none
    session: str | None  # the trajectory's session id; None when the source gives none
    args: str  # short summary of the arguments ("" for none)
    call_id: str
    source: str  # where it was read: "<file> step 3", "<file> span 3f2a…"
    effect: str  # "side-effecting", "read-only" or "unknown"
    failed: bool = False  # the source records an error for the call (OTLP status ERROR or error.type; ATIF is_error)

    @cached_property
    def epoch(self) -> float | None:
        return _epoch(self.time) if self.time else None


@dataclass(frozen=True)
class Observed:
    """Everything ``load`` read: the calls, and an account of what was read and left aside."""

    calls: tuple[ObservedCall, ...]
    sources: tuple[str, ...]  # "path (ATIF-v1.6, 12 tool calls)"
    skipped: tuple[str, ...] = ()  # "path: why"
    logging_calls: int = 0  # calls to HALO's own tools: the logging itself, not counted
    window: float = DEFAULT_WINDOW


@dataclass(frozen=True)
class ObservedFinding:
    """A finding in plain data; the diagnosis turns it into its ``Finding``."""

    rule: str
    severity: str
    ids: tuple[str, ...]
    message: str


@dataclass
class Alignment:
    """The observed calls of one scope set against the logged steps."""

    @property
    def failed_steps(self) -> dict[str, ObservedCall]:
        """Logged steps paired with a call the source records as failed: the diagnosis reads them as
        failed whatever their summaries say."""
        return {step: call for call, step in self.reported if call.failed}

    observed: Observed
    window: float
    reported: list[tuple[ObservedCall, str]]  # (call, the logged step that reports it)
    unreported: list[tuple[ObservedCall, str | None]]  # (call, nearest logged step of its session)
    unobserved_acts: list[str]  # logged executions in observed sessions no call matched
    observed_sessions: list[str]  # logged sessions in scope with observed calls
    self_report_only: list[str]  # logged sessions in scope with no observed call
    unmatched: dict[str, list[ObservedCall]]  # observed sessions matching no logged session
    untimed: list[ObservedCall]  # calls with no time: not aligned
    out_of_scope: int  # calls of other sessions (a session scope)
    findings: list[ObservedFinding] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Observed calls the coverage counts: aligned ones plus those of unmatched sessions."""
        return len(self.reported) + len(self.unreported) + sum(len(c) for c in self.unmatched.values())


# -- stage 1: reading ----------------------------------------------------------------


def load(path: str | Path, *, window: float = DEFAULT_WINDOW) -> Observed:
    """Read observed evidence from a file or a folder (see the module docstring).

    Raises:
        InvalidCall: the path does not exist, a named file is neither ATIF nor
            OTLP/JSON, a file is HALO's own export, or nothing usable was found.
    """
    if not window > 0:
        raise InvalidCall(f"the alignment window must be a positive number of seconds, got {window}")
    p = Path(path)
    if not p.exists():
        raise InvalidCall(f"--observed {path}: no such file or folder; pass an ATIF trajectory.json, a folder of them, "
                          "or an OTLP/JSON file")
    files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".json", ".jsonl"))
    calls: list[ObservedCall] = []
    sources: list[str] = []
    skipped: list[str] = []
    logging = 0
    for f in files:
        name = str(f.relative_to(p)) if p.is_dir() else f.name
        try:
            text = f.read_text(encoding="utf-8")
            parsed = parse_text(text, name)
        except (InvalidCall, UnicodeDecodeError, OSError) as e:
            if p.is_file():
                raise InvalidCall(f"--observed {path}: {e}") from None
            skipped.append(f"{name}: {e}")
            continue
        found, kind, n_logging = parsed
        calls += found
        logging += n_logging
        sources.append(f"{name} ({kind}, {len(found)} tool call{'s' if len(found) != 1 else ''})")
    if not sources:
        why = f"; skipped: {'; '.join(skipped[:3])}" if skipped else ""
        raise InvalidCall(f"--observed {path}: no ATIF trajectory or OTLP/JSON spans found{why}")
    return Observed(tuple(withhold_sessions(calls)), tuple(sources), tuple(skipped), logging, window)


def parse_text(text: str, source: str) -> tuple[list[ObservedCall], str, int]:
    """One file's text (a JSON document, or JSON lines) → (calls, format, calls to HALO's tools)."""
    try:
        docs = [json.loads(text)]
    except ValueError:
        try:
            docs = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as e:
            raise InvalidCall(f"not JSON or JSON lines ({e})") from None
    calls: list[ObservedCall] = []
    kinds: list[str] = []
    logging = 0
    for doc in docs:
        found, kind, n = parse_document(doc, source)
        calls += found
        logging += n
        if kind not in kinds:
            kinds.append(kind)
    if not kinds:
        raise InvalidCall("the file is empty")
    return calls, ", ".join(kinds), logging


def parse_document(doc: Any, source: str) -> tuple[list[ObservedCall], str, int]:
    """One JSON document → (calls, format, calls to HALO's tools). Pure."""
    if isinstance(doc, dict) and isinstance(doc.get("schema_version"), str) and doc["schema_version"].startswith("ATIF-"):
        return _parse_atif(doc, source)
    if isinstance(doc, dict) and ("resourceSpans" in doc or "resource_spans" in doc):
        return _parse_otlp(doc, source)
    raise InvalidCall("neither an ATIF trajectory (schema_version ATIF-v1.x) nor OTLP/JSON spans (resourceSpans)")


def _parse_atif(doc: dict, source: str) -> tuple[list[ObservedCall], str, int]:
    extra = doc.get("extra")
    if isinstance(extra, dict) and "halo" in extra:
        raise InvalidCall("this is HALO's own ATIF export (the agent's self-report), not observed evidence; pass the "
                          "trajectory the agent's runtime recorded")
    steps = doc.get("steps")
    if not isinstance(steps, list):
        raise InvalidCall("an ATIF trajectory without a steps list")
    session = doc.get("session_id") if isinstance(doc.get("session_id"), str) else None
    calls: list[ObservedCall] = []
    logging = 0
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        time = _norm_time(step.get("timestamp"))
        errored = _atif_errors(step)
        for tc in step.get("tool_calls") or ():
            if not isinstance(tc, dict) or not isinstance(tc.get("function_name"), str):
                continue
            tool = tc["function_name"]
            if _HALO_TOOL.search(tool):
                logging += 1
                continue
            calls.append(ObservedCall(_shown_tool(tool), time, session, summarize_args(tc.get("arguments")),
                                      str(tc.get("tool_call_id", "")), f"{source} step {step.get('step_id', i + 1)}",
                                      effect_of(tool), str(tc.get("tool_call_id", "")) in errored))
    return calls, str(doc["schema_version"]), logging


def _parse_otlp(doc: dict, source: str) -> tuple[list[ObservedCall], str, int]:
    calls: list[ObservedCall] = []
    logging = 0
    for rs in _get(doc, "resourceSpans", "resource_spans") or ():
        res = _attr_map((rs.get("resource") or {}).get("attributes"))
        for ss in _get(rs, "scopeSpans", "scope_spans") or ():
            for span in ss.get("spans") or ():
                a = _attr_map(span.get("attributes"))
                if "halo.id" in a:
                    raise InvalidCall("these are HALO's own OTLP spans (the agent's self-report), not observed evidence; "
                                      "pass the spans the agent's runtime recorded")
                name = str(span.get("name", ""))
                tool = a.get("gen_ai.tool.name")
                if tool is None and a.get("gen_ai.operation.name") != "execute_tool" and not name.startswith("execute_tool "):
                    continue
                tool = str(tool or name.removeprefix("execute_tool ").strip() or "unknown tool")
                if _HALO_TOOL.search(tool):
                    logging += 1
                    continue
                session = next((str(d[k]) for d in (a, res) for k in ("gen_ai.conversation.id", "session.id") if k in d), None)
                start = _get(span, "startTimeUnixNano", "start_time_unix_nano")
                time = _nano_time(start)
                args = a.get("gen_ai.tool.call.arguments")
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except ValueError:
                        pass
                sid = str(span.get("spanId", span.get("span_id", "")))
                status = span.get("status") if isinstance(span.get("status"), dict) else {}
                failed = status.get("code") in (2, "2", "STATUS_CODE_ERROR", "ERROR") or "error.type" in a
                calls.append(ObservedCall(_shown_tool(tool), time, session, summarize_args(args),
                                          str(a.get("gen_ai.tool.call.id", sid)), f"{source} span {sid[:16]}",
                                          effect_of(tool), failed))
    return calls, "OTLP/JSON", logging


def _atif_errors(step: dict) -> set[str]:
    """Ids of the tool calls whose observation result a step marks as an error (``is_error`` or
    ``error`` true on a result naming the call in ``source_call_id``)."""
    obs = step.get("observation")
    results = obs.get("results") if isinstance(obs, dict) else None
    out: set[str] = set()
    for r in results if isinstance(results, list) else ():
        if isinstance(r, dict) and (r.get("is_error") is True or r.get("error") is True):
            out.add(str(r.get("source_call_id", "")))
    return out


def _get(d: dict, camel: str, snake: str) -> Any:
    return d.get(camel, d.get(snake))


def _attr_map(kvs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in kvs or ():
        if isinstance(kv, dict) and "key" in kv:
            out[str(kv["key"])] = _attr_value(kv.get("value") or {})
    return out


def _attr_value(v: dict) -> Any:
    for k in ("stringValue", "string_value", "boolValue", "bool_value", "doubleValue", "double_value"):
        if k in v:
            return v[k]
    for k in ("intValue", "int_value"):
        if k in v:
            return int(v[k])
    arr = v.get("arrayValue", v.get("array_value"))
    if isinstance(arr, dict):
        return [_attr_value(x) for x in arr.get("values") or ()]
    return None


def _norm_time(value: Any) -> str | None:
    """ISO 8601 → UTC ``…Z``; a time without a zone is read as UTC; unreadable → None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return None
    t = t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if t.microsecond else "%Y-%m-%dT%H:%M:%SZ")


def _nano_time(value: Any) -> str | None:
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    if n <= 0:
        return None
    t = datetime.fromtimestamp(n // 1_000_000_000, timezone.utc).replace(microsecond=(n % 1_000_000_000) // 1000)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if t.microsecond else "%Y-%m-%dT%H:%M:%SZ")


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def summarize_args(args: Any) -> str:
    """``key=value, …`` cut to ``ARGS_CHARS``; values under secret-looking keys, and keys and
    values the secrets screen flags, are withheld (the report is published)."""
    if args is None or args == {} or args == "":
        return ""
    if not isinstance(args, dict):
        args = {"": args}
    parts = []
    for k, v in args.items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
        if _SECRET_KEY.search(str(k)) or _SCREEN(text):
            text = "[withheld]"
        if _SCREEN(str(k)):
            k = "[withheld key]"
        parts.append(f"{k}={shorten(text, 40)}" if k else shorten(text, 40))
    return shorten(", ".join(parts), ARGS_CHARS)


def _shown_tool(tool: str) -> str:
    """The tool name as published: withheld when the secrets screen flags it."""
    return "[withheld tool name]" if _SCREEN(tool) else tool


def withhold_sessions(calls: Iterable[ObservedCall]) -> list[ObservedCall]:
    """``calls`` with every session id the secrets screen flags replaced by
    ``[withheld session N]``, N numbering distinct ids in order of first mention,
    so calls of one session stay together and none of the id is published."""
    from dataclasses import replace

    shown: dict[str, str] = {}  # session id -> what is published
    withheld = 0
    out = []
    for c in calls:
        if c.session is not None:
            if c.session not in shown:
                if _SCREEN(c.session):
                    withheld += 1
                    shown[c.session] = f"[withheld session {withheld}]"
                else:
                    shown[c.session] = c.session
            if shown[c.session] != c.session:
                c = replace(c, session=shown[c.session])
        out.append(c)
    return out


def effect_of(tool: str) -> str:
    """``side-effecting``, ``read-only`` or ``unknown``, from the words of a tool name."""
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", tool)}
    if words & _SIDE:
        return "side-effecting"
    if words & _READ:
        return "read-only"
    return "unknown"


# -- stage 3: alignment ------------------------------------------------------------------


def align(observed: Observed, events: Sequence[Event], *, session: str = "") -> Alignment:
    """Set the observed calls against ``events`` (the logged events in scope, commit order).

    ``session`` is the scope ("" for the whole trace): with a session, observed
    calls of other sessions are only counted as out of scope. Pure.
    """
    window = observed.window
    logged_sessions = list(dict.fromkeys(e.session for e in events))
    timed = [c for c in observed.calls if c.time is not None]
    untimed = [c for c in observed.calls if c.time is None]
    in_scope: list[ObservedCall] = []
    unmatched: dict[str, list[ObservedCall]] = {}
    out_of_scope = 0
    for c in timed:
        if c.session is None or c.session in logged_sessions:
            in_scope.append(c)
        elif session:
            out_of_scope += 1
        else:
            unmatched.setdefault(c.session, []).append(c)
    when = {e.id: _epoch(e.time) for e in events}
    candidates = [e for e in events if e.kind == "observe" or (e.kind == "act" and e.fields.get("form") != "silence")]
    candidates.sort(key=lambda e: (when[e.id], e.number))
    ordered = sorted(in_scope, key=lambda c: c.epoch)  # stable: calls at the same time keep the order they were read in
    by_session: dict[str | None, list[int]] = {}
    for i, c in enumerate(ordered):
        by_session.setdefault(c.session, []).append(i)
    steps_of: dict[str, list[Event]] = {}
    for e in candidates:
        steps_of.setdefault(e.session, []).append(e)
    match: dict[int, str] = {}  # index in ordered -> event id
    for key in logged_sessions:  # calls of a session against its steps, then calls with no session against the rest
        if key in by_session:
            match.update(_pair(ordered, by_session[key], steps_of.get(key, []), when, window))
    if None in by_session:
        taken = set(match.values())
        match.update(_pair(ordered, by_session[None], [e for e in candidates if e.id not in taken], when, window))
    events_of: dict[str, list[Event]] = {}
    for e in events:
        events_of.setdefault(e.session, []).append(e)
    timeline = {key: ([when[e.id] for e in evs], evs) for key, evs in
                [(None, sorted(events, key=lambda e: (when[e.id], e.number)))]
                + [(k, sorted(v, key=lambda e: (when[e.id], e.number))) for k, v in events_of.items()]}
    reported = [(c, match[i]) for i, c in enumerate(ordered) if i in match]
    unreported = [(c, _nearest(c, timeline[c.session])) for i, c in enumerate(ordered) if i not in match]

    observed_sessions = [s for s in logged_sessions if s in by_session]
    sessionless = [ordered[i].epoch for i in by_session.get(None, ())]
    if sessionless:  # calls with no session cover the logged sessions their time range reaches
        lo, hi = min(sessionless) - window, max(sessionless) + window
        for s in logged_sessions:
            times = timeline[s][0]
            if s not in observed_sessions and times[0] <= hi and times[-1] >= lo:
                observed_sessions.append(s)
        order = {s: i for i, s in enumerate(logged_sessions)}
        observed_sessions.sort(key=order.__getitem__)
    matched_ids = set(match.values())
    unobserved_acts = [e.id for e in events if e.kind == "act" and e.fields.get("form") == "execution"
                       and e.session in observed_sessions and e.id not in matched_ids]
    al = Alignment(
        observed=observed, window=window, reported=reported, unreported=unreported, unobserved_acts=unobserved_acts,
        observed_sessions=observed_sessions, self_report_only=[s for s in logged_sessions if s not in observed_sessions],
        unmatched=unmatched, untimed=untimed, out_of_scope=out_of_scope,
    )
    al.findings = _findings(al, {e.id: e for e in events})
    return al


def _rank(e: Event, c: ObservedCall) -> int:
    """0 for the kind of logged step that best reports the call, 1 or 2 for weaker ones."""
    if c.effect == "read-only":
        return 0 if e.kind == "observe" else 1 if e.fields.get("form") != "execution" else 2
    return 0 if e.fields.get("form") == "execution" else 1 if e.kind == "act" else 2


def _pair(calls: Sequence[ObservedCall], idx: list[int], steps: list[Event], when: dict[str, float],
          window: float) -> dict[int, str]:
    """The best non-crossing pairing of ``calls[i]`` (i in ``idx``, time order) with ``steps``
    (time order) within ``window``: most pairs, then best kinds, then smallest total gap.

    A longest chain over the allowed pairs, increasing on both sides: pairs come
    by call, and a Fenwick tree over step positions gives the best chain ending
    before each step, so the cost is O(pairs · log steps).
    """
    times = [when[e.id] for e in steps]
    m = len(steps)
    tree: list[tuple | None] = [None] * (m + 1)  # (score, node) prefix maxima
    nodes: list[tuple[int, int, int | None]] = []  # (call index, step position, previous node)
    best: tuple | None = None
    for i in idx:
        t = calls[i].epoch
        found = []
        for j in range(bisect_left(times, t - window), bisect_right(times, t + window)):
            prev, k = None, j  # the best chain over steps before position j
            while k > 0:
                if tree[k] is not None and (prev is None or tree[k][0] > prev[0]):
                    prev = tree[k]
                k -= k & -k
            base = prev[0] if prev else (0, 0, 0.0)
            score = (base[0] + 1, base[1] - _rank(steps[j], calls[i]), base[2] - abs(times[j] - t))
            nodes.append((i, j, prev[1] if prev else None))
            found.append((j, (score, len(nodes) - 1)))
        for j, val in found:  # after the whole call: one call never pairs twice
            if best is None or val[0] > best[0]:
                best = val
            k = j + 1
            while k <= m:
                if tree[k] is None or val[0] > tree[k][0]:
                    tree[k] = val
                k += k & -k
    out: dict[int, str] = {}
    node = best[1] if best else None
    while node is not None:
        i, j, node = nodes[node]
        out[i] = steps[j].id
    return out


def _nearest(c: ObservedCall, line: tuple[list[float], list[Event]]) -> str | None:
    """The logged event closest in time to the call (``line``: times and events, in time order)."""
    times, evs = line
    k = bisect_left(times, c.epoch)
    near = [j for j in (k - 1, k) if 0 <= j < len(evs)]
    if not near:
        return None
    best = min(near, key=lambda j: (abs(times[j] - c.epoch), evs[j].number))
    return evs[bisect_left(times, times[best])].id  # the earliest of the events logged at that time


def _ago(seconds: float) -> str:
    """How far a logged step (``seconds`` after the call; negative: before) is from the call."""
    s = round(abs(seconds))
    amount = f"{s} s" if s < 120 else f"{s // 60} min" if s < 7200 else f"{s // 3600} h"
    return f"{amount} {'before' if seconds < 0 else 'after'} the call"


def _call_text(c: ObservedCall) -> str:
    args = f"; {c.args}" if c.args else ""
    sess = f"session {c.session}" if c.session is not None else "no session id"
    return f"{c.tool} at {c.time} ({sess}{args})"


def _findings(al: Alignment, by_id: dict[str, Event]) -> list[ObservedFinding]:
    w = f"±{al.window:g} s"
    out: list[ObservedFinding] = []
    for c, near in al.unreported:
        tail = ""
        if near is not None:
            tail = f" Nearest logged step: {near}, {_ago(_epoch(by_id[near].time) - c.epoch)}."
        out.append(ObservedFinding(
            "HALO-O1", SEVERITY_OF_EFFECT[c.effect], (near,) if near else (),
            f"Observed call {_call_text(c)} has no logged observe or act within {w}; the tool looks {c.effect}.{tail}",
        ))
    for s, calls in al.unmatched.items():
        worst = min((SEVERITY_OF_EFFECT[c.effect] for c in calls), key=("high", "medium", "low").index)
        first = min(calls, key=lambda c: c.epoch)
        n = len(calls)
        out.append(ObservedFinding(
            "HALO-O1", worst, (),
            f"Observed session “{s}” ({n} tool call{'s' if n != 1 else ''}, the first {first.tool} at {first.time}) matches "
            f"no logged session, so none of its calls was reported; if the agent logged them under another label, "
            f"log with session=“{s}” so they line up.",
        ))
    for i in al.unobserved_acts:
        e = by_id[i]
        n = sum(1 for c, _ in al.reported + al.unreported if c.session in (None, e.session))
        out.append(ObservedFinding(
            "HALO-O2", "medium", (i,),
            f"Logged execution {i} (session {e.session}, {e.time}) has no observed tool call within {w} "
            f"({n} observed call{'s' if n != 1 else ''} in its session).",
        ))
    return out


# -- the report's lines ------------------------------------------------------------------------


def markdown_lines(al: Alignment, cite: Callable[[str], str], max_items: int = 50) -> list[str]:
    """Bullet lines for the report's Boundary and evidence section; ``cite`` formats an event id."""
    obs = al.observed

    def listing(items: Iterable[str]) -> str:
        items = list(items)
        text = ", ".join(items[:max_items]) or "none"
        return text + (f" and {len(items) - max_items} more" if len(items) > max_items else "")

    total = al.total
    pct = f" ({round(100 * len(al.reported) / total)}%)" if total else ""
    lines = [
        f"- Observed evidence: {listing(escape_md(s) for s in obs.sources)}; "
        f"alignment window ±{al.window:g} s (see the Interop page of the docs)",
        f"- Coverage: {len(al.reported)}/{total} observed tool calls reported by a logged observe or act{pct}",
        f"- Observed and self-reported sessions: {listing(escape_md(s) for s in al.observed_sessions)}; "
        f"self-report only (no observed call): {listing(escape_md(s) for s in al.self_report_only)}",
    ]
    if al.unmatched:
        lines.append("- Observed sessions matching no logged session: " + listing(
            f"{escape_md(s)} ({len(c)} call{'s' if len(c) != 1 else ''})" for s, c in al.unmatched.items()))
    else:
        lines.append("- Observed sessions matching no logged session: none")
    if al.unobserved_acts:
        lines.append(f"- Logged executions no observed call matches: {listing(cite(i) for i in al.unobserved_acts)}")
    aside = []
    if al.untimed:
        aside.append(f"{len(al.untimed)} without a timestamp")
    if al.out_of_scope:
        aside.append(f"{al.out_of_scope} of other sessions (out of scope)")
    if obs.logging_calls:
        aside.append(f"{obs.logging_calls} to HALO's own tools (the logging itself)")
    if obs.skipped:
        aside.append(f"{len(obs.skipped)} file{'s' if len(obs.skipped) != 1 else ''} skipped "
                     f"({listing(escape_md(s) for s in obs.skipped)})")
    if aside:
        lines.append("- Observed calls not aligned: " + "; ".join(aside))
    return lines
