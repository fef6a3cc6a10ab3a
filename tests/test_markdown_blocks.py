"""The Markdown building blocks, character by character: every special character's exact
escape, links whose destination cannot be broken, and tables as GFM lines. The report and
the site rely on these strings, so each is pinned, not merely rendered."""

from __future__ import annotations

import pytest

from halo_git.markdown import escape_md, md_link, md_table, safe_url


@pytest.mark.parametrize("raw, escaped", [
    ("\\", "\\\\"), ("`", "\\`"), ("*", "\\*"), ("_", "\\_"), ("[", "\\["), ("]", "\\]"),
    ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "&#124;"), ("{", "&#123;"), ("}", "&#125;"),
    ("~", "&#126;"), ("^", "&#94;"), ("$", "&#36;"), ("==", "&#61;&#61;"), ("=", "="),
    (":smile:", "&#58;smile:"), ("09:30:00", "09:30:00"), ("a:b", "a:b"),
    ("line\nbreak", "line\\\\nbreak"), ("plain text", "plain text"),  # a visible \\n, its backslash escaped
])
def test_each_special_character_has_its_escape(raw, escaped):
    assert escape_md(raw) == escaped


def test_a_hostile_summary_escapes_whole():
    assert escape_md("<img src=x onerror=alert(1)> | **b** {{ config }} ~~s~~ $x$ ==m==") == (
        "&lt;img src=x onerror=alert(1)&gt; &#124; \\*\\*b\\*\\* &#123;&#123; config &#125;&#125; "
        "&#126;&#126;s&#126;&#126; &#36;x&#36; &#61;&#61;m&#61;&#61;")


def test_safe_url_percent_encodes_what_ends_a_destination():
    assert safe_url("https://x.example/a b(c)<d>[e]\\`\"'") == "https://x.example/a%20b%28c%29%3Cd%3E%5Be%5D%5C%60%22%27"
    assert safe_url("https://x.example/ünï\tcode") == "https://x.example/ünï%09code"  # only the unsafe set is touched
    assert safe_url("https://x.example/ok?q=1&r=2#top") == "https://x.example/ok?q=1&r=2#top"


def test_md_link_escapes_the_label_and_secures_the_destination():
    assert md_link("a [b] *c*", "https://x.example/p q)") == "[a \\[b\\] \\*c\\*](https://x.example/p%20q%29)"


def test_md_table_lines_alignment_and_empty_cells():
    assert md_table(["Agent", "Events", "Note"], [["a", "3", ""], ["b", "10", "x"]], "lr") == [
        "| Agent | Events | Note |",
        "|---|---:|---|",
        "| a | 3 |   |",
        "| b | 10 | x |",
    ]
    assert md_table(["One"], []) == ["| One |", "|---|"]
    assert md_table(["A", "B"], [], "rr") == ["| A | B |", "|---:|---:|"]
