"""What a task workflow's state counts as for its epic's conductor (`workflow/task_status.py`):
its declared `task_status`, else the status it is named after, else none."""

from __future__ import annotations

import pytest

from baton.workflow.task_status import TaskStatus, counts_as


@pytest.mark.parametrize(
    ("state", "declared", "counted"),
    [
        pytest.param("pending", None, TaskStatus.pending, id="named after a status"),
        pytest.param("retry_queued", None, TaskStatus.retry_queued, id="every name counts"),
        pytest.param(
            "writing_tests", TaskStatus.in_progress, TaskStatus.in_progress, id="declared"
        ),
        pytest.param("tests_review", None, None, id="neither named nor declared"),
        pytest.param("Pending", None, None, id="the name exactly, not its case"),
        pytest.param("in-progress", None, None, id="not the label's spelling"),
        pytest.param("pending", TaskStatus.blocked, TaskStatus.blocked, id="declared wins"),
    ],
)
def test_a_state_counts_as_its_declared_status_else_the_one_it_is_named_after(
    state: str, declared: TaskStatus | None, counted: TaskStatus | None
) -> None:
    assert counts_as(state, declared) is counted


def test_the_statuses_are_the_epic_task_presets_states() -> None:
    assert list(TaskStatus) == [
        "pending",
        "in_progress",
        "pending_review",
        "retry_queued",
        "completed",
        "failed",
        "blocked",
        "skipped",
    ]
