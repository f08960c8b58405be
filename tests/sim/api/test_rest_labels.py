"""`baton.sim.api.rest_labels`: REST, served over HTTP by the tests' fake, for
an issue's labels and the repository's, through PyGithub."""

from __future__ import annotations

from typing import Any

import pytest

import github
from fakes.http_github import FakeGitHub
from fakes.http_probe import raw, statuses
from github import GithubException


def test_issue_labels_add_remove_replace_clear(repo: Any, fake: FakeGitHub) -> None:
    fake.add_label("bug", "d73a4a", "Something is broken")
    number = fake.add_issue("x", labels=["bug"])
    issue = repo.get_issue(number)

    issue.add_to_labels("status:received", "BUG")
    assert fake.labels_of(number) == ["bug", "status:received"]
    assert fake.labels()["bug"]["description"] == "Something is broken"

    issue.remove_from_labels("status:received")
    assert fake.calls("DELETE", "/labels/status:received")[0].status == 200
    assert fake.labels_of(number) == ["bug"]
    with pytest.raises(GithubException) as absent:
        issue.remove_from_labels("status:received")
    assert absent.value.status == 404
    assert absent.value.data["message"] == "Label does not exist"

    body_form = raw(fake, "POST", "/repos/octo/demo/issues/1/labels", json={"labels": ["p1"]})
    assert [label["name"] for label in body_form.json()] == ["bug", "p1"]

    issue.set_labels("x", "y")
    assert fake.labels_of(number) == ["x", "y"]
    assert [label.name for label in issue.get_labels()] == ["x", "y"]
    issue.delete_labels()
    assert fake.labels_of(number) == []
    assert statuses(fake, "DELETE", "/labels") == [200, 404, 204]


def test_repo_labels_crud_validation_and_pagination(repo: Any, fake: FakeGitHub) -> None:
    label = repo.create_label("status:received", "0e8a16", "Baton received the issue")
    assert (label.name, label.color, label.description) == (
        "status:received",
        "0e8a16",
        "Baton received the issue",
    )
    assert statuses(fake, "POST", "/labels") == [201]

    with pytest.raises(GithubException) as duplicate:
        repo.create_label("STATUS:received", "000000")
    assert duplicate.value.status == 422
    assert duplicate.value.data["errors"][0]["code"] == "already_exists"
    with pytest.raises(GithubException) as invalid:  # the rules: tests/sim/github
        repo.create_label("n" * 51, "000000", "ok")
    assert invalid.value.status == 422

    number = fake.add_issue("x", labels=["status:received"])
    fetched = repo.get_label("Status:Received")
    fetched.edit("status:accepted", "fbca04", "renamed")
    assert fake.labels_of(number) == ["status:accepted"]
    repo.get_label("status:accepted").delete()
    assert fake.labels_of(number) == []
    with pytest.raises(github.UnknownObjectException):
        repo.get_label("status:accepted")

    for index in range(35):
        fake.add_label(f"label-{index:02}")
    fake.reset_requests()
    assert len(list(repo.get_labels())) == 35
    assert statuses(fake, "GET", "/repos/octo/demo/labels") == [200, 200]
