"""`core/rules/epic/phases.py`: what every epic rule reads of the record: its epic (an empty
one before the dialogue wrote any), and the spend of its own agents and its tasks together."""

from __future__ import annotations

from baton.core.model.epic import EpicState, Spend
from baton.core.rules.epic.phases import epic_of, epic_spend, tasks_spend, with_epic
from support.epic_rules import B, planned


def test_a_record_without_an_epic_reads_as_an_empty_one() -> None:
    assert epic_of(B.record("discovery")) == EpicState()


def test_with_epic_replaces_the_epic_and_the_given_fields_only() -> None:
    record = B.record("planning")
    epic = EpicState(plan_version=2)
    changed = with_epic(record, epic, attempt=3)
    assert (changed.epic, changed.attempt, changed.state) == (epic, 3, "planning")


def test_an_epic_s_spend_is_its_own_agents_and_every_task_s() -> None:
    tasks = [
        planned("a", 10, spend=Spend(runs=2, tokens=100, money=0.5)),
        planned("b", 11, spend=Spend(runs=1, minutes=1.5)),
    ]
    epic = EpicState(tasks=tasks)
    assert tasks_spend(epic) == Spend(runs=3, tokens=100, money=0.5, minutes=1.5)
    record = B.record("implementing", epic=epic, spend=Spend(runs=4, tokens=10))
    assert epic_spend(record) == Spend(runs=7, tokens=110, money=0.5, minutes=1.5)
