"""What an epic's or a task's rules ask to be read before deciding (`rules/epic/asks.py`): an
epic that conducts reads its tasks; a task woken while it waits for its epic reads its order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.core.model.epic import TaskObservation, TaskOrder, TaskStatus
from baton.core.model.events import Event, tick
from baton.core.model.facts import Facts
from baton.core.rules.epic.asks import needs_order, needs_tasks, unfinished
from baton.workflow.config import Config, settings_from
from baton.workflow.model import load_preset
from support.epic_rules import B, conducting, engine_builders, planned

NOW = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)
TASKS = [planned("a", 2)]
TASK = settings_from(Config.model_validate({})).for_labels(["baton:task"])
T = engine_builders().Build(TASK.workflow, TASK.policy)  # a task's records and events


@pytest.mark.parametrize(
    ("state", "asked"),
    [("implementing", True), ("blocked", True), ("completing", True), ("planning", False)],
)
def test_an_epic_reads_its_tasks_only_while_it_conducts_them(state: str, asked: bool) -> None:
    assert needs_tasks(conducting(state, TASKS), tick(1, NOW), "epic") is asked


def test_an_epic_asks_nothing_of_a_relabel_an_event_with_its_tasks_or_another_role() -> None:
    record = conducting("implementing", TASKS)
    relabel: Event = B.labeled("status:implementing", "maria", "implementing")
    held, facts = tick(1, NOW), Facts(tasks=[TaskObservation(number=2, status=TaskStatus.pending)])
    assert not needs_tasks(record, relabel, "epic")
    assert not needs_tasks(record, held, "epic", facts)
    assert not needs_tasks(record, tick(1, NOW), "task")
    assert not needs_tasks(None, tick(1, NOW), "epic")
    no_epic = record.model_copy(update={"epic": None})
    assert not needs_tasks(no_epic, tick(1, NOW), "epic")


@pytest.mark.parametrize(("state", "asked"), [("pending", True), ("blocked", True)])
def test_a_waiting_task_woken_reads_its_order(state: str, asked: bool) -> None:
    record = T.record(state)
    assert needs_order(record, tick(1, NOW), TASK.workflow) is asked
    assert needs_order(record, T.dispatched(state), TASK.workflow) is asked


def test_a_task_on_its_first_run_reads_its_order_and_a_working_one_does_not() -> None:
    assert needs_order(None, tick(1, NOW), TASK.workflow)
    assert not needs_order(T.record("in_progress"), tick(1, NOW), TASK.workflow)


def test_a_task_asks_nothing_of_a_comment_an_event_with_its_order_or_another_role() -> None:
    record = T.record("pending")
    ordered, facts = (
        tick(1, NOW),
        Facts(order=TaskOrder(epic=9, epic_state="implementing", known=True)),
    )
    assert not needs_order(record, T.commented("hello", "maria", None), TASK.workflow)
    assert not needs_order(record, ordered, TASK.workflow, facts)
    assert not needs_order(record, tick(1, NOW), load_preset("feature-epic"))


FIRST = load_preset("epic-task-test-first")
F = engine_builders().Build(FIRST, TASK.policy)  # a tests-first task's records


@pytest.mark.parametrize(
    ("state", "asked"),
    [
        ("pending", True),
        ("blocked", True),
        ("writing_tests", False),
        ("tests_review", False),
        ("proving", False),
    ],
)
def test_a_tests_first_task_reads_its_order_only_in_a_state_counting_as_waiting_for_it(
    state: str, asked: bool
) -> None:
    assert needs_order(F.record(state), tick(1, NOW), FIRST) is asked


def test_an_open_tasks_record_is_read_unless_both_its_plan_and_label_say_it_is_finished() -> None:
    done, skipped, doing = TaskStatus.completed, TaskStatus.skipped, TaskStatus.in_progress
    assert not unfinished(done, done)
    assert not unfinished(skipped, done)
    assert unfinished(doing, done), "the label ran ahead of the plan"
    assert unfinished(done, doing), "the plan ran ahead of the label"
    assert unfinished(done, None), "a label that names no status"
