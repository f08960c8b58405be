"""REST for pull requests, reviews' comments, check runs and merges, through PyGithub."""

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


def test_a_second_pull_request_from_the_branch_and_one_with_no_commits_are_refused(
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

    fake.push("same-as-main", {"b.txt": "b"}, "B")
    fake.merge(fake.open_pull_request("same-as-main", "B"))  # now main has its commit
    none = raw(
        fake,
        "POST",
        "/repos/octo/demo/pulls",
        json={"title": "t", "head": "same-as-main", "base": "main"},
    )
    assert none.status_code == 422
    assert none.json()["errors"][0]["message"] == "No commits between main and same-as-main"


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
