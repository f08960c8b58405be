"""Which command `baton agent --role ROLE` runs: the profile the config names for the role
(`agents:` in `.github/baton.yml`, read from the config the job was given: the default
branch's, never the issue's branch), else the ready profile the workflow names (`--agent`, the
reusable workflow's `agent` input), else `--command`, else the `agent-command` input. The ready
profile and a command line of one's own are one or the other: both, or neither, is a setup
error that says which input to set.

With `tests:` in that config, the state due (`--state`, the briefing's `state` output) may ask
for proof: `proof: green` runs the built-in `tests` profile (`baton verify` on the checkout's
HEAD; no model, no install, no key), `proof: red` the role's agent as above, then `baton verify`
on its changeset (`evidence/job.py`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from baton.action.env import ActionEnv
from baton.errors import AgentSetupError, BatonError
from baton.names import CONFIG_PATH
from baton.workflow.agent_profiles import READY, TESTS_PROFILE, ResolvedAgent, resolve
from baton.workflow.config import Settings, load_config
from baton.workflow.suite import SuiteSettings

_READY_NAMES = ", ".join(READY)
TESTS_SETUP = ": the tests profile installs nothing"  # `baton verify` is Baton's own
NO_AGENT = (
    "no agent command: set the reusable workflow's `agent` input to a ready profile "
    f"({_READY_NAMES}), or `agent-command` (the action's `agent-command` input, "
    "BATON_AGENT_COMMAND) to your agent's command line"
)


@dataclass(frozen=True)
class Proof:
    """What the state due must prove with the tests, and how they run (`tests:`)."""

    kind: Literal["red", "green"]
    suite: SuiteSettings


@dataclass(frozen=True)
class AgentChoice:
    """The command line to run, its setup, its own time limit and the profile it came from."""

    command: str
    setup: str
    timeout: float | None = None
    profile: str | None = None  # None: the one-line default (`--command` / `agent-command`)
    proof: Proof | None = None  # the state due is settled by evidence

    @property
    def runs_tests(self) -> bool:
        """The built-in `tests` profile: `baton verify` instead of a model."""
        return self.proof is not None and self.proof.kind == "green"


def _settings(env: ActionEnv) -> Settings:
    config = env.config if env.config_given else None
    path = Path(config) if config else Path(CONFIG_PATH)
    try:
        return load_config(path, required=config is not None)
    except BatonError as exc:
        raise AgentSetupError(str(exc)) from exc


def _configured(env: ActionEnv, role: str | None) -> ResolvedAgent | None:
    """The profile the config names for the role (or its default); None: it names none."""
    if not role:
        return None
    return resolve(_settings(env).config.agents, role)


def proof_due(env: ActionEnv, *, role: str | None, state: str | None) -> Proof | None:
    """The proof `state` asks for, with the config's `tests:`; None without either. The state
    is looked up in the configured workflow, then the epics' ones, where `role` is its agent."""
    if not state:
        return None
    settings = _settings(env)
    suite = settings.policy.tests
    if suite is None:
        return None
    for workflow in (settings.workflow, *settings.workflows.values()):
        spec = workflow.states.get(state)
        if spec is not None and (not role or spec.agent == role):
            return Proof(spec.proof, suite) if spec.proof else None
    return None


def _ready(name: str) -> AgentChoice:
    if name not in READY:
        raise AgentSetupError(
            f"the `agent` input {name!r} is no ready profile; the ready ones are: {_READY_NAMES}"
        )
    return AgentChoice(READY[name].command, READY[name].setup, None, name)


def choose_agent(
    env: ActionEnv,
    *,
    role: str | None,
    given: str | None,
    ready: str | None = None,
    state: str | None = None,
) -> AgentChoice:
    """The built-in `tests` profile for a `proof: green` state, else the role's profile, else
    the ready profile `ready`, else the one-line default (with the state's red proof, if any);
    AgentSetupError when the config cannot be read, or the workflow names both a ready profile
    and a command line, or neither."""
    proof = proof_due(env, role=role, state=state)
    if proof is not None and proof.kind == "green":
        return AgentChoice("baton verify", "", None, TESTS_PROFILE, proof)
    chosen = _choose(env, role=role, given=given, ready=ready)
    return AgentChoice(chosen.command, chosen.setup, chosen.timeout, chosen.profile, proof)


def _choose(
    env: ActionEnv, *, role: str | None, given: str | None, ready: str | None
) -> AgentChoice:
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


def agent_setup(
    env: ActionEnv, *, role: str | None, ready: str | None = None, state: str | None = None
) -> str:
    """The install line of the role's profile, else of the ready profile `ready`; empty when
    neither is named (the `agent-setup` input installs a command line of one's own). The
    `tests` profile's is a shell no-op, so that no `agent-setup` runs in its place."""
    proof = proof_due(env, role=role, state=state)
    if proof is not None and proof.kind == "green":
        return TESTS_SETUP
    chosen = _configured(env, role)
    if chosen is not None:
        return chosen.setup
    named = ready.strip() if ready else ""
    return _ready(named).setup if named else ""


def default_branch(env: ActionEnv) -> str | None:
    """The repository's default branch, as the event's payload names it (None: unknown)."""
    try:
        payload = json.loads(env.event_path.read_text(encoding="utf-8")) if env.event_path else {}
        name = payload["repository"]["default_branch"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return name if isinstance(name, str) and name else None
