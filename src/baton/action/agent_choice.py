"""Which command `baton agent --role ROLE` runs: the profile the config names for the role
(`agents:` in `.github/baton.yml`, read from the config the job was given: the default
branch's, never the issue's branch), else `--command`, else the `agent-command` input."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from baton.action.commands import agent_command_line
from baton.action.env import ActionEnv
from baton.errors import AgentSetupError, BatonError
from baton.names import CONFIG_PATH
from baton.workflow.agent_profiles import resolve
from baton.workflow.config import load_config


@dataclass(frozen=True)
class AgentChoice:
    """The command line to run, its setup, its own time limit and the profile it came from."""

    command: str
    setup: str
    timeout: float | None = None
    profile: str | None = None  # None: the one-line default (`--command` / `agent-command`)


def choose_agent(env: ActionEnv, *, role: str | None, given: str | None) -> AgentChoice:
    """The role's profile, else the one-line default; AgentSetupError when neither is set or
    the config cannot be read."""
    if role:
        config = env.config if env.config_given else None
        path = Path(config) if config else Path(CONFIG_PATH)
        try:
            agents = load_config(path, required=config is not None).config.agents
        except BatonError as exc:
            raise AgentSetupError(str(exc)) from exc
        chosen = resolve(agents, role)
        if chosen is not None:
            return AgentChoice(chosen.command, chosen.setup, chosen.timeout, chosen.profile)
    return AgentChoice(agent_command_line(env, given), "")
