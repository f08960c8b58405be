"""Approval parsing agrees with how GitHub renders the comment: a command counts only where
it opens a line of the author's own top-level paragraph. Text in any code block, HTML, a quote
or a line that renders as part of another never approves (tests/test_commands.py has the
plain rules: whole words, negations, questions, /retry guidance)."""

from __future__ import annotations

import pytest

from baton.core.model.commands import CommentCommand, Verb, parse_command


def common(body: str, words: tuple[str, ...]) -> CommentCommand | None:
    """The comment's approval or escalation command (`Commands.common`)."""
    return parse_command(body, words).common


WORDS = ("approved",)
APPROVE = CommentCommand(Verb.approve)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("````\n```\napproved\n```\n````", id="a four-backtick fence around backticks"),
        pytest.param("~~~\n```\n~~~\n```\napproved\n```", id="a tilde fence closed by tildes"),
        pytest.param("~~~~\n~~~\napproved\n~~~~", id="a long tilde fence holding a short one"),
        pytest.param("```\n~~~\napproved\n~~~\n```", id="a backtick fence holding tildes"),
        pytest.param("  ```\napproved\n  ```", id="an indented fence"),
        pytest.param("    approved", id="an indented code block"),
        pytest.param("text\n\n\tapproved", id="a tab-indented code block"),
        pytest.param("<pre>\napproved\n</pre>", id="a pre block"),
        pytest.param("<pre>approved</pre>", id="a one-line pre block"),
        pytest.param("<!--\napproved\n-->", id="an html comment block"),
        pytest.param("<!-- approved -->", id="a one-line html comment"),
        pytest.param("looks fine <!--\napproved -->", id="an inline html comment over two lines"),
        pytest.param("<div>\napproved\n</div>", id="raw html around the word"),
        pytest.param("`approved`", id="an inline code span"),
        pytest.param("``approved ` still code``", id="a double-backtick code span"),
        pytest.param("thanks\u2028approved", id="a line separator is no line break"),
        pytest.param("thanks\u2029approved", id="a paragraph separator is no line break"),
        pytest.param("thanks\x0capproved", id="a form feed is no line break"),
        pytest.param("thanks\x0bapproved", id="a vertical tab is no line break"),
        pytest.param("thanks\x85approved", id="a next-line control is no line break"),
        pytest.param("> is it approved?\napproved", id="a lazy line continues the quote"),
        pytest.param("> > quoted\n> approved", id="a line inside a quote after a nested one"),
        pytest.param("- approved", id="a list item"),
        pytest.param("1. approved", id="an ordered list item"),
        pytest.param("# approved", id="a heading"),
        pytest.param("approved\n===", id="a setext heading"),
        pytest.param("approved | yes\n--- | ---", id="a table header"),
        pytest.param("[approved](https://e.test)", id="a link"),
        pytest.param("**approved**", id="bold text is not written plainly"),
        pytest.param("~~approved~~", id="struck-through text"),
        pytest.param("&#97;pproved", id="an entity spelling the word"),
        pytest.param("\u200bapproved", id="an invisible character before the word"),
        pytest.param("\\approved", id="a backslash before the word"),
        pytest.param("thanks\n\u2028approved", id="a line separator opening a later line"),
        pytest.param("Xapproved", id="a letter glued before the word"),
        pytest.param("fine\nXapproved\nthanks", id="a letter glued before the word later on"),
        pytest.param("a\n\u2028approved\nb", id="a line separator opening a middle line"),
    ],
)
def test_text_github_does_not_show_as_the_authors_line_never_approves(body: str) -> None:
    assert common(body, WORDS) is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("````\n```\n````\napproved", APPROVE, id="after a long fence closes"),
        pytest.param("~~~\n```\n~~~\napproved", APPROVE, id="after a tilde fence closes"),
        pytest.param("<!-- note -->\n\napproved", APPROVE, id="after an html comment block"),
        pytest.param("> quoted\n\napproved", APPROVE, id="after a quote and a blank line"),
        pytest.param("- item\n\napproved", APPROVE, id="after a list and a blank line"),
        pytest.param("fine\r\napproved", APPROVE, id="after a windows line break"),
        pytest.param("fine\rapproved", APPROVE, id="after a lone carriage return"),
        pytest.param("fine  \napproved", APPROVE, id="after a hard line break"),
        pytest.param("fine\\\napproved", APPROVE, id="after a backslash line break"),
        pytest.param("fine\n    approved", APPROVE, id="an indented line continuing a paragraph"),
        pytest.param("approved <!-- lgtm -->", APPROVE, id="an approval with a hidden remark"),
        pytest.param("approved — `make test` passes", APPROVE, id="a reason holding code"),
        pytest.param(
            "/retry use `v2` <!-- x\ny -->",
            CommentCommand(Verb.retry, "use `v2` <!-- x\ny -->"),
            id="retry guidance keeps its code and markup",
        ),
        pytest.param(
            "```\n/skip\n```\n/replan",
            CommentCommand(Verb.replan),
            id="a command after a fenced one",
        ),
        pytest.param(
            "/retry use `v2` now\nthanks",
            CommentCommand(Verb.retry, "use `v2` now"),
            id="guidance with code on a line of its own",
        ),
        pytest.param("/skip\u2028/replan", CommentCommand(Verb.skip, "/replan"), id="one line"),
        pytest.param(
            "<details>\n\napproved\n</details>",
            APPROVE,
            id="a paragraph between html blocks is the author's own",
        ),
    ],
)
def test_commands_on_the_authors_own_rendered_lines_count(
    body: str, expected: CommentCommand | None
) -> None:
    assert common(body, WORDS) == expected


def test_a_comment_without_any_command_word_is_answered_without_parsing() -> None:
    assert common("[" * 10_000, WORDS) is None
