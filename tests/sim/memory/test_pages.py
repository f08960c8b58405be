"""The dashboard's calls in memory, as GitHub answers them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.errors import TrackerError
from baton.sim.memory_github import MemoryGitHub


def test_closed_issues_are_listed_newest_first_since_a_time() -> None:
    hub = MemoryGitHub()
    old, recent, still = hub.open_issue("old"), hub.open_issue("recent"), hub.open_issue("open")
    hub.human_close(old)
    hub.now = hub.now + timedelta(hours=2)
    since = hub.now
    hub.human_close(recent)
    issues, more = hub.closed_issues(since, 1)
    assert [i.number for i in issues] == [recent] and more is None
    assert still not in [i.number for i in issues]


def test_an_issue_is_opened_as_the_bot_pinned_and_its_body_edited() -> None:
    hub = MemoryGitHub()
    opened = hub.create_issue("Baton dashboard", "first")
    hub.pin_issue(opened.node_id)
    hub.edit_issue(opened.number, "second")
    issue = hub.issues[opened.number]
    assert (issue.author, issue.pinned, issue.body) == (hub.bot_login, True, "second")
    assert [hub.calls[c] for c in ("create_issue", "pin_issue", "edit_issue")] == [1, 1, 1]


def test_a_body_over_githubs_limit_is_refused_whole() -> None:
    hub = MemoryGitHub()
    opened = hub.create_issue("Baton dashboard", "before")
    with pytest.raises(TrackerError) as refused:
        hub.edit_issue(opened.number, "x" * 65_537)
    assert refused.value.status == 422 and hub.issues[opened.number].body == "before"
    with pytest.raises(TrackerError):
        hub.create_issue("Baton dashboard", "x" * 65_537)
    assert len(hub.issues) == 1


def test_a_pull_request_cannot_be_pinned() -> None:
    hub = MemoryGitHub()
    number = hub.open_issue("x")
    hub.issues[number].is_pull_request = True
    with pytest.raises(TrackerError) as refused:
        hub.pin_issue(hub.node_id_of(number))
    assert refused.value.status == 422
