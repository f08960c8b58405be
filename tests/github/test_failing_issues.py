"""The repository-wide breaker's count over real HTTP: one listing of the open issues carrying
its label, updated since the window's start, never more than the threshold asked for."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from baton.github.client import GitHubTracker
from fakes.http_github import FakeGitHub


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


def test_the_count_is_one_call_over_open_labelled_issues(fake: FakeGitHub) -> None:
    tracker = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)
    for title in ("one", "two", "three"):
        fake.add_issue(title, labels=["baton:failing"])
    fake.add_issue("fine")
    since = fake.now - timedelta(hours=1)
    before = tracker.requests
    assert tracker.failing_issues("baton:failing", since, 10) == 3
    assert tracker.requests - before == 1
    assert tracker.failing_issues("baton:failing", since, 2) == 2  # enough to open it


def test_issues_updated_before_the_window_do_not_count(fake: FakeGitHub) -> None:
    tracker = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)
    fake.add_issue("old", labels=["baton:failing"])
    later = fake.now + timedelta(hours=1)
    assert tracker.failing_issues("baton:failing", later, 10) == 0
