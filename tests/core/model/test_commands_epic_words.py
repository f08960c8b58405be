"""The epic commands' quick pre-check (`WORDS`): a comment naming every command word is still
parsed (the pre-check only skips comments that name none)."""

from __future__ import annotations

from baton.core.model.commands import EPIC_WORDS as WORDS
from baton.core.model.commands import EpicCommand, EpicVerb, parse_command


def epic(body: str) -> EpicCommand | None:
    """The comment's epic command (`Commands.epic`)."""
    return parse_command(body, ("approved",)).epic


def test_a_comment_with_every_command_word_is_still_parsed() -> None:
    body = "generate now\n\nWords: " + " ".join(WORDS)
    assert all(word in body.casefold() for word in WORDS)
    found = epic(body)
    assert found is not None and found.verb is EpicVerb.generate


def test_a_comment_with_no_command_word_is_none() -> None:
    assert epic("Thanks, looks good.") is None
