"""Agent reports, end to end: proposals, the PM rules, the retry ladder and the limits.

Every report goes through `events.report` and `run.handle` over the in-memory GitHub, exactly as
`baton report` hands an agent's result back.
"""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from support.memory import (
    ISSUE,
    close,
    configured,
    enter,
    enter_at,
    messages_of,
    record_of,
    relabel,
    report,
    state_of,
    writes,
)

ESCALATED = "requires_human_intervention"


def to_running_tests(gh, settings):
    """The ordinary way in: triage, a clear analysis, tests, a confident implementation."""
    enter(gh, settings)
    report(gh, settings, "pm")
    report(gh, settings, "analyst", confidence=0.9)
    report(gh, settings, "tester")
    decision = report(gh, settings, "developer", confidence=0.95)
    assert decision.state == "running_tests", decision.reason


def bounce(gh, settings):
    """One round trip running_tests → fixing_issues → running_tests."""
    there = report(gh, settings, "tester", status="failure", issues_found=["test_x fails"])
    back = report(gh, settings, "developer", confidence=0.5)
    return there, back


# --- proposals ---------------------------------------------------------------------------
def test_a_proposal_the_table_allows_is_applied(gh, settings):
    enter(gh, settings)

    decision = report(gh, settings, "pm", next_state="creating_tests")

    assert decision.outcome is Outcome.transition
    assert (decision.previous_state, decision.state) == ("received", "creating_tests")
    assert decision.agent == "tester"
    assert "proposed by the pm" in decision.reason
    assert gh.labels_of(1) == ["status:creating-tests"]


@pytest.mark.parametrize(
    "proposal",
    [
        pytest.param("completed", id="a state received has no edge to"),
        pytest.param("received", id="the state it is already in"),
        pytest.param("nowhere", id="a state the workflow does not have"),
        pytest.param("status:creating-tests", id="a label instead of a state"),
    ],
)
def test_a_proposal_the_table_refuses_counts_as_a_failed_attempt(gh, settings, proposal):
    enter(gh, settings)

    decision = report(gh, settings, "pm", next_state=proposal)

    record = record_of(gh)
    assert decision.outcome is Outcome.retry
    assert record.state == "received"
    assert record.attempt == 2
    assert decision.agent == "pm"
    assert record.dispatch.agent == "pm" and record.dispatch.attempt == 2
    rejection = record.feedback[0]
    assert proposal in rejection and "cannot move to" in rejection
    assert "allowed: analyzing_requirements, creating_tests, failed" in rejection
    assert gh.labels_of(1) == ["status:received"]


def test_a_refused_proposal_keeps_the_agents_own_issues_as_feedback(gh, settings):
    enter(gh, settings)

    report(gh, settings, "pm", next_state="completed", issues_found=["the title is vague"])

    assert record_of(gh).feedback[1:] == ["the title is vague"]


# --- the PM rules (seed 000's thresholds) -------------------------------------------------
@pytest.mark.parametrize(
    ("confidence", "target"),
    [
        pytest.param(0.6, "requirements_unclear", id="analysis below 0.85 is unclear"),
        pytest.param(0.849, "requirements_unclear", id="analysis just below 0.85 is unclear"),
        pytest.param(0.85, "creating_tests", id="analysis at 0.85 is clear"),
        pytest.param(1.0, "creating_tests", id="analysis at full confidence is clear"),
    ],
)
def test_the_analysts_confidence_picks_the_next_state(gh, settings, confidence, target):
    enter_at(gh, settings, "analyzing_requirements")

    decision = report(gh, settings, "analyst", confidence=confidence)

    assert decision.state == target


@pytest.mark.parametrize(
    ("confidence", "issues", "target"),
    [
        pytest.param(0.95, [], "running_tests", id="above 0.9 with no issues is tested"),
        pytest.param(0.95, ["a lint"], "creating_pr", id="above 0.9 with issues goes to a PR"),
        pytest.param(0.85, [], "creating_pr", id="above 0.8 goes straight to a PR"),
        pytest.param(0.9, [], "creating_pr", id="exactly 0.9 is not above 0.9"),
        pytest.param(0.8, [], "fixing_issues", id="exactly 0.8 is fixed first"),
        pytest.param(0.3, [], "fixing_issues", id="low confidence is fixed first"),
    ],
)
def test_the_developers_confidence_picks_the_next_state(gh, settings, confidence, issues, target):
    enter_at(gh, settings, "implementing")

    decision = report(gh, settings, "developer", confidence=confidence, issues_found=issues)

    assert decision.state == target


def test_a_blocked_triage_goes_to_a_human_at_once(gh, settings):
    enter(gh, settings)

    decision = report(gh, settings, "pm", status="blocked", summary="no repository access")

    assert decision.state == ESCALATED
    assert record_of(gh).escalated_from == "received"


def test_the_questions_of_an_unclear_analysis_are_asked_in_the_pms_comment(gh, settings):
    enter_at(gh, settings, "analyzing_requirements")
    report(gh, settings, "analyst", confidence=0.5, questions=["Commas or semicolons?"])

    decision = report(gh, settings, "pm")

    assert decision.state == "waiting_for_requirements_clarification"
    assert decision.agent is None
    assert "Commas or semicolons?" in messages_of(gh)[-1]


# --- the retry ladder ---------------------------------------------------------------------
def fail(gh, settings, agent="developer", issue="test_export fails: empty file"):
    return report(gh, settings, agent, status="failure", confidence=0.4, issues_found=[issue])


def test_a_first_failure_runs_the_same_agent_again_with_the_feedback(gh, settings):
    enter_at(gh, settings, "implementing")

    decision = fail(gh, settings)

    record = record_of(gh)
    assert decision.outcome is Outcome.retry
    assert decision.agent == "developer"
    assert "with the feedback" in decision.reason
    assert record.state == "implementing"
    assert record.attempt == 2
    assert record.feedback == ["test_export fails: empty file"]


def test_the_third_attempt_starts_from_a_fresh_context(gh, settings):
    enter_at(gh, settings, "implementing")
    fail(gh, settings)

    decision = fail(gh, settings, issue="still empty")

    record = record_of(gh)
    assert decision.outcome is Outcome.retry
    assert decision.agent == "developer"
    assert record.attempt == 3
    assert record.attempt >= settings.workflow.limits.fresh_context_from_attempt
    assert "fresh context" in decision.reason
    assert record.feedback == ["still empty"]


def test_the_third_failure_escalates_to_a_human_with_the_commands_to_decide(gh, settings):
    enter_at(gh, settings, "implementing")
    fail(gh, settings)
    fail(gh, settings)

    decision = fail(gh, settings)

    record = record_of(gh)
    assert decision.outcome is Outcome.transition
    assert decision.state == ESCALATED
    assert decision.agent is None
    assert record.escalated_from == "implementing"
    assert gh.labels_of(1) == ["status:requires-human-intervention"]
    message = messages_of(gh)[-1]
    assert all(command in message for command in ("/retry", "/skip", "/replan"))
    assert "attempt 3 of 3 failed" in message


def test_a_success_after_a_failure_moves_on_and_restarts_the_attempts(gh, settings):
    enter_at(gh, settings, "implementing")
    fail(gh, settings)

    decision = report(gh, settings, "developer", confidence=0.95)

    assert decision.state == "running_tests"
    assert record_of(gh).attempt == 1


@pytest.mark.parametrize(
    "error",
    [
        pytest.param("the agent result is not JSON (Expecting value)", id="a result not JSON"),
        pytest.param("confidence: Input should be less than or equal to 1", id="a bad field"),
        pytest.param("", id="no result at all"),
    ],
)
def test_an_unreadable_result_climbs_the_retry_ladder(gh, settings, error):
    enter(gh, settings)

    first = report(gh, settings, "pm", error=error)
    second = report(gh, settings, "pm", error=error)
    third = report(gh, settings, "pm", error=error)

    assert [first.outcome, second.outcome] == [Outcome.retry, Outcome.retry]
    assert "invalid" in first.reason
    assert record_of(gh).feedback == [error or "the agent returned no result"]
    assert third.state == ESCALATED


# --- stale and repeated reports -------------------------------------------------------------
@pytest.mark.parametrize(
    ("state", "agent"),
    [
        pytest.param("received", "tester", id="another agent than the state's"),
        pytest.param("implementing", "pm", id="the previous state's agent"),
        pytest.param("waiting_for_requirements_clarification", "pm", id="a waiting state"),
        pytest.param("waiting_for_human_input", None, id="an unnamed agent in a waiting state"),
        pytest.param("completed", "pm", id="a terminal state"),
        pytest.param(ESCALATED, "developer", id="an issue escalated to a human"),
    ],
)
def test_a_report_nobody_is_waiting_for_is_refused_as_stale_and_remembered(
    gh, settings, state, agent
):
    enter_at(gh, settings, state)
    labels, messages = gh.labels_of(ISSUE), len(messages_of(gh))

    decision = report(gh, settings, agent, next_state="failed", run_id="late-run")

    assert decision.outcome is Outcome.refused
    assert "stale" in decision.reason
    assert state_of(gh) == state
    assert gh.labels_of(ISSUE) == labels and len(messages_of(gh)) == messages
    assert "report:late-run" in record_of(gh).processed, "a later redelivery cannot apply it"


def test_a_rerun_report_applies_nothing_but_sends_the_pending_agent_again(gh, settings):
    enter(gh, settings)
    report(gh, settings, "pm", run_id="run-7")
    edits, labels = gh.calls["edit_comment"], gh.calls["set_labels"]

    again = report(gh, settings, "pm", run_id="run-7")

    assert again.outcome is Outcome.resume and again.agent == "analyst"
    assert state_of(gh) == "analyzing_requirements"
    assert (gh.calls["edit_comment"], gh.calls["set_labels"]) == (edits, labels)


def test_a_rerun_report_sends_nothing_once_the_next_agent_has_reported(gh, settings):
    enter(gh, settings)
    report(gh, settings, "pm", run_id="run-7")
    report(gh, settings, "analyst", confidence=0.9, run_id="run-8")
    before = writes(gh)

    again = report(gh, settings, "pm", run_id="run-7")

    assert again.outcome is Outcome.ignored and again.agent is None
    assert writes(gh) == before


def test_a_redelivered_report_without_an_agent_name_does_not_act_for_the_next_agent(gh, settings):
    enter(gh, settings)
    report(gh, settings, None, run_id="run-7")

    again = report(gh, settings, None, run_id="run-7", next_state="failed")

    assert again.outcome in {Outcome.ignored, Outcome.resume}, "nothing is applied again"
    assert state_of(gh) == "analyzing_requirements"


def test_a_redelivered_failure_does_not_climb_the_ladder_twice(gh, settings):
    enter_at(gh, settings, "implementing")
    report(gh, settings, "developer", status="failure", run_id="run-9")

    again = report(gh, settings, "developer", status="failure", run_id="run-9")

    assert again.outcome is Outcome.resume, "attempt 2 may be sent again, not counted again"
    assert record_of(gh).attempt == 2


def test_a_report_on_an_issue_outside_the_workflow_writes_nothing(gh, settings):
    decision = report(gh, settings, "pm", next_state="completed")

    assert decision.outcome is Outcome.ignored
    assert writes(gh) == 0
    assert record_of(gh) is None


def test_a_report_on_a_closed_issue_moves_it_but_starts_no_agent(gh, settings):
    enter_at(gh, settings, "implementing")
    close(gh, settings, "alice")

    decision = report(gh, settings, "developer", confidence=0.95)

    assert decision.state == "running_tests"
    assert decision.agent is None


# --- loops and the iteration budget -------------------------------------------------------
def test_a_ping_pong_between_two_states_escalates_on_the_third_round_trip(gh, settings):
    to_running_tests(gh, settings)
    for _ in range(2):
        there, back = bounce(gh, settings)
        assert (there.state, back.state) == ("fixing_issues", "running_tests")

    third = report(gh, settings, "tester", status="failure", issues_found=["test_x fails"])

    assert third.state == ESCALATED
    assert "loop" in third.reason
    assert "running_tests" in third.reason and "fixing_issues" in third.reason
    assert record_of(gh).escalated_from == "running_tests"
    assert "loop" in messages_of(gh)[-1]


def test_a_forced_relabel_restarts_the_loop_count(gh, settings):
    to_running_tests(gh, settings)
    bounce(gh, settings)
    bounce(gh, settings)
    relabel(gh, settings, "status:running-tests", "tess")  # a no-op relabel moves nothing
    relabel(gh, settings, "status:fixing-issues", "tess")

    states = [report(gh, settings, "developer", confidence=0.5).state]
    there, back = bounce(gh, settings)
    states += [there.state, back.state]

    assert states == ["running_tests", "fixing_issues", "running_tests"]


def test_the_iteration_budget_escalates_when_it_runs_out(gh):
    settings = configured(limits={"max_iterations": 5})
    enter(gh, settings)
    path = [
        report(gh, settings, "pm").state,
        report(gh, settings, "analyst", confidence=0.9).state,
        report(gh, settings, "tester").state,
        report(gh, settings, "developer", confidence=0.95).state,
        report(gh, settings, "tester").state,
    ]

    sixth = report(gh, settings, "developer", confidence=0.85)

    assert path == [
        "analyzing_requirements",
        "creating_tests",
        "implementing",
        "running_tests",
        "implementing",
    ]
    assert sixth.state == ESCALATED
    assert "limit of 5 transitions" in sixth.reason
    assert record_of(gh).escalated_from == "implementing"


def test_a_forced_relabel_gives_the_issue_a_fresh_iteration_budget(gh):
    settings = configured(limits={"max_iterations": 5})
    enter(gh, settings)
    report(gh, settings, "pm")
    report(gh, settings, "analyst", confidence=0.9)
    report(gh, settings, "tester")
    relabel(gh, settings, "status:fixing-issues", "maria")

    states = [
        report(gh, settings, "developer", next_state="refactoring").state,
        report(gh, settings, "developer", next_state="running_tests").state,
        report(gh, settings, "tester", next_state="fixing_issues").state,
        report(gh, settings, "developer", next_state="implementing").state,
        report(gh, settings, "developer", next_state="running_tests").state,
    ]
    sixth = report(gh, settings, "tester", next_state="fixing_issues")

    assert ESCALATED not in states
    assert sixth.state == ESCALATED
    assert "limit of 5" in sixth.reason


# --- task-review: the review ladder -----------------------------------------------------------
@pytest.fixture
def review():
    return configured(workflow="task-review")


def reject(gh, settings, n):
    """One round: the developer finishes, the reviewer rejects, the PM requeues."""
    report(gh, settings, "developer")
    decision = report(
        gh, settings, "reviewer", status="failure", issues_found=[f"rejection {n}: no tests"]
    )
    if decision.state == "retry_queued":
        report(gh, settings, "pm")
    return decision


def test_a_rejected_review_queues_a_retry(gh, review):
    enter(gh, review)
    report(gh, review, "pm")
    report(gh, review, "developer")

    decision = report(gh, review, "reviewer", status="failure", issues_found=["no tests"])

    assert decision.state == "retry_queued"
    assert decision.agent == "pm"
    assert record_of(gh).feedback == ["no tests"]


def test_the_developers_next_attempt_carries_the_reviewers_feedback(gh, review):
    enter(gh, review)
    report(gh, review, "pm")
    reject(gh, review, 1)

    record = record_of(gh)
    assert record.state == "in_progress"
    assert "rejection 1: no tests" in record.feedback


def test_the_third_rejection_fails_the_task(gh, review):
    enter(gh, review)
    report(gh, review, "pm")

    rounds = [reject(gh, review, n).state for n in (1, 2, 3)]

    assert rounds == ["retry_queued", "retry_queued", "failed"]
    assert gh.labels_of(1) == ["status:failed"]


def test_an_approving_review_completes_the_task(gh, review):
    enter(gh, review)
    report(gh, review, "pm")
    reject(gh, review, 1)
    report(gh, review, "developer")

    decision = report(gh, review, "reviewer")

    assert decision.state == "completed"
    assert decision.agent is None


def test_a_failed_task_tells_the_humans_their_options(gh, review):
    enter(gh, review)
    report(gh, review, "pm")
    for n in (1, 2, 3):
        reject(gh, review, n)

    message = messages_of(gh)[-1]
    assert all(command in message for command in ("/retry", "/skip", "/replan"))
    assert "start a comment with **approved**" not in message


@pytest.mark.parametrize(
    "source",
    ["creating_pr", "running_tests"],
    ids=["the PM opening the PR", "the tester after a green run"],
)
def test_an_agent_cannot_complete_the_issue_without_a_human_approval(gh, settings, source):
    enter_at(gh, settings, source)

    decision = report(gh, settings, None, next_state="completed")

    assert decision.outcome is Outcome.retry
    assert "needs a human approval" in decision.reason
    assert "waiting_for_human_input" in record_of(gh).feedback[0] or source == "running_tests"
    assert state_of(gh) == source
