"""A repository's setup read over REST from the HTTP fake: files and folders of the default
branch, secrets and labels over every page, the Actions settings, and refusals as
`TrackerError`s carrying GitHub's status."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from baton.errors import TrackerError
from baton.github.setup import GitHubRepositorySetup
from baton.github.tracker import ActionsSettings
from fakes.http_github import FakeGitHub


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def setup(fake: FakeGitHub) -> GitHubRepositorySetup:
    return GitHubRepositorySetup(fake.repo_full_name, fake.token, api_url=fake.url)


def test_files_and_folders_of_the_default_branch(
    fake: FakeGitHub, setup: GitHubRepositorySetup
) -> None:
    fake.push("main", {".github/workflows/baton.yml": "name: Baton ✓\n", ".github/x/y.yml": ""})
    fake.push("other", {".github/workflows/ci.yml": "on: push\n"})
    assert setup.file(".github/workflows/baton.yml") == "name: Baton ✓\n"
    assert setup.file(".github/baton.yml") is None
    assert setup.directory(".github/workflows") == [".github/workflows/baton.yml"]
    assert setup.directory(".github") == []  # only folders in it
    assert setup.directory("docs") is None


def test_a_folder_read_as_a_file_is_refused(fake: FakeGitHub, setup: GitHubRepositorySetup) -> None:
    fake.push("main", {".github/workflows/baton.yml": "x"})
    with pytest.raises(TrackerError, match="is not a file"):
        setup.file(".github/workflows")


def test_secrets_and_labels_are_read_over_every_page(
    fake: FakeGitHub, setup: GitHubRepositorySetup
) -> None:
    for n in range(130):
        fake.set_secret(f"KEY_{n:03}")
        fake.add_label(f"area-{n:03}")
    assert setup.secret_names() == [f"KEY_{n:03}" for n in range(130)]
    assert len(setup.label_names()) == 130
    assert [c.query.get("page") for c in fake.calls("GET", "/actions/secrets")] == ["1", "2"]


def test_the_actions_settings(fake: FakeGitHub, setup: GitHubRepositorySetup) -> None:
    fake.actions_may_open_pull_requests = False
    fake.settings.default_workflow_permissions = "write"
    assert setup.actions_settings() == ActionsSettings(True, "all", "write", False)


def test_a_read_that_needs_admin_is_refused_with_githubs_status(
    fake: FakeGitHub, setup: GitHubRepositorySetup
) -> None:
    fake.token_is_admin = False
    with pytest.raises(TrackerError) as raised:
        setup.secret_names()
    assert raised.value.status == 403


def test_a_file_over_1_mb_is_refused_before_it_is_decoded(
    fake: FakeGitHub, setup: GitHubRepositorySetup
) -> None:
    """GitHub's contents API sends no content for a file over 1 MB: read as text, it would be an
    empty file (an empty config is the defaults)."""
    fake.push("main", {".github/baton.yml": "#" * (1024 * 1024 + 1)})
    with pytest.raises(TrackerError, match=r"^\.github/baton\.yml is 1,048,577 bytes, too large"):
        setup.file(".github/baton.yml")
