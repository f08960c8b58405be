"""What agents spend, through `decide`: an accepted report adds its run and cost once; a spent
issue budget holds the issue instead of starting the next agent."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.epic import Cost, RoleSpend, Spend
from baton.workflow.config import Config, settings_from


def _builders() -> Any:
    path = Path(__file__).with_name("conftest.py")
    spec = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def build(config: dict[str, Any]) -> Any:
    settings = settings_from(Config.model_validate(config)).for_labels(["baton:task"])
    return _builders().Build(settings.workflow, settings.policy)


COST = Cost(tokens=1_000, money=0.5, minutes=2.0)


def result(**fields: Any) -> AgentResult:
    return AgentResult(**{"status": "success", "confidence": 0.9, "cost": COST, **fields})


def test_an_accepted_report_adds_its_run_and_cost() -> None:
    b = build({})
    decision = b.decide(b.record("pending_review"), b.reported("pending_review", result()))
    assert decision.record is not None
    role = RoleSpend(runs=1, tokens=1_000, money=0.5, minutes=2.0)
    assert decision.record.spend == Spend(
        runs=1, tokens=1_000, money=0.5, minutes=2.0, roles={"reviewer": role}
    )


def test_a_report_adds_its_cost_to_its_roles_spend_beside_the_others() -> None:
    b = build({})
    before = Spend(
        runs=1, tokens=10, money=0.1, roles={"developer": RoleSpend(runs=1, tokens=10, money=0.1)}
    )
    decision = b.decide(
        b.record("pending_review", spend=before), b.reported("pending_review", result())
    )
    assert decision.record is not None
    assert decision.record.spend.roles == {
        "developer": RoleSpend(runs=1, tokens=10, money=0.1),
        "reviewer": RoleSpend(runs=1, tokens=1_000, money=0.5, minutes=2.0),
    }
    assert (decision.record.spend.runs, decision.record.spend.money) == (2, 0.6)


def test_a_repeated_report_adds_nothing_again() -> None:
    b = build({})
    event = b.reported("pending_review", result())
    record = b.record("pending_review", processed=[event.id], spend=Spend(runs=1))
    decision = b.decide(record, event)
    assert decision.record is None or decision.record.spend == Spend(runs=1)


def test_a_stale_report_adds_nothing() -> None:
    b = build({})
    record = b.record("pending_review", spend=Spend(runs=2))
    decision = b.decide(record, b.reported("in_progress", result(), agent="developer"))
    assert decision.outcome in (Outcome.refused, Outcome.ignored)
    assert decision.record is None or decision.record.spend == Spend(runs=2)


def test_a_spent_issue_budget_holds_the_issue_instead_of_starting_the_agent() -> None:
    b = build({"budgets": {"issue": {"agent_runs": 2}}})
    record = b.record("in_progress", spend=Spend(runs=1))
    decision = b.decide(record, b.reported("in_progress", result()))
    assert decision.state == "pending_review"
    assert decision.agent is None
    assert decision.record is not None and decision.record.held
    assert decision.message and "budget of this issue is spent" in decision.message
