"""`baton.sim.api.rest_repository`: REST, served over HTTP by the tests' fake, for
the repository's people, its rate limit, workflows and dispatches."""

from __future__ import annotations

from typing import Any

import pytest

import github
from fakes.http_github import FakeGitHub
from fakes.http_probe import raw, statuses
from github import GithubException
from support.http import make_client


def test_collaborator_permissions(repo: Any, fake: FakeGitHub) -> None:
    """The roles' mapping is the model's (tests/sim/model/test_rules.py); here, the route."""
    fake.set_permission("max", "maintain")
    fake.mark_nonexistent("ghost")
    assert repo.get_collaborator_permission("max") == "write"
    assert repo.get_collaborator_permission("stranger") == "read"
    assert repo.get_collaborator_role_name("max") == "maintain"
    body = raw(fake, "GET", "/repos/octo/demo/collaborators/MAX/permission").json()
    assert body["user"]["permissions"] == {
        "admin": False,
        "maintain": True,
        "push": True,
        "triage": True,
        "pull": True,
    }
    with pytest.raises(github.UnknownObjectException):
        repo.get_collaborator_permission("ghost")


def test_team_membership_lazy_and_eager(fake: FakeGitHub, gh: github.Github) -> None:
    fake.add_team_member("octo", "maintainers", "bob")
    lazy = make_client(fake, lazy=True)
    team = lazy.get_organization("octo").get_team_by_slug("maintainers")
    membership = team.get_team_membership("bob")
    assert (membership.state, membership.role) == ("active", "member")
    assert [c.path for c in fake.requests] == ["/orgs/octo/teams/maintainers/memberships/bob"]
    with pytest.raises(github.UnknownObjectException):
        team.get_team_membership("mallory")

    eager = gh.get_organization("octo").get_team_by_slug("maintainers")
    assert eager.get_team_membership("bob").state == "active"
    with pytest.raises(github.UnknownObjectException):
        gh.get_organization("octo").get_team_by_slug("nobody")


def test_workflow_dispatch_lazy_and_by_numeric_id(fake: FakeGitHub, repo: Any) -> None:
    lazy = make_client(fake, lazy=True).get_repo("octo/demo")
    assert lazy.get_workflow("baton.yml").create_dispatch("main", {"issue": "7"}) is True
    assert [(c.method, c.status) for c in fake.requests] == [("POST", 204)]

    workflow = repo.get_workflow("baton.yml")  # GET, then dispatch via its numeric id
    assert workflow.path == ".github/workflows/baton.yml"
    assert workflow.create_dispatch("main", {"issue": "8"}) is True
    assert (
        fake.calls("POST")[-1].path
        == f"/repos/octo/demo/actions/workflows/{workflow.id}/dispatches"
    )
    assert [(d.kind, d.workflow, d.ref, d.inputs) for d in fake.dispatches] == [
        ("workflow_dispatch", "baton.yml", "main", {"issue": "7"}),
        ("workflow_dispatch", "baton.yml", "main", {"issue": "8"}),
    ]

    run = lazy.get_workflow("baton.yml").create_dispatch("main", return_run_details=True)
    assert run.id > 0
    missing_ref = raw(
        fake, "POST", "/repos/octo/demo/actions/workflows/baton.yml/dispatches", json={"inputs": {}}
    )
    assert missing_ref.status_code == 422


def test_declared_workflows_are_enforced(fake: FakeGitHub, repo: Any) -> None:
    fake.add_workflow("baton.yml", inputs=["issue"])
    workflow = repo.get_workflow("baton.yml")
    assert workflow.create_dispatch("main", {"issue": "1", "extra": "x"}) is False
    with pytest.raises(GithubException) as unexpected:
        workflow.create_dispatch("main", {"extra": "x"}, throw=True)
    assert unexpected.value.status == 422
    assert "Unexpected inputs" in unexpected.value.data["message"]
    with pytest.raises(github.UnknownObjectException):
        repo.get_workflow("other.yml")
    assert fake.dispatches == []


def test_repository_dispatch(repo: Any, fake: FakeGitHub) -> None:
    assert repo.create_repository_dispatch("baton-step", {"issue": 3, "step": "plan"}) is True
    (dispatch,) = fake.dispatches
    assert (dispatch.kind, dispatch.event_type, dispatch.client_payload) == (
        "repository_dispatch",
        "baton-step",
        {"issue": 3, "step": "plan"},
    )
    too_many = {f"k{index}": index for index in range(11)}
    assert repo.create_repository_dispatch("baton-step", too_many) is False
    assert statuses(fake, "POST", "/dispatches") == [204, 422]


def test_rate_limit_endpoint_headers_and_exhaustion(gh: github.Github, fake: FakeGitHub) -> None:
    gh.get_repo("octo/demo")
    assert gh.rate_limiting == (4999, 5000)
    assert gh.get_rate_limit().resources.core.remaining == 4999  # /rate_limit is free

    fake.rate_used = fake.rate_limit
    with pytest.raises(github.RateLimitExceededException):
        gh.get_repo("octo/demo")
    assert gh.get_rate_limit().resources.core.remaining == 0
