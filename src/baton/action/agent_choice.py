"""Which command `baton agent --role ROLE` runs: the profile the config names for the role
(`agents:` in `.github/baton.yml`, read from the config the job was given: the default
branch's, never the issue's branch), else the ready profile the workflow names (`--agent`, the
reusable workflow's `agent` input), else `--command`, else the `agent-command` input. The ready
profile and a command line of one's own are one or the other: both, or neither, is a setup
error that says which input to set."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from baton.action.env import ActionEnv
from baton.errors import AgentSetupError, BatonError
from baton.names import CONFIG_PATH
from baton.workflow.agent_profiles import READY, ResolvedAgent, resolve
from baton.workflow.config import load_config

_READY_NAMES = ", ".join(READY)
NO_AGENT = (
    "no agent command: set the reusable workflow's `agent` input to a ready profile "
    f"({_READY_NAMES}), or `agent-command` (the action's `agent-command` input, "
    "BATON_AGENT_COMMAND) to your agent's command line"
)


@dataclass(frozen=True)
class AgentChoice:
    """The command line to run, its setup, its own time limit and the profile it came from."""

    command: str
    setup: str
    timeout: float | None = None
    profile: str | None = None  # None: the one-line default (`--command` / `agent-command`)


def _configured(env: ActionEnv, role: str | None) -> ResolvedAgent | None:
    """The profile the config names for the role (or its default); None: it names none."""
    if not role:
        return None
    config = env.config if env.config_given else None
    path = Path(config) if config else Path(CONFIG_PATH)
    try:
        agents = load_config(path, required=config is not None).config.agents
    except BatonError as exc:
        raise AgentSetupError(str(exc)) from exc
    return resolve(agents, role)


def _ready(name: str) -> AgentChoice:
    if name not in READY:
        raise AgentSetupError(
            f"the `agent` input {name!r} is no ready profile; the ready ones are: {_READY_NAMES}"
        )
    return AgentChoice(READY[name].command, READY[name].setup, None, name)


def choose_agent(
    env: ActionEnv, *, role: str | None, given: str | None, ready: str | None = None
) -> AgentChoice:
    """The role's profile, else the ready profile `ready`, else the one-line default;
    AgentSetupError when the config cannot be read, or the workflow names both a ready profile
    and a command line, or neither."""
    chosen = _configured(env, role)
    if chosen is not None:
        return AgentChoice(chosen.command, chosen.setup, chosen.timeout, chosen.profile)
    command = given if given and given.strip() else env.agent_command
    named = ready.strip() if ready else ""
    if named and command and command.strip():
        raise AgentSetupError(
            f"the `agent` input ({named}) and `agent-command` are both set: keep one (a ready "
            "profile, or your own command line with its `agent-setup`)"
        )
    if named:
        return _ready(named)
    if not command or not command.strip():
        raise AgentSetupError(NO_AGENT)
    return AgentChoice(command, "")


def agent_setup(env: ActionEnv, *, role: str | None, ready: str | None = None) -> str:
    """The install line of the role's profile, else of the ready profile `ready`; empty when
    neither is named (the `agent-setup` input installs a command line of one's own)."""
    chosen = _configured(env, role)
    if chosen is not None:
        return chosen.setup
    named = ready.strip() if ready else ""
    return _ready(named).setup if named else ""
