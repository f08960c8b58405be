"""What an epic's or a task's rules need read of the other side before they decide: an epic
that conducts reads its tasks, a task waiting for its epic reads its order. The shell
(`issue/epic_facts.py`) reads them when these say so, and `decide` stays pure."""

from __future__ import annotations

from baton.core.model.epic import DONE, WAITING, TaskStatus, status_of
from baton.core.model.events import Dispatched, Event, Tick
from baton.core.model.record import Record
from baton.core.rules.epic.phases import CONDUCTING
from baton.workflow.model import Workflow


def unfinished(planned: TaskStatus, labelled: TaskStatus | None) -> bool:
    """Whether an open task's record is read: its plan or its label says it is not finished
    (a finished task's record tells the conductor nothing new)."""
    return planned not in DONE or labelled not in DONE


def needs_tasks(record: Record | None, event: Event, role: str) -> bool:
    """An epic that conducts its tasks (implementing, blocked, completing) needs them observed,
    unless the event already carries them or is a relabel (a human's move, decided alone)."""
    return (
        role == "epic"
        and record is not None
        and record.epic is not None
        and record.state in CONDUCTING
        and event.tasks is None
        and event.kind != "label"
    )


def needs_order(record: Record | None, event: Event, workflow: Workflow) -> bool:
    """A task on its first run, or waiting for its epic (in a state counting as pending or
    blocked), needs its order when a dispatch or the sweep wakes it, unless the event already
    carries it."""
    waiting = record is None or status_of(workflow, record.state) in WAITING
    woken = isinstance(event, Dispatched | Tick)
    return workflow.role == "task" and event.order is None and woken and waiting
