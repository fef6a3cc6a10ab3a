"""The Markdown building blocks, pure: cutting and escaping agent text."""

from __future__ import annotations

from halo_git.markdown import escape_md, shorten


def test_shorten_keeps_text_up_to_the_limit_and_cuts_with_one_ellipsis():
    assert shorten("abcde", 5) == "abcde"
    assert shorten("abcdef", 5) == "abcd…"
    assert len(shorten("x" * 100, 10)) == 10 and shorten("x" * 100, 10).endswith("…")


def test_escape_md_turns_tabs_into_spaces():
    assert escape_md("a\tb") == "a b"
