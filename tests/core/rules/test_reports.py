"""Agent reports, decided directly: proposals, the PM rules at their thresholds, the retry
ladder, stale reports, and the limits that hand the issue to a human."""

from __future__ import annotations

from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.record import Approval, HistoryEntry
from baton.workflow.model import AgentStatus, Escalation, Rule

ESCALATED = "requires_human_intervention"


def result(status: str = "success", confidence: float = 0.95, **fields: Any) -> AgentResult:
    """An agent's result; `fields` as in the result JSON (issues_found, questions, next_state)."""
    return AgentResult(status=AgentStatus(status), confidence=confidence, **fields)


def walked(build, states: list[str], **changes: Any):
    """A record that walked through `states` (iterations 1, 2, ...), now in the last one."""
    base = build.record(states[-1])
    history = [
        HistoryEntry(
            at=base.entered_at,
            from_state=before,
            to_state=state,
            reason="walked by the test",
            actor="agent",
            trigger="report",
            iteration=iteration,
        )
        for iteration, (before, state) in enumerate(zip([None, *states], states, strict=False), 1)
    ]
    update = {"history": history, "iteration": len(states), **changes}
    return base.model_copy(update=update)


# --- the PM rules, at their thresholds ------------------------------------------------------
RULES = [
    pytest.param(
        "analyzing_requirements",
        result(confidence=0.85),
        None,
        "creating_tests",
        id="confidence exactly at the 0.85 threshold is clear (confidence_below is strict)",
    ),
    pytest.param(
        "analyzing_requirements",
        result(confidence=0.8499),
        None,
        "requirements_unclear",
        id="confidence just under 0.85 sends the analysis back for clarity",
    ),
    pytest.param(
        "requirements_clarified",
        result(confidence=0.85),
        None,
        "creating_tests",
        id="confidence_at_least holds at exactly the threshold",
    ),
    pytest.param(
        "requirements_clarified",
        result(confidence=0.8499),
        None,
        "analyzing_requirements",
        id="confidence_at_least fails just under the threshold",
    ),
    pytest.param(
        "implementing",
        result(confidence=0.8),
        None,
        "fixing_issues",
        id="confidence exactly 0.8 is not above 0.8, so the issues are fixed first",
    ),
    pytest.param(
        "implementing",
        result(confidence=0.81),
        None,
        "creating_pr",
        id="confidence above 0.8 goes straight to a PR",
    ),
    pytest.param(
        "implementing",
        result(confidence=0.91),
        None,
        "running_tests",
        id="confidence above 0.9 with no issues is tested",
    ),
    pytest.param(
        "implementing",
        result(confidence=0.91, issues_found=["the export drops the header"]),
        None,
        "creating_pr",
        id="confidence above 0.9 with issues skips the test rule",
    ),
    pytest.param(
        "implementing",
        result(confidence=0.81),
        "running_tests",
        "creating_pr",
        id="coming back from a passing test run, above 0.8 opens the PR",
    ),
    pytest.param(
        "running_tests",
        result(issues_found=["test_csv fails"]),
        None,
        "fixing_issues",
        id="a successful test run that lists problems goes to fixing",
    ),
    pytest.param(
        "requirements_unclear",
        result(questions=["Which delimiter?"]),
        None,
        "waiting_for_requirements_clarification",
        id="questions for the humans make the issue wait for them",
    ),
    pytest.param(
        "received",
        result("blocked", 0.5),
        None,
        ESCALATED,
        id="a blocked triage escalates to a human",
    ),
]


@pytest.mark.parametrize(("state", "outcome", "came_from", "target"), RULES)
def test_the_pm_rules_pick_the_next_state(lifecycle, state, outcome, came_from, target):
    record = lifecycle.record(state, came_from=came_from)

    decision = lifecycle.decide(record, lifecycle.reported(state, outcome))

    assert (decision.outcome, decision.state) == (Outcome.transition, target)
    assert decision.labels == ("bug", lifecycle.label(target))
    assert decision.record.visits[target] == record.visits.get(target, 0) + 1


# --- proposals --------------------------------------------------------------------------
def test_a_proposal_the_table_allows_is_applied(lifecycle):
    record = lifecycle.record("analyzing_requirements")
    proposal = result(confidence=0.2, next_state="implementing")

    decision = lifecycle.decide(record, lifecycle.reported("analyzing_requirements", proposal))

    assert decision.state == "implementing"
    assert decision.reason.endswith("proposed by the analyst")
    assert decision.agent == "developer"


def test_a_proposal_the_table_refuses_is_retried_with_the_allowed_targets(lifecycle):
    record = lifecycle.record("analyzing_requirements")
    proposal = result(next_state="completed")

    decision = lifecycle.decide(record, lifecycle.reported("analyzing_requirements", proposal))

    assert (decision.outcome, decision.state) == (Outcome.retry, "analyzing_requirements")
    assert decision.record.feedback[0] == (
        "the analyst proposed completed, which analyzing_requirements cannot move to "
        "(allowed: requirements_unclear, creating_tests, implementing, failed)"
    )


APPROVALS = [
    pytest.param(None, Outcome.retry, "creating_pr", id="no approval: completed is refused"),
    pytest.param(
        ("waiting_for_human_input", 1),
        Outcome.transition,
        "completed",
        id="an approval given at the gate just left opens completed",
    ),
    pytest.param(
        ("waiting_for_human_input", 0),
        Outcome.retry,
        "creating_pr",
        id="an approval from an earlier pass through the gate does not count",
    ),
    pytest.param(
        ("waiting_for_requirements_clarification", 1),
        Outcome.retry,
        "creating_pr",
        id="an approval given in another state does not count",
    ),
]


@pytest.mark.parametrize(("given", "outcome", "state"), APPROVALS)
def test_a_state_that_requires_approval_needs_the_gates_own(lifecycle, given, outcome, state):
    """`given`: the state and iteration the approval was given in (the record is at 2)."""
    record = lifecycle.record("creating_pr", came_from="waiting_for_human_input", iteration=2)
    if given is not None:
        gate_state, iteration = given
        approval = Approval(by="wendy", state=gate_state, iteration=iteration, at=record.entered_at)
        record = record.model_copy(update={"approval": approval})
    event = lifecycle.reported("creating_pr", result(next_state="completed"))

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state) == (outcome, state)


# --- the retry ladder -------------------------------------------------------------------
LADDER = [
    pytest.param(1, 2, "with the feedback", id="the first failure retries with the feedback"),
    pytest.param(2, 3, "from a fresh context", id="the second failure retries afresh"),
]


@pytest.mark.parametrize(("attempt", "next_attempt", "how"), LADDER)
def test_a_failure_climbs_the_retry_ladder(gate, attempt, next_attempt, how):
    record = gate.record("phase_1", attempt=attempt)
    failure = result("failure", 0.3, issues_found=["the plan misses the API"])

    decision = gate.decide(record, gate.reported("phase_1", failure))

    assert decision.outcome is Outcome.retry
    assert decision.reason == f"the plan is not ready; attempt {next_attempt} of 3 runs {how}"
    assert decision.record.attempt == next_attempt
    assert decision.record.dispatch.attempt == next_attempt
    assert decision.record.feedback == ["the plan misses the API"]
    assert decision.record.visits == record.visits, "a retry is no new visit"
    assert decision.record.iteration == record.iteration, "a retry is no transition"
    assert decision.agent == "analyst"


def test_the_last_failed_attempt_holds_the_issue_where_no_escalation_state_exists(gate):
    record = gate.record("phase_1", attempt=3)

    decision = gate.decide(record, gate.reported("phase_1", result("failure", 0.3)))

    assert (decision.outcome, decision.state) == (Outcome.noted, "phase_1")
    assert decision.reason.startswith("held for a human: the plan is not ready; attempt 3 of 3")
    assert decision.record.held and decision.record.escalated_from == "phase_1"
    assert decision.record.dispatch is None and decision.agent is None
    assert "/replan" in decision.message


def test_the_last_failed_attempt_moves_to_the_escalation_state(lifecycle):
    record = lifecycle.record("implementing", attempt=3)

    decision = lifecycle.decide(record, lifecycle.reported("implementing", result("failure", 0.3)))

    assert (decision.outcome, decision.state) == (Outcome.transition, ESCALATED)
    assert decision.record.escalated_from == "implementing"
    assert decision.agent is None


def test_an_escalation_from_the_escalation_state_itself_holds_the_issue_there(gate):
    """A workflow whose escalations go to a work state: failing there cannot move to itself."""
    build = gate.with_workflow(escalation=Escalation(state="phase_1", replan="phase_1"))
    record = build.record("phase_1", attempt=3)

    decision = build.decide(record, build.reported("phase_1", result("failure", 0.3)))

    assert (decision.outcome, decision.state) == (Outcome.noted, "phase_1")
    assert decision.record.held and decision.record.iteration == record.iteration


def test_an_unreadable_result_is_retried_with_the_reason(lifecycle):
    record = lifecycle.record("implementing")

    decision = lifecycle.decide(record, lifecycle.reported("implementing", None))

    assert decision.outcome is Outcome.retry
    assert decision.reason.startswith("the developer's result was invalid; attempt 2 of 3")
    assert decision.record.feedback == ["the result is not JSON"]


def test_when_no_pm_rule_matches_the_agent_is_asked_to_propose(gate):
    only_success = [Rule.model_validate({"when": {"status": "success"}, "to": "phase_2"})]
    build = gate.with_workflow(rules={**gate.workflow.rules, "phase_1": only_success})
    record = build.record("phase_1")

    decision = build.decide(record, build.reported("phase_1", result("failure", 0.3)))

    assert decision.outcome is Outcome.retry
    assert decision.reason.startswith("no PM rule of phase_1 matches a failure result; attempt 2")
    assert decision.record.feedback[0] == (
        "no PM rule of phase_1 matches a failure result; propose next_state"
    )


VISITS = [
    pytest.param(2, "retry_queued", id="a second rejected review queues another attempt"),
    pytest.param(3, "failed", id="the third rejected review fails the task (visits_at_least)"),
]


@pytest.mark.parametrize(("visits", "target"), VISITS)
def test_the_visit_count_decides_when_reviews_stop(tasks, visits, target):
    record = tasks.record("pending_review", visits={"pending_review": visits, "in_progress": 3})
    rejection = result("failure", 0.9, issues_found=["no tests"])

    decision = tasks.decide(record, tasks.reported("pending_review", rejection))

    assert decision.state == target


# --- stale reports ----------------------------------------------------------------------
STALE = [
    pytest.param(
        "implementing", {}, {"state": "running_tests"}, id="a report for another state is stale"
    ),
    pytest.param(
        "implementing", {}, {"agent": "tester"}, id="a report from another agent is stale"
    ),
    pytest.param(
        "waiting_for_human_input", {}, {}, id="a report while a human is awaited is stale"
    ),
    pytest.param(
        "implementing", {"held": True}, {}, id="a report on an issue held for a human is stale"
    ),
]


@pytest.mark.parametrize(("state", "record_changes", "report_changes"), STALE)
def test_a_stale_report_is_refused_and_remembered(lifecycle, state, record_changes, report_changes):
    record = lifecycle.record(state, **record_changes)
    reported = report_changes.get("state", state)
    event = lifecycle.reported(reported, result(), agent=report_changes.get("agent"))
    event = event.model_copy(update={"issue": lifecycle.issue(state)})

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state) == (Outcome.refused, state)
    assert decision.reason.startswith("stale report: ")
    assert event.id in decision.record.processed


# A hand-over names the attempt its run was dispatched for: a late run (a dispatch GitHub
# started twice, a re-run of an old run) reports on an attempt Baton no longer waits on.
def test_a_report_for_another_attempt_is_stale_moves_nothing_and_is_said_once(lifecycle):
    first = lifecycle.record("implementing").dispatch
    retry = first.model_copy(update={"attempt": 2, "at": first.at.replace(minute=30)})
    record = lifecycle.record("implementing", attempt=2, dispatch=retry)
    done = result(next_state="running_tests")
    event = lifecycle.reported("implementing", done, nonce=first.nonce)

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.refused,
        "implementing",
        None,
    )
    assert decision.reason == (
        f"stale report: the report is for run {first.nonce}, but implementing waits on attempt "
        f"2 of the developer (run {retry.nonce})"
    )
    assert decision.message is None, "said in the log, once; nothing posted"
    assert (decision.record.attempt, decision.record.dispatch) == (2, retry)
    assert event.id in decision.record.processed
    # Delivered again: already seen, not refused a second time.
    again = lifecycle.decide(decision.record, event)
    assert (again.outcome, again.record) == (Outcome.ignored, None)


def test_a_report_for_the_attempt_waited_on_applies(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.reported(
        "implementing", result(next_state="running_tests"), nonce=record.dispatch.nonce
    )

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state) == (Outcome.transition, "running_tests")


def test_a_report_naming_an_attempt_where_none_is_pending_is_stale(lifecycle):
    record = lifecycle.record("implementing", dispatch=None)
    event = lifecycle.reported("implementing", result(), nonce="0123456789abcdef")

    decision = lifecycle.decide(record, event)

    assert decision.reason == (
        "stale report: the report is for run 0123456789abcdef, but no agent run is pending in "
        "implementing"
    )


# --- limits -----------------------------------------------------------------------------
LOOP = ["implementing", "running_tests"] * 2 + ["implementing"]


def test_a_loop_through_two_states_escalates(lifecycle):
    record = walked(lifecycle, LOOP)
    event = lifecycle.reported("implementing", result(next_state="running_tests"))

    decision = lifecycle.decide(record, event)

    assert decision.state == ESCALATED
    assert decision.reason == (
        "escalated: a loop was detected: the last 6 states cycle through "
        "implementing ↔ running_tests"
    )


def test_the_loop_window_counts_only_what_came_after_a_human_stepped_in(lifecycle):
    """A human's move at iteration 1: the window holds the four moves since, and the next."""
    record = walked(lifecycle, LOOP, budget_from=1)
    event = lifecycle.reported("implementing", result(next_state="running_tests"))

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state) == (Outcome.transition, "running_tests")


def test_a_move_counts_a_visit_to_its_target(lifecycle):
    record = lifecycle.record("implementing", visits={"implementing": 2, "running_tests": 2})
    event = lifecycle.reported("implementing", result(next_state="running_tests"))

    decision = lifecycle.decide(record, event)

    assert decision.record.visits == {"implementing": 2, "running_tests": 3}


ITERATIONS = [
    pytest.param(24, 0, "running_tests", id="the 25th transition is still allowed"),
    pytest.param(25, 0, ESCALATED, id="the 26th transition escalates"),
    pytest.param(25, 1, "running_tests", id="transitions before a human stepped in do not count"),
]


@pytest.mark.parametrize(("iteration", "budget_from", "state"), ITERATIONS)
def test_max_iterations_count_since_a_human_stepped_in(lifecycle, iteration, budget_from, state):
    record = lifecycle.record("implementing", iteration=iteration, budget_from=budget_from)
    event = lifecycle.reported("implementing", result(next_state="running_tests"))

    decision = lifecycle.decide(record, event)

    assert decision.state == state
