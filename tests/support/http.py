"""The HTTP fake read back as a run reads it: its comments as the tracker sees them, the record
found the one way Baton finds it (`record_comment.find_records`), the bot's messages."""

from __future__ import annotations

from baton.core.record import Record
from baton.issue import record_comment
from baton.issue.record_comment import CommentRef
from fakes.http_github import FakeGitHub


def comments_of(fake: FakeGitHub, number: int) -> list[CommentRef]:
    return [CommentRef(c["id"], c["user"]["login"], c["body"]) for c in fake.comments(number)]


def record_comments(fake: FakeGitHub, number: int) -> list[CommentRef]:
    """The bot's record comments on the issue, oldest first."""
    return record_comment.find_records(comments_of(fake, number), fake.bot_login)


def record_of(fake: FakeGitHub, number: int) -> Record:
    """The record, from the one record comment the issue must carry."""
    records = record_comments(fake, number)
    assert len(records) == 1, f"{len(records)} record comments, expected exactly one"
    return record_comment.parse(records[0].body)


def messages_of(fake: FakeGitHub, number: int) -> list[str]:
    """What the bot said to humans on the issue, oldest first (the record comment left out)."""
    return [
        c.body
        for c in comments_of(fake, number)
        if c.author == fake.bot_login and not record_comment.has_marker(c.body)
    ]
