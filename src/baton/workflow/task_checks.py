"""The checks of a task workflow (`role: task`): every state counts as a task status.

The epic's conductor reads a task only as its status (`task_status`): a state that counts as
none would read as unknown, a waiting first state that is not `pending` would never be
started, a terminal state that is not done would hold its dependents forever, and a state
counting as done before the end would let them start before the task's branch is merged.
"""

from __future__ import annotations

from collections.abc import Iterator

from baton.workflow.model import StateKind, Workflow
from baton.workflow.problems import Problem, error, warning
from baton.workflow.task_status import TaskStatus, counts_as

STATUSES = ", ".join(TaskStatus)
DONE = (TaskStatus.completed, TaskStatus.skipped)


def check_task_states(wf: Workflow, prefix: str) -> Iterator[Problem]:
    if wf.role != "task":
        for state, spec in wf.states.items():
            if spec.task_status is not None:
                yield warning(
                    f"{state}.task_status is read only in a `role: task` workflow",
                    "states",
                    state,
                    "task_status",
                )
        return
    for state in wf.states:
        yield from _counts(wf, state)
    counted = {s: counts_as(s, spec.task_status) for s, spec in wf.states.items()}
    if wf.initial in wf.states and counted[wf.initial] is not TaskStatus.pending:
        yield error(
            f"initial state {wf.initial!r} of a task workflow must count as pending (a task "
            "waits there for its epic's order)",
            "initial",
        )
    starts = [t for t in wf.targets(wf.initial) if counted.get(t) is TaskStatus.in_progress]
    if wf.initial in wf.states and not starts:
        yield error(
            f"initial state {wf.initial!r} of a task workflow leads to no state counting as "
            "in_progress: the conductor's start has nowhere to go",
            "transitions",
            wf.initial,
        )


def _counts(wf: Workflow, state: str) -> Iterator[Problem]:
    spec = wf.states[state]
    status = counts_as(state, spec.task_status)
    where = ("states", state, "task_status")
    if status is None:
        yield error(
            f"state {state!r} of a task workflow counts as no task status: name it after one, "
            f"or say which it counts as with `task_status:` ({STATUSES})",
            *where[:2],
        )
        return
    named = TaskStatus(state) if state in TaskStatus.__members__ else None
    if named is not None and status is not named:
        yield error(
            f"{state}.task_status: {status.value} contradicts the state's name, which is the "
            f"task status {named.value}",
            *where,
        )
    terminal = spec.kind is StateKind.terminal
    if terminal and status not in DONE:
        yield error(
            f"terminal state {state!r} of a task workflow must count as completed or skipped, "
            f"not {status.value} (its dependents would wait forever)",
            *where,
        )
    if not terminal and status in DONE:
        yield error(
            f"state {state!r} counts as {status.value} but is not terminal: the task's "
            "dependents would start before it ends",
            *where,
        )
