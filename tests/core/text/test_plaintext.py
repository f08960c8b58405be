"""Agent and issue text in commit messages, pull-request titles and sub-issue titles reads as
data: no closing keyword GitHub acts on, no mention, no workflow command a CI log would obey.
Exact outputs for hostile text, then properties over text built from the dangerous pieces."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.core.text.plaintext import REPLACEMENT, ZWSP, defuse, line
from support.property_budget import budget

Z = ZWSP
F = REPLACEMENT
# What GitHub or the runner acts on, written apart from the module's own pattern.
LIVE = re.compile(
    r"#\d|@[A-Za-z0-9_-]|(?<![A-Za-z0-9])GH-\d|://|::|www\.|(?:issues|pulls?|discussions)/\d|##\[",
    re.IGNORECASE,
)
UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "Fixes #1, closes #1 @octo-org/security",
            f"Fixes #{Z}1, closes #{Z}1 @{Z}octo-org/security",
            id="the issue's own example",
        ),
        pytest.param("resolves o/r#7", f"resolves o/r#{Z}7", id="another repository's issue"),
        pytest.param("fix GH-3 and gh-4", f"fix GH{Z}-3 and gh{Z}-4", id="GH- references"),
        pytest.param(
            "Closes https://github.com/o/r/issues/9",
            f"Closes https:{Z}//github.com/o/r/issues/{Z}9",
            id="an issue's URL",
        ),
        pytest.param(
            "fixes github.com/o/r/pull/9",
            f"fixes github.com/o/r/pull/{Z}9",
            id="a pull request's path without a scheme",
        ),
        pytest.param("www.github.com/o", f"www{Z}.github.com/o", id="a www autolink"),
        pytest.param("::add-mask::x", f":{Z}:add-mask:{Z}:x", id="a workflow command"),
        pytest.param(":::", f":{Z}:{Z}:", id="three colons"),
        pytest.param("##[error]x", f"#{Z}#[error]x", id="a legacy workflow command"),
        pytest.param("a\x1b[31mred", f"a{F}[31mred", id="a terminal escape"),
        pytest.param("abc\u202edcba", f"abc{F}dcba", id="a right-to-left override"),
        pytest.param("x\u2066y\u2069", f"x{F}y{F}", id="an isolate"),
        pytest.param("a\x85b\x9bc", f"a{F}b{F}c", id="C1 controls"),
        pytest.param("line\r\nnext\rx", f"line\nnext{F}x", id="CRLF kept, a lone CR shown"),
        pytest.param("#hashtag HIGH-5 a#1", f"#hashtag HIGH-5 a#{Z}1", id="only references"),
        pytest.param("C# and F#", "C# and F#", id="a hash before no digit stays"),
        pytest.param("mail a@b.test", f"mail a@{Z}b.test", id="an address is broken too"),
        pytest.param("", "", id="empty"),
    ],
)
def test_defuse_breaks_every_reference_mention_and_command(text: str, expected: str) -> None:
    assert defuse(text) == expected


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("  Fixes\n #3\t", 80, f"Fixes #{Z}3"),
        ("abcdef #12", 8, "abcdef…"),  # cut before the reference: nothing to break
        ("see #123456", 7, f"see #{Z}1…"),
        ("@octo", 3, f"@{Z}o…"),
        ("x", 0, "…"),
    ],
)
def test_a_line_is_flattened_and_cut_before_it_is_defused(
    text: str, limit: int, expected: str
) -> None:
    assert line(text, limit) == expected


# --- properties -----------------------------------------------------------------------------
pieces = st.sampled_from(
    [
        "#", "@", "1", "GH", "gh", "-", ":", "/", "//", "www", ".", "issues/", "pull/",
        "##[", "a", " ", "\n", "\r\n", "\r", "\x1b", "\u202e", "\u200b", "Fixes ", "@o/t",
    ]
)  # fmt: skip
hostile = st.one_of(
    st.lists(pieces, max_size=40).map("".join),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
)


@budget(400)
@given(hostile)
def test_no_output_holds_a_live_reference_and_defusing_again_changes_nothing(text: str) -> None:
    out = defuse(text)
    assert LIVE.search(out) is None
    assert UNSEEN.search(out) is None
    assert defuse(out) == out
    assert out.replace(Z, "") == UNSEEN.sub(F, text.replace("\r\n", "\n")).replace(Z, "")


@budget(300)
@given(hostile, st.integers(min_value=1, max_value=50))
def test_a_line_is_one_line_within_its_limit_but_for_the_breaks(text: str, limit: int) -> None:
    out = line(text, limit)
    assert "\n" not in out and "\r" not in out
    assert len(out.replace(Z, "")) <= limit
    assert LIVE.search(out) is None


def test_64_kb_of_adversarial_text_is_defused_in_one_pass() -> None:
    hostile = ("#1@a:" + "/" * 3 + "www.GH-2\u202e::##[x" * 3) * 1_300
    assert len(hostile) > 64_000
    out = defuse(hostile)
    assert LIVE.search(out) is None and defuse(out) == out
    flat = line(":" * 70_000, 65_536)
    assert flat.count(Z) == 65_534 and flat.endswith("…")
