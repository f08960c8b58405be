"""The inputs that repeat the config: an absent one is the reusable workflow's default (the
config's own); one that disagrees with the config is an error, since the job filter goes by it."""

from __future__ import annotations

from typing import Any

import pytest

from baton.adopt.checks.caller import Caller
from baton.adopt.checks.inputs import MIRRORED, check_inputs
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
