"""`baton validate` on a task workflow (`workflow/task_checks.py`): every state counts as a task
status, by its name or its `task_status`; the first counts as pending and leads to a state
counting as in_progress; terminal states, and only they, count as completed or skipped. Each
problem is one line naming the state, pointing at the line that causes it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.workflow.checks import check
from baton.workflow.model import load_preset, parse_workflow, to_yaml
from baton.workflow.task_checks import check_task_states

TASK = """\
name: tiny-task
role: task
initial: pending
agents: [dev]
states:
  pending:
    kind: waiting
  coding:
    kind: work
    agent: dev
    task_status: in_progress
  failed:
    kind: waiting
    approval: completed
  completed:
    kind: terminal
transitions:
  pending: [coding]
  coding: [completed, failed]
  failed: [pending, completed]
  completed: []
rules:
  coding:
    - {when: {status: success}, to: completed}
    - {to: retry}
escalation:
  state: failed
"""


def edited(*edits: tuple[str, str]) -> str:
    text = TASK
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def problems(text: str) -> list[str]:
    workflow, document = parse_workflow(text, source="task.yml")
    return [p.render(document) for p in check_task_states(workflow, "status:")]


def test_the_small_task_workflow_passes_every_check() -> None:
    workflow, _ = parse_workflow(TASK)
    assert check(workflow).problems == []


@pytest.mark.parametrize(
    ("edits", "said"),
    [
        pytest.param(
            [("    task_status: in_progress\n", "")],
            [
                "task.yml:8: error: state 'coding' of a task workflow counts as no task "
                "status: name it after one, or say which it counts as with `task_status:` "
                "(pending, in_progress, pending_review, retry_queued, completed, failed, "
                "blocked, skipped)",
                "task.yml:17: error: initial state 'pending' of a task workflow leads to no "
                "state counting as in_progress: the conductor's start has nowhere to go",
            ],
            id="a state counting as nothing",
        ),
        pytest.param(
            [
                (
                    "  pending:\n    kind: waiting\n",
                    "  pending:\n    kind: waiting\n    task_status: blocked\n",
                )
            ],
            [
                "task.yml:8: error: pending.task_status: blocked contradicts the state's name, "
                "which is the task status pending",
                "task.yml:3: error: initial state 'pending' of a task workflow must count as "
                "pending (a task waits there for its epic's order)",
            ],
            id="a name and a declared status that disagree",
        ),
        pytest.param(
            [("    task_status: in_progress\n", "    task_status: completed\n")],
            [
                "task.yml:11: error: state 'coding' counts as completed but is not terminal: "
                "the task's dependents would start before it ends",
                "task.yml:18: error: initial state 'pending' of a task workflow leads to no "
                "state counting as in_progress: the conductor's start has nowhere to go",
            ],
            id="done before the end",
        ),
        pytest.param(
            [
                (
                    "  completed:\n    kind: terminal\n",
                    "  completed:\n    kind: terminal\n"
                    "  dropped:\n    kind: terminal\n    task_status: failed\n",
                ),
                ("  completed: []\n", "  completed: []\n  dropped: []\n"),
                ("  coding: [completed, failed]", "  coding: [completed, failed, dropped]"),
            ],
            [
                "task.yml:19: error: terminal state 'dropped' of a task workflow must count as "
                "completed or skipped, not failed (its dependents would wait forever)",
            ],
            id="an end that is not done",
        ),
    ],
)
def test_a_task_workflow_whose_states_do_not_count_is_refused_in_one_line_each(
    edits: list[tuple[str, str]], said: list[str]
) -> None:
    assert problems(edited(*edits)) == said


def test_a_first_state_not_counting_as_pending_is_refused() -> None:
    text = edited(("initial: pending", "initial: coding"), ("  pending: [coding]\n", ""))
    assert "initial state 'coding' of a task workflow must count as pending" in "".join(
        problems(text)
    )


@pytest.mark.parametrize("preset", ["epic-task", "epic-task-test-first"])
def test_the_task_presets_pass(preset: str) -> None:
    assert list(check_task_states(load_preset(preset), "status:")) == []


def test_baton_validate_refuses_a_task_workflow_with_a_state_counting_as_nothing(
    tmp_path,
) -> None:
    path = tmp_path / "task.yml"
    path.write_text(edited(("    task_status: in_progress\n", "")), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", "--workflow", str(path)])
    assert result.exit_code == 1
    assert "error: state 'coding' of a task workflow counts as no task status" in result.output


def test_a_declared_task_status_survives_the_printed_definition() -> None:
    workflow = load_preset("epic-task-test-first")
    again, _ = parse_workflow(to_yaml(workflow))
    assert again == workflow
    assert again.states["tests_review"].task_status == "in_progress"


def test_each_problem_points_at_the_state_or_at_its_task_status() -> None:
    """A state counting as nothing has no `task_status` to point at: the state itself is named;
    a contradicting one points at its `task_status`."""
    nothing, _ = parse_workflow(edited(("    task_status: in_progress\n", "")))
    assert next(p.path for p in check_task_states(nothing, "status:")) == ("states", "coding")
    contradicting, _ = parse_workflow(
        edited(
            (
                "  failed:\n    kind: waiting\n",
                "  failed:\n    kind: waiting\n    task_status: blocked\n",
            )
        )
    )
    paths = [p.path for p in check_task_states(contradicting, "status:")]
    assert ("states", "failed", "task_status") in paths
