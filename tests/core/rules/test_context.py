"""Pins the rules of `core/rules/context.py` that a mutation sample found unprotected (issue
18, item 5): the last failure's feedback rides on the escalated record, so the `/retry` that
hands the issue back starts the agent with it, whether the workflow escalates to a state or
holds the issue in place."""

from __future__ import annotations

from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome

FAILURE = AgentResult(status="failure", confidence=0.5, issues_found=["the export test fails"])


@pytest.mark.parametrize(
    ("preset", "state", "escalated_to"),
    [
        pytest.param("lifecycle", "implementing", "requires_human_intervention", id="to a state"),
        pytest.param("gate", "phase_1", "phase_1", id="held in place"),
    ],
)
def test_a_retry_after_an_escalation_starts_with_the_last_failure(
    request: pytest.FixtureRequest, preset: str, state: str, escalated_to: str
) -> None:
    build: Any = request.getfixturevalue(preset)
    tries = build.workflow.limits.max_attempts
    record = build.record(state, attempt=tries, feedback=["an older note, since addressed"])
    escalated = build.decide(record, build.reported(state, FAILURE))
    assert escalated.state == escalated_to and escalated.agent is None
    assert escalated.record is not None
    assert escalated.record.feedback == ["the export test fails"]
    assert escalated.record.escalated_from == state

    retried = build.decide(escalated.record, build.commented("/retry", "maria", escalated_to))
    assert retried.outcome in (Outcome.transition, Outcome.retry)
    assert (retried.state, retried.agent) == (state, build.workflow.agent_of(state))
    assert retried.record is not None
    assert retried.record.feedback == ["the export test fails"]


def test_a_retry_below_the_limit_carries_the_failure_too(lifecycle: Any) -> None:
    record = lifecycle.record("implementing", feedback=["an older note, since addressed"])
    decision = lifecycle.decide(record, lifecycle.reported("implementing", FAILURE))
    assert decision.outcome is Outcome.retry
    assert decision.record is not None
    assert (decision.record.attempt, decision.record.feedback) == (2, ["the export test fails"])
