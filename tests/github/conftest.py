"""Fixtures of the tests of the tracker at the HTTP boundary: `responses` answers for GitHub, and
every answer a test registers must be asked for."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import responses


@pytest.fixture
def mocked() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock
