"""What a task's state counts as for its epic's conductor (`role: task` workflows).

The conductor knows a task by these statuses alone: a slot is held by an active one, a
dependent waits for a done one, a failed one counts for the breaker. A task workflow's state
counts as the status it is named after (the `epic-task` preset's states), or as the one its
`task_status` names (`writing_tests` counts as `in_progress`); `core.model.epic.status_of` reads
a workflow's state through `counts_as`, and `baton validate` holds every state of a task
workflow to counting as one (`task_checks`).
"""

from __future__ import annotations

from enum import StrEnum


class TaskStatus(StrEnum):
    """A task's statuses: the `epic-task` preset's states, and the conductor's view."""

    pending = "pending"
    in_progress = "in_progress"
    pending_review = "pending_review"
    retry_queued = "retry_queued"
    completed = "completed"
    failed = "failed"
    blocked = "blocked"
    skipped = "skipped"


def counts_as(state: str, declared: TaskStatus | None) -> TaskStatus | None:
    """The status a state named `state` with `task_status: declared` counts as: the declared
    one, else the one it is named after; None when it counts as none."""
    if declared is not None:
        return declared
    return TaskStatus(state) if state in TaskStatus.__members__ else None
