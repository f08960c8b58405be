"""`baton agent --role`: the role's profile from the config it is given, else the one-line
default (`--command`, else the `agent-command` input); a config that cannot be read is a
setup error, never a silent fall-back."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.action.agent_choice import AgentChoice, choose_agent
from baton.action.env import ActionEnv
from baton.errors import AgentSetupError
from baton.workflow.agent_profiles import READY


def env_with(tmp_path: Path, text: str, **more: str) -> ActionEnv:
    config = tmp_path / "baton.yml"
    config.write_text(text, encoding="utf-8")
    return ActionEnv(config=str(config), config_given=True, **more)  # type: ignore[arg-type]


def test_the_role_s_profile_runs(tmp_path: Path) -> None:
    env = env_with(tmp_path, "agents:\n  roles: {developer: codex}\n", agent_command="mine")
    assert choose_agent(env, role="developer", given="other") == AgentChoice(
        READY["codex"].command, READY["codex"].setup, None, "codex"
    )


def test_a_role_without_a_profile_runs_the_command_given_else_the_input(tmp_path: Path) -> None:
    env = env_with(tmp_path, "agents:\n  roles: {developer: codex}\n", agent_command="mine")
    assert choose_agent(env, role="reviewer", given="other") == AgentChoice("other", "")
    assert choose_agent(env, role="reviewer", given=None) == AgentChoice("mine", "")
    assert choose_agent(env, role=None, given=None) == AgentChoice("mine", "")


def test_an_unreadable_config_is_a_setup_error(tmp_path: Path) -> None:
    env = env_with(tmp_path, "agents:\n  roles: {developer: nobody}\n", agent_command="mine")
    with pytest.raises(AgentSetupError, match="unknown agent profile"):
        choose_agent(env, role="developer", given=None)
