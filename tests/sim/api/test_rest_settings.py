"""`baton.sim.api.rest_settings`: REST, served over HTTP by the tests' fake, for
what `baton doctor` reads: files and directories through the contents API, the
Actions secrets by name, and the Actions settings, in the shapes PyGithub parses."""

from __future__ import annotations

from typing import Any

import pytest

import github
from baton.sim.model.git import blob_oid
from fakes.http_github import FakeGitHub
from fakes.http_probe import raw


def test_a_file_on_the_default_branch_comes_back_in_base64(repo: Any, fake: FakeGitHub) -> None:
    fake.push("main", {".github/workflows/baton.yml": "name: Baton\n" * 20})
    found = repo.get_contents(".github/workflows/baton.yml")
    assert (found.type, found.encoding, found.name) == ("file", "base64", "baton.yml")
    assert found.decoded_content == b"name: Baton\n" * 20
    assert found.sha == blob_oid(b"name: Baton\n" * 20)  # git's id of the blob


def test_a_directory_lists_its_files_and_folders_without_content(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push("main", {".github/workflows/ci.yml": "a", ".github/workflows/x/y.yml": "b"})
    listed = repo.get_contents(".github/workflows")
    assert [(c.type, c.path) for c in listed] == [
        ("file", ".github/workflows/ci.yml"),
        ("dir", ".github/workflows/x"),
    ]
    assert (
        "content" not in raw(fake, "GET", "/repos/octo/demo/contents/.github/workflows").json()[0]
    )


def test_a_missing_path_answers_404(repo: Any) -> None:
    with pytest.raises(github.UnknownObjectException):
        repo.get_contents(".github/workflows")


def test_secrets_are_listed_by_name_only_in_upper_case(repo: Any, fake: FakeGitHub) -> None:
    fake.set_secret("baton_record_secret")
    fake.set_secret("ANTHROPIC_API_KEY")
    assert [s.name for s in repo.get_secrets()] == ["ANTHROPIC_API_KEY", "BATON_RECORD_SECRET"]
    body = raw(fake, "GET", "/repos/octo/demo/actions/secrets").json()
    assert body["total_count"] == 2
    assert set(body["secrets"][0]) == {"name", "created_at", "updated_at"}


def test_the_actions_settings_answer_as_github_does(fake: FakeGitHub) -> None:
    fake.settings.allowed_actions = "selected"
    fake.actions_may_open_pull_requests = False
    actions = raw(fake, "GET", "/repos/octo/demo/actions/permissions").json()
    assert actions["enabled"] is True and actions["allowed_actions"] == "selected"
    assert actions["selected_actions_url"].endswith("/actions/permissions/selected-actions")
    workflow = raw(fake, "GET", "/repos/octo/demo/actions/permissions/workflow").json()
    assert workflow == {
        "default_workflow_permissions": "read",
        "can_approve_pull_request_reviews": False,
    }
    fake.settings.actions_enabled = False
    assert raw(fake, "GET", "/repos/octo/demo/actions/permissions").json() == {"enabled": False}


def test_a_token_without_admin_may_not_read_secrets_or_actions_settings(fake: FakeGitHub) -> None:
    fake.token_is_admin = False
    for path in ("actions/secrets", "actions/permissions", "actions/permissions/workflow"):
        answer = raw(fake, "GET", f"/repos/octo/demo/{path}")
        assert answer.status_code == 403
        assert answer.json()["message"] == "Resource not accessible by personal access token"
