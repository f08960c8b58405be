"""Fixtures every test folder may use: the simulated repository with the cast, and the default
settings. The helpers that drive issue #1 on it are in support/memory.py; the folders' own
fixtures are in their conftest.py (fakes/, github/)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

from baton.issue.apply import tracker_labels
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings, load_config
from support.memory import PEOPLE

# The suite is the README's test command and CI's: the same examples on every run, so a red
# run is a real regression, never the luck of the draw. BATON_EXPLORE=1 draws new examples
# (and keeps failures in Hypothesis' database) to look for counterexamples on purpose.
hypothesis_settings.register_profile("suite", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile("explore" if os.environ.get("BATON_EXPLORE") else "suite")


@pytest.fixture
def gh() -> SimGitHub:
    """The simulated repository (GitHubTracker over the model, in process) with the cast's
    permissions and issue #1 by alice; the client looks up the default preset's labels."""
    hub = SimGitHub(labels=tracker_labels(load_config(None)))
    for login, permission in PEOPLE.items():
        hub.set_permission(login, permission)
    hub.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    return hub


@pytest.fixture
def settings() -> Settings:
    """The defaults: no config file, so the issue-lifecycle preset."""
    return load_config(None)
