"""The accept file's edges the CI gate relies on: one message for a file that is missing,
a folder or not UTF-8; where an entry is cited from; how an entry describes itself; and
entries as immutable data."""

from __future__ import annotations

import dataclasses

import pytest

from halo_git.accept import Accepted, load_accepted
from halo_git.errors import InvalidCall


def test_missing_folder_and_binary_accept_files_are_one_message(tmp_path):
    with pytest.raises(InvalidCall, match=r"^no accept file .*nope\.yaml: create it \(see docs/ci\.md\) or leave out --accept$"):
        load_accepted(tmp_path / "nope.yaml")
    with pytest.raises(InvalidCall, match=r"^cannot read the accept file "):  # a folder: the OS says why
        load_accepted(tmp_path)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"accepted:\n  - rule: \xff\xfe\n")
    with pytest.raises(InvalidCall, match=r"^cannot read the accept file .*binary\.yaml: 'utf-8' codec can't decode"):
        load_accepted(binary)


def test_an_entry_is_cited_by_file_and_line_only_when_it_has_a_line():
    assert Accepted("HALO-R1", "x", "why", "Ann").where() == "halo-accept.yaml"
    assert Accepted("HALO-R1", "x", "why", "Ann", source="a.yaml", line=3).where() == "a.yaml:3"


def test_describe_shortens_the_summary_to_80_characters():
    exact = "x" * 80
    assert Accepted("HALO-R1", exact, "ok", "Ann").describe() == f"HALO-R1 about “{exact}” (accepted by Ann: ok)"
    long = Accepted("HALO-R1", "y" * 81, "ok", "Ann", agent="demo").describe()
    assert long == f"HALO-R1 about “{'y' * 79}…” of agent demo (accepted by Ann: ok)"


def test_entries_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Accepted("HALO-R1", "x", "why", "Ann").reason = "changed"


def test_each_mistake_in_an_entry_has_its_own_whole_message():
    from halo_git.accept import KEYS, parse_accepted
    from halo_git.diagnosis import RULES

    def refused(text: str) -> str:
        with pytest.raises(InvalidCall) as e:
            parse_accepted(text, "a.yaml")
        return str(e.value)

    assert refused("accepted: [\n").startswith("a.yaml is not valid YAML (")
    assert refused("accepted: [\n").endswith("); fix the file or pass another with --accept")
    assert refused("accepted:\n  - {rule: HALO-R1, summary: s, reason: r, by: b, colour: red}\n") == (
        f"a.yaml:2: unknown key(s) colour; allowed: {', '.join(KEYS)}")
    assert refused("accepted:\n  - {rule: HALO-R1}\n") == (
        "a.yaml:2: missing summary, reason, by; an entry names the rule and the summary of the event the finding "
        "is about, and says why and by whom it was accepted")
    assert refused("accepted:\n  - {rule: HALO-Z9, summary: s, reason: r, by: b}\n") == (
        f"a.yaml:2: unknown rule 'HALO-Z9'; the rules are {', '.join(RULES)}")


def test_an_accepted_key_holding_a_mapping_or_nothing_is_no_entry():
    from halo_git.accept import parse_accepted

    assert parse_accepted("accepted: {}\n") == []
    assert parse_accepted("accepted:\n") == []
    assert parse_accepted("") == []


def test_shapes_and_values_the_file_must_have():
    from halo_git.accept import parse_accepted

    def refused(text: str) -> str:
        with pytest.raises(InvalidCall) as e:
            parse_accepted(text, "a.yaml")
        return str(e.value)

    assert refused("accepted: 5\n") == "a.yaml: 'accepted' must be a list of entries, each with rule, summary, reason, by"
    assert refused("accepted:\n  - 5\n") == "a.yaml:2: each entry is a mapping with rule, summary, reason, by"
    assert refused("accepted:\n  - {rule: HALO-R1, summary: s, reason: r, by: b, size: 1, colour: red}\n").startswith(
        "a.yaml:2: unknown key(s) colour, size; allowed: ")
    assert refused("accepted:\n  - {rule: HALO-R1, summary: s, reason: r, by: b, fields: {trigger: 5}}\n") == (
        "a.yaml:2: 'fields' must map field names to text, e.g. {trigger: self}")
    assert parse_accepted("accepted: false\n") == []  # an empty value, whatever YAML calls it


def test_describe_collapses_whitespace():
    assert Accepted("HALO-R1", "booked  a taxi\n at 9:05", "ok", "Ann").describe() == (
        "HALO-R1 about “booked a taxi at 9:05” (accepted by Ann: ok)")


def test_entries_yaml_gives_no_line_for_are_named_by_position():
    """A merge key (``<<:``) builds the 'accepted' list where the file has no such key, so YAML gives no
    line for its entries: a refusal names the entry by its position instead, and a good entry has no line."""
    from halo_git.accept import parse_accepted

    good = "{rule: HALO-R1, summary: s, reason: r, by: b}"
    [entry] = parse_accepted(f"<<: {{accepted: [{good}]}}\n", "a.yaml")
    assert entry.line == 0 and entry.where() == "a.yaml"
    with pytest.raises(InvalidCall) as e:
        parse_accepted(f"<<: {{accepted: [{good}, 5]}}\n", "a.yaml")
    assert str(e.value) == "a.yaml entry 2: each entry is a mapping with rule, summary, reason, by"
