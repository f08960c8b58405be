"""Fixtures of the tests of the tracker at the HTTP boundary: `responses` answers for GitHub, and
every answer a test registers must be asked for."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import responses

from baton.github.client import GitHubTracker
from support.github_answers import RECEIVED, TRIAGE


@pytest.fixture
def mocked() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


@pytest.fixture
def tracker() -> GitHubTracker:
    """A tracker of octo/demo that retries nothing (each answer is asked for once)."""
    return GitHubTracker("octo/demo", "t0ken", retry=0)


@pytest.fixture
def labelled() -> GitHubTracker:
    """The same, looking up the two status labels with each read."""
    return GitHubTracker("octo/demo", "t0ken", retry=0, labels=(RECEIVED.name, TRIAGE.name))
