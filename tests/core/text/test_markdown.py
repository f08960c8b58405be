"""User text Baton echoes into comments reads as plain text: it makes no heading, list, link,
image, HTML, table row, mention or cross-reference, whatever it holds. Exact outputs for
hostile text, then properties checked with a CommonMark parser (markdown-it-py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from baton.core.text.markdown import ZWSP, cell, clip, code, escape, quote
from support.property_budget import budget

Z = ZWSP
GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# What GitHub links in rendered text: mentions, issue references, GH- references.
LIVE_REFERENCE = re.compile(r"@[A-Za-z0-9_-]|#\d|\bGH-\d", re.I)
MARKDOWN_PUNCTUATION = list("#*_-+=>|[]()!`~<>&\\:@$/.;\"' \n\t0123456789GHabc")
hostile_text = st.text(
    st.one_of(
        st.sampled_from(MARKDOWN_PUNCTUATION),
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    ),
    max_size=80,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("plain words", "plain words", id="plain words pass unchanged"),
        pytest.param("creating_tests", "creating_tests", id="an underscore in a name stays"),
        pytest.param("# Approve this", "\\# Approve this", id="a heading"),
        pytest.param("## Baton · `done`", "\\## Baton · \\`done\\`", id="baton's own heading"),
        pytest.param("- item", "\\- item", id="a bullet"),
        pytest.param("+ item", "\\+ item", id="a plus bullet"),
        pytest.param("* item", "\\* item", id="a star bullet"),
        pytest.param("1. first", "1\\. first", id="an ordered item"),
        pytest.param("7) seventh", "7\\) seventh", id="an ordered item with a parenthesis"),
        pytest.param("===", "\\===", id="a setext underline"),
        pytest.param("___", "\\___", id="a thematic break of underscores"),
        pytest.param("> quoted", "&gt; quoted", id="a blockquote marker"),
        pytest.param("```python", "\\`\\`\\`python", id="a code fence"),
        pytest.param("~~~", "\\~\\~\\~", id="a tilde fence"),
        pytest.param("[x](https://e.test)", f"\\[x\\](https:{Z}//e.test)", id="a link"),
        pytest.param(
            "![x](https://e.test/p.png)", f"!\\[x\\](https:{Z}//e.test/p.png)", id="an image"
        ),
        pytest.param("[x]: https://e.test", f"\\[x\\]: https:{Z}//e.test", id="a link definition"),
        pytest.param(
            "Fixes https://github.com/o/r/issues/1",
            f"Fixes https:{Z}//github.com/o/r/issues/{Z}1",
            id="an issue's URL closes as #1 does",
        ),
        pytest.param("www.github.com", f"www{Z}.github.com", id="a www autolink"),
        pytest.param(":::", f":{Z}:{Z}:", id="three colons hold no workflow command"),
        pytest.param("##[error]x", "\\##\\[error\\]x", id="a legacy command, escaped"),
        pytest.param("a | b", "a \\| b", id="a table pipe"),
        pytest.param("<!-- x -->", "&lt;!-- x --&gt;", id="an html comment"),
        pytest.param("<b>bold</b>", "&lt;b&gt;bold&lt;/b&gt;", id="an html tag"),
        pytest.param("&lt;", "&amp;lt;", id="an entity stays literal"),
        pytest.param("C:\\dir\\", "C:\\\\dir\\\\", id="backslashes are doubled"),
        pytest.param("$x$", "\\$x\\$", id="math"),
        pytest.param("~~gone~~", "\\~\\~gone\\~\\~", id="strikethrough"),
        pytest.param("cc @octocat", f"cc @{Z}octocat", id="a mention"),
        pytest.param("@org/team", f"@{Z}org/team", id="a team mention"),
        pytest.param("see #12", f"see #{Z}12", id="an issue reference"),
        pytest.param("see o/r#12", f"see o/r#{Z}12", id="a cross-repository reference"),
        pytest.param("see GH-12", f"see GH{Z}-12", id="a GH- reference"),
        pytest.param("see gh-12", f"see gh{Z}-12", id="a lower-case GH- reference"),
        pytest.param("HIGH-12", "HIGH-12", id="GH inside a word is no reference"),
        pytest.param("mail a@b.test", f"mail a@{Z}b.test", id="an e-mail address"),
        pytest.param("# not-a-ref", "\\# not-a-ref", id="a hash before a letter is no reference"),
        pytest.param("::error::x", f":{Z}:error:{Z}:x", id="a workflow command"),
        pytest.param("one\ntwo\r\n\n# three", "one two # three", id="line breaks flatten"),
        pytest.param("    indented code", "indented code", id="indentation is dropped"),
        pytest.param("", "", id="empty text"),
    ],
)
def test_escape_makes_one_line_of_plain_text(text: str, expected: str) -> None:
    assert escape(text) == expected


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        pytest.param("short", 10, "short", id="text within the limit is whole"),
        pytest.param("abcdefghij", 5, "abcd…", id="a cut is marked with an ellipsis"),
        pytest.param("abc &amp; d", 7, "abc…", id="a cut never splits an entity"),
        pytest.param("ab &lt;de", 8, "ab &lt;…", id="a whole entity before the cut stays"),
        pytest.param("ab\\\\cd", 4, "ab…", id="a cut never leaves half a backslash pair"),
        pytest.param("ab\\\\\\\\cd", 6, "ab\\\\…", id="a whole backslash pair stays"),
        pytest.param("ab\\*cd", 4, "ab…", id="a cut never leaves a lone escaping backslash"),
        pytest.param("ab     cd", 6, "ab…", id="trailing blanks before the cut go"),
        pytest.param("abcde", 5, "abcde", id="text exactly at the limit is whole"),
        pytest.param("x &lt; &amp;yy", 11, "x &lt;…", id="only the last entity is checked"),
        pytest.param("&amp;x", 4, "…", id="an entity cut at the very start"),
        pytest.param("ab\\\\cd", 5, "ab\\\\…", id="an even run of backslashes stays"),
    ],
)
def test_clip_cuts_escaped_text_on_a_safe_boundary(text: str, limit: int, expected: str) -> None:
    assert clip(text, limit) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("fine", "fine", id="a plain cell"),
        pytest.param("a | b", "a \\| b", id="a pipe is escaped"),
        pytest.param("a\\|b", "a\\\\\\|b", id="an escaped pipe stays escaped"),
        pytest.param("two\nlines", "two lines", id="a line break becomes a space"),
        pytest.param("", " ", id="an empty cell is a blank"),
        pytest.param("   ", " ", id="a blank cell is a blank"),
        pytest.param("@x #1", f"@{Z}x #{Z}1", id="mentions and references are defused"),
        pytest.param("x" * 200, "x" * 159 + "…", id="a long cell is clipped"),
    ],
)
def test_a_cell_is_one_escaped_clipped_line(text: str, expected: str) -> None:
    assert cell(text) == expected


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        pytest.param("one line", 100, "> one line", id="one line"),
        pytest.param("a\n\nb", 100, "> a\n>\n> b", id="a blank line stays inside the quote"),
        pytest.param(
            "ok\n# Approve\n- [x] done\n> nested",
            100,
            "> ok\n> \\# Approve\n> \\- \\[x\\] done\n> &gt; nested",
            id="block syntax on every line is escaped",
        ),
        pytest.param(
            "ok\n\n<!-- baton:record\n{}\n-->",
            100,
            "> ok\n>\n> &lt;!-- baton:record\n> {}\n> \\--&gt;",
            id="a forged record marker",
        ),
        pytest.param("  padded  \n", 100, "> padded", id="surrounding blanks are trimmed"),
        pytest.param("", 100, ">", id="empty text is an empty quote"),
        pytest.param("abcdefghij", 8, "> abcde…", id="a long line is clipped"),
        pytest.param("aaa\nbbb\nccc", 11, "> aaa\n> bb…", id="the clip falls in a later line"),
        pytest.param("aaa\nbbb", 7, "> aaa…", id="a clip right after a line break"),
        pytest.param("a &&", 8, "> a…", id="a clipped quote never splits an entity"),
        pytest.param("abc", 5, "> abc", id="a quote exactly at the limit is whole"),
        pytest.param("aaa\nbbb\nccc", 14, "> aaa\n> bbb…", id="a clip after the second line"),
    ],
)
def test_quote_escapes_each_line_and_stays_within_its_limit(
    text: str, limit: int, expected: str
) -> None:
    assert quote(text, limit) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("implementing", "`implementing`", id="a state"),
        pytest.param("a`b", "`a'b`", id="a backtick cannot close the span"),
        pytest.param("<!--", f"`<{Z}!--`", id="a label named like an html comment"),
    ],
)
def test_code_names_cannot_break_out_of_their_span(text: str, expected: str) -> None:
    assert code(text) == expected


# --- properties, checked with a CommonMark parser ------------------------------------------
PLAIN_INLINE = {"text", "softbreak", "hardbreak", "em_open", "em_close", "strong_open"}
PLAIN_INLINE |= {"strong_close"}


def _inline_text(children: list[Token]) -> str:
    parts = []
    for child in children:
        assert child.type in PLAIN_INLINE, child.type
        parts.append(child.content if child.type == "text" else child.markup)
    return "".join(parts)


def _same_text(rendered: str, original: str) -> None:
    def squeeze(text: str) -> str:
        return "".join(text.replace(ZWSP, "").split())

    assert squeeze(rendered) == squeeze(original)


@budget(300)
@given(hostile_text)
def test_escaped_text_renders_as_exactly_its_words_and_nothing_else(text: str) -> None:
    tokens = GFM.parse(escape(text))
    blocks = [t.type for t in tokens]

    assert blocks in ([], ["paragraph_open", "inline", "paragraph_close"])
    rendered = _inline_text(tokens[1].children or []) if tokens else ""
    _same_text(rendered, text)
    assert LIVE_REFERENCE.search(rendered) is None


@budget(300)
@given(hostile_text)
def test_a_cell_never_breaks_its_table_row(text: str) -> None:
    table = f"| a | b |\n|---|---|\n| {cell(text, 10_000)} | z |\n"
    tokens = GFM.parse(table)
    cells = [i for i, t in enumerate(tokens) if t.type == "td_open"]

    assert len(cells) == 2
    content = tokens[cells[0] + 1]
    _same_text(_inline_text(content.children or []), text)
    assert tokens[cells[1] + 1].content == "z"


@budget(300)
@given(hostile_text)
def test_a_quote_is_one_blockquote_of_plain_paragraphs(text: str) -> None:
    tokens = GFM.parse(quote(text, 100_000) + "\n\nBaton's own line\n")
    outer = [t.type for t in tokens if t.level == 0]
    close = next(i for i, t in enumerate(tokens) if t.type == "blockquote_close")

    assert outer == ["blockquote_open", "blockquote_close", "paragraph_open", "paragraph_close"]
    inner = tokens[1:close]
    assert {t.type for t in inner} <= {"paragraph_open", "inline", "paragraph_close"}
    rendered = "".join(_inline_text(t.children or []) for t in inner if t.type == "inline")
    _same_text(rendered, text)
    assert tokens[-2].content == "Baton's own line"


@budget(200)
@given(hostile_text, st.integers(min_value=1, max_value=60))
def test_a_clipped_quote_or_cell_is_never_longer_than_its_limit(text: str, limit: int) -> None:
    assert len(cell(text * 5, limit)) <= max(limit, 1)
    assert len(quote(text * 5, limit + 2)) <= limit + 2
