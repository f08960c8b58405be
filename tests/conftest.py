"""Fixtures every test folder may use: the in-memory repository with the cast, and the default
settings. The helpers that drive issue #1 on it are in support/memory.py; the folders' own
fixtures are in their conftest.py (fakes/, github/)."""

from __future__ import annotations

import pytest

from baton.sim.memory_github import MemoryGitHub
from baton.workflow.config import Settings, load_config
from support.memory import PEOPLE


@pytest.fixture
def gh() -> MemoryGitHub:
    """The in-memory repository with the cast's permissions and issue #1 by alice."""
    hub = MemoryGitHub()
    for login, permission in PEOPLE.items():
        hub.set_permission(login, permission)
    hub.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    return hub


@pytest.fixture
def settings() -> Settings:
    """The defaults: no config file, so the issue-lifecycle preset."""
    return load_config(None)
