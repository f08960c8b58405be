"""The HTTP fake, reached and read back as a run does: a PyGithub client on it, its comments as
the tracker sees them, the record found the one way Baton finds it (`find_records`), the bot's
messages."""

from __future__ import annotations

from typing import Any

import github
from baton.core.model.record import Record
from baton.issue import record_comment
from baton.issue.record_comment import CommentRef
from fakes.http_github import FakeGitHub


def make_client(fake: FakeGitHub, **options: Any) -> github.Github:
    """A PyGithub client as Baton would build it, minus throttling and retries."""
    settings: dict[str, Any] = {
        "auth": github.Auth.Token(fake.token),
        "base_url": fake.url,
        "seconds_between_requests": 0,
        "seconds_between_writes": 0,
        "retry": None,
        "timeout": 5,
    }
    settings.update(options)
    return github.Github(**settings)


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


def status_labels(fake: FakeGitHub, number: int) -> list[str]:
    return [x for x in fake.labels_of(number) if x.startswith("status:")]


def messages_of(fake: FakeGitHub, number: int) -> list[str]:
    """What the bot said to humans on the issue, oldest first (the record comment left out)."""
    return [
        c.body
        for c in comments_of(fake, number)
        if c.author == fake.bot_login and not record_comment.has_marker(c.body)
    ]
