"""The epic's data: what a planning agent may put in a task is checked before anything reads it,
spend adds up, and a task workflow's state counts as one task status for the conductor."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from baton.core.model.epic import (
    ACTIVE,
    MAX_ROLES,
    Cost,
    RoleSpend,
    Spend,
    TaskSpec,
    TaskStatus,
    status_of,
)
from baton.workflow.model import load_preset


@pytest.mark.parametrize("dep", ["x<script>", "A", "a b", "", "a\n", "-a", "a" * 41])
def test_a_dependency_that_is_no_task_key_is_refused(dep: str) -> None:
    with pytest.raises(ValidationError):
        TaskSpec(key="api", title="API", depends_on=[dep])


def test_a_task_with_keys_everywhere_is_taken() -> None:
    spec = TaskSpec(key="api_2", title="API", depends_on=["model", "db-1"])
    assert spec.depends_on == ["model", "db-1"]


def test_spend_adds_runs_and_the_costs_reported() -> None:
    spend = Spend().add(Cost(tokens=1_000, money=0.25)).add(None).add(Cost(minutes=1.5))
    assert spend == Spend(runs=3, tokens=1_000, money=0.25, minutes=1.5)
    assert spend.plus(spend) == Spend(runs=6, tokens=2_000, money=0.5, minutes=3.0)


def test_runs_the_agent_claimed_are_counted_and_those_the_cli_reported_are_not() -> None:
    spend = Spend().add(Cost(tokens=600, source="cli")).add(Cost(tokens=5, source="agent"))
    assert (spend.runs, spend.tokens, spend.claimed) == (2, 605, 1)
    assert spend.plus(spend).claimed == 2


def test_spend_keeps_each_roles_runs_and_costs_and_plus_adds_them_role_by_role() -> None:
    spend = (
        Spend()
        .add(Cost(tokens=1_000, money=0.25, minutes=1.0), role="developer")
        .add(Cost(tokens=200, money=0.05), role="reviewer")
        .add(Cost(money=0.5, minutes=2.5), role="developer")
        .add(None)
    )
    assert spend.roles == {
        "developer": RoleSpend(runs=2, tokens=1_000, money=0.75, minutes=3.5),
        "reviewer": RoleSpend(runs=1, tokens=200, money=0.05),
    }
    assert (spend.runs, spend.tokens, spend.money, spend.minutes) == (4, 1_200, 0.8, 3.5)
    task = Spend().add(Cost(money=1.0), role="tester").add(Cost(money=0.1), role="reviewer")
    assert spend.plus(task).roles == {
        "developer": RoleSpend(runs=2, tokens=1_000, money=0.75, minutes=3.5),
        "reviewer": RoleSpend(runs=2, tokens=200, money=0.15),
        "tester": RoleSpend(runs=1, money=1.0),
    }
    assert Spend().plus(spend) == spend.plus(Spend()) == spend


def test_the_roles_kept_are_bounded_and_the_totals_still_count_every_run() -> None:
    spend = Spend()
    for n in range(MAX_ROLES + 5):
        spend = spend.add(Cost(money=1.0), role=f"agent-{n:02d}")
    assert len(spend.roles) == MAX_ROLES
    assert (spend.runs, spend.money) == (MAX_ROLES + 5, MAX_ROLES + 5.0)
    assert len(spend.plus(Spend().add(None, role="another")).roles) == MAX_ROLES


def test_a_spend_with_roles_round_trips_and_one_without_is_written_as_before() -> None:
    spend = Spend().add(Cost(tokens=5, money=0.5), role="developer")
    assert Spend.model_validate_json(spend.model_dump_json()) == spend
    assert '"roles":{"developer":{"runs":1,"tokens":5,"money":0.5,"minutes":0.0}}' in (
        spend.model_dump_json()
    )
    assert Spend(runs=2, tokens=7).model_dump_json() == (
        '{"runs":2,"tokens":7,"money":0.0,"minutes":0.0}'
    )


def test_a_spend_and_a_cost_written_before_sources_were_kept_still_load_and_write_alike() -> None:
    old = '{"minutes":0.0,"money":0.25,"runs":2,"tokens":1000}'
    spend = Spend.model_validate_json(old)
    assert spend.claimed == 0
    assert spend.model_dump_json() == '{"runs":2,"tokens":1000,"money":0.25,"minutes":0.0}'
    assert Cost.model_validate_json('{"tokens": 5}').source is None
    assert '"claimed":1' in Spend(runs=1, claimed=1).model_dump_json()


# --- what a task's state counts as for the conductor -------------------------------------------
S = TaskStatus


def test_the_epic_task_preset_s_states_count_as_themselves() -> None:
    workflow = load_preset("epic-task")
    assert {state: status_of(workflow, state) for state in workflow.states} == {
        state: S(state) for state in workflow.states
    }


def test_the_tests_first_task_s_proof_and_sign_off_states_count_as_in_progress() -> None:
    workflow = load_preset("epic-task-test-first")
    assert {state: status_of(workflow, state) for state in workflow.states} == {
        "pending": S.pending,
        "writing_tests": S.in_progress,
        "tests_review": S.in_progress,
        "in_progress": S.in_progress,
        "proving": S.in_progress,
        "pending_review": S.pending_review,
        "retry_queued": S.retry_queued,
        "blocked": S.blocked,
        "failed": S.failed,
        "completed": S.completed,
        "skipped": S.skipped,
    }
    # Active: each holds a slot, and its attempt is under way.
    assert {s for s in workflow.states if status_of(workflow, s) in ACTIVE} == {
        "writing_tests",
        "tests_review",
        "in_progress",
        "proving",
        "pending_review",
        "retry_queued",
    }


def test_a_state_the_workflow_lacks_counts_as_nothing() -> None:
    assert status_of(load_preset("epic-task-test-first"), "implementing") is None
    assert status_of(load_preset("epic-task"), "writing_tests") is None
