"""A repository set up as `baton init` says: its files committed, its secrets and labels added,
on the HTTP fake; and `baton doctor`'s report on a fake, read over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from baton.adopt.doctor import diagnose
from baton.adopt.findings import report
from baton.adopt.init import setup_for
from baton.github.setup import GitHubRepositorySetup
from fakes.http_github import FakeGitHub

RELEASE = "0123456789abcdef0123456789abcdef01234567"  # a release commit to pin


def set_up(fake: FakeGitHub, agent: str = "claude") -> dict[str, str]:
    """Do all `baton init` tells a maintainer to do; returns the files it committed."""
    files = setup_for(agent, RELEASE).files
    fake.push("main", files, "Add Baton")
    from baton.adopt.agents import AGENTS

    fake.set_secret("BATON_RECORD_SECRET")
    fake.set_secret(AGENTS[agent].secret)
    fake.add_label("baton")
    fake.add_label("baton:epic")
    return files


def doctor_report(fake: FakeGitHub) -> list[str]:
    setup = GitHubRepositorySetup(fake.repo_full_name, fake.token, api_url=fake.url)
    return report(diagnose(setup))


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def ready(fake: FakeGitHub) -> FakeGitHub:
    set_up(fake)
    return fake
