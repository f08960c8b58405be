"""The dashboard's calls over GitHub's API (the HTTP fake): closed issues of a window, the
page's issue opened, edited and pinned, and GitHub's refusals."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from fakes.http_github import FakeGitHub


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def served(fake: FakeGitHub) -> GitHubTracker:
    return GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)


def operations(fake: FakeGitHub) -> list[str]:
    return [c.operation or f"{c.method} {c.path}" for c in fake.requests]


def test_closed_issues_lists_only_those_closed_and_updated_since(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    old, recent, still = fake.add_issue("old"), fake.add_issue("recent"), fake.add_issue("open")
    fake.update_issue(old, state="closed")
    since = fake.advance(3600)
    fake.update_issue(recent, state="closed")
    fake.reset_requests()
    issues, more = served.closed_issues(since - timedelta(seconds=1), 1)
    assert [i.number for i in issues] == [recent] and more is None
    assert still not in [i.number for i in issues]
    assert len(fake.requests) == 1


def test_the_page_is_opened_pinned_and_edited_by_the_bot(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    opened = served.create_issue("Baton dashboard", "<!-- baton:dashboard -->\nfirst")
    served.pin_issue(opened.node_id)
    served.edit_issue(opened.number, "<!-- baton:dashboard -->\nsecond")
    issue = fake._issues[opened.number]
    assert (issue.author, issue.pinned, issue.body) == (
        fake.bot_login,
        True,
        "<!-- baton:dashboard -->\nsecond",
    )
    assert [r.method for r in fake.requests][-3:] == ["POST", "POST", "PATCH"]


def test_a_body_over_githubs_limit_is_refused_and_changes_nothing(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    opened = served.create_issue("Baton dashboard", "before")
    with pytest.raises(TrackerError) as refused:
        served.edit_issue(opened.number, "x" * 65_537)
    assert refused.value.status == 422
    assert fake._issues[opened.number].body == "before"
    with pytest.raises(TrackerError) as too_long:
        served.create_issue("Baton dashboard", "x" * 65_537)
    assert too_long.value.status == 422 and len(fake._issues) == 1


def test_pinning_what_is_no_issue_is_refused_with_githubs_words(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    with pytest.raises(TrackerError) as refused:
        served.pin_issue("I_fake999999")
    assert refused.value.kind == "NOT_FOUND"
