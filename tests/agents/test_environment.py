"""What the agent's process holds of the job's environment: no credential, none of Baton's
inputs or settings, no file command; its own keys and the runner's other variables stay.
The run of a real agent with them withheld is tests/agents/test_runner.py's."""

from __future__ import annotations

import pytest

from baton.agents.environment import agent_environment, credential, secrets_of, withheld


@pytest.mark.parametrize(
    ("name", "kept_from_the_agent"),
    [
        pytest.param("GITHUB_TOKEN", True, id="the job's token"),
        pytest.param("github_token", True, id="in any case"),
        pytest.param("INPUT_GITHUB-TOKEN", True, id="the action's token input"),
        pytest.param("INPUT_GITHUB_TOKEN", True, id="the action's token input with underscores"),
        pytest.param("GH_TOKEN", True, id="the gh CLI's token"),
        pytest.param("GH_ENTERPRISE_TOKEN", True, id="the gh CLI's enterprise token"),
        pytest.param("RELEASE_GITHUB_TOKEN", True, id="a token the user named"),
        pytest.param("GITHUB_PAT", True, id="a personal access token"),
        pytest.param("INPUT_RECORD-SECRET", True, id="the record secret"),
        pytest.param("ACTIONS_RUNTIME_TOKEN", True, id="the runner's artifact token"),
        pytest.param("ACTIONS_ID_TOKEN_REQUEST_TOKEN", True, id="the OIDC request token"),
        pytest.param("ACTIONS_ID_TOKEN_REQUEST_URL", True, id="the OIDC request address"),
        pytest.param("ACTIONS_CACHE_URL", True, id="the cache service"),
        pytest.param("ANTHROPIC_API_KEY", False, id="the agent's API key"),
        pytest.param("OPENAI_API_KEY", False, id="another agent's API key"),
        pytest.param("BATON_RECORD_SECRET", True, id="the record secret as a variable"),
        pytest.param("BATON_APP_PRIVATE_KEY", True, id="the App's private key"),
        pytest.param("INPUT_CONFIG", True, id="any action input"),
        pytest.param("BATON_AGENT_COMMAND", True, id="Baton's own settings"),
        pytest.param("GITHUB_ENV", True, id="the runner's variables file"),
        pytest.param("GITHUB_PATH", True, id="the runner's PATH file"),
        pytest.param("GITHUB_OUTPUT", True, id="the step's outputs file"),
        pytest.param("GITHUB_STATE", True, id="the step's state file"),
        pytest.param("GITHUB_STEP_SUMMARY", True, id="the job summary file"),
        pytest.param("GITHUB_WORKSPACE", False, id="the runner's other variables"),
        pytest.param("GITHUB_REPOSITORY", False, id="the repository's name"),
        pytest.param("GITHUB_TOKENIZER_MODEL", True, id="a near miss errs on the safe side"),
        pytest.param("HOME", False, id="everything else"),
    ],
)
def test_which_variables_are_kept_from_the_agent(name: str, kept_from_the_agent: bool) -> None:
    assert withheld(name) is kept_from_the_agent
    assert (name in agent_environment({name: "value", "PATH": "/bin"})) is not kept_from_the_agent


@pytest.mark.parametrize(
    ("name", "is_credential"),
    [
        ("GITHUB_TOKEN", True),
        ("INPUT_RECORD_SECRET", True),
        ("BATON_APP_PRIVATE_KEY", True),
        ("ACTIONS_RUNTIME_URL", True),
        ("INPUT_CONFIG", False),  # withheld, but not a secret to redact
        ("GITHUB_OUTPUT", False),
        ("ANTHROPIC_API_KEY", False),
    ],
)
def test_credentials_are_the_withheld_values_that_are_secrets(
    name: str, is_credential: bool
) -> None:
    assert credential(name) is is_credential
    assert withheld(name) or not is_credential


def test_the_secrets_to_redact_are_the_credentials_and_the_agents_keys() -> None:
    environ = {
        "GITHUB_TOKEN": "ghs_0123456789abcdef",
        "ANTHROPIC_API_KEY": "sk-ant-0123456789",
        "INPUT_CONFIG": ".github/baton.yml",
        "HOME": "/home/runner",
    }
    found = secrets_of(environ)
    assert sorted(secret.name for secret in found) == ["ANTHROPIC_API_KEY", "GITHUB_TOKEN"]
    assert found[0].forms[0] == b"ghs_0123456789abcdef"  # the longest value first
