"""The inputs that repeat the config: an absent one is the reusable workflow's default (the
config's own); one that disagrees with the config is an error, since the job filter goes by it."""

from __future__ import annotations

from typing import Any

import pytest

from baton.adopt.checks.caller import Caller
from baton.adopt.checks.inputs import MIRRORED, check_agent, check_inputs
from baton.workflow.config import parse_config
from baton.workflow.config_model import Config
from support.expressions import REUSABLE, workflow

PATH = ".github/workflows/baton.yml"


def _lines(inputs: dict[str, Any], config: str) -> list[str]:
    settings = parse_config(config, source=".github/baton.yml")
    found = check_inputs(Caller(PATH, inputs=inputs), settings.config, ".github/baton.yml")
    return [line for finding in found for line in finding.lines()]


@pytest.mark.parametrize("name", sorted(MIRRORED))
def test_each_inputs_default_is_the_configs_default(name: str) -> None:
    declared = workflow(REUSABLE)[True]["workflow_call"]["inputs"][name]
    assert declared["default"] == MIRRORED[name][1](Config())


def test_the_defaults_agree() -> None:
    assert _lines({}, "workflow: issue-lifecycle\n") == []


def test_a_renamed_trigger_label_not_passed_on_is_an_error() -> None:
    assert _lines({}, "entry: {trigger_label: ai}\n") == [
        f"error: {PATH}: the input `trigger-label` is 'baton', but .github/baton.yml sets "
        "entry.trigger_label: 'ai'; the job filter goes by the input",
        "  fix: pass `trigger-label: ai` under the job's `with:`",
    ]
    assert _lines({"trigger-label": "ai"}, "entry: {trigger_label: ai}\n") == []


def test_booleans_compare_as_yaml_spells_them() -> None:
    assert _lines({"pull-requests": True}, "pull_requests: true\n") == []
    assert _lines({}, "pull_requests: true\n") == [
        f"error: {PATH}: the input `pull-requests` is 'false', but .github/baton.yml sets "
        "pull_requests: 'true'; the job filter goes by the input",
        "  fix: pass `pull-requests: true` under the job's `with:`",
    ]


def test_expressions_and_the_epic_labels_of_epics_turned_off_are_left_alone() -> None:
    assert _lines({"trigger-label": "${{ vars.LABEL }}"}, "entry: {trigger_label: ai}\n") == []
    assert _lines({"epic-label": ""}, "epics: {enabled: false}\n") == []


def _agent_lines(inputs: dict[str, Any], config: str = "{}\n") -> list[str]:
    settings = parse_config(config, source=".github/baton.yml")
    found = check_agent(Caller(PATH, inputs=inputs), settings.config)
    return [line for finding in found for line in finding.lines()]


@pytest.mark.parametrize(
    "inputs",
    [
        {"agent": "claude-code"},
        {"agent": "codex", "agent-command": ""},
        {"agent-command": "my-agent", "agent-setup": "make"},
        {"agent": "${{ vars.BATON_AGENT }}"},
    ],
    ids=["a ready profile", "an empty command beside it", "a command of one's own", "expression"],
)
def test_a_job_naming_one_agent_is_right(inputs: dict[str, Any]) -> None:
    assert _agent_lines(inputs) == []


def test_no_agent_is_right_only_when_the_config_names_one_for_every_role() -> None:
    assert _agent_lines({}, "agents: {default: codex}\n") == []
    assert _agent_lines({}, "agents: {roles: {developer: codex}}\n") == [
        f"error: {PATH}: the job names no agent (neither `agent` nor `agent-command`), and the "
        "config's agents.default does not name one for every role",
        "  fix: pass a ready profile under the job's `with:`: `agent: claude-code` (claude-code, "
        "claude-code-read-only, codex, gemini)",
    ]


def test_an_unknown_profile_or_both_is_one_error_each() -> None:
    assert _agent_lines({"agent": "claude"}) == [
        f"error: {PATH}: the input `agent` is 'claude', which is no ready profile (claude-code, "
        "claude-code-read-only, codex, gemini)",
        "  fix: name one, e.g. `agent: claude-code`, or give your own `agent-command` instead",
    ]
    assert _agent_lines({"agent": "codex", "agent-command": "mine"}) == [
        f"error: {PATH}: the job gives both `agent` (codex) and `agent-command`; the agent job "
        "stops on that",
        "  fix: keep one: the ready profile, or your own command line with its `agent-setup`",
    ]


def test_an_install_line_beside_a_ready_profile_is_a_warning_it_is_not_run() -> None:
    assert _agent_lines({"agent": "codex", "agent-setup": "npm install -g x"}) == [
        f"warning: {PATH}: `agent-setup` is not run with `agent` (codex): the ready profile "
        "installs its own CLI",
        "  fix: drop `agent-setup`, or give your own `agent-command` in place of `agent`",
    ]
