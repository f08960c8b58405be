"""Budgets: the first limit reached stops the next agent run, said with both figures."""

from __future__ import annotations

import pytest

from baton.core.model.epic import Spend
from baton.core.rules.budget import describe, spent
from baton.workflow.config import Budget


@pytest.mark.parametrize(
    ("spend", "budget", "expected"),
    [
        pytest.param(Spend(runs=3), Budget(), None, id="no limit is never reached"),
        pytest.param(Spend(runs=11), Budget(agent_runs=12), None, id="below the runs limit"),
        pytest.param(
            Spend(runs=12),
            Budget(agent_runs=12),
            "the budget of this issue is spent: 12 of 12 agent runs",
            id="reaching the runs limit stops",
        ),
        pytest.param(
            Spend(runs=1),
            Budget(agent_runs=1),
            "the budget of this issue is spent: 1 of 1 agent run",
            id="one run is singular",
        ),
        pytest.param(
            Spend(money=4.2),
            Budget(money=4),
            "the budget of this issue is spent: $4.20 of $4.00",
            id="money is in dollars and cents",
        ),
        pytest.param(
            Spend(minutes=61.25),
            Budget(minutes=60),
            "the budget of this issue is spent: 61.2 of 60 minutes",
            id="minutes to a tenth",
        ),
        pytest.param(
            Spend(money=4),
            Budget(money=4),
            "the budget of this issue is spent: $4.00 of $4.00",
            id="reaching the money limit stops",
        ),
        pytest.param(
            Spend(minutes=60),
            Budget(minutes=60),
            "the budget of this issue is spent: 60 of 60 minutes",
            id="reaching the minutes limit stops",
        ),
        pytest.param(
            Spend(tokens=1_204_000),
            Budget(tokens=1_000_000),
            "the budget of this issue is spent: 1,204,000 of 1,000,000 tokens",
            id="tokens with thousands separators",
        ),
        pytest.param(
            Spend(runs=5, money=9.0, tokens=10**7),
            Budget(agent_runs=5, money=1, tokens=10),
            "the budget of this issue is spent: 5 of 5 agent runs",
            id="runs are checked first",
        ),
        pytest.param(
            Spend(runs=4, money=0.99, minutes=3, tokens=10),
            Budget(agent_runs=5, money=1, minutes=5, tokens=10),
            "the budget of this issue is spent: 10 of 10 tokens",
            id="the first limit reached wins",
        ),
    ],
)
def test_spent_names_the_first_limit_reached(
    spend: Spend, budget: Budget, expected: str | None
) -> None:
    assert spent(spend, budget) == expected


def test_spent_names_what_the_budget_is_for() -> None:
    assert spent(Spend(runs=2), Budget(agent_runs=2), what="epic #7") == (
        "the budget of epic #7 is spent: 2 of 2 agent runs"
    )


@pytest.mark.parametrize(
    ("spend", "expected"),
    [
        pytest.param(
            Spend(runs=3, tokens=12_400, money=0.42, minutes=7.5),
            "3 agent runs, 12,400 tokens, $0.42, 7.5 min",
            id="every part",
        ),
        pytest.param(Spend(), "0 agent runs", id="nothing spent still says the runs"),
        pytest.param(Spend(runs=1, minutes=2.0), "1 agent run, 2 min", id="zero parts left out"),
        pytest.param(
            Spend(runs=1200, money=1234.5), "1,200 agent runs, $1,234.50", id="big figures"
        ),
    ],
)
def test_describe_says_what_was_spent(spend: Spend, expected: str) -> None:
    assert describe(spend) == expected
