"""`baton agent --role`: the role's profile from the config it is given, else the ready profile
the workflow names (`--agent`), else the one-line default (`--command`, else the `agent-command`
input); a config that cannot be read, a ready profile with a command line too, or neither, is a
setup error, never a silent fall-back."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.action.agent_choice import (
    NO_AGENT,
    TESTS_SETUP,
    AgentChoice,
    agent_setup,
    choose_agent,
    proof_due,
)
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


def test_the_workflow_s_ready_profile_runs_for_a_role_the_config_names_none_for(
    tmp_path: Path,
) -> None:
    env = env_with(tmp_path, "agents:\n  roles: {developer: codex}\n")
    claude = READY["claude-code"]
    assert choose_agent(env, role="reviewer", given="", ready="claude-code") == AgentChoice(
        claude.command, claude.setup, None, "claude-code"
    )
    assert agent_setup(env, role="reviewer", ready="claude-code") == claude.setup
    assert choose_agent(env, role="developer", given=None, ready="claude-code").profile == "codex"
    assert agent_setup(env, role="developer", ready="claude-code") == READY["codex"].setup
    assert agent_setup(env, role="reviewer", ready=None) == ""


@pytest.mark.parametrize(
    ("given", "ready", "message"),
    [
        (None, None, NO_AGENT),
        ("  ", "", NO_AGENT),
        (
            "my-agent",
            "codex",
            "the `agent` input (codex) and `agent-command` are both set: keep one (a ready "
            "profile, or your own command line with its `agent-setup`)",
        ),
        (
            None,
            "claude",
            "the `agent` input 'claude' is no ready profile; the ready ones are: claude-code, "
            "claude-code-read-only, codex, gemini",
        ),
    ],
    ids=["neither", "blank", "both", "an unknown profile"],
)
def test_a_workflow_naming_both_or_neither_is_one_line_setup_error(
    tmp_path: Path, given: str | None, ready: str | None, message: str
) -> None:
    env = env_with(tmp_path, "workflow: issue-lifecycle\n")
    with pytest.raises(AgentSetupError) as raised:
        choose_agent(env, role="reviewer", given=given, ready=ready)
    assert str(raised.value) == message


def test_no_agent_names_both_inputs_in_one_line() -> None:
    assert NO_AGENT == (
        "no agent command: set the reusable workflow's `agent` input to a ready profile "
        "(claude-code, claude-code-read-only, codex, gemini), or `agent-command` (the action's "
        "`agent-command` input, BATON_AGENT_COMMAND) to your agent's command line"
    )


PROOF_CONFIG = """
workflow:
  name: proof-demo
  initial: creating_tests
  agents: [tester]
  states:
    creating_tests: {kind: work, agent: tester, changes_code: true, proof: red,
                     description: Tests written, expects: Write failing tests.}
    running_tests: {kind: work, agent: tester, proof: green,
                    description: The tests run, expects: Run the tests.}
    done: {kind: terminal, description: Done}
  transitions: {creating_tests: [running_tests], running_tests: [done], done: []}
agents:
  roles: {tester: codex}
"""
TESTS = "tests: {command: pytest}\n"


def test_a_green_state_runs_the_built_in_tests_profile_with_nothing_to_install(
    tmp_path: Path,
) -> None:
    env = env_with(tmp_path, PROOF_CONFIG + TESTS)
    chosen = choose_agent(env, role="tester", given=None, state="running_tests")
    assert (chosen.profile, chosen.setup, chosen.runs_tests) == ("tests", "", True)
    assert chosen.proof is not None and chosen.proof.suite.command == "pytest"
    assert agent_setup(env, role="tester", state="running_tests") == TESTS_SETUP


def test_a_red_state_runs_the_roles_agent_and_carries_the_proof(tmp_path: Path) -> None:
    env = env_with(tmp_path, PROOF_CONFIG + TESTS)
    chosen = choose_agent(env, role="tester", given=None, state="creating_tests")
    assert (chosen.profile, chosen.runs_tests) == ("codex", False)
    assert chosen.proof is not None and chosen.proof.kind == "red"
    assert agent_setup(env, role="tester", state="creating_tests") == READY["codex"].setup


@pytest.mark.parametrize(
    ("config", "role", "state"),
    [
        (PROOF_CONFIG, "tester", "running_tests"),
        (PROOF_CONFIG + TESTS, "tester", None),
        (PROOF_CONFIG + TESTS, "tester", "done"),
        (PROOF_CONFIG + TESTS, "developer", "running_tests"),
        (PROOF_CONFIG + TESTS, "tester", "no_such_state"),
    ],
    ids=[
        "without tests: the proof is not asked for",
        "no state given",
        "a state without proof",
        "another role than the state's agent",
        "a state no workflow has",
    ],
)
def test_no_proof_is_due_unless_the_state_asks_and_the_config_has_tests(
    tmp_path: Path, config: str, role: str, state: str | None
) -> None:
    env = env_with(tmp_path, config)
    assert proof_due(env, role=role, state=state) is None
    assert not choose_agent(env, role=role, given="mine", state=state).runs_tests
