"""Both fakes, told the same story, for every payload builder's test."""

from __future__ import annotations

import pytest

from support.payload_story import Both


@pytest.fixture
def both() -> Both:
    return Both()
