"""Focused tests of the PyGithub tracker at the HTTP boundary, with `responses`.

PyGithub builds its URLs with an explicit :443, so the mocks are registered that way.
"""

from __future__ import annotations

import json

import pytest
import responses

from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from baton.github.tracker import DispatchTarget, LabelSpec
from baton.sim.github.rules import permission_answer
from github import GithubRetry

API = "https://api.github.com:443"
REPO = f"{API}/repos/octo/demo"
SPEC = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")


@pytest.fixture
def tracker() -> GitHubTracker:
    return GitHubTracker("octo/demo", "t0ken", retry=0)


def comment(number: int, login: str = "alice", bot: bool = False) -> dict[str, object]:
    return {
        "id": number,
        "body": f"comment {number}",
        "user": {"login": login, "type": "Bot" if bot else "User"},
        "author_association": "NONE",
        "created_at": "2026-01-05T09:00:00Z",
    }


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


def test_adding_a_new_status_label_styles_it_once(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    added = mocked.post(
        f"{REPO}/issues/3/labels",
        json=[{"name": "bug", "color": "d73a4a"}, {"name": "status:received", "color": "ededed"}],
    )
    styled = mocked.patch(f"{REPO}/labels/status%3Areceived", json={})
    removed = mocked.delete(f"{REPO}/issues/3/labels/baton", json=[])
    tracker.set_labels(3, ("bug", "baton"), ("bug", "status:received"), {SPEC.name: SPEC})
    assert json.loads(added.calls[0].request.body) == {"labels": ["status:received"]}
    assert json.loads(styled.calls[0].request.body) == {
        "color": "1d76db",
        "description": "Baton: Issue just arrived",
    }
    assert removed.call_count == 1


def test_an_existing_styled_label_is_not_patched(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(
        f"{REPO}/issues/3/labels",
        json=[{"name": "status:received", "color": "1d76db", "description": "Baton: x"}],
    )
    tracker.set_labels(3, (), ("status:received",), {SPEC.name: SPEC})
    assert tracker.requests == 1


def test_removing_a_label_that_is_already_gone_is_fine(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.delete(
        f"{REPO}/issues/3/labels/status%3Areceived",
        status=404,
        json={"message": "Label does not exist"},
    )
    tracker.set_labels(3, ("status:received",), (), {})


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


def test_failures_name_the_call_and_status_but_never_the_token(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.patch(f"{REPO}/issues/comments/9", status=500, json={"message": "Server Error"})
    with pytest.raises(TrackerError) as raised:
        tracker.edit_comment(9, "body")
    assert raised.value.status == 500
    assert "updating comment 9" in str(raised.value)
    assert "t0ken" not in str(raised.value)
    request = mocked.calls[0].request
    assert request.headers["Authorization"] in {"token t0ken", "Bearer t0ken"}


def test_server_errors_are_retried_before_giving_up(mocked: responses.RequestsMock) -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", retry=GithubRetry(total=2, backoff_factor=0))
    mocked.get(f"{REPO}/issues/4", status=502, json={"message": "Bad Gateway"})
    mocked.get(
        f"{REPO}/issues/4",
        json={"number": 4, "title": "t", "labels": [{"name": "status:received"}], "user": {}},
    )
    info = tracker.issue(4)
    assert info.labels == ("status:received",)


def test_a_repository_name_without_owner_is_refused() -> None:
    with pytest.raises(TrackerError, match="owner/name"):
        GitHubTracker("demo", "t0ken")


def test_api_url_is_honoured_for_enterprise_servers(mocked: responses.RequestsMock) -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", api_url="https://ghe.example.com/api/v3", retry=0)
    mocked.get(
        "https://ghe.example.com:443/api/v3/repos/octo/demo/issues/1",
        json={"number": 1, "labels": [], "user": {"login": "a"}},
    )
    assert tracker.issue(1).author == "a"
