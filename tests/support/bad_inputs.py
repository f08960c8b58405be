"""Bad values of the Action's inputs and variables, each with the name and what it accepts,
as the one-line error names them: the full path refuses each, the fast path steps aside."""

from __future__ import annotations

import pytest

BAD = [
    pytest.param(
        "INPUT_DRY-RUN", "ture", "input dry-run", "true or false", id="a misspelt boolean"
    ),
    pytest.param(
        "INPUT_DRY_RUN", "yes", "input dry-run", "true or false", id="a boolean GitHub never sends"
    ),
    pytest.param(
        "BATON_HTTP_TIMEOUT",
        "abc",
        "BATON_HTTP_TIMEOUT",
        "a whole number of seconds, 1 or more",
        id="a timeout that is no number",
    ),
    pytest.param(
        "BATON_HTTP_TIMEOUT",
        "0",
        "BATON_HTTP_TIMEOUT",
        "a whole number of seconds, 1 or more",
        id="a timeout of nothing",
    ),
    pytest.param(
        "GITHUB_API_URL",
        "api.github.com",
        "GITHUB_API_URL",
        "an http(s) URL with its scheme, such as https://api.github.com",
        id="an API URL without its scheme",
    ),
    pytest.param(
        "GITHUB_RUN_ATTEMPT",
        "second",
        "GITHUB_RUN_ATTEMPT",
        "a whole number, 1 or more",
        id="a run attempt that is no number",
    ),
    pytest.param(
        "GITHUB_REPOSITORY", "demo", "GITHUB_REPOSITORY", "owner/name", id="a repository alone"
    ),
    pytest.param(
        "INPUT_BOT-LOGIN", "my bot", "input bot-login", "a GitHub login", id="a login with a space"
    ),
    pytest.param(
        "BATON_AGENT_TIMEOUT",
        "1h",
        "BATON_AGENT_TIMEOUT",
        "a whole number of seconds",
        id="an agent timeout with a unit",
    ),
]
