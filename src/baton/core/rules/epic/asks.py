"""What an epic's or a task's rules need read of the other side before they decide: an epic
that conducts reads its tasks, a task waiting for its epic reads its order. `decide` asks for
them when these say so (`core/rules/asking.py`), the shell reads them (`issue/epic_facts.py`)."""

from __future__ import annotations

from baton.core.model.epic import DONE, WAITING, TaskStatus, status_of
from baton.core.model.events import Dispatched, Event, Tick
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import Record
from baton.core.rules.epic.phases import CONDUCTING
from baton.workflow.model import Workflow


def unfinished(planned: TaskStatus, labelled: TaskStatus | None) -> bool:
    """Whether an open task's record is read: its plan or its label says it is not finished
    (a finished task's record tells the conductor nothing new)."""
    return planned not in DONE or labelled not in DONE


def needs_tasks(record: Record | None, event: Event, role: str, facts: Facts = NO_FACTS) -> bool:
    """An epic that conducts its tasks (implementing, blocked, completing) needs them observed,
    unless the event already carries them or is a relabel (a human's move, decided alone)."""
    return (
        role == "epic"
        and record is not None
        and record.epic is not None
        and record.state in CONDUCTING
        and facts.tasks is None
        and event.kind != "label"
    )


def needs_order(
    record: Record | None, event: Event, workflow: Workflow, facts: Facts = NO_FACTS
) -> bool:
    """A task on its first run, or waiting for its epic (in a state counting as pending or
    blocked), needs its order when a dispatch or the sweep wakes it, unless the run already
    knows it."""
    waiting = record is None or status_of(workflow, record.state) in WAITING
    known = facts.order is not None or facts.orderless
    woken = isinstance(event, Dispatched | Tick)
    return workflow.role == "task" and not known and woken and waiting
