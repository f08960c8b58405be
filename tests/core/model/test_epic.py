"""The epic's data: what a planning agent may put in a task is checked before anything reads it,
and spend adds up."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from baton.core.model.epic import Cost, Spend, TaskSpec


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
