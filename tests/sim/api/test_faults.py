"""The faults the tests queue on the fake GitHub: server errors, the secondary rate limit, 404s,
slow answers, as PyGithub and its retries meet them."""

from __future__ import annotations

import time
from typing import Any

import pytest
import requests

import github
from fakes.http_github import FakeGitHub
from fakes.http_probe import statuses
from github import GithubException, GithubRetry
from support.http import make_client

BRANCH = "baton/issue-1"


def test_fault_server_errors_then_recovery(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    issue = repo.get_issue(number)
    fake.fail("POST", r"/issues/\d+/comments$", 500)
    fake.fail("POST", r"/issues/\d+/comments$", 502, times=2)
    for expected in (500, 502, 502):
        with pytest.raises(GithubException) as error:
            issue.create_comment("x")
        assert error.value.status == expected
    issue.create_comment("finally")
    assert statuses(fake, "POST", "/comments") == [500, 502, 502, 201]
    assert [c["body"] for c in fake.comments(number)] == ["finally"]


def test_fault_secondary_rate_limit(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fake.fail("*", r"/labels$", 403)
    with pytest.raises(github.RateLimitExceededException) as error:
        repo.get_issue(number).add_to_labels("a")
    assert error.value.status == 403
    assert (error.value.headers or {})["retry-after"] == "1"
    assert "secondary rate limit" in error.value.data["message"]


def test_fault_not_found_and_persistent_faults(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fault = fake.fail("GET", rf"/issues/{number}$", 404, times=None)
    for _ in range(3):
        with pytest.raises(github.UnknownObjectException):
            repo.get_issue(number)
    assert fault.hits == 3
    fake.clear_faults()
    assert repo.get_issue(number).title == "x"
    with pytest.raises(ValueError):
        fake.fail("GET", "x", None)


def test_faults_are_retried_by_github_retry(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    retrying = make_client(fake, retry=GithubRetry(total=3, backoff_factor=0))
    fake.fail("POST", "/comments$", 502)
    fake.fail("POST", "/comments$", 403, headers={"Retry-After": "0"})  # keep the test fast
    retrying.get_repo("octo/demo").get_issue(number).create_comment("eventually")
    assert statuses(fake, "POST", "/comments") == [502, 403, 201]
    assert len(fake.comments(number)) == 1


def test_fault_delay_trips_client_timeout(fake: FakeGitHub) -> None:
    fake.add_issue("x")
    fake.fail("GET", r"/issues/1$", 502, delay=10)  # stop() cuts the sleep short
    with pytest.raises(requests.exceptions.Timeout):
        make_client(fake, timeout=1).get_repo("octo/demo").get_issue(1)


def test_delayed_write_is_applied_after_client_gave_up(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fake.fail("POST", "/comments$", None, delay=0.3)
    with pytest.raises(requests.exceptions.Timeout):
        requests.post(
            f"{fake.url}/repos/octo/demo/issues/{number}/comments",
            json={"body": "late"},
            headers={"Authorization": f"token {fake.token}"},
            timeout=0.1,
        )
    deadline = time.monotonic() + 5
    while not fake.comments(number) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [c["body"] for c in fake.comments(number)] == ["late"]
    assert statuses(fake, "POST", "/comments") == [201]


def test_faults_reach_the_new_routes(repo: Any, fake: FakeGitHub) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    fake.fail("POST", r"/pulls$", 502)

    with pytest.raises(GithubException) as failed:
        repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True)

    assert failed.value.status == 502
    assert repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True).number == 1
