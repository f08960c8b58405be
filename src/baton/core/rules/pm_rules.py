"""The PM rules: pick the next state from an agent's result (first matching rule wins)."""

from __future__ import annotations

from dataclasses import dataclass

from baton.core.model.agent_result import AgentResult
from baton.core.model.evidence import Verdict
from baton.core.model.record import Record
from baton.workflow.model import AgentStatus, Condition, Rule, Workflow


@dataclass(frozen=True)
class Facts:
    """What a condition may look at, gathered once per decision."""

    result: AgentResult
    came_from: str | None
    approved: bool
    has_human_input: bool
    has_questions: bool
    visits: int
    # The verdict of the evidence that settles a `proof` state (with `tests:`); None otherwise,
    # so a rule with `when: {verdict: ...}` never matches without evidence.
    verdict: Verdict | None = None


def facts_for(record: Record, result: AgentResult, verdict: Verdict | None = None) -> Facts:
    approval = record.approval
    # An approval counts only for the gate it was given in, and only on the way out of it.
    approved = bool(
        approval
        and approval.state == record.previous_state
        and approval.iteration == record.iteration - 1
    )
    return Facts(
        result=result,
        came_from=record.previous_state,
        approved=approved,
        has_human_input=bool(record.pending_input),
        has_questions=bool(result.questions or record.open_questions),
        visits=record.visits.get(record.state, 1),
        verdict=verdict,
    )


def holds(condition: Condition, facts: Facts) -> bool:
    result = facts.result
    checks = [
        condition.status is None or result.status in condition.status,
        condition.confidence_below is None or result.confidence < condition.confidence_below,
        condition.confidence_at_least is None or result.confidence >= condition.confidence_at_least,
        condition.confidence_above is None or result.confidence > condition.confidence_above,
        condition.issues_found is None or bool(result.issues_found) == condition.issues_found,
        condition.has_questions is None or facts.has_questions == condition.has_questions,
        condition.approved is None or facts.approved == condition.approved,
        condition.has_human_input is None or facts.has_human_input == condition.has_human_input,
        condition.came_from is None or facts.came_from in condition.came_from,
        condition.visits_at_least is None or facts.visits >= condition.visits_at_least,
        condition.verdict is None or facts.verdict in condition.verdict,
    ]
    return all(checks)


def pick(rules: list[Rule], facts: Facts) -> Rule | None:
    return next((rule for rule in rules if holds(rule.when, facts)), None)


def success_target(workflow: Workflow, record: Record, state: str) -> str | None:
    """Where a confident success in `state` would lead (what `/skip` means by default)."""
    probe = AgentResult(status=AgentStatus.success, confidence=1.0)
    rule = pick(workflow.rules.get(state, []), facts_for(record, probe))
    if rule is None or not workflow.allows(state, rule.to):
        return None
    return rule.to
