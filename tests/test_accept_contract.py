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
