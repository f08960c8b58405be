"""The check runs Baton posts over GitHub (`github/checks.py`): one REST call with exactly the
payload GitHub's "create a check run" takes, never repeated after a 5xx (GitHub may have made
it), GitHub's refusal raised with its status; and against the fake GitHub, the run as GitHub
lists it for the commit."""

from __future__ import annotations

import json

import pytest
import responses

from baton.core.model.decision import CheckPlan
from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from fakes.http_github import FakeGitHub

API = "https://api.github.com:443"
REPO = f"{API}/repos/octo/demo"
COMMIT = "ab" * 20
PLAN = CheckPlan(
    commit=COMMIT,
    conclusion="failure",
    title="failing: 1 test fails",
    summary="| test | why |\n|---|---|\n| test\\_csv | assert 1 == 2 |",
    external_id="n0nce",
)


def test_a_check_run_is_posted_completed_with_its_output_and_attempt(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    html = "https://github.com/octo/demo/runs/42"
    mocked.post(f"{REPO}/check-runs", status=201, json={"id": 42, "html_url": html})

    posted = tracker.create_check_run(PLAN)

    assert (posted.id, posted.url) == (42, html)
    assert json.loads(mocked.calls[0].request.body) == {
        "name": "Baton / tests",
        "head_sha": COMMIT,
        "status": "completed",
        "conclusion": "failure",
        "output": {"title": PLAN.title, "summary": PLAN.summary},
        "external_id": "n0nce",
    }
    assert tracker.requests == 1


def test_a_check_run_of_no_attempt_sends_no_external_id(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(f"{REPO}/check-runs", status=201, json={"id": 7})
    tracker.create_check_run(PLAN.model_copy(update={"external_id": ""}))
    assert "external_id" not in json.loads(mocked.calls[0].request.body)


def test_a_5xx_is_not_posted_again() -> None:
    """GitHub may have created the run before the 502: a second POST would show it twice."""
    tracker = GitHubTracker("octo/demo", "t0ken")  # retrying as the Action does
    with responses.RequestsMock() as mocked:
        mocked.post(f"{REPO}/check-runs", status=502, json={"message": "Server Error"})
        with pytest.raises(TrackerError) as caught:
            tracker.create_check_run(PLAN)
        assert len(mocked.calls) == 1
    assert caught.value.status == 502


def test_a_token_without_checks_write_is_refused_with_github_s_words(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    said = "Resource not accessible by integration"
    mocked.post(f"{REPO}/check-runs", status=403, json={"message": said})
    with pytest.raises(TrackerError) as caught:
        tracker.create_check_run(PLAN)
    assert caught.value.status == 403
    assert str(caught.value) == (
        "GitHub refused posting the check run 'Baton / tests' on abababa "
        "(POST /repos/octo/demo/check-runs): 403 Resource not accessible by integration"
    )


def test_against_the_fake_the_run_is_listed_for_its_commit_as_github_lists_it() -> None:
    with FakeGitHub() as fake:
        head = fake.branch_head("main")
        assert head is not None
        tracker = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)

        posted = tracker.create_check_run(PLAN.model_copy(update={"commit": head}))

        (run,) = fake.check_runs_on(head)
        assert run["id"] == posted.id and run["html_url"] == posted.url
        assert (run["name"], run["status"], run["conclusion"]) == (
            "Baton / tests",
            "completed",
            "failure",
        )
        assert run["external_id"] == "n0nce"
        assert run["output"]["title"] == PLAN.title and run["output"]["summary"] == PLAN.summary
        assert run["app"]["slug"] == "github-actions"
        assert tracker.failing_checks(head)[0].name == "Baton / tests"


def test_against_the_fake_a_commit_github_lacks_is_its_422() -> None:
    with FakeGitHub() as fake:
        tracker = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)
        with pytest.raises(TrackerError) as caught:
            tracker.create_check_run(PLAN)
        assert caught.value.status == 422
        assert caught.value.said == f"No commit found for SHA: {COMMIT}"
