"""Fixtures of the tests of the fakes themselves: the HTTP fake, started, and a PyGithub client
on it (here `gh` is that client, not the in-memory GitHub of tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import github
from fakes.http_github import FakeGitHub
from support.http import make_client


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def gh(fake: FakeGitHub) -> Iterator[github.Github]:
    client = make_client(fake)
    yield client
    client.close()


@pytest.fixture
def repo(gh: github.Github, fake: FakeGitHub) -> Any:
    repository = gh.get_repo(fake.repo_full_name)
    fake.reset_requests()
    return repository
