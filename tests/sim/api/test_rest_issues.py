"""`baton.sim.api.rest_issues`: REST, served over HTTP by the tests' fake, for
issues, comments, reactions, events and the timeline, through PyGithub."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import github
from fakes.http_github import FakeGitHub
from fakes.http_probe import raw, statuses
from github import GithubException


def test_issue_fields_and_pull_requests(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue(
        "Bug", "details", user="carol", association="CONTRIBUTOR", labels=["bug"]
    )
    pr = fake.add_issue("PR", is_pull_request=True)
    issue = repo.get_issue(number)
    assert (issue.title, issue.body, issue.state) == ("Bug", "details", "open")
    assert issue.user.login == "carol"
    assert issue.user.type == "User"
    assert issue.raw_data["author_association"] == "CONTRIBUTOR"
    assert [label.name for label in issue.labels] == ["bug"]
    assert issue.pull_request is None
    assert "pull_request" not in issue.raw_data
    assert issue.created_at.isoformat() == "2024-01-01T12:00:00+00:00"
    assert repo.get_issue(pr).pull_request is not None


def test_list_issues_paginates_filters_and_sorts(repo: Any, fake: FakeGitHub) -> None:
    for index in range(65):
        fake.add_issue(f"issue {index}", labels=["bug"] if index % 2 else [])
    fake.add_issue("a PR", labels=["bug"], is_pull_request=True)
    fake.update_issue(1, state="closed")

    everything = list(repo.get_issues(state="all"))
    assert len(everything) == 66
    assert [i.number for i in everything[:3]] == [66, 65, 64]  # created desc by default
    assert statuses(fake, "GET", "/issues") == [200, 200, 200]  # 30 + 30 + 6

    open_issues = list(repo.get_issues())
    assert 1 not in {i.number for i in open_issues}
    assert len(open_issues) == 65

    fake.add_label("status:x")
    fake.label_by(3, "status:x", "dave")  # issue 3 has no "bug"
    fake.label_by(4, "status:x", "dave")
    both = list(repo.get_issues(labels=["BUG", "status:x"], direction="asc"))
    assert [i.number for i in both] == [4]
    assert [i.number for i in repo.get_issues(state="closed")] == [1]
    prs = [i for i in repo.get_issues(labels=["bug"]) if i.pull_request is not None]
    assert [i.number for i in prs] == [66]


def test_edit_issue_state_title_body_labels(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("Old", labels=["a"])
    issue = repo.get_issue(number)
    fake.advance(60)
    issue.edit(title="New", body="b", state="closed", state_reason="not_planned", labels=["c"])
    assert (issue.title, issue.state, issue.state_reason) == ("New", "closed", "not_planned")
    assert issue.closed_at is not None
    stored = fake.issue(number)
    assert (stored["title"], stored["body"], stored["labels"]) == ("New", "b", ["c"])
    assert stored["updated_at"] == "2024-01-01T12:01:00Z"
    kinds = [(e["event"], e["actor"]["login"]) for e in fake.events(number)]
    assert kinds[1:] == [
        ("renamed", "github-actions[bot]"),
        ("closed", "github-actions[bot]"),
        ("unlabeled", "github-actions[bot]"),
        ("labeled", "github-actions[bot]"),
    ]
    issue.edit(state="open")
    assert (issue.state, issue.state_reason, issue.closed_at) == ("open", "reopened", None)

    invalid = raw(fake, "PATCH", "/repos/octo/demo/issues/1", json={"state": "merged"})
    assert invalid.status_code == 422
    assert invalid.json()["errors"][0]["field"] == "state"


def test_comments_create_list_since_and_pagination(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    for index in range(44):
        fake.add_comment(number, f"human {index}", user="erin", association="MEMBER")
    issue = repo.get_issue(number)
    fake.advance(3600)
    created = issue.create_comment("from baton")
    assert created.user.login == "github-actions[bot]"
    assert created.user.type == "Bot"
    assert created.raw_data["author_association"] == "NONE"
    assert statuses(fake, "POST", "/comments") == [201]

    listed = list(issue.get_comments())
    assert len(listed) == 45
    assert listed[0].body == "human 0"  # oldest first
    assert listed[-1].id == created.id
    assert len(statuses(fake, "GET", "/comments")) == 2

    recent = list(issue.get_comments(since=fake.now - timedelta(minutes=1)))
    assert [c.body for c in recent] == ["from baton"]
    assert issue.comments == 44  # the count loaded before our comment


def test_comment_get_edit_delete_and_validation(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    stored = fake.add_comment(number, "hi", user="frank")
    comment = repo.get_issue(number).get_comment(stored["id"])
    assert comment.body == "hi"
    assert comment.user.login == "frank"
    fake.advance(5)
    comment.edit("edited")
    assert fake.comment(stored["id"])["body"] == "edited"
    assert fake.comment(stored["id"])["updated_at"] == "2024-01-01T12:00:05Z"
    comment.delete()
    assert fake.comments(number) == []
    with pytest.raises(github.UnknownObjectException):
        repo.get_issue(number).get_comment(stored["id"]).body  # noqa: B018

    empty = raw(fake, "POST", f"/repos/octo/demo/issues/{number}/comments", json={"body": ""})
    assert empty.status_code == 422
    too_long = raw(
        fake, "POST", f"/repos/octo/demo/issues/{number}/comments", json={"body": "x" * 65537}
    )
    assert too_long.status_code == 422
    assert "too long" in too_long.json()["errors"][0]["message"]


def test_reactions(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    stored = fake.add_comment(number, "please")
    comment = repo.get_issue(number).get_comment(stored["id"])
    first = comment.create_reaction("eyes")
    again = comment.create_reaction("eyes")
    assert (first.content, first.user.login) == ("eyes", "github-actions[bot]")
    assert again.id == first.id
    assert statuses(fake, "POST", "/reactions") == [201, 200]
    assert [r.content for r in comment.get_reactions()] == ["eyes"]
    assert fake.comment(stored["id"])["reactions"][0]["content"] == "eyes"
    with pytest.raises(GithubException) as invalid:
        comment.create_reaction("thumbsup")
    assert invalid.value.status == 422

    assert repo.get_issue(number).create_reaction("rocket").content == "rocket"
    assert repo.get_issue(number).raw_data["reactions"]["rocket"] == 1


def test_events_and_timeline_record_actors(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x", user="alice", labels=["type:bug"])
    fake.label_by(number, "approved", "maintainer")
    issue = repo.get_issue(number)
    issue.add_to_labels("status:working")
    fake.add_comment(number, "looks good", user="maintainer")
    fake.unlabel_by(number, "approved", "maintainer")

    events = [(e.event, e.actor.login, e.label.name) for e in issue.get_events()]
    assert events == [
        ("labeled", "alice", "type:bug"),
        ("labeled", "maintainer", "approved"),
        ("labeled", "github-actions[bot]", "status:working"),
        ("unlabeled", "maintainer", "approved"),
    ]
    timeline = [(t.event, t.actor.login) for t in issue.get_timeline()]
    assert timeline == [
        ("labeled", "alice"),
        ("labeled", "maintainer"),
        ("labeled", "github-actions[bot]"),
        ("commented", "maintainer"),
        ("unlabeled", "maintainer"),
    ]
