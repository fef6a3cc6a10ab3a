"""The pure event model: validation, channels, YAML round-trip, trace lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from halo_git.errors import InvalidCall, UnknownEvents
from halo_git.model import (
    Event,
    agent_name_from_client,
    check_agent_name,
    check_call,
    commit_message,
    from_yaml,
    logged_reply,
    normalize_time,
    resolve,
    KINDS,
    check_limit,
    check_session,
    to_yaml,
    trace_line,
    trace_text,
)

HOSTILE = [
    'say "hi" and \'bye\'',
    "key: value",
    "# not a comment",
    "- not a list",
    "no",
    "yes",
    "null",
    "~",
    "true",
    "1e3",
    "0x1F",
    "line one\nline two\n",
    "\ttabbed\tout",
    "trailing spaces   ",
    "   leading spaces",
    "emoji 🎉👩‍💻",
    "مرحبا بالعالم (RTL)",
    "x" * 10_000,
    "---",
    "...",
    "%TAG",
    "&anchor *alias",
    "!!python/object:os.system",
    "{a: 1}",
    "[1, 2]",
    "a\u2028b\u2029c\x85d",
    "\ufeffbom",
    "\n\nonly newlines\n\n",
]

KINDS_OF = {1: "observe", 2: "remember", 3: "recall", 4: "act"}.__getitem__


def make(kind="observe", summary="s", uses=(), **fields) -> Event:
    draft = check_call(kind, {"summary": summary, "uses": list(uses), **fields})
    return resolve(draft, 5, "demo", "day2", "2026-11-30T09:30:00Z", KINDS_OF)


@pytest.mark.parametrize("summary", HOSTILE)
def test_yaml_round_trips_hostile_summaries(summary):
    e = make("act", summary, ["e1", "e3"], trigger="self", form="execution")
    data = to_yaml(e)
    assert from_yaml(data) == e
    assert list(from_yaml(data).to_dict()) == [
        "id", "kind", "category", "agent", "session", "time", "summary", "uses", "trigger", "form", "channels",
    ]


REFUSED_CONTROLS = [chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]]
BIDI_CONTROLS = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]]  # refused: they reorder text
STORABLE = st.characters(blacklist_categories=("Cs",), blacklist_characters=REFUSED_CONTROLS + BIDI_CONTROLS)


@settings(max_examples=300, deadline=None)
@given(st.text(STORABLE, min_size=1, max_size=300).filter(lambda s: s.strip()))
def test_yaml_round_trips_any_text(summary):
    """Every example asserts: the text is drawn from what summaries may hold."""
    e = make("observe", summary)
    assert from_yaml(to_yaml(e)) == e


@settings(max_examples=100, deadline=None)
@given(st.text(STORABLE, max_size=50), st.sampled_from(REFUSED_CONTROLS + ["\ud800", "\udfff"]), st.text(STORABLE, max_size=50))
def test_control_characters_and_lone_surrogates_are_refused_by_name(before, bad, after):
    with pytest.raises(InvalidCall) as refused:
        make("observe", "x" + before + bad + after)
    message = str(refused.value)
    if bad in REFUSED_CONTROLS:
        assert f"control character U+{ord(bad):04X}" in message
    else:
        assert "lone surrogate" in message


def test_yaml_is_plain_utf8_with_fixed_keys():
    e = make("revise", "changed", ["e1"], target="rule", made_by="agent", governance="none")
    text = to_yaml(e).decode("utf-8")
    assert text.splitlines()[:3] == ["id: e5", "kind: revise", "category: Mechanism"]
    assert "!!" not in text and "channels:\n- S→R" in text


def test_channels_follow_first_mention_with_about_first():
    out = make("outcome", "it worked", ["e1", "e3", "e1"], about="e4")
    assert out.uses == ("e1", "e3")
    assert out.channels == ("A→S", "S→S", "M→S")
    act = make("act", "did", ["e1", "e3", "e2"], trigger="request")
    assert act.channels == ("S→A", "M→A")
    assert logged_reply(act)["note"] == "Logged e5 (Action, act). Channels: S→A, M→A."
    assert logged_reply(make())["note"] == "Logged e5 (Sensing, observe)."


def test_unknown_and_future_ids_are_refused_with_the_tools_page_text():
    draft = check_call("observe", {"summary": "s", "uses": ["e5", "e42", "e1"]})
    with pytest.raises(UnknownEvents) as err:
        resolve(draft, 5, "demo", "d", "2026-11-30T09:30:00Z", KINDS_OF)
    assert str(err.value) == (
        "unknown event id(s) e5, e42 for agent 'demo'; call halo_trace to see the ids of your earlier events"
    )


@pytest.mark.parametrize("bad", ["e0", "e-1", "e01", "E5", "e", "5", "e1.0", " e1", "e99999999999999999999", 7, None])
def test_malformed_ids_are_refused(bad):
    with pytest.raises(InvalidCall) as err:
        check_call("observe", {"summary": "s", "uses": [bad]})
    assert "ids look like e1, e2" in str(err.value)


@pytest.mark.parametrize(
    "args,needle",
    [
        ({"summary": "s", "trigger": "self", "form": "loud"}, "'form' must be one of silence, communication, preparation, execution"),
        ({"summary": "s"}, "'trigger' is required"),
        ({"summary": "s", "trigger": True}, "'trigger' must be a string"),
        ({"summary": "s\x00", "trigger": "self"}, "control character U+0000"),
        ({"summary": "s\ud800", "trigger": "self"}, "lone surrogate"),
        ({"summary": "s" * 10_001, "trigger": "self"}, "the limit is 10000"),
        ({"summary": "s", "trigger": "self", "uses": [f"e{i}" for i in range(1, 52)]}, "the limit is 50"),
        ({"summary": "s", "trigger": "self", "session": "a\nb"}, "'session' may not contain line breaks"),
        ({"summary": "s", "trigger": "self", "session": "[x]"}, "square brackets"),
        ({"summary": "s", "trigger": "self", "about": "e1"}, "unknown parameter(s) 'about' for halo_act"),
    ],
)
def test_call_refusals_say_how_to_fix(args, needle):
    with pytest.raises(InvalidCall) as err:
        check_call("act", args)
    assert needle in str(err.value)


def test_about_must_name_an_act():
    draft = check_call("outcome", {"summary": "s", "about": "e2"})
    with pytest.raises(InvalidCall, match="e2 is a remember event"):
        resolve(draft, 5, "demo", "d", "2026-11-30T09:30:00Z", KINDS_OF)


@pytest.mark.parametrize("name", ["demo", "a", "A.b_c-9", "9lives", "x" * 64])
def test_valid_agent_names(name):
    assert check_agent_name(name) == name


@pytest.mark.parametrize("name", ["", "../x", "/etc", "a/b", ".git", "-x", "x" * 65, "a b", "ä", None, 5])
def test_invalid_agent_names_state_the_rule(name):
    with pytest.raises(InvalidCall, match="starting with a letter or digit"):
        check_agent_name(name)


@pytest.mark.parametrize(
    "client,agent",
    [("claude-ai", "claude-ai"), ("Claude Desktop", "Claude-Desktop"), ("../../x", "x"), ("  ", None), ("", None), ("é" * 70, None), ("a" * 100, "a" * 64)],
)
def test_client_names_become_valid_agent_names(client, agent):
    assert agent_name_from_client(client) == agent
    if agent:
        check_agent_name(agent)


def test_trace_line_forms():
    act = make("act", "reminded at 9:30", ["e3"], trigger="self")
    assert trace_line(act) == "e5 [day2] act: reminded at 9:30 (uses e3) {trigger=self, form=communication}"
    assert trace_line(make("outcome", "ok", about="e4")) == "e5 [day2] outcome: ok {about=e4}"
    assert trace_line(make("observe", "two\nlines\r\nhere")) == "e5 [day2] observe: two\\nlines\\r\\nhere"
    rev = make("revise", "r", target="tone rule", made_by="user", governance="approved")
    assert trace_line(rev).endswith("{target=tone rule, made_by=user, governance=approved}")


def test_commit_message_is_one_shortened_line():
    e = make("act", "a very long summary\nwith lines " + "word " * 40, trigger="self")
    msg = commit_message(e)
    assert msg.startswith("e5 act: a very long summary with lines word")
    assert msg.count("\n") == 1 and len(msg.splitlines()[0]) <= 72 + len("e5 act: ")


def test_time_normalisation():
    assert normalize_time("2026-11-30T10:30:00+01:00") == "2026-11-30T09:30:00Z"
    assert normalize_time("2026-11-30T09:30:00.250000Z") == "2026-11-30T09:30:00.250000Z"
    with pytest.raises(InvalidCall, match="no time zone"):
        normalize_time("2026-11-30T09:30:00")


# -- pinned after the mutation run (scripts/mutate.py): survivors of test_model.py alone --


def test_empty_trace_text_names_the_first_step_for_each_interface():
    assert trace_text([], "demo") == "No events yet for agent 'demo'; log the first with halo_observe."
    assert trace_text([], "demo", "day2") == "No events yet in session 'day2' for agent 'demo'; log the first with halo_observe."
    assert trace_text([], "demo", interface="cli") == "No events yet for agent 'demo'; log the first with halo-git log observe."
    assert trace_text([make()], "demo") == "e5 [day2] observe: s"


@pytest.mark.parametrize("value", [0, 201, -1, True, "5", 2.0])
def test_limit_outside_1_to_200_or_not_an_integer_is_refused(value):
    with pytest.raises(InvalidCall, match="'limit' must be"):
        check_limit(value)


def test_limit_bounds_and_default():
    assert (check_limit(None), check_limit(1), check_limit(200)) == (20, 1, 200)


def test_the_kind_table_is_the_contracts():
    table = {k.name: (k.category, k.letter, k.tool, k.fields) for k in KINDS.values()}
    assert table == {
        "observe": ("Sensing", "S", "halo_observe", ()),
        "outcome": ("Sensing", "S", "halo_outcome", ("about",)),
        "remember": ("Memory", "M", "halo_remember", ()),
        "recall": ("Memory", "M", "halo_recall", ()),
        "act": ("Action", "A", "halo_act", ("trigger", "form")),
        "revise": ("Mechanism", "R", "halo_revise", ("target", "made_by", "governance")),
    }


@pytest.mark.parametrize("bad", ["a\nb", "a\tb", "a\u2028b", "a\u2029b", "a\x85b", "a[b", "a]b", "a\x07b"])
def test_a_session_label_is_one_plain_line(bad):
    with pytest.raises(InvalidCall, match="may not contain line breaks, control characters or square brackets"):
        check_session(bad)


def test_a_session_label_has_at_most_100_characters():
    assert check_session("s" * 100) == "s" * 100
    with pytest.raises(InvalidCall, match="'session' is 101 characters; the limit is 100"):
        check_session("s" * 101)


def test_every_line_break_is_shown_escaped_in_a_trace_line():
    line = trace_line(make("observe", "a\r\nb\nc\rd\x85e\u2028f\u2029g"))
    assert line == "e5 [day2] observe: a\\r\\nb\\nc\\rd\\x85e\\u2028f\\u2029g"


def test_ids_have_at_most_13_digits_and_long_values_are_cut_in_the_message():
    from halo_git.model import parse_id

    assert parse_id("e" + "9" * 13) == int("9" * 13)
    with pytest.raises(InvalidCall, match="invalid event id 'e99999999999999' in 'uses'"):
        parse_id("e" + "9" * 14)
    with pytest.raises(InvalidCall) as refused:
        parse_id("x" * 500)
    assert "'" + "x" * 59 + "…" in str(refused.value) and "x" * 61 not in str(refused.value)


@pytest.mark.parametrize("call, says", [
    ({"summary": 5}, "'summary' must be a string, got a number; say what happened in a few words"),
    ({"summary": {"a": 1}}, "'summary' must be a string, got an object"),
    ({"summary": "x", "uses": [f"e{i}" for i in range(1, 52)]}, "'uses' names 51 events; the limit is 50: name the events this step relied on most"),
    ({"summary": "x", "use": ["e1"]}, "unknown parameter(s) 'use' for halo_observe (did you mean 'uses'?); its parameters are:"),
    ({"summary": "x", "u" * 50: 1}, "unknown parameter(s) '" + "u" * 40 + "…' for halo_observe;"),
])
def test_refusals_of_bad_observe_calls_say_how_to_fix_them(call, says):
    with pytest.raises(InvalidCall) as refused:
        check_call("observe", call)
    assert says in str(refused.value)


@pytest.mark.parametrize("fields, says", [
    ({"target": " ", "made_by": "agent", "governance": "none"}, "'target' is empty; name what changed: a prompt, rule, skill, schedule policy, or similar"),
    ({"target": "a\nb", "made_by": "agent", "governance": "none"}, "'target' must be one line of at most"),
    ({"target": 3, "made_by": "agent", "governance": "none"}, "'target' must be a string, got a number; name what changed"),
])
def test_refusals_of_bad_revise_fields(fields, says):
    with pytest.raises(InvalidCall) as refused:
        check_call("revise", {"summary": "x", **fields})
    assert says in str(refused.value)


def test_outcome_without_about_says_how_to_name_the_act():
    with pytest.raises(InvalidCall, match="'about' is required for halo_outcome; name the earlier act event this outcome is about"):
        check_call("outcome", {"summary": "x"})


@pytest.mark.parametrize("value, says", [
    ("yesterday", "'time' 'yesterday' is not ISO 8601; use a form such as 2026-11-30T09:30:00Z"),
    ("1969-07-20T20:17:00Z", "is before 1971; Git cannot date commits that early"),
])
def test_times_are_iso_8601_after_1970(value, says):
    with pytest.raises(InvalidCall) as refused:
        normalize_time(value)
    assert says in str(refused.value)


def test_an_event_file_that_is_not_a_mapping_is_refused():
    with pytest.raises(ValueError, match="event file is not a mapping"):
        from_yaml(b"- just\n- a list\n")


def test_an_event_is_immutable():
    import dataclasses

    e = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.summary = "rewritten"  # type: ignore[misc]


def test_refusal_messages_show_long_values_cut_at_their_documented_width():
    from halo_git.model import parse_id

    fits = "x" * 58  # repr is 60 characters: shown whole
    with pytest.raises(InvalidCall) as whole:
        parse_id(fits)
    assert f"invalid event id {fits!r} in 'uses'" in str(whole.value)
    with pytest.raises(InvalidCall) as cut:
        parse_id(fits + "y")  # repr is 61: cut to 60 and an ellipsis
    assert f"{(fits + 'y')!r}"[:60] + "…" in str(cut.value)
    with pytest.raises(InvalidCall) as agent:
        check_agent_name("-" + "a" * 100)
    assert "invalid agent name '-" + "a" * 79 + "…'" in str(agent.value)
    with pytest.raises(InvalidCall) as unknown:
        check_call("observe", {"summary": "x", "p" * 40: 1, "q" * 41: 1})
    assert "'" + "p" * 40 + "', '" + "q" * 40 + "…'" in str(unknown.value)


def test_more_refusal_texts_in_full():
    with pytest.raises(InvalidCall) as early:
        normalize_time("1969-07-20T20:17:00Z")
    assert str(early.value) == "'time' '1969-07-20T20:17:00Z' is before 1971; Git cannot date commits that early"
    with pytest.raises(InvalidCall) as long:
        check_call("observe", {"summary": "x" * 10_001})
    assert str(long.value) == ("'summary' is 10001 characters; the limit is 10000: say what happened in a few words "
                               "and keep details out of the log")
    with pytest.raises(InvalidCall) as surrogate:
        check_call("revise", {"summary": "x", "target": "rule \ud800", "made_by": "agent", "governance": "none"})
    assert str(surrogate.value).startswith("'target' contains a lone surrogate")
    with pytest.raises(InvalidCall) as limit:
        check_limit(500)
    assert str(limit.value) == "'limit' must be from 1 to 200, got 500; use 20 for the recent events"
