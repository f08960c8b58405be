"""The issue's pull request over GitHub: opened as a draft (or the open one found), refused
as GitHub says it, updated and marked ready; a review's inline comments; the failing checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
import responses

from baton.core.model.decision import PullRequestPlan
from baton.errors import PullRequestRefused, StaleHead
from baton.github.client import GitHubTracker
from baton.github.tracker import CommitRequest, FirstCommit, OpenedPullRequest

API = "https://api.github.com:443"
GRAPHQL = f"{API}/graphql"
REPO = f"{API}/repos/octo/demo"
NEW = "3" * 40
PLAN = PullRequestPlan(branch="baton/issue-7", title="Add dark mode (#7)", body="Closes #7")


@pytest.fixture
def tracker() -> GitHubTracker:
    return GitHubTracker("octo/demo", "t0ken", retry=0)


def sent(call: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(call.request.body)
    return body


# --- pull requests --------------------------------------------------------------------------
def test_a_draft_pull_request_is_opened_against_the_default_branch(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(REPO, json={"default_branch": "trunk"})
    mocked.post(f"{REPO}/pulls", status=201, json={"number": 12, "node_id": "PR_12"})
    opened = tracker.open_pull_request(PLAN)
    assert (opened.number, opened.node_id) == (12, "PR_12")
    assert sent(mocked.calls[1]) == {
        "title": "Add dark mode (#7)",
        "head": "baton/issue-7",
        "base": "trunk",
        "body": "Closes #7",
        "draft": True,
    }


def test_actions_not_allowed_to_open_pull_requests_is_said_as_github_says_it(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(REPO, json={"default_branch": "main"})
    mocked.post(
        f"{REPO}/pulls",
        status=403,
        json={"message": "GitHub Actions is not permitted to create or approve pull requests."},
    )
    with pytest.raises(PullRequestRefused) as caught:
        tracker.open_pull_request(PLAN)
    assert "GitHub Actions is not permitted to create or approve pull requests." in str(
        caught.value
    )


def test_the_open_pull_request_of_the_branch_is_returned_instead_of_a_second(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(REPO, json={"default_branch": "main"})
    mocked.post(
        f"{REPO}/pulls",
        status=422,
        json={
            "message": "Validation Failed",
            "errors": [{"message": "A pull request already exists for octo:baton/issue-7."}],
        },
    )
    mocked.get(f"{REPO}/pulls", json=[{"number": 12, "node_id": "PR_12"}])
    assert tracker.open_pull_request(PLAN).number == 12
    assert mocked.calls[2].request.params == {"head": "octo:baton/issue-7", "state": "open"}


# --- the first commit opens it in the same document ----------------------------------------
OLD, OID = "1" * 40, "2" * 40
REQUEST = CommitRequest("baton/issue-7", OLD, "Add dark mode", "", (("a.txt", "YQ=="),))
ACTIONS_REFUSAL = "GitHub Actions is not permitted to create or approve pull requests."


def read_before(tracker: GitHubTracker) -> GitHubTracker:
    """What the run's read taught it: the repository's node id and its default branch."""
    tracker.known.repository_node, tracker.known.default_branch = "R_1", "trunk"
    return tracker


def answer(commit: Any, pull: Any, *errors: tuple[str, str, str]) -> dict[str, Any]:
    found = [{"type": kind, "path": [field], "message": said} for field, kind, said in errors]
    data = {"createCommitOnBranch": commit, "createPullRequest": pull}
    return {"data": data, **({"errors": found} if found else {})}


def test_the_first_commit_opens_its_draft_pull_request_in_the_same_document(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    made = {"pullRequest": {"number": 12, "id": "PR_12"}}
    mocked.post(GRAPHQL, json=answer({"commit": {"oid": OID}}, made))
    first = read_before(tracker).commit_opening(REQUEST, PLAN)
    assert first == FirstCommit(OID, OpenedPullRequest(12, "PR_12"))
    assert tracker.requests == 1
    body = sent(mocked.calls[0])
    assert body["query"].index("createCommitOnBranch") < body["query"].index("createPullRequest")
    assert body["variables"]["input"]["expectedHeadOid"] == OLD
    assert body["variables"]["pullRequest"] == {
        "repositoryId": "R_1",
        "baseRefName": "trunk",
        "headRefName": "baton/issue-7",
        "title": "Add dark mode (#7)",
        "body": "Closes #7",
        "draft": True,
    }


def test_actions_not_allowed_to_open_it_keeps_the_commit_and_says_why(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    refusal = ("createPullRequest", "FORBIDDEN", ACTIONS_REFUSAL)
    mocked.post(GRAPHQL, json=answer({"commit": {"oid": OID}}, None, refusal))
    first = read_before(tracker).commit_opening(REQUEST, PLAN)
    assert (first.oid, first.opened, first.failed) == (OID, None, None)
    assert ACTIONS_REFUSAL in first.problem
    assert tracker.requests == 1


def test_the_open_pull_request_of_the_branch_is_found_when_one_exists_already(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    exists = ("createPullRequest", "UNPROCESSABLE", "A pull request already exists for o:b.")
    mocked.post(GRAPHQL, json=answer({"commit": {"oid": OID}}, None, exists))
    mocked.get(f"{REPO}/pulls", json=[{"number": 9, "node_id": "PR_9"}])
    first = read_before(tracker).commit_opening(REQUEST, PLAN)
    assert first == FirstCommit(OID, OpenedPullRequest(9, "PR_9"))


def test_a_stale_first_commit_is_returned_with_the_pull_request_github_opened_anyway(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """GitHub runs the second field after a failed first: on a branch someone pushed to, the
    pull request opens, and the record must know it."""
    stale = ("createCommitOnBranch", "STALE_DATA", "Expected branch to point to 1111")
    made = {"pullRequest": {"number": 12, "id": "PR_12"}}
    mocked.post(GRAPHQL, json=answer(None, made, stale))
    first = read_before(tracker).commit_opening(REQUEST, PLAN)
    assert isinstance(first.failed, StaleHead)
    assert (first.oid, first.opened) == ("", OpenedPullRequest(12, "PR_12"))


def test_without_the_read_s_repository_id_the_commit_and_the_pull_request_are_two_requests(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json={"data": {"createCommitOnBranch": {"commit": {"oid": OID}}}})
    mocked.get(REPO, json={"default_branch": "main"})
    mocked.post(f"{REPO}/pulls", status=201, json={"number": 12, "node_id": "PR_12"})
    first = tracker.commit_opening(REQUEST, PLAN)
    assert first == FirstCommit(OID, OpenedPullRequest(12, "PR_12"))
    assert "createPullRequest" not in sent(mocked.calls[0])["query"]


def test_the_body_is_updated_over_rest_and_marked_ready_over_graphql(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.patch(f"{REPO}/pulls/12", json={"number": 12})
    mocked.post(GRAPHQL, json={"data": {"ready": {"pullRequest": {"isDraft": False}}}})
    plan = PLAN.model_copy(update={"number": 12, "node_id": "PR_12", "ready": True})
    tracker.update_pull_request(plan)
    assert sent(mocked.calls[0]) == {"body": "Closes #7"}
    assert "markPullRequestReadyForReview" in sent(mocked.calls[1])["query"]


# --- what the payloads leave out -------------------------------------------------------------
def test_a_review_s_inline_comments(mocked: responses.RequestsMock, tracker: GitHubTracker) -> None:
    mocked.get(
        f"{REPO}/pulls/12/reviews/88/comments",
        json=[
            {"path": "src/theme.py", "line": 4, "body": "use a constant"},
            {"path": "README.md", "line": None, "original_line": 9, "body": "typo"},
            {"path": "x", "body": "file comment"},
        ],
    )
    notes = tracker.review_notes(12, 88)
    assert [(n.path, n.line, n.body) for n in notes] == [
        ("src/theme.py", 4, "use a constant"),
        ("README.md", 9, "typo"),
        ("x", None, "file comment"),
    ]


def test_only_failing_checks_are_kept_with_their_output(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(
        f"{REPO}/commits/{NEW}/check-runs",
        json={
            "total_count": 3,
            "check_runs": [
                {"name": "lint", "conclusion": "success", "output": {}},
                {
                    "name": "tests",
                    "conclusion": "failure",
                    "output": {"title": "2 failed", "summary": "test_a\ntest_b", "text": None},
                },
                {"name": "slow", "conclusion": "timed_out", "output": {"title": None}},
            ],
        },
    )
    failing = tracker.failing_checks(NEW)
    assert [(c.name, c.summary) for c in failing] == [
        ("tests", "2 failed\ntest_a\ntest_b"),
        ("slow", ""),
    ]
    assert mocked.calls[0].request.params == {"filter": "latest", "per_page": "100"}
