"""The issue and its record over GitHub: one GraphQL read (paged, refused, or again over REST),
comments, permissions, teams, the dispatch, several issues at once, the breaker's count."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta

import pytest
import responses

from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from baton.github.tracker import (
    DispatchTarget,
)
from baton.sim.model.rules import permission_answer
from fakes.http_github import FakeGitHub
from support.github_answers import API, GRAPHQL, REPO, comment, issue_answer, node, read_issue, sent


def test_comments_are_read_to_the_last_page(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    first = [comment(i) for i in range(1, 101)]
    second = [comment(101, "github-actions[bot]", bot=True)]
    mocked.get(
        f"{REPO}/issues/7/comments",
        json=first,
        headers={"Link": f'<{REPO}/issues/7/comments?page=2>; rel="next"'},
        match=[responses.matchers.query_param_matcher({"per_page": "100", "page": "1"})],
    )
    mocked.get(
        f"{REPO}/issues/7/comments",
        json=second,
        match=[responses.matchers.query_param_matcher({"per_page": "100", "page": "2"})],
    )
    found = tracker.comments(7)
    assert len(found) == 101
    assert found[-1].author == "github-actions[bot]" and found[-1].author_is_bot
    assert tracker.requests == 2


def test_an_unknown_user_has_no_permission(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(f"{REPO}/collaborators/ghost/permission", status=404, json={"message": "Not Found"})
    assert tracker.permission("ghost") == "none"


@pytest.mark.parametrize("role", ["maintain", "triage"])
def test_the_permission_is_the_repository_role_not_the_legacy_field(
    mocked: responses.RequestsMock, tracker: GitHubTracker, role: str
) -> None:
    answer = permission_answer(role)
    answer.pop("permissions")
    mocked.get(f"{REPO}/collaborators/tess/permission", json=answer)

    assert tracker.permission("tess") == role


def test_a_team_membership_must_be_active(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(f"{API}/orgs/octo/teams/core/memberships/ann", json={"state": "pending"})
    mocked.get(f"{API}/orgs/octo/teams/core/memberships/bo", json={"state": "active"})
    mocked.get(f"{API}/orgs/octo/teams/core/memberships/cy", status=404, json={})
    assert not tracker.is_team_member("octo/core", "ann")
    assert tracker.is_team_member("octo/core", "bo")
    assert not tracker.is_team_member("octo/core", "cy")


def test_dispatch_targets_the_running_workflow_file_and_ref(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    call = mocked.post(f"{REPO}/actions/workflows/baton.yml/dispatches", status=204)
    target = DispatchTarget.from_workflow_ref(
        "octo/demo/.github/workflows/baton.yml@refs/heads/main"
    )
    tracker.dispatch(target, {"issue": "3"})
    assert json.loads(call.calls[0].request.body) == {
        "ref": "refs/heads/main",
        "inputs": {"issue": "3"},
    }


def test_one_query_reads_the_issue_its_labels_comments_and_the_status_label_ids(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    comments = [node(1), node(2, "github-actions", bot=True)]
    query = mocked.post(GRAPHQL, json=issue_answer(comments))
    snapshot = labelled.read(7, with_issue=True)
    assert labelled.requests == 1
    request = sent(query.calls[0])
    assert request["query"].startswith("query BatonRead(")
    assert request["variables"] == {
        "owner": "octo",
        "name": "demo",
        "number": 7,
        "after": None,
        "l0": "status:received",
        "l1": "status:triage",
    }
    assert snapshot.issue is not None
    assert snapshot.issue.labels == ("bug",) and snapshot.issue.state == "open"
    assert not snapshot.issue.is_pull_request
    assert [c.id for c in snapshot.comments] == [1, 2]
    # GraphQL names a bot without the suffix REST, webhooks and the record's author check use.
    assert snapshot.comments[1].author == "github-actions[bot]"
    assert snapshot.comments[1].author_is_bot and not snapshot.comments[0].author_is_bot
    assert snapshot.comments[0].association == "MEMBER"


def test_comments_past_the_first_hundred_are_paged_with_the_cursor(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json=issue_answer([node(i) for i in range(1, 101)], more=True))
    page = {
        "data": {
            "repository": {
                "issueOrPullRequest": {
                    "__typename": "Issue",
                    "comments": {
                        "pageInfo": {"hasNextPage": False, "endCursor": "c2"},
                        "nodes": [node(101)],
                    },
                }
            }
        }
    }
    mocked.post(GRAPHQL, json=page)
    snapshot = labelled.read(7, with_issue=False)
    assert len(snapshot.comments) == 101 and labelled.requests == 2
    second = sent(mocked.calls[1])
    assert second["query"].startswith("query BatonComments(")
    assert second["variables"]["after"] == "c1"


def test_a_missing_issue_is_a_404(mocked: responses.RequestsMock, labelled: GitHubTracker) -> None:
    mocked.post(
        GRAPHQL,
        json={
            "data": {"repository": {"issueOrPullRequest": None, "l0": None, "l1": None}},
            "errors": [
                {
                    "type": "NOT_FOUND",
                    "path": ["repository", "issueOrPullRequest"],
                    "message": "Could not resolve to an issue with the number of 7.",
                }
            ],
        },
    )
    with pytest.raises(TrackerError) as failed:
        labelled.read(7, with_issue=True)
    assert failed.value.status == 404 and "number of 7" in str(failed.value)


def test_the_concurrency_check_reads_the_record_through_graphql(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    read_issue(mocked, labelled)
    check = mocked.post(
        GRAPHQL,
        json={
            "data": {"node": {"__typename": "IssueComment", **node(5, "github-actions", bot=True)}}
        },
    )
    found = labelled.comment(5)
    assert found is not None and found.body == "comment 5"
    assert sent(check.calls[-1])["variables"] == {"id": "IC_5"}
    mocked.post(
        GRAPHQL,
        json={
            "data": {"node": None},
            "errors": [{"type": "NOT_FOUND", "path": ["node"], "message": "gone"}],
        },
    )
    assert labelled.comment(5) is None


def test_a_read_that_failed_while_running_is_read_over_rest_once(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """`data: null` on a query (GitHub timed out reading): this read goes over REST, and the
    next one tries GraphQL again; only a document GitHub refuses turns GraphQL off."""
    mocked.post(GRAPHQL, json={"data": None, "errors": [{"message": "timeout"}]})
    mocked.get(f"{REPO}/issues/7/comments", json=[])
    labelled.read(7, with_issue=False)
    assert labelled.graphql and "read over REST instead" in labelled.notes[0]


def test_a_comment_page_answered_with_an_error_fails_the_read(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """A missing page would read like a lost record or an approval never given."""
    mocked.post(GRAPHQL, json=issue_answer([node(i) for i in range(1, 101)], more=True))
    mocked.post(
        GRAPHQL,
        json={
            "data": {"repository": None},
            "errors": [{"type": "FORBIDDEN", "path": ["repository"], "message": "no"}],
        },
    )
    with pytest.raises(TrackerError, match="comments after 100"):
        labelled.read(7, with_issue=False)


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def served(fake: FakeGitHub) -> GitHubTracker:
    return GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)


def operations(fake: FakeGitHub) -> list[str]:
    return [c.operation or f"{c.method} {c.path}" for c in fake.requests]


def test_read_many_reads_several_issues_in_one_document_and_pages_long_ones(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    small, big = fake.add_issue("a"), fake.add_issue("b")
    pr = fake.add_issue("PR", is_pull_request=True)
    fake.add_comment(small, "one")
    for i in range(150):
        fake.add_comment(big, f"comment {i}")
    fake.reset_requests()

    assert served.read_many([]) == {}
    assert fake.requests == []

    read = served.read_many([small, big, big, pr, 999])

    # one document for all, one more page for the issue with 150 comments; a pull request and
    # an issue that is not there are left out
    assert operations(fake) == ["BatonReadMany", "BatonComments"]
    assert sorted(read) == [small, big]
    assert [c.body for c in read[small].comments] == ["one"]
    assert [c.body for c in read[big].comments] == [f"comment {i}" for i in range(150)]
    assert read[small].issue is None and read[small].branch is None
    # the comments' node ids are known: one can be read back by GraphQL
    first = read[big].comments[0]
    assert served.comment(first.id) == first


def test_read_many_goes_over_rest_without_graphql(fake: FakeGitHub) -> None:
    served = GitHubTracker(
        fake.repo_full_name, fake.token, api_url=fake.url, retry=0, graphql=False
    )
    one = fake.add_issue("a")
    fake.add_comment(one, "hi")
    fake.reset_requests()
    read = served.read_many([one])
    assert [c.body for c in read[one].comments] == ["hi"]
    assert operations(fake) == [f"GET /repos/octo/demo/issues/{one}/comments"]


def test_the_count_is_one_call_over_open_labelled_issues(fake: FakeGitHub) -> None:
    served = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)
    for title in ("one", "two", "three"):
        fake.add_issue(title, labels=["baton:failing"])
    fake.add_issue("fine")
    since = fake.now - timedelta(hours=1)
    before = served.requests
    assert served.failing_issues("baton:failing", since, 10) == 3
    assert served.requests - before == 1
    assert served.failing_issues("baton:failing", since, 2) == 2  # enough to open it


def test_issues_updated_before_the_window_do_not_count(fake: FakeGitHub) -> None:
    served = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)
    fake.add_issue("old", labels=["baton:failing"])
    later = fake.now + timedelta(hours=1)
    assert served.failing_issues("baton:failing", later, 10) == 0
