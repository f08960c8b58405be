"""`.github/baton.yml`: reading it, refusing what is wrong with a message that says where, and
the JSON Schema that ships for editors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.errors import BatonError, InvalidConfig, InvalidWorkflow
from baton.workflow.config import Policy, load_config, parse_config
from baton.workflow.model import load_preset

INLINE_WORKFLOW = """\
workflow:
  name: tiny
  initial: start
  agents: [dev]
  states:
    start: {kind: work, agent: dev}
    gate: {kind: waiting, approval: done, timeout: {after: 2d, to: done}}
    done: {kind: terminal}
  transitions:
    start: [gate]
    gate: [done]
    done: []
  rules:
    start:
      - {when: {status: success}, to: gate}
      - {to: retry}
"""


def _parse(text: str) -> Any:
    return parse_config(text, source="baton.yml")


# --- where the config comes from ---------------------------------------------------------------
def test_no_config_file_means_the_default_preset_and_policy(tmp_path: Path) -> None:
    settings = load_config(tmp_path / ".github" / "baton.yml")
    assert settings.workflow.name == "issue-lifecycle"
    assert settings.workflow == load_preset("issue-lifecycle")
    assert settings.policy == Policy()
    assert settings.source == "(defaults)"


def test_no_path_at_all_means_the_defaults() -> None:
    assert load_config(None).workflow.name == "issue-lifecycle"


def test_an_explicit_config_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "my-baton.yml"
    with pytest.raises(InvalidConfig, match="does not exist") as caught:
        load_config(missing, required=True)
    assert str(missing) in str(caught.value)


def test_the_cli_refuses_an_explicit_config_that_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["graph", "--config", "nope.yml"])
    assert result.exit_code == 1
    assert "nope.yml" in result.output


def test_a_config_file_on_disk_is_read(tmp_path: Path) -> None:
    path = tmp_path / "baton.yml"
    path.write_text("workflow: task-review\napproval_words: [lgtm]\n", encoding="utf-8")
    settings = load_config(path, required=True)
    assert settings.workflow.name == "task-review"
    assert settings.policy.approval_words == ("lgtm",)
    assert settings.source == str(path)


@pytest.mark.parametrize(
    "text",
    ["", "# only a comment\n", "---\n"],
    ids=["an empty file", "a file with only a comment", "a bare document marker"],
)
def test_an_empty_config_means_the_defaults(text: str) -> None:
    settings = _parse(text)
    assert settings.workflow.name == "issue-lifecycle"
    assert settings.policy == Policy()


# --- which workflow ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["issue-lifecycle", "approval-gate", "task-review"])
def test_a_preset_is_chosen_by_name(name: str) -> None:
    assert _parse(f"workflow: {name}\n").workflow == load_preset(name)


def test_an_inline_workflow_is_used_as_written() -> None:
    workflow = _parse(INLINE_WORKFLOW).workflow
    assert workflow.name == "tiny"
    assert workflow.targets("start") == ["gate"]
    assert workflow.spec("gate").approval == "done"


def test_an_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(BatonError) as caught:
        _parse("workflow: issue-lifecycel\n")
    message = str(caught.value)
    assert "issue-lifecycel" in message
    for name in ["issue-lifecycle", "approval-gate", "task-review"]:
        assert name in message


def test_an_inline_workflow_with_errors_is_refused_with_the_check_messages() -> None:
    text = INLINE_WORKFLOW.replace("start: [gate]", "start: [gate, nowhere]").replace(
        "approval: done", "approval: start"
    )
    with pytest.raises(InvalidWorkflow) as caught:
        _parse(text)
    message = str(caught.value)
    assert "'tiny'" in message
    assert "start -> nowhere: unknown target state 'nowhere'" in message
    assert "gate.approval -> start is not in the transition table" in message


def test_an_inline_workflow_missing_fields_is_refused_naming_them() -> None:
    with pytest.raises(InvalidWorkflow) as caught:
        _parse("workflow:\n  name: half\n  initial: start\n")
    message = str(caught.value)
    for field in ["workflow.agents", "workflow.states", "workflow.transitions"]:
        assert field in message


def test_an_inline_workflow_with_only_warnings_is_accepted() -> None:
    text = INLINE_WORKFLOW.replace(
        "    done: {kind: terminal}\n", "    done: {kind: terminal}\n    limbo: {kind: terminal}\n"
    )
    assert "limbo" in _parse(text).workflow.states


# --- malformed files ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("approvers: [\n", ["baton.yml", "not valid YAML"]),
        ("workflow: 'unclosed\n", ["baton.yml", "not valid YAML"]),
        ("- workflow: approval-gate\n", ["baton.yml", "mapping"]),
        ("just a string\n", ["baton.yml", "mapping"]),
        ("workflow: task-review\nworkflow: approval-gate\n", ["duplicate", "'workflow'", "line 2"]),
    ],
    ids=[
        "an unclosed bracket is not YAML",
        "an unclosed quote is not YAML",
        "a list is not a config",
        "a bare string is not a config",
        "a key given twice is refused with its line",
    ],
)
def test_a_malformed_config_is_refused(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _parse(text)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("workflow: approval-gate\nreviewers: [maria]\n", "baton.yml:2: reviewers"),
        ("approvers:\n  permission: write\n  user: [maria]\n", "baton.yml:3: approvers.user"),
        ("entry:\n  on_open: true\n  trigger: baton\n", "baton.yml:3: entry.trigger"),
    ],
    ids=[
        "an unknown top-level key",
        "an unknown key under approvers",
        "an unknown key under entry",
    ],
)
def test_an_unknown_key_is_refused_with_file_and_line(text: str, where: str) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _parse(text)
    assert where in str(caught.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("approvers:\n  permission: owner\n", "baton.yml:2: approvers.permission"),
        ("approvers:\n  teams: [reviewers]\n", "baton.yml:2: approvers.teams"),
        ("answerers: everyone\n", "baton.yml:1: answerers"),
        ("sweep_budget: 1\n", "baton.yml:1: sweep_budget"),
        ("label_prefix: ''\n", "baton.yml:1: label_prefix"),
        ("agent_timeout: a while\n", "baton.yml:1: agent_timeout"),
    ],
    ids=[
        "a permission GitHub does not have",
        "a team without its org",
        "an unknown answerers setting",
        "a sweep budget too small to do anything",
        "an empty label prefix",
        "an agent timeout that is not a duration",
    ],
)
def test_a_bad_value_is_refused_with_file_and_line(text: str, where: str) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _parse(text)
    assert where in str(caught.value)


# --- overrides reach the workflow --------------------------------------------------------------
def test_a_timeout_override_changes_how_long_a_waiting_state_waits() -> None:
    workflow = _parse("timeouts: {waiting_for_human_input: 3d}\n").workflow
    timeout = workflow.spec("waiting_for_human_input").timeout
    assert timeout is not None
    assert timeout.after == timedelta(days=3)
    assert timeout.to == "blocked"  # where it goes stays the preset's


def test_a_timeout_override_on_a_work_state_redispatches_its_agent() -> None:
    workflow = _parse("timeouts: {implementing: 2h}\n").workflow
    timeout = workflow.spec("implementing").timeout
    assert timeout is not None
    assert timeout.after == timedelta(hours=2)
    assert timeout.to is None


def test_an_override_leaves_the_preset_itself_alone() -> None:
    _parse("timeouts: {waiting_for_human_input: 1h}\nlimits: {max_iterations: 4}\n")
    preset = load_preset("issue-lifecycle")
    timeout = preset.spec("waiting_for_human_input").timeout
    assert timeout is not None and timeout.after == timedelta(days=14)
    assert preset.limits.max_iterations == 25
    assert _parse("").workflow.limits.max_iterations == 25


def test_a_limits_override_changes_only_the_limits_named() -> None:
    workflow = _parse("limits: {max_iterations: 40, max_attempts: 2}\n").workflow
    preset = load_preset("issue-lifecycle").limits
    assert workflow.limits.max_iterations == 40
    assert workflow.limits.max_attempts == 2
    assert workflow.limits.loop_window == preset.loop_window
    assert workflow.limits.fresh_context_from_attempt == preset.fresh_context_from_attempt


def test_overrides_reach_an_inline_workflow_too() -> None:
    text = INLINE_WORKFLOW + "timeouts: {gate: 90m}\nlimits: {max_iterations: 3}\n"
    workflow = _parse(text).workflow
    timeout = workflow.spec("gate").timeout
    assert timeout is not None and timeout.after == timedelta(minutes=90)
    assert timeout.to == "done"
    assert workflow.limits.max_iterations == 3


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("timeouts: {waiting_for_review: 3d}\n", ["waiting_for_review"]),
        ("timeouts: {waiting_for_human_input: soon}\n", ["waiting_for_human_input", "soon"]),
        ("timeouts: {waiting_for_human_input: 0d}\n", ["waiting_for_human_input", "0d"]),
        ("limits: {max_iterations: 0}\n", ["limits", "greater than or equal to 1"]),
        ("limits: {max_iteration: 9}\n", ["limits", "max_iteration"]),
        ("limits: {max_iterations: many}\n", ["limits.max_iterations"]),
    ],
    ids=[
        "a timeout for a state the workflow does not have",
        "a timeout that is not a duration",
        "a timeout of zero",
        "a limit of zero",
        "a misspelt limit",
        "a limit that is not a number",
    ],
)
def test_bad_overrides_are_refused(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _parse(text)
    for word in words:
        assert word in str(caught.value)


# --- epics: the workflows in use, and the one an issue's labels choose ------------------------
def test_the_settings_hold_every_workflow_in_use() -> None:
    settings = load_config(None)
    assert settings.workflows == {
        "issue-lifecycle": settings.workflow,
        "feature-epic": load_preset("feature-epic"),
        "epic-task": load_preset("epic-task"),
    }
    assert [w.role for w in settings.workflows.values()] == ["issue", "epic", "task"]


def test_with_epics_off_only_the_configured_workflow_is_in_use() -> None:
    settings = _parse("workflow: task-review\nepics: {enabled: false}\n")
    assert settings.workflows == {"task-review": settings.workflow}
    assert settings.policy.markers == ()
    assert settings.for_labels(["baton:epic", "baton:task"]) is settings


def test_the_configured_workflow_in_use_carries_the_configs_overrides() -> None:
    settings = _parse("timeouts: {waiting_for_human_input: 3d}\n")
    assert settings.workflows["issue-lifecycle"] is settings.workflow
    assert settings.workflow != load_preset("issue-lifecycle")


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param(["bug"], "issue-lifecycle", id="no marker: the configured workflow"),
        pytest.param([], "issue-lifecycle", id="no labels: the configured workflow"),
        pytest.param(["baton:epic"], "feature-epic", id="the epic label"),
        pytest.param(["Baton:EPIC", "bug"], "feature-epic", id="the epic label in any case"),
        pytest.param(["baton:task"], "epic-task", id="the task label"),
        pytest.param(["baton:epic", "BATON:TASK"], "epic-task", id="the task label wins"),
        pytest.param(["status:discovery"], "issue-lifecycle", id="a status label is no marker"),
    ],
)
def test_an_issues_labels_choose_its_workflow(labels: list[str], expected: str) -> None:
    settings = load_config(None)
    chosen = settings.for_labels(labels)
    assert chosen.workflow.name == expected
    assert chosen.workflow == settings.workflows[expected]
    assert (chosen.policy, chosen.config, chosen.workflows) == (
        settings.policy,
        settings.config,
        settings.workflows,
    )
    if expected == "issue-lifecycle":
        assert chosen is settings


def test_the_marker_labels_are_configurable() -> None:
    settings = _parse("epics: {label: saga, task_label: chapter}\n")
    assert settings.policy.markers == ("chapter", "saga")
    assert settings.for_labels(["Saga"]).workflow.name == "feature-epic"
    assert settings.for_labels(["chapter"]).workflow.name == "epic-task"
    assert settings.for_labels(["baton:epic"]) is settings


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param(
            "epics:\n  workflow: feature-epics\n",
            ["baton.yml:2: epics.workflow", "'feature-epics'", "did you mean 'feature-epic'?"],
            id="an unknown epic preset",
        ),
        pytest.param(
            "epics:\n  task_workflow: no-such\n",
            ["baton.yml:2: epics.task_workflow", "'no-such'", "the presets are"],
            id="an unknown task preset",
        ),
        pytest.param(
            "epics:\n  workflow: issue-lifecycle\n",
            ["baton.yml:2: epics.workflow", "'issue-lifecycle'", "role 'epic'"],
            id="an epic preset that is no epic's",
        ),
        pytest.param(
            "epics:\n  task_workflow: task-review\n",
            ["baton.yml:2: epics.task_workflow", "'task-review'", "role 'task'"],
            id="a task preset that is no task's",
        ),
        pytest.param(
            "epics:\n  label: work\n  task_label: Work\n",
            ["baton.yml:3: epics.task_label", "'Work' is the epic label"],
            id="one label for epics and tasks",
        ),
        pytest.param(
            "entry: {trigger_label: go}\nepics:\n  label: GO\n",
            ["baton.yml:3: epics.label", "'GO' is the trigger label"],
            id="the trigger label as the epic label",
        ),
        pytest.param(
            "epics:\n  task_label: baton\n",
            ["baton.yml:2: epics.task_label", "'baton' is the trigger label"],
            id="the default trigger label as the task label",
        ),
        pytest.param(
            "epics:\n  label: 'Status:epic'\n",
            ["baton.yml:2: epics.label", "label prefix 'status:'", "status label"],
            id="an epic label that reads as a status label",
        ),
        pytest.param(
            "label_prefix: 'baton:'\n",
            ["baton.yml", "epics.label", "'baton:epic'", "epics.enabled: false"],
            id="a prefix that makes the default epic label a status label",
        ),
    ],
)
def test_a_wrong_epics_setting_is_refused_in_a_line_where_it_is(
    text: str, words: list[str]
) -> None:
    with pytest.raises(InvalidConfig) as caught:
        _parse(text)
    message = str(caught.value)
    for word in words:
        assert word in message
    assert all(line.startswith("baton.yml:") for line in message.splitlines())
    assert len(message.splitlines()) == (2 if "label_prefix" in text else 1)


def test_wrong_markers_are_not_refused_while_epics_are_off() -> None:
    settings = _parse("epics: {enabled: false, label: baton, task_label: baton}\n")
    assert settings.policy.markers == ()


def test_a_configured_epic_workflow_is_its_own_epic_workflow() -> None:
    """`baton graph --workflow feature-epic` configures the epic preset as the workflow."""
    settings = _parse("workflow: feature-epic\n")
    assert list(settings.workflows) == ["feature-epic", "epic-task"]
    assert settings.for_labels(["baton:epic"]) is settings


# --- a workflow file the config names --------------------------------------------------------
def test_a_workflow_file_beside_the_config_is_read_and_locked_like_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from baton.core.model.changeset import forbidden_problem
    from baton.workflow.model import to_yaml

    monkeypatch.chdir(tmp_path)
    Path(".github").mkdir()
    Path(".github/mine.yml").write_text(to_yaml(load_preset("approval-gate")), encoding="utf-8")
    Path(".github/baton.yml").write_text("workflow: mine.yml\n", encoding="utf-8")

    settings = load_config(Path(".github/baton.yml"))

    assert settings.workflow == load_preset("approval-gate")
    assert settings.policy.work.forbidden == (".github/mine.yml",)
    assert forbidden_problem(".github/mine.yml", settings.policy.work) == (
        ".github/mine.yml is a forbidden path (.github/mine.yml, in work.forbidden)"
    )
    assert settings.config.work == settings.policy.work  # the agent job's capture sees it too


def test_a_preset_or_an_inline_workflow_locks_nothing_more(tmp_path: Path) -> None:
    path = tmp_path / "baton.yml"
    path.write_text("workflow: approval-gate\nwork: {forbidden: [secrets/**]}\n", "utf-8")
    assert load_config(path).policy.work.forbidden == ("secrets/**",)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (b"workflow: gone.yml\n", "cannot read workflow file"),
        (b"workflow: ../outside.yml\n", "must be a path beside the config"),
        (b'workflow: issue-lifecycle\nlabel_prefix: "st\xc3\xa4tus:\xff"\n', "not UTF-8 text"),
    ],
    ids=["a missing file", "a file outside the repository", "a config that is not UTF-8"],
)
def test_what_cannot_be_read_is_refused_in_one_line(
    tmp_path: Path, text: bytes, words: str
) -> None:
    path = tmp_path / "baton.yml"
    path.write_bytes(text)
    with pytest.raises(BatonError) as refused:
        load_config(path)
    assert words in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_config_with_an_alias_or_over_256_kb_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "baton.yml"
    path.write_text("entry: &e {on_open: false}\nx: *e\n", encoding="utf-8")
    with pytest.raises(InvalidConfig, match="take no aliases"):
        load_config(path)
    path.write_text("#" * (256 * 1024) + "\n", encoding="utf-8")
    with pytest.raises(InvalidConfig, match=r"is over 262,144 bytes"):
        load_config(path)
