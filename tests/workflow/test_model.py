"""The workflow model's reading (`workflow/model.py`): presets by name, errors placed at a file's
line with the nearest key the model allows, and a definition that prints and reads back."""

from __future__ import annotations

import pytest

from baton.errors import InvalidWorkflow
from baton.workflow.model import (
    Workflow,
    did_you_mean,
    keys_at,
    load_preset,
    located,
    parse_workflow,
    preset_names,
    to_yaml,
)
from baton.workflow.yaml_source import read_yaml


def test_the_presets_are_listed_by_name_and_load() -> None:
    assert {"issue-lifecycle", "approval-gate", "task-review"} <= set(preset_names())
    assert all(load_preset(name).name for name in preset_names())


def test_an_unknown_preset_is_refused_with_the_closest_and_every_name() -> None:
    with pytest.raises(InvalidWorkflow) as refused:
        load_preset("aproval-gate")

    assert "did you mean 'approval-gate'?" in str(refused.value)
    assert "issue-lifecycle" in str(refused.value)


@pytest.mark.parametrize(
    ("word", "hint"),
    [("timout", " (did you mean 'timeout'?)"), ("zzz", "")],
    ids=["a near miss", "nothing close"],
)
def test_did_you_mean_offers_only_a_close_word(word: str, hint: str) -> None:
    assert did_you_mean(word, ["timeout", "kind", "agent"]) == hint


def test_the_keys_allowed_are_read_from_the_model_at_any_depth() -> None:
    assert "kind" in keys_at(Workflow, ("states", "start"))
    assert "after" in keys_at(Workflow, ("states", "start", "timeout"))
    assert keys_at(Workflow, ("name",)) == []


def test_a_place_is_said_with_as_much_as_is_known() -> None:
    document = read_yaml("states:\n  start: {}\n", source="wf.yml")

    assert located(document, ("states", "start"), "bad") == "wf.yml:2: states.start: bad"
    assert located(None, (), "bad") == "top level: bad"


def test_a_duplicated_state_is_named_as_a_state_with_its_line() -> None:
    with pytest.raises(InvalidWorkflow, match=r"duplicate state 'a' \(line 3\)"):
        parse_workflow("states:\n  a: {kind: terminal}\n  a: {kind: terminal}\n", source="wf")


def test_a_drawn_graph_is_not_taken_for_a_definition() -> None:
    with pytest.raises(InvalidWorkflow, match="not a definition"):
        parse_workflow("escapes: []\nhumans: []\n", source="graph.json")


def test_a_preset_printed_as_yaml_reads_back_as_the_same_workflow() -> None:
    preset = load_preset("issue-lifecycle")

    again, _ = parse_workflow(to_yaml(preset), source="printed")

    assert again == preset
