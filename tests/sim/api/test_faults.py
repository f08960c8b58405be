"""The faults the tests queue on the fake GitHub: server errors, the secondary rate limit, 404s,
slow answers, as PyGithub and its retries meet them."""

from __future__ import annotations

import time
from typing import Any

import pytest
import requests

import github
from baton.github import graphql as gql
from baton.sim.api.faults import SECONDARY_RATE_LIMIT_MESSAGE
from fakes.graphql_probe import post, read_vars, run
from fakes.http_github import Call, FakeGitHub
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


# --- faults at GitHub's request level, and the hook between two requests ------------------
def _edits_then_comment(issue_id: str, comment_ids: list[str]) -> gql.Mutation:
    """A document of Baton's shape: comment edits under Baton's aliases, then a new comment."""
    doc = gql.Mutation()
    for n, comment_id in enumerate(comment_ids):
        doc.update_comment(f"edit{n}", comment_id, f"edited {n}")
    doc.add_comment("message", issue_id, "said")
    return doc


def test_a_field_fault_names_the_field_as_githubs_schema_does(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    issue_id = fake.issue_json(number)["node_id"]
    fake.fail_graphql_field("addComment", "FORBIDDEN")  # Baton's alias here is "message"
    doc = _edits_then_comment(issue_id, [])

    answer = run(fake, doc.document(), doc.variables)

    assert answer["data"] == {"message": None}
    assert [(e["type"], e["path"]) for e in answer["errors"]] == [("FORBIDDEN", ["message"])]
    assert fake.comments(number) == []
    assert "errors" not in run(fake, doc.document(), doc.variables)  # once only


def test_a_field_fault_strikes_the_nth_field_of_its_name(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    issue_id = fake.issue_json(number)["node_id"]
    ids = [f"IC_fake{fake.add_comment(number, f'c{n}')['id']}" for n in range(3)]
    fault = fake.fail_graphql_field("updateIssueComment", "NOT_FOUND", after=2)

    doc = _edits_then_comment(issue_id, ids)
    answer = run(fake, doc.document(), doc.variables)

    assert [e["path"] for e in answer["errors"]] == [["edit2"]]
    assert [c["body"] for c in fake.comments(number)] == ["edited 0", "edited 1", "c2", "said"]
    assert fault.hits == 1


def test_a_request_can_die_at_a_field_after_the_fields_before_it_landed(
    fake: FakeGitHub,
) -> None:
    number = fake.add_issue("x")
    issue_id = fake.issue_json(number)["node_id"]
    ids = [f"IC_fake{fake.add_comment(number, f'c{n}')['id']}" for n in range(2)]
    fake.fail_graphql_field("updateIssueComment", status=502, after=1, operation="BatonWrite")
    doc = _edits_then_comment(issue_id, ids)
    body = {"query": doc.document(), "variables": doc.variables}

    died = post(fake, {**body, "operationName": None})

    assert died.status_code == 502
    assert died.json() == {"message": "Server Error"}
    assert [c["body"] for c in fake.comments(number)] == ["edited 0", "c1"]  # nothing after
    assert statuses(fake, "POST", "/graphql") == [502]
    assert post(fake, body).status_code == 200  # once only
    fake.fail_graphql_field("addComment", status=403)  # the secondary rate limit, mid-document
    limited = post(fake, body)
    assert (limited.status_code, limited.headers["retry-after"]) == (403, "1")
    assert limited.json()["message"] == SECONDARY_RATE_LIMIT_MESSAGE
    with pytest.raises(ValueError):
        fake.fail_graphql_field("message", status=200)


def test_the_nth_request_of_a_kind_fails(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    issue = repo.get_issue(number)
    fake.fail("POST", r"/issues/\d+/comments$", 502, after=2)
    issue.create_comment("one")
    issue.create_comment("two")
    with pytest.raises(GithubException):
        issue.create_comment("three")
    issue.create_comment("four")
    assert statuses(fake, "POST", "/comments") == [201, 201, 502, 201]


def test_on_request_runs_between_two_requests_and_not_for_its_own(
    repo: Any, fake: FakeGitHub
) -> None:
    number = fake.add_issue("x")
    issue = repo.get_issue(number)
    fake.reset_requests()
    seen: list[tuple[str, str, int]] = []

    def concurrent_run(call: Call) -> None:
        seen.append((call.method, call.path, call.status))
        if call.method == "POST" and not fake.comments(number):
            issue.create_comment("the other run was first")  # passes the hook by

    fake.on_request = concurrent_run
    issue.create_comment("mine")
    fake.on_request = None
    issue.create_comment("after")

    assert seen == [("POST", f"/repos/octo/demo/issues/{number}/comments", 0)]
    assert [c["body"] for c in fake.comments(number)] == [
        "the other run was first",
        "mine",
        "after",
    ]
    assert statuses(fake, "POST", "/comments") == [201, 201, 201]


def test_on_request_sees_the_graphql_operation(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    operations: list[str | None] = []
    fake.on_request = lambda call: operations.append(call.operation)
    run(fake, gql.read_document(0), read_vars(number))
    assert operations == ["BatonRead"]


def test_an_applied_fault_serves_the_request_then_answers_the_error(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fake.fail("POST", r"/issues/\d+/comments$", 502, applied=True)

    answer = post_comment(fake, number, "landed")

    assert answer.status_code == 502
    assert [c["body"] for c in fake.comments(number)] == ["landed"]  # GitHub posted it
    assert statuses(fake, "POST", "/comments") == [502]


def test_a_timeout_fault_never_answers_and_an_applied_one_is_served_first(
    fake: FakeGitHub,
) -> None:
    number = fake.add_issue("x")
    fake.fail("POST", r"/issues/\d+/comments$", None, timeout=True)
    fake.fail("POST", r"/issues/\d+/comments$", None, timeout=True, applied=True)

    for body in ("lost", "applied"):
        with pytest.raises(requests.exceptions.ConnectionError):
            post_comment(fake, number, body)

    assert [c["body"] for c in fake.comments(number)] == ["applied"]
    assert statuses(fake, "POST", "/comments") == [0, 0]  # logged, never answered
    with pytest.raises(ValueError, match="no status"):
        fake.fail("POST", "/comments$", 502, timeout=True)
    with pytest.raises(ValueError, match="applied"):
        fake.fail("POST", "/comments$", None, delay=1, applied=True)


def post_comment(fake: FakeGitHub, number: int, body: str) -> requests.Response:
    return requests.post(
        f"{fake.url}/repos/octo/demo/issues/{number}/comments",
        json={"body": body},
        headers={"Authorization": f"token {fake.token}"},
        timeout=5,
    )
