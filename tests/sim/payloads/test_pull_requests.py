"""The events of the issue's branch and pull request (`sim/payloads/pull_requests.py`): both
fake GitHubs give the same payloads, in GitHub's shapes, read as the same event."""

from __future__ import annotations

from typing import Any

import pytest

from baton import webhooks
from baton.sim import payloads
from baton.workflow.config import Policy
from support.payload_story import NOW, Both, shape

# --- the issue's branch and pull request ----------------------------------------------------------
BRANCH = "baton/issue-1"
SHA = "c" * 40
WORK_PAYLOADS = [
    pytest.param(
        "pull_request_review",
        lambda gh: payloads.pull_request_review(
            gh,
            number=7,
            branch=BRANCH,
            head_sha=SHA,
            review_id=31,
            state="approved",
            reviewer="maria",
            body="Ship it.",
        ),
        id="a review",
    ),
    pytest.param(
        "pull_request",
        lambda gh: payloads.pull_request_closed(
            gh, number=7, branch=BRANCH, head_sha=SHA, merged=True, sender="maria"
        ),
        id="a merge",
    ),
    pytest.param(
        "check_suite",
        lambda gh: payloads.check_suite_completed(
            gh, branch=BRANCH, head_sha=SHA, conclusion="failure", suite_id=5, pull_requests=[7]
        ),
        id="a check suite",
    ),
    pytest.param(
        "workflow_run",
        lambda gh: payloads.workflow_run_completed(
            gh, branch=BRANCH, head_sha=SHA, conclusion="failure", run_id=9, pull_requests=[7]
        ),
        id="a workflow run",
    ),
]


@pytest.mark.parametrize(("name", "build"), WORK_PAYLOADS)
def test_either_fake_gives_the_same_branch_event_in_the_same_shape(
    both: Both, name: str, build: Any
) -> None:
    sim, http = build(both.sim), build(both.http)

    assert shape(sim) == shape(http)
    parsed = [webhooks.parse(name, p, Policy(), now=NOW) for p in (sim, http)]
    assert parsed[0] == parsed[1]
    assert parsed[0].issue.number == 1


def test_a_review_payload_has_githubs_fields(both: Both) -> None:
    payload = payloads.pull_request_review(
        both.http,
        number=7,
        branch=BRANCH,
        head_sha=SHA,
        review_id=31,
        state="approved",
        reviewer="maria",
    )

    assert payload["action"] == "submitted"
    assert set(payload) == {"action", "review", "pull_request", "repository", "sender"}
    review = payload["review"]
    assert (review["state"], review["commit_id"], review["user"]["login"]) == (
        "approved",
        SHA,
        "maria",
    )
    head = payload["pull_request"]["head"]
    assert (head["ref"], head["sha"], head["repo"]["full_name"]) == (BRANCH, SHA, "octo/demo")
    assert payload["pull_request"]["draft"] is True


def test_a_merge_payload_names_the_merger_and_a_close_names_none(both: Both) -> None:
    merged = payloads.pull_request_closed(
        both.http, number=7, branch=BRANCH, head_sha=SHA, merged=True, sender="maria"
    )
    closed = payloads.pull_request_closed(
        both.http, number=7, branch=BRANCH, head_sha=SHA, merged=False, sender="tess"
    )

    assert (merged["action"], merged["number"]) == ("closed", 7)
    assert merged["pull_request"]["merged_by"]["login"] == "maria"
    assert merged["pull_request"]["merged_at"] is not None
    assert (closed["pull_request"]["merged"], closed["pull_request"]["merged_by"]) == (False, None)
    assert closed["pull_request"]["state"] == "closed"


def test_a_forks_check_suite_has_no_branch_and_no_pull_requests(both: Both) -> None:
    payload = payloads.check_suite_completed(
        both.http,
        branch=BRANCH,
        head_sha=SHA,
        conclusion="failure",
        suite_id=5,
        pull_requests=[7],
        from_fork=True,
    )

    assert payload["check_suite"]["head_branch"] is None
    assert payload["check_suite"]["pull_requests"] == []


def test_a_forks_workflow_run_names_the_fork_as_its_head_repository(both: Both) -> None:
    payload = payloads.workflow_run_completed(
        both.http, branch=BRANCH, head_sha=SHA, conclusion="failure", run_id=9, fork="mallory"
    )

    run = payload["workflow_run"]
    assert run["head_repository"]["full_name"] == "mallory/demo"
    assert run["repository"]["full_name"] == "octo/demo"
    assert run["pull_requests"] == []
