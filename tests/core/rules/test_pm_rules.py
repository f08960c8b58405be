"""The PM rules (`core/rules/pm_rules.py`): each condition field at its boundary; first match
wins."""

from __future__ import annotations

from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.rules.pm_rules import Facts, holds, pick
from baton.workflow.model import AgentStatus, Condition, Rule


def facts(**overrides: Any) -> Facts:
    result = AgentResult(
        status=overrides.pop("status", AgentStatus.success),
        confidence=overrides.pop("confidence", 0.8),
        issues_found=overrides.pop("issues_found", []),
        questions=overrides.pop("questions", []),
    )
    base: dict[str, Any] = {
        "result": result,
        "came_from": None,
        "approved": False,
        "has_human_input": False,
        "has_questions": bool(result.questions),
        "visits": 1,
    }
    return Facts(**{**base, **overrides})


@pytest.mark.parametrize(
    ("condition", "given", "expected"),
    [
        pytest.param({}, {}, True, id="an empty condition always holds"),
        pytest.param({"status": ["success"]}, {}, True, id="a listed status holds"),
        pytest.param({"status": ["failure"]}, {}, False, id="an unlisted status fails"),
        pytest.param({"confidence_below": 0.8}, {"confidence": 0.8}, False, id="below: not at it"),
        pytest.param({"confidence_below": 0.8}, {"confidence": 0.79}, True, id="below: just under"),
        pytest.param(
            {"confidence_at_least": 0.8}, {"confidence": 0.8}, True, id="at least: exactly at it"
        ),
        pytest.param(
            {"confidence_at_least": 0.8}, {"confidence": 0.79}, False, id="at least: just under"
        ),
        pytest.param({"confidence_above": 0.8}, {"confidence": 0.8}, False, id="above: not at it"),
        pytest.param({"confidence_above": 0.8}, {"confidence": 0.81}, True, id="above: just over"),
        pytest.param({"issues_found": True}, {"issues_found": ["x"]}, True, id="issues reported"),
        pytest.param({"issues_found": True}, {}, False, id="issues wanted, none reported"),
        pytest.param({"issues_found": False}, {}, True, id="no issues wanted, none reported"),
        pytest.param({"has_questions": True}, {"questions": ["why?"]}, True, id="questions"),
        pytest.param({"has_questions": True}, {}, False, id="questions wanted, none asked"),
        pytest.param({"approved": True}, {"approved": True}, True, id="approved at the gate"),
        pytest.param({"approved": True}, {}, False, id="approval wanted, none given"),
        pytest.param(
            {"has_human_input": True}, {"has_human_input": True}, True, id="human input kept"
        ),
        pytest.param({"has_human_input": True}, {}, False, id="human input wanted, none kept"),
        pytest.param({"came_from": ["a", "b"]}, {"came_from": "b"}, True, id="came from a listed"),
        pytest.param({"came_from": ["a"]}, {"came_from": "c"}, False, id="came from elsewhere"),
        pytest.param({"came_from": ["a"]}, {}, False, id="came from nowhere (entry)"),
        pytest.param({"visits_at_least": 3}, {"visits": 3}, True, id="visits: exactly at it"),
        pytest.param({"visits_at_least": 3}, {"visits": 2}, False, id="visits: one short"),
        pytest.param(
            {"status": ["success"], "confidence_at_least": 0.9},
            {"confidence": 0.8},
            False,
            id="every field must hold, not just one",
        ),
    ],
)
def test_a_condition_holds_only_when_every_field_given_holds(
    condition: dict[str, Any], given: dict[str, Any], expected: bool
) -> None:
    assert holds(Condition.model_validate(condition), facts(**given)) is expected


def test_the_first_rule_that_holds_wins() -> None:
    rules = [
        Rule(when=Condition(confidence_at_least=0.9), to="done"),
        Rule(when=Condition(confidence_at_least=0.5), to="review"),
        Rule(to="retry"),
    ]
    assert pick(rules, facts(confidence=0.95)) is rules[0]
    assert pick(rules, facts(confidence=0.6)) is rules[1]
    assert pick(rules, facts(confidence=0.1)) is rules[2]


def test_no_rule_holding_picks_nothing() -> None:
    assert pick([Rule(when=Condition(status=[AgentStatus.failure]), to="x")], facts()) is None
    assert pick([], facts()) is None
