"""`baton.sim.api.rest_pulls`: REST, served over HTTP by the tests' fake, for
pull requests, reviews' comments, check runs and merges, through PyGithub."""

from __future__ import annotations

from typing import Any

import pytest

import github
from fakes.http_github import FakeGitHub
from fakes.http_probe import raw
from github import GithubException

BRANCH = "baton/issue-1"


def test_a_pull_request_is_opened_as_a_draft_with_the_next_issue_number(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.add_issue("Export as CSV")
    head = fake.push(BRANCH, {"a.txt": "a"})

    pull = repo.create_pull(
        base="main", head=f"octo:{BRANCH}", title="CSV", body="Fixes #1", draft=True
    )

    assert pull.number == 2
    assert pull.node_id == f"PR_fake{pull.id}"
    assert (pull.draft, pull.state, pull.merged) == (True, "open", False)
    assert (pull.head.ref, pull.head.sha, pull.base.ref) == (BRANCH, head, "main")
    assert pull.user.login == "github-actions[bot]"
    assert pull.html_url == "https://github.com/octo/demo/pull/2"
    assert fake.calls("POST", "/pulls")[-1].status == 201
    assert repo.get_pull(2).body == "Fixes #1"
    assert repo.get_issue(2).pull_request is not None  # a pull request is an issue too
    with pytest.raises(github.UnknownObjectException):
        repo.get_pull(1)  # an issue is no pull request


def test_a_refused_pull_request_is_a_422_with_githubs_custom_error(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True)

    again = raw(
        fake, "POST", "/repos/octo/demo/pulls", json={"title": "t", "head": BRANCH, "base": "main"}
    )
    assert again.status_code == 422
    assert again.json()["errors"] == [
        {
            "resource": "PullRequest",
            "code": "custom",
            "message": f"A pull request already exists for octo:{BRANCH}.",
        }
    ]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"head": BRANCH, "base": "main"}, "title"),
        ({"title": "t", "base": "main"}, "head"),
        ({"title": "t", "head": "no-such-branch", "base": "main"}, "head"),
        ({"title": "t", "head": f"someone:{BRANCH}", "base": "main"}, "head"),
        ({"title": "t", "head": BRANCH, "base": "no-such-base"}, "base"),
    ],
)
def test_a_pull_request_with_a_missing_or_unknown_field_is_refused(
    fake: FakeGitHub, body: dict[str, str], field: str
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})

    refused = raw(fake, "POST", "/repos/octo/demo/pulls", json=body)

    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == field


def test_when_actions_may_not_open_pull_requests_github_answers_403(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    fake.actions_may_open_pull_requests = False

    with pytest.raises(GithubException) as refused:
        repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True)

    assert refused.value.status == 403
    assert refused.value.data["message"] == (
        "GitHub Actions is not permitted to create or approve pull requests."
    )
    assert "create-a-pull-request" in refused.value.data["documentation_url"]


def test_pull_requests_are_listed_by_head_and_state(repo: Any, fake: FakeGitHub) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    fake.push("other", {"b.txt": "b"})
    first = fake.open_pull_request(BRANCH, "mine", by="bob")
    fake.close_pull_request(first)
    second = repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True).number
    fake.open_pull_request("other", "theirs")

    def numbers(**query: str) -> list[int]:
        return [p.number for p in repo.get_pulls(**query)]

    assert numbers(state="open", head=f"octo:{BRANCH}") == [second]
    assert numbers(state="all", head=f"octo:{BRANCH}") == [second, first]
    assert numbers(state="closed") == [first]
    assert numbers(state="open", head=f"stranger:{BRANCH}") == []
    assert len(numbers()) == 2


def test_a_reviews_inline_comments_are_listed(repo: Any, fake: FakeGitHub) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    number = fake.open_pull_request(BRANCH, "CSV")
    review = fake.review(
        number,
        "maria",
        "changes_requested",
        "Almost",
        notes=[("a.txt", 1, "Say b"), ("b", None, "Add b")],
    )

    comments = list(repo.get_pull(number).get_single_review_comments(review))

    assert [(c.path, c.line, c.body) for c in comments] == [
        ("a.txt", 1, "Say b"),
        ("b", None, "Add b"),
    ]
    assert comments[0].commit_id == head
    assert comments[0].pull_request_review_id == review
    assert comments[0].user.login == "maria"
    wrong = raw(fake, "GET", f"/repos/octo/demo/pulls/{number}/reviews/{review + 99}/comments")
    assert wrong.status_code == 404


def test_check_runs_are_the_latest_per_name_unless_all_and_paginated(
    repo: Any, fake: FakeGitHub
) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    fake.add_check_run(head, "lint", "failure", "E501")
    fake.add_check_run(head, "lint", "success")
    fake.add_check_run(head, "tests", "failure", "2 failed", title="pytest", text="details")
    for index in range(3):
        fake.add_check_run(head, f"matrix-{index}", "success")

    latest = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs").json()
    assert latest["total_count"] == 5
    tests = next(run for run in latest["check_runs"] if run["name"] == "tests")
    assert tests["output"]["title"] == "pytest" and tests["output"]["summary"] == "2 failed"
    assert (tests["status"], tests["conclusion"], tests["head_sha"]) == (
        "completed",
        "failure",
        head,
    )
    everything = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs?filter=all")
    assert everything.json()["total_count"] == 6

    runs = list(repo.get_commit(head).get_check_runs(filter="latest"))
    assert sorted(run.name for run in runs if run.conclusion == "failure") == ["tests"]
    paged = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs?per_page=2")
    assert len(paged.json()["check_runs"]) == 2
    assert 'rel="next"' in paged.headers["link"]
    failed = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs?status=in_progress")
    assert failed.json() == {"total_count": 0, "check_runs": []}


CHECK = {
    "name": "Baton / tests",
    "status": "completed",
    "conclusion": "neutral",
    "output": {"title": "red: 1 failing", "summary": "test_csv fails"},
    "external_id": "n0nce",
}


def test_an_app_creates_a_check_run_as_github_answers_it(repo: Any, fake: FakeGitHub) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})

    made = raw(fake, "POST", "/repos/octo/demo/check-runs", json={**CHECK, "head_sha": head})

    assert made.status_code == 201
    run = made.json()
    assert (run["name"], run["head_sha"], run["status"], run["conclusion"]) == (
        "Baton / tests",
        head,
        "completed",
        "neutral",
    )
    assert run["external_id"] == "n0nce" and run["output"]["summary"] == "test_csv fails"
    assert run["app"]["slug"] == "github-actions"
    assert run["completed_at"] is not None and run["html_url"].endswith(f"/runs/{run['id']}")
    listed = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs").json()
    assert [r["id"] for r in listed["check_runs"]] == [run["id"]]
    assert fake.check_runs_on(head) == [run]
    (seen,) = repo.get_commit(head).get_check_runs()
    assert (seen.name, seen.conclusion, seen.external_id) == ("Baton / tests", "neutral", "n0nce")


def test_a_conclusion_completes_the_run_and_a_run_without_one_stays_queued(
    fake: FakeGitHub,
) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    concluded = {"name": "x", "head_sha": head, "conclusion": "success"}
    assert raw(fake, "POST", "/repos/octo/demo/check-runs", json=concluded).json()["status"] == (
        "completed"
    )
    started = raw(fake, "POST", "/repos/octo/demo/check-runs", json={"name": "y", "head_sha": head})
    assert started.status_code == 201 and started.json()["conclusion"] is None


@pytest.mark.parametrize(
    ("change", "error"),
    [
        pytest.param(
            {"name": ""},
            {"resource": "CheckRun", "code": "missing_field", "field": "name"},
            id="no name",
        ),
        pytest.param(
            {"conclusion": None},
            {
                "resource": "CheckRun",
                "code": "missing_field",
                "field": "conclusion",
                "message": "conclusion is required when status is completed",
            },
            id="completed without a conclusion",
        ),
        pytest.param(
            {"conclusion": "passed"},
            {"resource": "CheckRun", "code": "invalid", "field": "conclusion"},
            id="a conclusion GitHub does not know",
        ),
        pytest.param(
            {"output": {"title": "t", "summary": "x" * 65_536}},
            {
                "resource": "CheckRun",
                "code": "custom",
                "field": "summary",
                "message": "summary is too long (maximum is 65535 characters)",
            },
            id="a summary over 65,535 characters",
        ),
        pytest.param(
            {"output": {"summary": "no title"}},
            {"resource": "CheckRun", "code": "missing_field", "field": "output"},
            id="an output without its title",
        ),
    ],
)
def test_github_refuses_a_check_run_it_cannot_take(
    fake: FakeGitHub, change: dict[str, Any], error: dict[str, str]
) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    body = {**CHECK, "head_sha": head, **change}
    if body["conclusion"] is None:
        del body["conclusion"]

    refused = raw(fake, "POST", "/repos/octo/demo/check-runs", json=body)

    assert refused.status_code == 422
    assert refused.json()["errors"] == [error]
    assert fake.check_runs_on(head) == []


def test_a_check_run_on_a_commit_github_lacks_is_refused(fake: FakeGitHub) -> None:
    unknown = "0" * 40
    refused = raw(fake, "POST", "/repos/octo/demo/check-runs", json={**CHECK, "head_sha": unknown})
    assert refused.status_code == 422
    assert refused.json()["message"] == f"No commit found for SHA: {unknown}"


def test_a_merge_brings_the_branch_to_main_and_marks_the_pull_request(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    number = fake.open_pull_request(BRANCH, "CSV")
    fake.push("main", {"other.txt": "o"}, "Meanwhile")

    merge = fake.merge(number, by="maria")

    pull = repo.get_pull(number)
    assert (pull.state, pull.merged, pull.merge_commit_sha) == ("closed", True, merge)
    assert pull.merged_by.login == "maria"
    assert fake.file_at("main", "a.txt") == "a" and fake.file_at("main", "other.txt") == "o"
    assert len(repo.get_commit("main").parents) == 2
