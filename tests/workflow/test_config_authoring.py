"""Writing a config or a workflow by hand: `baton graph --format workflow` prints a definition
that `baton validate` accepts back as the same workflow, an unknown key gets the closest key the
model allows at that level, and a misspelt state is pointed at by file and line wherever it is
named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.errors import InvalidConfig, InvalidWorkflow
from baton.workflow.checks import check
from baton.workflow.config import load_config, parse_config
from baton.workflow.model import load_preset, parse_workflow, preset_names

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(cli, list(args))
    return result.exit_code, result.output


def indented(text: str) -> str:
    return "".join(f"  {line}\n" if line else "\n" for line in text.splitlines())


def line_of(text: str, marker: str) -> int:
    """The line where `marker` occurs; it must occur exactly once."""
    starts = [m.start() for m in re.finditer(re.escape(marker), text)]
    assert len(starts) == 1, f"{marker!r} occurs {len(starts)} times"
    return text[: starts[0]].count("\n") + 1


# --- `baton graph --format workflow` round-trips through `baton validate` ------------------
@pytest.mark.parametrize("name", preset_names())
def test_the_printed_workflow_of_every_preset_validates_as_a_file(
    name: str, tmp_path: Path
) -> None:
    code, printed = invoke("graph", "--workflow", name, "--format", "workflow")
    assert code == 0, printed
    path = tmp_path / "mine.yml"
    path.write_text(printed, encoding="utf-8")

    code, output = invoke("validate", "--workflow", str(path))

    assert code == 0, output
    assert "0 error(s)" in output
    assert parse_workflow(printed)[0] == load_preset(name)


@pytest.mark.parametrize("name", preset_names())
def test_the_printed_workflow_of_every_preset_validates_inline_in_a_config(
    name: str, tmp_path: Path
) -> None:
    _, printed = invoke("graph", "--workflow", name, "--format", "workflow")
    config = tmp_path / "baton.yml"
    config.write_text("workflow:\n" + indented(printed), encoding="utf-8")

    code, output = invoke("validate", "--config", str(config))

    assert code == 0, output
    assert load_config(config).workflow == load_preset(name)


def test_the_printed_workflow_carries_the_configs_overrides(tmp_path: Path) -> None:
    config = tmp_path / "baton.yml"
    config.write_text(
        "workflow: issue-lifecycle\n"
        "timeouts: {waiting_for_human_input: 3d}\n"
        "limits: {max_iterations: 9}\n",
        encoding="utf-8",
    )
    _, printed = invoke("graph", "--config", str(config), "--format", "workflow")

    assert parse_workflow(printed)[0] == load_config(config).workflow


def test_the_json_graph_given_to_validate_points_at_the_workflow_format(tmp_path: Path) -> None:
    _, drawn = invoke("graph", "--workflow", "approval-gate", "--format", "json")
    path = tmp_path / "graph.json"
    path.write_text(drawn, encoding="utf-8")
    assert {"escapes", "humans"} <= json.loads(drawn).keys()

    code, output = invoke("validate", "--workflow", str(path))

    assert code == 1
    assert "--format workflow" in output


# --- unknown keys: the closest one at that level, with file and line -----------------------
TINY = """\
name: tiny
initial: start
agents: [dev]
states:
  start:
    kind: work
    agent: dev
  gate:
    kind: waiting
    reply: start
    approval: done
    timeout: {after: 7d, to: done}
  done:
    kind: terminal
transitions:
  start: [gate]
  gate: [start, done]
  done: []
rules:
  start:
    - when: {status: success, confidence_at_least: 0.8}
      to: gate
    - {when: {came_from: gate}, to: gate}
escalation:
  state: done
reopen: start
"""


def typo(old: str, new: str, text: str = TINY) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


UNKNOWN_WORKFLOW_KEYS = [
    pytest.param(typo("initial: start", "inital: start"), "inital", "initial", id="top level"),
    pytest.param(
        typo("    agent: dev\n", "    agnet: dev\n"), "agnet", "agent", id="a state's field"
    ),
    pytest.param(
        typo("{after: 7d, to: done}", "{afer: 7d, to: done}"), "afer", "after", id="a timeout"
    ),
    pytest.param(
        typo("confidence_at_least: 0.8", "confidence_atleast: 0.8"),
        "confidence_atleast",
        "confidence_at_least",
        id="a rule's condition",
    ),
    pytest.param(
        typo(
            "    - {when: {came_from: gate}, to: gate}", "    - {wen: {came_from: gate}, to: gate}"
        ),
        "wen",
        "when",
        id="a rule",
    ),
    pytest.param(typo("  state: done", "  sate: done"), "sate", "state", id="escalation"),
    pytest.param(
        TINY + "limits: {max_attempt: 2}\n", "max_attempt", "max_attempts", id="the limits"
    ),
]


@pytest.mark.parametrize(("text", "key", "meant"), UNKNOWN_WORKFLOW_KEYS)
def test_an_unknown_workflow_key_names_the_closest_one_and_its_line(
    text: str, key: str, meant: str
) -> None:
    with pytest.raises(InvalidWorkflow) as refused:
        parse_workflow(text, source="tiny.yml")

    message = str(refused.value)
    assert f"tiny.yml:{line_of(text, key + ':')}: " in message
    assert f"unknown key {key!r} (did you mean {meant!r}?)" in message


@pytest.mark.parametrize(("text", "key", "meant"), UNKNOWN_WORKFLOW_KEYS)
def test_an_unknown_key_of_an_inline_workflow_names_the_closest_one_and_its_line(
    text: str, key: str, meant: str
) -> None:
    config = "approval_words: [lgtm]\nworkflow:\n" + indented(text)
    with pytest.raises(InvalidWorkflow) as refused:
        parse_config(config, source="baton.yml")

    message = str(refused.value)
    assert f"baton.yml:{line_of(config, key + ':')}: workflow." in message
    assert f"unknown key {key!r} (did you mean {meant!r}?)" in message


@pytest.mark.parametrize(
    ("text", "key", "meant"),
    [
        pytest.param("timeout: {waiting_for_human_input: 3d}\n", "timeout", "timeouts", id="top"),
        pytest.param("aproval_words: [lgtm]\n", "aproval_words", "approval_words", id="a word"),
        pytest.param(
            "approvers:\n  permision: write\n", "permision", "permission", id="under approvers"
        ),
        pytest.param(
            "entry:\n  on_open: true\n  trigger: go\n", "trigger", "trigger_label", id="entry"
        ),
        pytest.param("limits:\n  max_iteration: 9\n", "max_iteration", "max_iterations", id="lim"),
    ],
)
def test_an_unknown_config_key_names_the_closest_one_and_its_line(
    text: str, key: str, meant: str
) -> None:
    with pytest.raises(InvalidConfig) as refused:
        parse_config(text, source="baton.yml")

    message = str(refused.value)
    assert f"baton.yml:{line_of(text, key + ':')}: " in message
    assert f"unknown key {key!r} (did you mean {meant!r}?)" in message


def test_an_unknown_key_like_no_other_lists_the_keys_allowed_there() -> None:
    with pytest.raises(InvalidConfig) as refused:
        parse_config("entry:\n  zebra: 1\n", source="baton.yml")

    assert "baton.yml:2: entry.zebra: unknown key 'zebra'; the keys here are: trigger_label" in (
        str(refused.value)
    )


# --- a misspelt state, wherever a state is named ------------------------------------------
def misspelt(old: str, new: str, name: str, case: str, marker: str | None = None) -> object:
    """TINY with `old` replaced by `new`, which names the misspelt state `name` on the line
    where `marker` (default: `new`) starts."""
    return pytest.param(typo(old, new), name, marker or new, id=case)


MISSPELT_STATES = [
    misspelt("initial: start", "initial: strat", "strat", "the initial state"),
    misspelt("  gate: [start, done]", "  gate: [start, dnoe]", "dnoe", "a target"),
    misspelt("  done: []", "  doen: []", "doen", "a transition source"),
    misspelt("    reply: start", "    reply: stat", "stat", "a reply target"),
    misspelt("    approval: done", "    approval: don", "don", "an approval target"),
    misspelt("to: done}", "to: doone}", "doone", "a timeout target"),
    misspelt("      to: gate\n", "      to: gaet\n", "gaet", "a rule's target"),
    misspelt("came_from: gate", "came_from: gat", "gat", "a rule's came_from"),
    misspelt("rules:\n  start:", "rules:\n  strt:", "strt", "a rules key", "  strt:"),
    misspelt("  state: done", "  state: dne", "dne", "the escalation state"),
    misspelt("reopen: start", "reopen: stort", "stort", "reopen"),
]


@pytest.mark.parametrize(("text", "name", "marker"), MISSPELT_STATES)
def test_a_misspelt_state_is_pointed_at_by_file_and_line(text: str, name: str, marker: str) -> None:
    workflow, document = parse_workflow(text, source="tiny.yml")
    rendered = [p.render(document) for p in check(workflow).errors]

    mentioning = [line for line in rendered if repr(name) in line]
    assert mentioning, rendered
    line = line_of(text, marker)
    assert all(m.startswith(f"tiny.yml:{line}: error: ") for m in mentioning), mentioning
    assert any("(did you mean" in m for m in mentioning), mentioning


@pytest.mark.parametrize(("text", "name", "marker"), MISSPELT_STATES)
def test_a_misspelt_state_of_an_inline_workflow_is_pointed_at_in_the_config(
    text: str, name: str, marker: str
) -> None:
    config = "approval_words: [lgtm]\nworkflow:\n" + indented(text)
    with pytest.raises(InvalidWorkflow) as refused:
        parse_config(config, source="baton.yml")

    assert f"baton.yml:{line_of(config, marker)}: error: " in str(refused.value)


@pytest.mark.parametrize(
    "config",
    [
        "workflow: issue-lifecycle\ntimeouts:\n  waiting_for_human_inptu: 3d\n",
        "approval_words: [lgtm]\ntimeouts:\n  gaet: 3d\nworkflow:\n" + indented(TINY),
    ],
    ids=["under timeouts, for a preset", "under timeouts, for an inline workflow"],
)
def test_a_misspelt_state_under_timeouts_is_pointed_at_by_file_and_line(config: str) -> None:
    with pytest.raises(InvalidConfig) as refused:
        parse_config(config, source="baton.yml")

    message = str(refused.value)
    misspelt = "waiting_for_human_inptu" if "inptu" in config else "gaet"
    meant = "waiting_for_human_input" if "inptu" in config else "gate"
    assert message.startswith(f"baton.yml:{line_of(config, misspelt)}: timeouts.{misspelt}: ")
    assert f"(did you mean {meant!r}?)" in message


def test_a_timeout_the_config_puts_on_a_final_state_points_at_the_config_line() -> None:
    config = "workflow: issue-lifecycle\ntimeouts:\n  completed: 3d\n"
    with pytest.raises(InvalidWorkflow) as refused:
        parse_config(config, source="baton.yml")

    assert "baton.yml:3: error: terminal state 'completed' cannot time out" in str(refused.value)


def test_validate_names_the_file_line_and_closest_key(tmp_path: Path) -> None:
    path = tmp_path / "baton.yml"
    path.write_text("approvers:\n  permision: write\n", encoding="utf-8")

    code, output = invoke("validate", "--config", str(path))

    assert code == 1
    assert f"{path}:2: approvers.permision: unknown key 'permision'" in output
    assert "(did you mean 'permission'?)" in output
