"""The branch as a graph over uses/about, read for what each event says.

``_Graph`` walks the events once, in commit order, and keeps what lies upstream of
every event (kinds, governed or ungoverned revisions, the newest unreviewed and
reviewed memories of up to two sessions), which acts failed and which memories
are failed, unreviewed or reviewed material (see docs/report.md, "How the report
reads what events say"). Every edge points to an earlier event, so one pass
suffices and the cost stays linear in the number of events. Pure: events in,
plain dicts and sets out.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Callable, Iterable, Iterator, Sequence

from ..model import KINDS, Event
from . import reading

MAX_PATH_EVENTS = 8  # events shown on one authority chain, the act or revision included
_SEARCH_BUDGET = 256  # events a backward search may visit for one chain


_KIND_BIT = {k: 1 << i for i, k in enumerate(KINDS)}
_UNGOVERNED_BIT = 1 << len(KINDS)
_GOVERNED_BIT = 1 << (len(KINDS) + 1)  # a revision the user made or approved
_MEMORY_BITS = _KIND_BIT["remember"] | _KIND_BIT["recall"]
_ALL_KINDS = (1 << len(KINDS)) - 1
_FAR = 1 << 30


def is_user_rule(e: Event) -> bool:
    """A revision the user made or approved: what grounds acts and bounds later changes."""
    return e.kind == "revise" and (e.fields["made_by"] == "user" or e.fields["governance"] == "approved")


def reviewed_memory(kept: Iterable[Event], unchecked: Sequence[str]) -> bool:
    """Whether a memory keeping ``kept`` is reviewed material (HALO-A4, HALO-S2): it keeps
    something the agent took in (an observation, an outcome) or a user rule, and
    ``unchecked`` -- the acts it keeps that nothing had checked when it was kept -- is empty."""
    return not unchecked and any(e.kind in ("observe", "outcome") or is_user_rule(e) for e in kept)


def _decided(e: Event, sources: dict[str, tuple[str, ...]], by_id: dict[str, Event], *, follow: bool = True) -> bool:
    """Whether a revision that claims the user's authority (made_by=user or governance=approved) has a
    decision of a person upstream: an observation or outcome within two steps that says someone approved,
    allowed, set or instructed (``reading.says_decision``). A user's revision naming nothing is the
    user's own logged setting and counts as decided; so does one whatever it names, unless the trace speaks
    against it (``_contradicted``): reviewers take the user's log for the user's word."""
    if not sources[e.id]:
        return e.fields["made_by"] == "user"
    if (reading.says_restoration(e.summary) and not reading.says_loosening(e.summary)) or reading.says_narrowing(e.summary):
        return True  # putting the earlier limit back ("back to migrator_ro only"), or narrowing what the agent may do
        # ("held as pending until Omar confirms", "Library overflow withdrawn"), needs nobody's leave
    if reading.says_put_back(e.summary) and any(
            by_id[s].kind == "revise" and by_id[s].fields["target"] == e.fields["target"]
            and (reading.says_scoped(by_id[s].summary) or reading.says_planned_end(by_id[s].summary)
                 or reading.says_expiring(by_id[s].summary)) for s in sources[e.id]):
        return True  # the end of a temporary change it names, back to the standing rule ("fog limit lifted,
        # national limit restored" after "temporary 50 mph until visibility over 200 m")
    if e.fields["made_by"] == "user" and reading.quotes_speaker(e.summary) and reading.says_decision(e.summary):
        return True  # the user's own words, quoted ("Maren: treat them as non-refundable and ask me first")
    actor = reading.change_made_by(e.summary) if e.fields["made_by"] == "user" else ""
    if actor and any(by_id[s].kind in ("observe", "outcome") and actor in reading.written_by(by_id[s].summary)
                     for s in sources[e.id]):
        return True  # the user's change, logged as made by the person whose own text it rests on ("The platform lead
        # gave me the rules: ..." -> "The platform lead enabled my migrate step"; "Shift brief from planner lead
        # R. Okafor: ..." -> "single-deck only until 21/02, per Okafor's brief")
    seen: set[str] = set()
    frontier = list(sources[e.id])
    subject = reading.subject_words(f"{e.fields['target']} {e.summary}")
    # a change that loosens needs the decision among its own uses, and one that grants it (an approval or a
    # permission, not a request for one): an earlier rule's decision does not authorise going further than it
    loosens = reading.says_loosening(e.summary)
    for _ in range(1 if loosens else 2):
        nxt = []
        for s in frontier:
            if s in seen:
                continue
            seen.add(s)
            x = by_id[s]
            answer = x.kind == "outcome" and _answer_of_asked(x, by_id)

            def decides(said: str) -> bool:
                return (answer or reading.says_decision(said)) and not (x.kind == "observe" and (
                    reading.says_third_party(said) or reading.quotes_claimed_authority(said))) \
                    and not reading.relays_approval(said) and (not loosens or answer or reading.grants_change(said)) and (
                    s in sources[e.id] or x.kind == "outcome" or subject & reading.subject_words(said))
                # (an observation further up must speak of the change: a request for something else that the
                # change's evidence answered is no decision about the change)
            if x.kind in ("observe", "outcome") and (answer or not _system_result(x, by_id)) and (
                    decides(x.summary) or any(decides(part) for part in reading.sentences(x.summary))):
                return True  # (a sentence of its own decides though another relays a request: "Mei in #finops:
                # please leave them until 03-21. Grace replied in the thread: approved")
            if follow and x.kind == "revise" and x.fields["made_by"] == "user" \
                    and not reading.says_loosening(e.summary) and _decided(x, sources, by_id, follow=False):
                return True  # the user's own decided rule, whose terms the change applies
            nxt.extend(sources[s])
        frontier = nxt
    return e.fields["made_by"] == "user" and not _contradicted(e, sources, by_id)


def _contradicted(e: Event, sources: dict[str, tuple[str, ...]], by_id: dict[str, Event]) -> bool:
    """Whether the trace speaks against a change logged as the user's that no decision upstream backs: the
    user's own log is the user's word, unless the change loosens (that needs the decision among its uses), says
    a person agreed to it whom nothing within two steps names ("Ingrid agreed on the 09:00 call" over a
    charterer's note), rests on a proposal ("one engineer suggested ...; two thumbs-up"), or rests only on text
    that relays or claims someone's approval. (Who made a change, "as issued by the Compliance Manager", is the
    user's word too.)"""
    if reading.says_loosening(e.summary):
        return True
    basis = [by_id[s] for s in sources[e.id] if by_id[s].kind in ("observe", "outcome")]
    near = basis + [by_id[t] for s in sources[e.id] for t in sources[s] if by_id[t].kind in ("observe", "outcome")]
    if not near:
        return True  # (it rests only on the agent's own acts or notes: "Proposed to the airside manager ...")
    who = reading.named_approver(e.summary)
    if who and not any(who & reading.person_names(x.summary) for x in near):
        return True
    return any(reading.says_proposal(x.summary) for x in basis) or bool(basis) and all(
        reading.quotes_claimed_authority(x.summary) or reading.relays_approval(x.summary) or (
            reading.says_third_party(x.summary) and reading.reports_grant(x.summary)) for x in basis)


def _system_result(x: Event, by_id: dict[str, Event]) -> bool:
    """A result of an execution or preparation that names no person: what a system answered ("Portal
    accepted HLX-2207"), which decides nothing for anyone."""
    if x.kind != "outcome" or reading.says_speech(x.summary):
        return False
    about = by_id.get(x.fields["about"])
    return about is not None and about.kind == "act" and about.fields["form"] in ("execution", "preparation")


_NAME_RE = re.compile(r"\b[A-Z][a-z]{2,}\b")  # a capitalised word: a name, in a log's terse style
_ASKED_RE = re.compile(r"\b(?:ask(?:ed|s)?|propos(?:al|ed|es)|request(?:ed|s)?|sought|put (?:it )?to)\b", re.I)


def _answer_of_asked(x: Event, by_id: dict[str, Event]) -> bool:
    """An outcome about an act that put something to a person by name ("Proposal to O. Adebayo: TR-5 to
    5.8 A", "Asked S. Mehta for a day boost"), naming that person again and reporting no refusal: that
    person's answer ("Adebayo approved ...", "Mehta by email: 48 -> 52 m for the test window only")."""
    about = by_id.get(x.fields.get("about", ""))
    if about is None or about.kind != "act" or reading.is_adverse(x.summary):
        return False
    # the names the act put it to (a capital that opens the summary is no name), named again in the answer
    asked = {m.group() for m in _NAME_RE.finditer(about.summary) if m.start()}
    return bool(asked & set(_NAME_RE.findall(x.summary))) and bool(_ASKED_RE.search(about.summary))


def _redoes(act: Event, failure: Event, by_id: dict[str, Event]) -> bool:
    """Whether ``act`` rests on ``failure`` and is about the same thing as the failed act ("re-sent the 2
    failed offers by SMS" after the app offers failed), not a next step that merely follows it."""
    if failure.id not in act.uses and not any(
            x is not None and x.kind == "observe" and failure.id in x.uses for x in map(by_id.get, act.uses)):
        return False  # (it names the failure, or the observation that found its cause: "Found it: late leaver
        # keyed after the file was built" -> "generated a new BACS file from the locked payroll")
    failed = by_id.get(failure.fields["about"])
    about = reading.subject_words(failure.summary) | (reading.subject_words(failed.summary) if failed else frozenset())
    return bool((reading.subject_words(act.summary) & about) - reading.ADVERSE_SET)


# a condition the memory sets on later use ("insulation-test the C1 sockets before plugging in", "excluded from
# pickups until a negative screen"): drawn from the failure it keeps, it is a precaution, not the failed material
_PRECONDITION_RE = re.compile(r"\b(?:before|until|unless|only (?:after|once|when|if)|next time|from now on|whenever|"
                              r"going forward)\b", re.I)


_DIGIT_RE = re.compile(r"\d")


def _past_held_limits(events: Sequence[Event], adverse: set[str]) -> set[str]:
    """Results that report a named quantity past an upper limit the trace stated for it before ("Outfall sample
    Cu 9.4 ug/L" after "Cu 5 ug/L trigger" was kept): adverse by the agent's own rule, whatever their words. The
    limit and the measure must name the same quantity in the same unit; the latest limit stated counts."""
    limits: dict[tuple[str, str], float] = {}
    out: set[str] = set()
    for e in events:
        if e.kind in ("remember", "observe", "revise") and _DIGIT_RE.search(e.summary):  # (a limit has a figure)
            for name, value, unit in reading.stated_maxima(e.summary):
                limits[(name, unit)] = value
        if limits and e.kind in ("outcome", "observe") and e.id not in adverse and any(
                (name, unit) in limits and value > limits[(name, unit)] for name, value, unit in reading.measures(e.summary)):
            out.add(e.id)
    return out


_AGAIN_RE = re.compile(r"\bagain\b", re.I)
_WELL_AGAIN_RE = re.compile(r"\b(?:working|fine|ok|okay|back|up|running|open|available|normal|online|live|flowing|"
                           r"clear|green|passing|thanks?|confirmed|booked|sent|called|rang|asked|emailed|checked)\s+again\b",
                           re.I)


def _recurred(events: Sequence[Event], adverse: set[str]) -> set[str]:
    """Later results about an act that say its matter came back "again" ("dripping again overnight" after
    "seal replaced, 20 min test no drip"): the repair did not hold, whatever words the symptom takes."""
    seen: set[str] = set()
    out: set[str] = set()
    for e in events:
        if e.kind != "outcome":
            continue
        a = e.fields["about"]
        if a in seen and e.id not in adverse and _AGAIN_RE.search(e.summary) and not _WELL_AGAIN_RE.search(e.summary):
            out.add(e.id)
        seen.add(a)
    return out


def _failed_source(e: Event, srcs: Sequence[str], by_id: dict[str, Event], adverse: set[str],
                   failed_acts: dict[str, str], failed_mem: dict[str, str]) -> str:
    """What makes a memory failed material, or "": it keeps an act that failed without keeping the
    failure, the adverse result of an execution with no result of that execution that worked, or failed material kept
    earlier. A memory worded as a lesson keeps failures on purpose and is not failed material."""
    if reading.says_lesson(e.summary) or _PRECONDITION_RE.search(e.summary):
        return ""
    kept = set(srcs)
    worked = {by_id[s].fields["about"] for s in srcs if by_id[s].kind == "outcome" and s not in adverse}
    if worked and reading.says_fixed(e.summary):
        return ""  # "chain gap fixed by a new full, verified": the failure kept beside the repair that worked
    for s in srcs:
        x = by_id[s]
        if x.kind == "act" and s in failed_acts and failed_acts[s] not in kept:
            return s
        if x.kind == "outcome" and s in adverse and x.fields["about"] not in worked and not any(
                _redoes(by_id[w], x, by_id) for w in worked if w in by_id):  # a result of another act that
            # worked does not make up for this one, unless that act redid what failed (kept beside it)
            about = by_id.get(x.fields["about"])
            if about is not None and about.kind == "act" and about.fields["form"] != "communication" \
                    and not reading.acknowledges(e.summary, x.summary) and not _keeps_the_failure(e, x, about):
                return s
        if x.kind == "remember" and s in failed_mem:
            return s
        if x.kind == "observe" and s in adverse and reading.declares_invalid(x.summary) and not reading.says_fixed(
                x.summary) and not _KEPT_INVALID_RE.search(e.summary) and not reading.acknowledges(e.summary, x.summary):
            return s  # the values of a run the lab declared invalid, kept as plain values ("R-1008 Ct values")
        if x.kind == "observe" and x.id in adverse and any(by_id[y].kind == "outcome" and y in adverse and by_id[by_id[y].fields["about"]].kind
                                       == "act" and by_id[by_id[y].fields["about"]].fields["form"] != "communication"
                                       for y in x.uses if y in by_id) and not any(
                s in by_id[w].uses for w in worked if w in by_id):
            return s  # read off a result that failed (a partial transcript, a cut-off export), unless what it
            # found was acted on and the act worked, kept beside it: the cause and the repair, not the material
        if x.kind == "recall":
            for r in x.uses:
                if r in failed_mem:
                    return r
    return ""


def _carries_out_decision(act: Event, kept: Sequence[str], sources: dict[str, tuple[str, ...]],
                          by_id: dict[str, Event], adverse: set[str]) -> bool:
    """Whether ``act`` (not a draft) carries out what a person decided, and the memory keeps that decision
    beside it ("Ana: fine, 14 days" and "unpaused S-56710 with grace to 21-Jul"): what the memory holds is
    the decision, not output of the agent's own that someone had to check."""
    return act.fields["form"] != "preparation" and any(
        x in kept and by_id[x].kind in ("observe", "outcome") and x not in adverse
        and reading.says_decision(by_id[x].summary) for x in sources[act.id])


_FIGURES_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def _keeps_the_failure(memory: Event, result: Event, act: Event) -> bool:
    """Whether a memory restates what went wrong rather than what the act produced: two words of the result's
    adverse clauses that its act does not have ("all 3 errors left cm3 unconverted" kept as "skips the cm3 to
    dm3 conversion"; a figure counts as a word: "132 of 140 moves" kept as "132/140 moves"), or one in a memory
    that itself says something is wrong ("561 line down until the vendor visit") and does not keep the act as
    the fix the failure seemed to teach, or a memory that keeps what the act was to bring as still missing
    ("citations not yet pulled"). Words from the other clauses are
    the bad data, copied ("coverage reads 'active' from a cached record" beside a timeout), and a note that
    calls the work done despite the failure ("offer round done") passes it on as if it had worked."""
    bad_parts = [part for part in reading.clauses(result.summary) if reading.is_adverse(part)]
    told = {w for part in bad_parts for w in reading.subject_words(part)} - reading.subject_words(act.summary)
    shared = len(told & reading.subject_words(memory.summary))
    figures = {f for part in bad_parts for f in _FIGURES_RE.findall(part)} - set(_FIGURES_RE.findall(act.summary))
    shared += len(figures & set(_FIGURES_RE.findall(memory.summary)))  # ("132 of 140 moves" kept as "132/140")
    if reading.says_outstanding(memory.summary) and reading.subject_words(memory.summary) & reading.subject_words(
            act.summary) and not reading.says_done(memory.summary):
        return True  # what the act was to bring is kept as still missing ("citations not yet pulled (Scopus
        # quota)" beside "Requested citation counts ..." and its 429)
    return (shared >= 2 or shared == 1 and reading.is_adverse(memory.summary) and act.id not in memory.uses) \
        and not reading.says_done(memory.summary)


_KEPT_INVALID_RE = re.compile(r"\b(?:invalid\w*|void|not to be used|do not use|don't use|unusable)\b", re.I)
_BACK_TO_RE = re.compile(r"\bback to (?:\d|the |its |standard|normal)", re.I)


def _grounded(x: Event, checked: set[str], failed_acts: dict[str, str], adverse: set[str], reviewed: dict[str, bool],
              sources: dict[str, tuple[str, ...]], by_id: dict[str, Event]) -> bool:
    """Whether kept material ``x`` was taken in or checked: an observation (not relayed text of a third
    party that asserts a rule), a result (an answer of the user's included), a rule the user made, a change made within
    a bound the user set, an act already checked and not failed, a reviewed memory
    or a recall of reviewed ones."""
    k = x.kind
    if k == "observe" and (reading.says_external(x.summary) or reading.says_relayed(x.summary)):
        return False  # what a third party wrote that asserts a rule, or a claim relayed from an unchecked
        # channel, is hearsay until checked with the source
    if k in ("observe", "outcome") or is_user_rule(x):
        return True  # taken in from the world or the user (a failure it reports is _failed_source's business)
    if k == "revise" and (reading.says_restoration(x.summary) or _BACK_TO_RE.search(x.summary)) \
            and not reading.says_loosening(x.summary):
        return True  # putting the user's limit back ("cap back to 8 per session, as Rhian set") adds nothing of its own
    if k == "revise" and x.fields["governance"] == "bounded" and not reading.says_loosening(x.summary) and any(
            is_user_rule(by_id[s]) for s in (*sources[x.id], *(t for s in sources[x.id] for t in sources[s]))):
        return True  # the agent's change within a bound the user set, the user's rule among its uses: governed (a
        # loosening is left to HALO-R5 and R7, which judge whether it stays within the bound)
    if k == "act":  # (a check that reads documents looks at the world: "checked 6 consent forms: OH-0412 ...")
        return (x.id in checked or reading.takes_in(x.summary)) and x.id not in failed_acts
    if k == "remember":
        return reviewed.get(x.id, False)
    if k == "recall":
        got = [r for r in sources[x.id] if by_id[r].kind == "remember"]
        return bool(got) and all(reviewed.get(r, False) for r in got)
    return False


def downstream(used_by: dict[str, list[str]], start: str, depth: int,
               through: Callable[[str], bool] | None = None) -> Iterator[str]:
    """The events that name ``start`` within ``depth`` steps of uses (and what names those), breadth first,
    each once; with ``through``, the walk goes on only from the events it accepts."""
    seen, frontier = {start}, [start]
    for _ in range(depth):
        nxt = []
        for x in frontier:
            for u in used_by.get(x, ()):
                if u not in seen:
                    seen.add(u)
                    yield u
                    if through is None or through(u):
                        nxt.append(u)
        frontier = nxt


def _meant(act: Event, sources: dict[str, tuple[str, ...]], by_id: dict[str, Event]) -> str:
    """What an act set out to do, in words: its summary, and for a retry ("Retried publish after 20s backoff, same
    payload") the summaries of the attempts it retries too (the acts whose results it names in its uses), since
    a retry means what the first attempt meant."""
    if act.kind != "act" or not reading.says_retry(act.summary):
        return act.summary
    tried = [by_id[s] for s in sources.get(act.id, ()) if s in by_id]
    firsts = [by_id[x.fields["about"]] for x in tried if x.kind == "outcome" and x.fields["about"] in by_id]
    return " ; ".join([act.summary, *(x.summary for x in (*firsts, *(x for x in tried if x.kind == "act")))])


def _states_end(e: Event) -> bool:
    """Whether a memory states when what it keeps ends ("deadline 14 Mar 17:00"): the one-off kept as one."""
    at = reading.parse_time(e.time)
    return at is not None and (reading.valid_until(e.summary, at, periods=False) is not None
                               or reading.deadline(e.summary, at) is not None)


def _hedged(e: Event, srcs: Sequence[str], by_id: dict[str, Event]) -> bool:
    """Whether a memory keeps a guess as a fact: it hedges itself and is no rule, or it drops the hedge of an
    observation it keeps ("reckons ~0.3% high" kept as "reads +0.3% high"; "about $1,140/wk" kept as "AWW
    $1,140"). (In rules on file, "likely total loss" and "suspected forgeries" name categories, not the
    agent's guesses.)"""
    return (reading.says_hedged(e.summary) and not reading.says_rule(e.summary)) or any(
        by_id[s].kind == "observe" and reading.says_unsure(by_id[s].summary) for s in srcs) and not (
        reading.says_hedged(e.summary) or reading.says_unsure(e.summary))


def _own_bit(e: Event) -> int:
    """The bit of an event's kind, plus the ungoverned or governed bit of a revision."""
    b = _KIND_BIT[e.kind]
    if e.kind == "revise":
        f = e.fields
        if f["made_by"] == "agent" and f["governance"] == "none":
            b |= _UNGOVERNED_BIT
        elif is_user_rule(e):
            b |= _GOVERNED_BIT
    return b


class _Graph:
    """The branch as a graph over uses/about, with what lies upstream of each event.

    ``up[i]`` is a bit set of the kinds (and governed/ungoverned revisions)
    anywhere upstream of ``i``. ``mem[i]`` is ``(near_u, near_r, far_u)``:
    the newest unreviewed and reviewed memories upstream of ``i`` of up to two
    sessions each (the newest one, and the newest of another session), enough
    to find the newest memory kept in any session other than the event's own,
    and the lowest session ordinal of an unreviewed memory upstream. All are
    filled in commit order, because every edge points to an earlier event; an
    event with one source shares that source's tuples.
    """

    def __init__(self, events: Sequence[Event], sources: dict[str, tuple[str, ...]], by_id: dict[str, Event],
                 pos: dict[str, int], observed_failed: dict | None = None):
        self.by_id, self.sources, self.pos = by_id, sources, pos
        # Session distance counts top-level sessions: a child session ("turn3/child-1") is part of its
        # parent's turn, not a session in between.
        order: dict[str, int] = {}
        tops: dict[str, int] = {}
        for e in events:
            if e.session not in order:
                top = e.session.split("/", 1)[0]
                order[e.session] = tops.setdefault(top, len(tops))
        self.order = order
        own: dict[str, int] = {}
        up: dict[str, int] = {}
        thru: dict[str, int] = {}  # up | own: what an event passes on to the events that name it
        mem: dict[str, tuple[tuple[str, ...], tuple[str, ...], int]] = {}  # (near_u, near_r, far_u)
        reviewed: dict[str, bool] = {}
        checked: set[str] = set()  # acts an outcome is about, or an observation names, so far
        unchecked_kept: dict[str, tuple[str, ...]] = {}  # memory -> the acts it keeps that nothing had checked
        widened_grant: set[str] = set()  # memories unreviewed only for keeping a one-off grant as general
        kbit = _KIND_BIT
        none = ((), (), _FAR)
        push = self._push
        # What the events say (halo_git/diagnosis/reading.py): adverse outcomes and observations, the acts
        # they report as failed (at any time: a reviewer judges kept material in hindsight), and
        # revisions that claim the user's authority with no decision of a person upstream.
        adverse = {e.id for e in events if e.kind in ("outcome", "observe") and reading.is_adverse(e.summary)
                   and not (e.kind == "outcome" and e.fields["about"] in by_id
                            and reading.intended(e.summary, _meant(by_id[e.fields["about"]], sources, by_id)))}
        adverse |= _past_held_limits(events, adverse)
        adverse |= _recurred(events, adverse)
        failed_acts: dict[str, str] = {}  # act -> the first adverse outcome about it or observation naming it
        if observed_failed:  # the runtime recorded the call as failed: its results read as adverse
            adverse.update(e.id for e in events if e.kind == "outcome" and e.fields["about"] in observed_failed)
            for step in observed_failed:
                if step in by_id and by_id[step].kind == "act":
                    failed_acts[step] = step
        for e in events:
            if e.id in adverse:
                if e.kind == "outcome":
                    a = e.fields["about"]
                    if a in by_id and by_id[a].kind == "act":
                        failed_acts.setdefault(a, e.id)
                else:
                    for s in sources[e.id]:
                        if by_id[s].kind == "act":
                            failed_acts.setdefault(s, e.id)
        # A draft an act carried out or sent, when that act failed for its content (not a rate limit or a
        # timeout), failed with it: the editor who turns down the sent draft turns down the draft.
        for a, o in list(failed_acts.items()):
            if a in by_id and by_id[a].kind == "act" and by_id[a].fields["form"] in ("execution", "communication") \
                    and not reading.says_transient(by_id[o].summary):
                for s in sources[a]:
                    if by_id[s].kind == "act" and by_id[s].fields["form"] == "preparation":
                        failed_acts.setdefault(s, o)
        self.adverse, self.failed_acts = adverse, failed_acts
        # Failures a later act took up and got right ("3 rows mismatch" -> "re-copied with trim off" -> "checksum
        # match"): material that keeps them keeps a failure already repaired.
        worked_acts = {e.fields["about"] for e in events if e.kind == "outcome" and e.id not in adverse}
        repaired_at: dict[str, int] = {}  # failure -> position of the first execution that redid it and worked
        for e in events:
            if e.kind == "act" and e.fields["form"] == "execution" and e.id in worked_acts and e.id not in failed_acts:
                for s in sources[e.id]:
                    if s in adverse and by_id[s].kind == "outcome" and s not in repaired_at \
                            and _redoes(e, by_id[s], by_id):
                        repaired_at[s] = pos[e.id]
        self.repaired = repaired = set(repaired_at)  # (telling someone, or a next step that
        # merely follows the failure, repairs nothing)
        # A memory whose recall drove an act that failed is failed material for what reads it afterwards.
        failed_after: dict[str, tuple[int, str]] = {}
        for e in events:
            if e.kind == "act" and e.id in failed_acts and not reading.says_transient(by_id[failed_acts[e.id]].summary):
                for r in sources[e.id]:  # (a rate limit or a timeout is no fault of the material)
                    if by_id[r].kind == "recall":
                        for m in sources[r]:
                            # only the agent's own recipes (memories keeping its acts) are proved wrong by a failure
                            if by_id[m].kind == "remember" and any(by_id[x].kind == "act" for x in sources[m]):
                                o = failed_acts[e.id]
                                if m not in failed_after or pos[o] < failed_after[m][0]:
                                    failed_after[m] = (pos[o], o)
        # A result that declares a named thing unfit ("B-2 plate positive for Lactobacillus, not fit to repitch")
        # makes the earlier memories naming that thing failed material for what reads them afterwards.
        kept_ids: dict[str, list[str]] = {}
        for e in events:
            if e.kind == "remember":
                for x in reading.identifiers(e.summary):
                    kept_ids.setdefault(x, []).append(e.id)
            elif e.kind in ("outcome", "observe") and reading.says_unfit(e.summary) and not reading.says_fixed(e.summary):
                for x in reading.unfit_things(e.summary):
                    for m in kept_ids.get(x, ())[-20:]:
                        if m not in failed_after or pos[e.id] < failed_after[m][0]:
                            failed_after[m] = (pos[e.id], e.id)
        # A memory praising what an act gave ("RM7 pumped well, good choice") is failed material once a later
        # result about that same act reports it failed ("28-day cubes under strength, NCR raised").
        for e in events:
            if e.kind == "remember":
                for s in sources[e.id]:
                    x = by_id[s]
                    a = x.fields["about"] if x.kind == "outcome" else s if x.kind == "act" else None
                    o = failed_acts.get(a) if a else None
                    if o is not None and pos[o] > pos[e.id] and not reading.says_transient(by_id[o].summary) and (
                            e.id not in failed_after or pos[o] < failed_after[e.id][0]):
                        failed_after[e.id] = (pos[o], o)
        self.failed_after = failed_after
        self.claimed = claimed = {e.id for e in events if e.kind == "revise" and is_user_rule(e)
                                  and not _decided(e, sources, by_id)}
        failed_mem: dict[str, str] = {}  # memory -> the failed act, adverse outcome or failed memory it keeps
        self.failed_mem = failed_mem
        # An act counts as checked for a memory that keeps it when a result or an observation about it came
        # before anything read the memory back (a confirmation logged right after the memory still counts).
        first_check: dict[str, int] = {}
        first_read: dict[str, int] = {}
        for e in events:
            # (a result that cannot credit the act with what followed does not check it; the readings are asked
            # only of events that would check an act not checked yet)
            if e.kind == "outcome":
                a = e.fields["about"]
                if a not in first_check and e.id not in adverse and not reading.says_inconclusive(e.summary) \
                        and not reading.says_pending(e.summary):
                    first_check[a] = pos[e.id]
            elif e.kind == "observe":
                acts = [s for s in sources[e.id] if s not in first_check and by_id[s].kind == "act"]
                if acts and e.id not in adverse and not reading.says_inconclusive(e.summary):
                    # (a person answering the message that carried a draft reviews the draft too: "Dana
                    # approves seat plan v2", naming the mail that sent the plan)
                    acts += [p for s in acts if by_id[s].fields["form"] == "communication" for p in sources[s]
                             if by_id[p].kind == "act" and by_id[p].fields["form"] == "preparation"
                             and p not in first_check and reading.says_decision(e.summary)]
                    for s in acts:
                        first_check[s] = pos[e.id]
            for s in sources[e.id]:
                first_read.setdefault(s, pos[e.id])
        for e in events:
            i = e.id
            kind = e.kind
            if kind == "revise":
                b = own[i] = _own_bit(e)
            else:
                b = kbit[kind]
            srcs = sources[i]
            if not srcs:
                u = 0
                thru[i] = b
                mem[i] = none
            elif len(srcs) == 1:
                s = srcs[0]
                u = thru[s]
                thru[i] = u | b
                rv = reviewed.get(s)
                if rv is None:
                    mem[i] = mem[s]
                else:
                    nu, nr, lo = mem[s]
                    if rv:
                        mem[i] = (nu, push(s, nr), lo)
                    else:
                        o = order[by_id[s].session]
                        mem[i] = (push(s, nu), nr, lo if lo < o else o)
            else:
                mask, lo = 0, _FAR
                cu: list[str] = []
                cr: list[str] = []
                fu = fr = None
                mixed = False
                for s in srcs:
                    mask |= thru[s]
                    a, r, f = mem[s]
                    if a:
                        if fu is None:
                            fu = a
                        elif a is not fu and a != fu:
                            mixed = True
                        cu += a
                    if r:
                        if fr is None:
                            fr = r
                        elif r is not fr and r != fr:
                            mixed = True
                        cr += r
                    if f < lo:
                        lo = f
                    rv = reviewed.get(s)
                    if rv is not None:
                        mixed = True
                        if rv:
                            cr.append(s)
                        else:
                            cu.append(s)
                            lo = min(lo, order[by_id[s].session])
                u = mask
                thru[i] = mask | b
                if mixed:
                    mem[i] = (self._top(cu), self._top(cr), lo)
                else:
                    mem[i] = (fu or (), fr or (), lo)
            if kind == "act" or kind == "revise":
                up[i] = u
                if kind == "revise" and b & _GOVERNED_BIT and i not in self.claimed:
                    mem[i] = none  # a rule the user decided reviews what led to it
            elif kind == "remember":
                read_at = first_read.get(i, _FAR)
                raw = tuple(s for s in srcs if by_id[s].kind == "act" and by_id[s].fields["form"] != "silence"
                            and first_check.get(s, _FAR) > read_at  # (a decision to do nothing has no output)
                            and failed_acts.get(s) not in srcs  # an act kept with its failure was looked at
                            and not _carries_out_decision(by_id[s], srcs, sources, by_id, adverse)
                            and not reading.takes_in(by_id[s].summary)  # (a check that read the consent forms looked)
                            and not (by_id[s].fields["form"] == "preparation" and any(  # nor a plan kept beside the
                                by_id[x].kind == "outcome" and by_id[x].fields["about"] in by_id  # result of the step
                                and s in sources[by_id[x].fields["about"]] for x in srcs))  # that carried it out
                            and not (by_id[s].fields["form"] == "communication"  # nor a request kept beside its
                                     and any(x in srcs and by_id[x].kind == "observe" and (x in sources[s] or  # reply
                                                                                            pos[x] > pos[s])
                                             for x in (*sources[s], *srcs))))
                if raw:
                    unchecked_kept[i] = raw
                # (a repair counts only once it came before the memory was read back: what was read before it
                # was still the failed material)
                # (adverse is copied only when a repair came first: a copy per memory grows with the trace squared)
                fixed = {s for s in repaired if repaired_at[s] < read_at}
                bad = _failed_source(e, srcs, by_id, adverse - fixed if fixed else adverse, failed_acts, failed_mem)
                if bad:
                    failed_mem[i] = bad
                # a note that keeps the user's decided rule keeps that rule: no permission of the agent's own, and,
                # when the rule is standing, no one-off grant made general
                keeps_rule = [s for s in srcs if is_user_rule(by_id[s]) and s not in claimed]
                widened = not any(not reading.says_scoped(by_id[s].summary) for s in keeps_rule) and (any(
                    by_id[s].kind in ("observe", "outcome") and reading.says_scoped(by_id[s].summary)
                    and reading.says_decision(by_id[s].summary) and reading.permits(by_id[s].summary)
                    for s in srcs) and not reading.says_scoped(e.summary) and not _states_end(e))
                # (a one-off grant kept as general, not a request for those dates; the grant is looked for first,
                # since few memories keep one and reading the memory's own period costs more)
                own_rule = not keeps_rule and (reading.says_rule(e.summary) or reading.says_leave(e.summary)) \
                    and reading.permits(e.summary) and not reading.cites_document(e.summary) and not any(
                    by_id[s].kind in ("observe", "outcome", "revise") and (reading.says_decision(by_id[s].summary) or (
                        by_id[s].kind == "observe" and reading.person_made_change(by_id[s].summary)))
                    for s in srcs)  # "never sends a GRN; their invoices can go out on the PO match alone": a
                # permission the agent drew for itself from what it saw, which nobody decided (not one a person made:
                # "Lucia added 3 users to the exemptions sheet until 30 September")
                if widened or own_rule:
                    unchecked_kept[i] = ()
                    if widened and not own_rule and not raw and not bad and not _hedged(e, srcs, by_id):
                        widened_grant.add(i)
                reviewed[i] = not bad and not own_rule and not raw and not widened and not _hedged(e, srcs, by_id) \
                    and any(_grounded(by_id[s], checked, failed_acts, adverse, reviewed, sources, by_id)
                            or s in first_check for s in srcs)
                if reviewed[i]:
                    mem[i] = none  # reviewed material re-reads what it keeps: older memories end here
            elif kind == "outcome":
                checked.add(e.fields["about"])
                about = by_id.get(e.fields["about"])
                if i not in adverse and about is not None and about.kind == "act" and (
                        about.fields["form"] == "communication" or any(s in adverse for s in sources[about.id])):
                    mem[i] = none  # the person it went to answered, or a repair was checked: a review point
            elif kind == "observe":
                checked.update(s for s in srcs if by_id[s].kind == "act")
                if i not in adverse and any(by_id[s].kind in ("recall", "remember") for s in srcs):
                    mem[i] = none  # a fresh look at the world, named against what was recalled: a review point
        # up: acts and revisions only; own: revisions only (other kinds carry just their kind bit)
        self.own, self.up, self.thru, self.mem, self.reviewed = own, up, thru, mem, reviewed
        self.unchecked_kept = unchecked_kept
        self.widened_grant = widened_grant
        self.revision_positions = [pos[e.id] for e in events if e.kind == "revise"]
        self.chains: dict[tuple[str, str], tuple[str, ...]] = {}  # (sink, memory) -> walk_to's chain

    def _push(self, m: str, upstream: tuple[str, ...]) -> tuple[str, ...]:
        """``m`` (newer than everything upstream of it) and the newest memory of another session."""
        sess = self.by_id[m].session
        for x in upstream:
            if self.by_id[x].session != sess:
                return (m, x)
        return (m,)

    def _top(self, cands: list[str]) -> tuple[str, ...]:
        if not cands:
            return ()
        pos = self.pos
        first = max(cands, key=pos.__getitem__)
        sess = self.by_id[first].session
        other = [x for x in cands if self.by_id[x].session != sess]
        return (first, max(other, key=pos.__getitem__)) if other else (first,)

    def cross_memory(self, e: Event) -> tuple[str | None, bool]:
        """The newest memory upstream of ``e`` kept in another session, unreviewed ones first."""
        by_id, sess = self.by_id, e.session
        nu, nr, _ = self.mem[e.id]
        for m in nu:
            if by_id[m].session != sess:
                return m, True
        for m in nr:
            if by_id[m].session != sess:
                return m, False
        return None, False

    def walk_to(self, sink: str, target: str) -> tuple[str, ...]:
        """A chain from ``target`` (a memory upstream of ``sink``) to ``sink``, oldest first (kept: HALO-A4 asks
        for the same chain up to five times)."""
        key = (sink, target)
        if key not in self.chains:
            self.chains[key] = self._walk(sink, target)
        return self.chains[key]

    def _walk(self, sink: str, target: str) -> tuple[str, ...]:
        chain = [sink]
        cur = sink
        sources, mem = self.sources, self.mem
        for _ in range(64):
            srcs = sources[cur]
            if target in srcs:
                chain.append(target)
                break
            nxt = next((s for s in srcs if target in sources[s]), None)
            if nxt is None:
                nxt = next((s for s in srcs if target in mem[s][0] or target in mem[s][1]), None)
            if nxt is None:  # cannot happen on a consistent graph; stop rather than loop
                break
            chain.append(nxt)
            cur = nxt
        return tuple(reversed(chain))

    def search(self, sink: str, hit) -> tuple[tuple[str, ...], bool] | None:
        """The shortest chain (at most MAX_PATH_EVENTS events) from an event ``hit`` accepts to ``sink``."""
        parent: dict[str, str | None] = {sink: None}
        queue = deque([(sink, 1)])
        sources, by_id = self.sources, self.by_id
        while queue and len(parent) < _SEARCH_BUDGET:
            cur, depth = queue.popleft()
            if depth >= MAX_PATH_EVENTS:
                continue
            for s in sources[cur]:
                if s in parent:
                    continue
                parent[s] = cur
                if hit(by_id[s]):
                    chain = [s]
                    while parent[chain[-1]] is not None:
                        chain.append(parent[chain[-1]])
                    return tuple(chain), False
                queue.append((s, depth + 1))
        return None

    def root_walk(self, sink: str) -> tuple[tuple[str, ...], bool]:
        """Back along the newest source until nothing is named or the depth limit is reached."""
        chain = [sink]
        sources = self.sources
        while sources[chain[-1]] and len(chain) < MAX_PATH_EVENTS:
            chain.append(max(sources[chain[-1]], key=self.pos.__getitem__))
        return tuple(reversed(chain)), bool(sources[chain[-1]])

    def reaches(self, events: Sequence[Event], used_by: dict[str, list[str]]) -> set[str]:
        """Events from which some later act follows (an act anywhere downstream)."""
        reach: set[str] = set()
        by_id = self.by_id
        for e in reversed(events):
            for u in used_by.get(e.id, ()):
                if u in reach or by_id[u].kind == "act":
                    reach.add(e.id)
                    break
        return reach


reading.lower_patterns(globals())
