"""The `ci:` section: Baton refuses to write as an identity whose commits and pull requests
start CI without a maintainer's approval (a GitHub App's), unless the config accepts it."""

from __future__ import annotations

import pytest

from baton.errors import InvalidConfig
from baton.names import BOT_LOGIN
from baton.workflow.config import parse_config

APP = "baton-app[bot]"
SOURCE = ".github/baton.yml"
REFUSED = (
    ".github/baton.yml: Baton writes as baton-app[bot], not GITHUB_TOKEN, so CI starts on its "
    "commits and pull requests without a maintainer's approval and runs the agent's code with "
    "the repository's secrets; to accept that, add `ci: {unapproved_runs: accept}` to "
    ".github/baton.yml, or write with GITHUB_TOKEN (drop app-client-id) so that a writer "
    "approves each run (docs/tokens.md)"
)
NO_CODE = """\
workflow:
  name: triage-only
  initial: triage
  agents: [triager]
  states:
    triage: {kind: work, agent: triager}
    done: {kind: terminal}
  transitions:
    triage: [done]
epics: {enabled: false}
"""


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="no ci section"),
        pytest.param("ci: {unapproved_runs: refuse}\n", id="refuse said outright"),
    ],
)
def test_an_app_identity_is_refused_unless_the_config_accepts_unapproved_runs(text: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        parse_config(text, source=SOURCE, bot_login=APP)

    assert str(refused.value) == REFUSED


def test_accepting_unapproved_runs_lets_an_app_identity_write() -> None:
    settings = parse_config("ci: {unapproved_runs: accept}\n", source=SOURCE, bot_login=APP)

    assert settings.policy.ci.unapproved_runs == "accept"
    assert settings.policy.held_ci is False


def test_github_token_needs_no_acceptance_its_runs_wait_for_approval() -> None:
    settings = parse_config("", source=SOURCE, bot_login=BOT_LOGIN)

    assert settings.policy.ci.unapproved_runs == "refuse"
    assert settings.policy.held_ci is True


def test_a_workflow_that_never_commits_needs_no_acceptance() -> None:
    settings = parse_config(NO_CODE, source=SOURCE, bot_login=APP)

    assert settings.policy.held_ci is False


def test_epics_that_commit_need_the_acceptance_too() -> None:
    # The main workflow commits nothing, but the epic's tasks do.
    with pytest.raises(InvalidConfig):
        parse_config(NO_CODE.replace("epics: {enabled: false}\n", ""), source=SOURCE, bot_login=APP)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param("ci: {unapproved_runs: yes}\n", "unapproved_runs", id="a boolean"),
        pytest.param("ci: {unapproved: accept}\n", "unapproved", id="a misspelt key"),
        pytest.param("ci: accept\n", "ci", id="not a mapping"),
    ],
)
def test_a_malformed_ci_section_is_a_clear_error(text: str, said: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        parse_config(text, source=SOURCE, bot_login=APP)

    assert said in str(refused.value)
