"""What a human comment asks for: approvals only as whole words opening a line, and the
escalation commands /retry, /skip and /replan."""

from __future__ import annotations

import pytest

from baton.core.model import commands
from baton.core.model.commands import (
    Commands,
    CommentCommand,
    EpicCommand,
    EpicVerb,
    Verb,
    live_lines,
    parse_command,
)


def common(body: str, words: tuple[str, ...]) -> CommentCommand | None:
    """The comment's approval or escalation command (`Commands.common`)."""
    return parse_command(body, words).common


DEFAULT_WORDS = ("approved",)
APPROVE = CommentCommand(Verb.approve)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("approved", APPROVE, id="a bare approval counts"),
        pytest.param("Approved — tests look good", APPROVE, id="an approval with a reason counts"),
        pytest.param("APPROVED!", APPROVE, id="a shouted approval counts"),
        pytest.param("/approved", APPROVE, id="a slash approval counts"),
        pytest.param("  approved  ", APPROVE, id="an approval with surrounding blanks counts"),
        pytest.param("approved.", APPROVE, id="an approval ending a sentence counts"),
        pytest.param("approved, ship it", APPROVE, id="an approval followed by a comma counts"),
        pytest.param(
            "Looked at the diff.\napproved",
            APPROVE,
            id="an approval on a later line after some text counts",
        ),
        pytest.param(
            "Looked at the diff.\r\napproved\r\n",
            APPROVE,
            id="an approval on a later windows line counts",
        ),
        pytest.param(
            "```\nnot the command\n```\napproved",
            APPROVE,
            id="an approval after a closed code fence counts",
        ),
        pytest.param(
            "> approved?\n\napproved",
            APPROVE,
            id="an approval answering a quoted question counts",
        ),
        pytest.param("approved?", None, id="a question is not an approval"),
        pytest.param("approved ?", None, id="a spaced question is not an approval"),
        pytest.param("is this approved?", None, id="an approval word mid-question does not count"),
        pytest.param("not approved", None, id="a negated approval does not count"),
        pytest.param("Not approved yet.", None, id="a capitalised negation does not count"),
        pytest.param("unapproved", None, id="an approval word inside a longer word does not count"),
        pytest.param("approvedly", None, id="an approval prefix of a longer word does not count"),
        pytest.param("approved-ish", None, id="a hyphenated approval word does not count"),
        pytest.param("approved_by_bot", None, id="an underscored approval word does not count"),
        pytest.param(
            "I approved yesterday", None, id="an approval not at the start of a line does not count"
        ),
        pytest.param("> approved", None, id="a quoted approval does not count"),
        pytest.param("   > approved", None, id="an indented quoted approval does not count"),
        pytest.param(">> approved", None, id="a doubly quoted approval does not count"),
        pytest.param(
            "```\napproved\n```", None, id="an approval inside a code fence does not count"
        ),
        pytest.param(
            "~~~\napproved\n~~~", None, id="an approval inside a tilde fence does not count"
        ),
        pytest.param(
            "```text\napproved\n```",
            None,
            id="an approval inside a fence with a language does not count",
        ),
        pytest.param(
            "```\nunterminated fence\napproved",
            None,
            id="an approval after an unclosed fence does not count",
        ),
        pytest.param("", None, id="an empty comment is no command"),
        pytest.param("   \n\n  ", None, id="a blank comment is no command"),
        pytest.param("Thanks, looks good!", None, id="a plain reply is no command"),
        pytest.param("lgtm", None, id="a word that is not configured does not approve"),
    ],
)
def test_approval_words_count_only_as_whole_words_opening_a_live_line(
    body: str, expected: CommentCommand | None
) -> None:
    assert common(body, DEFAULT_WORDS) == expected


@pytest.mark.parametrize(
    ("body", "words", "expected"),
    [
        pytest.param("lgtm", ("lgtm",), APPROVE, id="a custom word approves"),
        pytest.param("LGTM, nice work", ("lgtm",), APPROVE, id="a custom word with a reason"),
        pytest.param(
            "ship-it now", ("ship-it",), APPROVE, id="a custom word with a hyphen approves"
        ),
        pytest.param("approved", ("lgtm",), None, id="the default word stops counting if replaced"),
        pytest.param(
            "approved", ("lgtm", "approved"), APPROVE, id="any of several configured words counts"
        ),
        pytest.param("lgtm?", ("lgtm",), None, id="a custom word as a question does not count"),
        pytest.param("not lgtm", ("lgtm",), None, id="a negated custom word does not count"),
        pytest.param("lgtmx", ("lgtm",), None, id="a custom word inside a longer word does not"),
        pytest.param(
            "a+b", ("a+b",), APPROVE, id="a custom word with regex characters matches literally"
        ),
        pytest.param("aab", ("a+b",), None, id="a custom word is never read as a regex"),
    ],
)
def test_custom_approval_words_come_from_the_policy(
    body: str, words: tuple[str, ...], expected: CommentCommand | None
) -> None:
    assert common(body, words) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "/retry use the v2 API",
            CommentCommand(Verb.retry, "use the v2 API"),
            id="retry carries its guidance",
        ),
        pytest.param("/retry", CommentCommand(Verb.retry, ""), id="retry without guidance"),
        pytest.param(
            "/retry    spaced   guidance  ",
            CommentCommand(Verb.retry, "spaced   guidance"),
            id="retry guidance is trimmed at both ends",
        ),
        pytest.param("/skip", CommentCommand(Verb.skip, ""), id="skip"),
        pytest.param("/replan", CommentCommand(Verb.replan, ""), id="replan"),
        pytest.param(
            "/RETRY now", CommentCommand(Verb.retry, "now"), id="a command in capitals counts"
        ),
        pytest.param(
            "Tried it locally.\n/skip",
            CommentCommand(Verb.skip, ""),
            id="a command on a later line",
        ),
        pytest.param(
            "/skip\n/replan", CommentCommand(Verb.skip, ""), id="the first of two commands wins"
        ),
        pytest.param(
            "/replan\napproved",
            CommentCommand(Verb.replan, ""),
            id="a command before an approval wins",
        ),
        pytest.param("approved\n/replan", APPROVE, id="an approval before a command wins"),
        pytest.param("/retryagain", None, id="a command glued to a word does not count"),
        pytest.param("/skipped", None, id="a longer word starting with a command does not count"),
        pytest.param("please /retry", None, id="a command not at the start does not count"),
        pytest.param("> /retry x", None, id="a quoted command does not count"),
        pytest.param("```\n/skip\n```", None, id="a fenced command does not count"),
        pytest.param("/merge", None, id="an unknown slash command is no command"),
        pytest.param("//retry", None, id="a double slash is no command"),
    ],
)
def test_escalation_commands_are_slash_words_opening_a_live_line(
    body: str, expected: CommentCommand | None
) -> None:
    assert common(body, DEFAULT_WORDS) == expected


def test_guidance_is_only_the_rest_of_the_command_line() -> None:
    command = common("/retry use the v2 API\nand more text below", DEFAULT_WORDS)

    assert command == CommentCommand(Verb.retry, "use the v2 API")


def test_one_parse_reads_both_the_common_and_the_epic_command() -> None:
    assert parse_command("approved\n\n/edit make it shorter", DEFAULT_WORDS) == Commands(
        APPROVE, EpicCommand(EpicVerb.edit, "make it shorter")
    )
    assert parse_command("continue", DEFAULT_WORDS) == Commands(
        None, EpicCommand(EpicVerb.continue_)
    )
    assert parse_command("/skip flaky", DEFAULT_WORDS) == Commands(
        CommentCommand(Verb.skip, "flaky"), None
    )
    assert parse_command("Thanks, looks good.", DEFAULT_WORDS) == Commands(None, None)


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The bodies the CommonMark parser renders from now on, with no answer kept from before."""
    seen: list[str] = []

    def counting(body: str) -> list[str]:
        seen.append(body)
        return live_lines(body)

    monkeypatch.setattr(commands, "live_lines", counting)
    parse_command.cache_clear()
    return seen


def test_the_body_is_rendered_once_and_only_with_a_command_word(rendered: list[str]) -> None:
    assert parse_command("Thanks, looks good.", DEFAULT_WORDS) == Commands()
    assert rendered == []
    parse_command("/retry\n\ncontinue", DEFAULT_WORDS)
    assert rendered == ["/retry\n\ncontinue"]


def test_the_same_comment_asked_again_is_not_parsed_again(rendered: list[str]) -> None:
    """A run's triage and its event maker both ask: the second answer is the first one."""
    first = parse_command("/retry use the v2 API", DEFAULT_WORDS)
    assert parse_command("/retry use the v2 API", DEFAULT_WORDS) is first
    assert rendered == ["/retry use the v2 API"]
    assert parse_command("/retry use the v2 API", ("lgtm",)) == first  # other words: asked anew
    assert parse_command("approved", DEFAULT_WORDS) == Commands(APPROVE)
    assert rendered == ["/retry use the v2 API"] * 2 + ["approved"]
