"""Agent profiles (`agents:` in the config): validated when the config loads (an unknown
profile is named), resolved per role (a role without one runs the default), and the ready
profiles are the command lines of examples/agents, which the real-CLI tests run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from baton.workflow.agent_profiles import READY, AgentProfile, Agents, ResolvedAgent, resolve
from baton.workflow.config import Config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "agents"
CLIS = ROOT / "tests" / "agents" / "clis"
PIN = re.compile(r"npm install -g (@[a-z0-9-]+/[a-z0-9-]+)@(\d+\.\d+\.\d+)")
CONFIG = {
    "profiles": {
        "fast": {"uses": "claude-code-read-only", "model": "claude-haiku-4-5"},
        "builder": {"uses": "codex", "timeout": "30m"},
        "mine": {"command": "python agent.py", "setup": "pip install x"},
    },
    "roles": {"analyst": "fast", "developer": "builder", "tester": "gemini", "pm": "mine"},
}


@pytest.mark.parametrize("name", sorted(READY))
def test_each_ready_profile_is_the_example_the_real_cli_tests_run(name: str) -> None:
    example = yaml.safe_load((EXAMPLES / f"{name}.yml").read_text(encoding="utf-8"))["with"]
    assert READY[name].command == example["agent-command"]
    assert READY[name].setup == example["agent-setup"]


def test_each_ready_setup_pins_the_cli_version_the_real_cli_tests_run() -> None:
    """`npm install -g PACKAGE@X.Y.Z`: the version of tests/agents/clis/package.json, which its
    lock installs for the real-CLI tests (moving one moves the other: examples/agents/README.md)."""
    suite = json.loads((CLIS / "package.json").read_text(encoding="utf-8"))["dependencies"]
    lock = json.loads((CLIS / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    pinned = {}
    for name, ready in READY.items():
        found = PIN.fullmatch(ready.setup)
        assert found, f"{name}: {ready.setup!r} pins no version"
        pinned[found[1]] = found[2]
    assert pinned == suite
    assert {package: lock[f"node_modules/{package}"]["version"] for package in suite} == suite


def test_the_agents_readme_shows_each_pinned_install_line_and_how_to_move_it() -> None:
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for ready in READY.values():
        assert f"agent-setup: {ready.setup}\n" in readme
    assert "**Moving a pin.**" in readme and "BATON_REQUIRE_CLIS=1" in readme


RESOLVED = {
    "a ready profile with its model": (
        "analyst",
        ResolvedAgent(
            "fast",
            READY["claude-code-read-only"].command + " --model claude-haiku-4-5",
            READY["claude-code-read-only"].setup,
            None,
        ),
    ),
    "a ready profile with its time": (
        "developer",
        ResolvedAgent("builder", READY["codex"].command, READY["codex"].setup, 1800.0),
    ),
    "a ready profile named directly": (
        "tester",
        ResolvedAgent("gemini", READY["gemini"].command, READY["gemini"].setup, None),
    ),
    "a command of one's own": (
        "pm",
        ResolvedAgent("mine", "python agent.py", "pip install x", None),
    ),
    "a role without a profile: the agent-command input": ("reviewer", None),
    "no role": (None, None),
}


@pytest.mark.parametrize("role,expected", RESOLVED.values(), ids=RESOLVED.keys())
def test_each_role_runs_the_profile_it_names(role: str | None, expected: object) -> None:
    assert resolve(Agents.model_validate(CONFIG), role) == expected


def test_a_role_without_a_profile_runs_the_default_profile_when_there_is_one() -> None:
    agents = Agents.model_validate({**CONFIG, "default": "fast"})
    chosen = resolve(agents, "reviewer")
    assert chosen is not None and chosen.profile == "fast"
    assert resolve(agents, "developer") == resolve(Agents.model_validate(CONFIG), "developer")


def test_tools_replace_the_list_of_a_ready_claude_profile() -> None:
    agents = Agents.model_validate(
        {
            "profiles": {"ro": {"uses": "claude-code-read-only", "tools": ["Read", "Grep"]}},
            "roles": {"reviewer": "ro"},
        }
    )
    chosen = resolve(agents, "reviewer")
    assert chosen is not None
    assert "--tools Read,Grep --append-system-prompt" in chosen.command
    assert '"Read,Glob,Grep"' not in chosen.command


REFUSED = {
    "a role naming an unknown profile": (
        {"roles": {"developer": "claud"}},
        "unknown agent profile (agents.roles.developer: 'claud'); the profiles are: "
        "claude-code, claude-code-read-only, codex, gemini",
    ),
    "an unknown default": ({"default": "gpt"}, "agents.default: 'gpt'"),
    "a profile that runs nothing": ({"profiles": {"x": {"model": "m"}}}, "needs `uses`"),
    "an unknown ready profile": (
        {"profiles": {"x": {"uses": "copilot"}}},
        "unknown ready agent profile 'copilot'",
    ),
    "tools for a CLI Baton cannot give them to": (
        {"profiles": {"x": {"uses": "codex", "tools": ["Read"]}}},
        "`tools` is for a profile that uses claude-code",
    ),
    "a model that is a second command": (
        {"profiles": {"x": {"uses": "codex", "model": "m; curl evil"}}},
        "String should match pattern",
    ),
    "a profile name that is no name": ({"profiles": {"A B": {"uses": "codex"}}}, "'A B'"),
    "a profile of one's own named as the built-in tests one": (
        {"profiles": {"tests": {"uses": "codex"}}},
        "'tests' is Baton's built-in profile of a state with `proof: green`",
    ),
    "a role naming the built-in tests profile": (
        {"roles": {"tester": "tests"}},
        "it is chosen by the state, not named here",
    ),
    "the built-in tests profile as the default": ({"default": "tests"}, "'tests' is Baton's"),
}


@pytest.mark.parametrize("agents,said", REFUSED.values(), ids=REFUSED.keys())
def test_a_config_with_a_bad_profile_is_refused_naming_it(
    agents: dict[str, object], said: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        Config.model_validate({"agents": agents})
    assert said in str(caught.value)


def test_a_config_without_agents_runs_the_one_line_default() -> None:
    assert Config().agents == Agents()
    assert resolve(Config().agents, "developer") is None
    assert AgentProfile(uses="codex").command is None


def test_a_role_no_workflow_has_is_refused_naming_the_agents_there_are() -> None:
    """A misspelt role would silently run the default agent: the config is refused instead."""
    from baton.errors import InvalidConfig
    from baton.workflow.config import parse_config

    with pytest.raises(InvalidConfig) as caught:
        parse_config("agents: {roles: {developr: codex}}\n", source=".github/baton.yml")
    said = str(caught.value)
    assert said.startswith(
        ".github/baton.yml: agents.roles names 'developr', not an agent of the workflows in use;"
    )
    assert "developer" in said and "planner" in said  # the epic's and its tasks' too
    settings = parse_config("agents: {roles: {planner: codex}}\n", source="x")
    assert resolve(settings.config.agents, "planner") is not None
