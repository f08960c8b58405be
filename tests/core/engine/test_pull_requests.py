"""The issue's pull request steering the issue, decided directly: approvers' reviews (requested
changes and approvals), the merge and the close, CI's checks on the branch head; and what
never counts: a stranger's review, another pull request, an older head, a re-delivery."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.core.agent_result import AgentResult
from baton.core.authority import needs_identity
from baton.core.decision import Outcome
from baton.core.events import CheckNote, ReviewNote
from baton.core.issue_facts import Actor
from baton.core.record import HumanInput
from baton.workflow.config import Who
from baton.workflow.model import AgentStatus

GATE = "waiting_for_human_input"
HEAD = "c" * 40
ESCALATED = "requires_human_intervention"


def with_pr(build, state: str, **changes):
    """The issue in `state` with its branch, one commit and its open pull request #7."""
    return build.record(state, work=build.work(), **changes)


# --- requested changes ----------------------------------------------------------------------
def test_an_approvers_requested_changes_move_the_issue_to_the_route(lifecycle):
    record = with_pr(lifecycle, GATE)
    notes = (
        ReviewNote(path="src/export.py", line=12, body="Quote fields with commas."),
        ReviewNote(path="README.md", body="Document the flag."),
    )
    event = lifecycle.reviewed(
        "changes_requested", "wendy", GATE, body="Almost: two things.", notes=notes
    )

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.transition,
        "addressing_feedback",
        "developer",
    )
    assert decision.forced
    assert decision.reason == (
        "waiting_for_human_input → addressing_feedback: wendy requested changes on pull request #7"
    )
    entry = decision.record.history[-1]
    assert (entry.actor, entry.trigger, entry.forced) == ("wendy", "review", True)
    assert entry.reason == "wendy requested changes on pull request #7"
    assert decision.record.feedback == [
        "wendy requested changes: Almost: two things.",
        "src/export.py:12: Quote fields with commas.",
        "README.md: Document the flag.",
    ]
    assert decision.record.pending_input[-1] == HumanInput(
        author="wendy", excerpt="Almost: two things.", state=GATE, at=event.at
    )
    assert decision.record.work.last_review == 500
    assert decision.message == (
        "`wendy` requested changes on the pull request (#7). The issue moved to "
        "`addressing_feedback`; the `developer` works on it.\n\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


IGNORED_REVIEWS = [
    pytest.param(
        "changes_requested",
        "bob",
        "bob's review carries no weight: only approvers' reviews steer the issue (needs write)",
        id="a stranger's requested changes carry no weight",
    ),
    pytest.param(
        "approved",
        "alice",
        "alice's review carries no weight: only approvers' reviews steer the issue (needs write)",
        id="the issue author's approval carries no weight without write",
    ),
    pytest.param(
        "approved",
        "dependabot[bot]",
        "dependabot[bot]'s review carries no weight: only approvers' reviews steer the issue "
        "(needs write)",
        id="a bot's approval carries no weight, admin or not",
    ),
    pytest.param(
        "commented",
        "ada",
        "a review comment by ada moves nothing: only an approval or requested changes do",
        id="a review that only comments moves nothing, even an admin's",
    ),
]


@pytest.mark.parametrize(("verdict", "by", "reason"), IGNORED_REVIEWS)
def test_reviews_that_carry_no_weight_are_ignored_with_a_reason(lifecycle, verdict, by, reason):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(record, lifecycle.reviewed(verdict, by, GATE))

    assert (decision.outcome, decision.state, decision.reason) == (Outcome.ignored, GATE, reason)
    assert decision.record is None and decision.message is None


def test_a_named_approver_steers_by_review_too(lifecycle):
    build = lifecycle.with_policy(approvers=Who(teams=["acme/reviewers"]))
    record = with_pr(build, GATE)

    decision = build.decide(record, build.reviewed("changes_requested", "rita", GATE))

    assert decision.state == "addressing_feedback"
    assert decision.record.feedback == ["rita requested changes on pull request #7"]


NOT_OURS = [
    pytest.param(
        {"pull_request": 8},
        "pull request #8 is not the issue's (#7 is)",
        id="another pull request from a branch of the same name",
    ),
    pytest.param(
        {"review_id": 400},
        "review 400 was already handled",
        id="a review older than the last one that counted",
    ),
]


@pytest.mark.parametrize(("changes", "reason"), NOT_OURS)
def test_a_review_that_is_not_for_the_issue_now_is_ignored(lifecycle, changes, reason):
    record = with_pr(lifecycle, GATE)
    record = record.model_copy(update={"work": record.work.model_copy(update={"last_review": 450})})

    decision = lifecycle.decide(
        record, lifecycle.reviewed("changes_requested", "wendy", GATE, **changes)
    )

    assert (decision.outcome, decision.reason) == (Outcome.ignored, reason)


def test_a_review_on_an_issue_with_no_pull_request_is_ignored(lifecycle):
    record = lifecycle.record(GATE)

    decision = lifecycle.decide(record, lifecycle.reviewed("approved", "wendy", GATE))

    assert decision.outcome is Outcome.ignored
    assert (
        decision.reason == "pull request #7 is not the issue's: the issue has no pull request yet"
    )


def test_a_review_on_a_closed_issue_moves_nothing(lifecycle):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(
        record, lifecycle.reviewed("changes_requested", "wendy", GATE, closed=True)
    )

    assert decision.outcome is Outcome.ignored and decision.state == GATE


@pytest.mark.parametrize(
    ("state", "why"),
    [
        pytest.param("completed", "completed is terminal", id="a terminal state is not left"),
        pytest.param(
            "addressing_feedback", "no route moves it", id="already where the route leads"
        ),
    ],
)
def test_requested_changes_that_cannot_move_are_kept_for_the_next_agent(lifecycle, state, why):
    record = with_pr(lifecycle, state)

    decision = lifecycle.decide(
        record, lifecycle.reviewed("changes_requested", "wendy", state, body="One more thing.")
    )

    assert (decision.outcome, decision.state) == (Outcome.noted, state)
    assert why in decision.reason
    assert decision.record.pending_input[-1].excerpt == "One more thing."


def test_requested_changes_count_against_the_limits(lifecycle):
    record = with_pr(lifecycle, GATE, iteration=25, budget_from=0)

    decision = lifecycle.decide(record, lifecycle.reviewed("changes_requested", "wendy", GATE))

    assert decision.state == ESCALATED
    assert "limit of 25 transitions" in decision.reason


# --- approvals ------------------------------------------------------------------------------
def test_an_approvers_approval_is_the_gates_approval(lifecycle):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(
        record, lifecycle.reviewed("approved", "wendy", GATE, body="Ship it.")
    )

    assert (decision.outcome, decision.state) == (Outcome.transition, "human_input_received")
    approval = decision.record.approval
    assert (approval.by, approval.state, approval.comment_id) == ("wendy", GATE, None)
    entry = decision.record.history[-1]
    assert (entry.actor, entry.trigger, entry.forced) == ("wendy", "review", False)
    assert entry.reason == "wendy approved pull request #7"
    assert decision.record.pending_input[-1].excerpt == "Ship it."
    assert decision.reaction is None


def test_an_approval_at_the_approval_gate_finishes_the_gate(gate):
    record = with_pr(gate, "awaiting_approval")

    decision = gate.decide(record, gate.reviewed("approved", "maria", "awaiting_approval"))

    assert decision.state == "done"


def test_an_approval_outside_a_gate_is_noted_not_applied(lifecycle):
    record = with_pr(lifecycle, "implementing")

    decision = lifecycle.decide(record, lifecycle.reviewed("approved", "wendy", "implementing"))

    assert (decision.outcome, decision.state) == (Outcome.noted, "implementing")
    assert decision.reason == (
        "wendy approved pull request #7, but implementing is no gate: the approval is not applied"
    )
    assert decision.record.approval is None
    assert decision.record.work.last_review == 500


# --- merged and closed ----------------------------------------------------------------------
def test_the_merge_completes_the_issue_from_a_waiting_state(lifecycle):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(record, lifecycle.pr_closed("maria", GATE, merged=True))

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.transition,
        "completed",
        None,
    )
    entry = decision.record.history[-1]
    assert (entry.actor, entry.trigger, entry.forced) == ("maria", "merge", True)
    assert decision.record.work.closed == "merged"
    assert decision.message == (
        "### 🎉 Pull request #7 was merged by `maria`. The issue is now `completed`.\n\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_the_merge_completes_even_a_closed_issue(lifecycle):
    record = with_pr(lifecycle, "implementing")

    decision = lifecycle.decide(
        record, lifecycle.pr_closed("maria", "implementing", merged=True, closed=True)
    )

    assert decision.state == "completed" and decision.agent is None


def test_a_merge_of_a_completed_issue_is_noted(lifecycle):
    record = with_pr(lifecycle, "completed")

    decision = lifecycle.decide(record, lifecycle.pr_closed("maria", "completed", merged=True))

    assert (decision.outcome, decision.state) == (Outcome.noted, "completed")
    assert decision.record.work.closed == "merged"


def test_closing_unmerged_hands_the_decision_to_a_maintainer(lifecycle):
    record = with_pr(lifecycle, "creating_pr")

    decision = lifecycle.decide(record, lifecycle.pr_closed("tess", "creating_pr", merged=False))

    assert (decision.outcome, decision.state, decision.agent) == (Outcome.transition, GATE, None)
    entry = decision.record.history[-1]
    assert (entry.actor, entry.trigger, entry.forced) == ("tess", "pull_request", True)
    assert decision.record.work.closed == "closed"
    assert decision.message == (
        "### ✋ Pull request #7 was closed without merging by `tess`\n"
        "\n"
        "The issue moved to `waiting_for_human_input`, and no agent runs until a maintainer "
        "decides: relabel the issue to the state to resume from (the branch is kept, and a new "
        "pull request opens at the next commit), or close the issue.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_closing_unmerged_leaves_a_terminal_state_alone(lifecycle):
    record = with_pr(lifecycle, "failed")

    decision = lifecycle.decide(record, lifecycle.pr_closed("tess", "failed", merged=False))

    assert (decision.outcome, decision.state) == (Outcome.noted, "failed")
    assert "The issue stays in `failed`" in decision.message


def test_a_closed_pull_request_that_is_not_the_issues_is_ignored(lifecycle):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(
        record, lifecycle.pr_closed("maria", GATE, merged=True, pull_request=9)
    )

    assert (decision.outcome, decision.state) == (Outcome.ignored, GATE)


def test_a_new_commit_after_a_close_opens_a_new_pull_request(lifecycle):
    record = lifecycle.record("fixing_issues", work=lifecycle.work(closed="closed"))
    outcome = AgentResult(status=AgentStatus.success, confidence=0.5, summary="More")
    changes = lifecycle.changeset("committed", digest="sha256:" + "9" * 64)

    decision = lifecycle.decide(
        record, lifecycle.reported("fixing_issues", outcome, changeset=changes)
    )

    assert decision.open_pull_request is not None


# --- checks ---------------------------------------------------------------------------------
def test_failing_checks_while_no_agent_works_move_to_the_route(lifecycle):
    record = with_pr(lifecycle, GATE)
    failing = (
        CheckNote(name="tests", summary="2 failed, 40 passed"),
        CheckNote(name="lint"),
    )

    decision = lifecycle.decide(record, lifecycle.checks(GATE, "failure", failing=failing))

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.transition,
        "fixing_issues",
        "developer",
    )
    assert decision.record.feedback == [
        "check tests failed: 2 failed, 40 passed",
        "check lint failed",
    ]
    entry = decision.record.history[-1]
    assert (entry.trigger, entry.forced, entry.reason) == (
        "checks",
        True,
        "checks failed on ccccccc",
    )
    assert decision.message == (
        "### ❌ Checks failed on `ccccccc`\n"
        "\n"
        "- check tests failed: 2 failed, 40 passed\n"
        "- check lint failed\n"
        "\n"
        "The issue moved to `fixing_issues`, with the failures as feedback.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


IGNORED_CHECKS = [
    pytest.param({"conclusion": "success"}, "checks passed on ccccccc", id="passing checks"),
    pytest.param(
        {"conclusion": "cancelled"},
        "checks ended cancelled on ccccccc",
        id="cancelled checks are no failure",
    ),
    pytest.param(
        {"conclusion": "failure", "head": "b" * 40},
        "checks on bbbbbbb, an older head: the branch is at ccccccc",
        id="failures on an older head",
    ),
    pytest.param(
        {"conclusion": "failure", "branch": "feature/x"},
        "checks on feature/x, which is not the issue's branch",
        id="another branch",
    ),
    pytest.param(
        {"conclusion": "failure", "pull_request": 8},
        "checks for pull request #8 is not the issue's (#7 is)",
        id="another pull request",
    ),
    pytest.param(
        {"conclusion": "timed_out", "closed": True},
        "checks failed on ccccccc, but the issue is closed",
        id="a closed issue",
    ),
]


@pytest.mark.parametrize(("fields", "reason"), IGNORED_CHECKS)
def test_checks_that_change_nothing_are_ignored_with_a_reason(lifecycle, fields, reason):
    record = with_pr(lifecycle, GATE)
    fields = dict(fields)  # the table's dict is shared by every run of this test in a process
    conclusion = fields.pop("conclusion")

    decision = lifecycle.decide(record, lifecycle.checks(GATE, conclusion, **fields))

    assert (decision.outcome, decision.state, decision.reason) == (Outcome.ignored, GATE, reason)


@pytest.mark.parametrize(
    ("state", "why"),
    [
        pytest.param(
            "implementing",
            "the developer is working; the failures go to the next agent",
            id="an agent at work",
        ),
        pytest.param(
            "completed", "completed is terminal (relabel the issue to resume)", id="terminal"
        ),
    ],
)
def test_failing_checks_that_cannot_move_are_kept_for_the_next_agent(lifecycle, state, why):
    record = with_pr(lifecycle, state)
    failing = (CheckNote(name="tests", summary="2 failed"),)

    decision = lifecycle.decide(record, lifecycle.checks(state, "timed_out", failing=failing))

    assert (decision.outcome, decision.state) == (Outcome.noted, state)
    assert decision.reason == f"checks failed on ccccccc; {why}"
    assert decision.record.work.failing_checks == ["check tests failed: 2 failed"]


def test_failures_already_known_are_not_kept_twice_and_new_ones_are(lifecycle):
    record = with_pr(lifecycle, "fixing_issues", feedback=["check tests failed: 2 failed"])
    tests = CheckNote(name="tests", summary="2 failed")

    again = lifecycle.decide(record, lifecycle.checks("fixing_issues", "failure", failing=(tests,)))
    lint = lifecycle.decide(
        record,
        lifecycle.checks("fixing_issues", "failure", failing=(tests, CheckNote(name="lint"))),
    )

    assert (again.outcome, again.reason) == (
        Outcome.ignored,
        "checks failed on ccccccc: the failures are known",
    )
    assert lint.outcome is Outcome.noted
    assert lint.record.work.failing_checks == ["check lint failed"]


def test_failing_checks_without_notes_still_say_what_failed(lifecycle):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(record, lifecycle.checks(GATE, "startup_failure"))

    assert decision.record.feedback == ["checks concluded startup_failure on ccccccc"]


# --- who the run must look up ---------------------------------------------------------------
def test_only_a_weighty_review_by_an_unknown_human_needs_a_lookup(lifecycle):
    unknown = Actor(login="wendy")
    review = lifecycle.reviewed("approved", "wendy", GATE).model_copy(update={"actor": unknown})

    assert needs_identity(review)
    assert not needs_identity(review.model_copy(update={"verdict": "commented"}))
    assert not needs_identity(
        review.model_copy(update={"actor": Actor(login="x[bot]", is_bot=True)})
    )
    assert not needs_identity(lifecycle.reviewed("approved", "wendy", GATE)), "already known"
    assert not needs_identity(lifecycle.pr_closed("maria", GATE, merged=True))
    assert not needs_identity(lifecycle.checks(GATE, "failure"))


# --- properties -----------------------------------------------------------------------------
PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
STRANGERS = ["alice", "bob", "rita", "dependabot[bot]"]


@PROPERTY
@given(data=st.data())
def test_no_review_from_a_non_approver_ever_moves_the_issue(lifecycle, data):
    state = data.draw(st.sampled_from(sorted(lifecycle.workflow.states)), label="state")
    verdict = data.draw(st.sampled_from(["approved", "changes_requested", "commented"]))
    by = data.draw(st.sampled_from(STRANGERS), label="by")
    held = data.draw(st.booleans(), label="held")
    record = with_pr(lifecycle, state, held=held)

    decision = lifecycle.decide(record, lifecycle.reviewed(verdict, by, state, body="LGTM"))

    assert decision.state == state
    assert decision.outcome is Outcome.ignored
    assert decision.record is None and decision.message is None and decision.agent is None


@PROPERTY
@given(data=st.data())
def test_a_redelivered_pull_request_event_changes_nothing(lifecycle, data):
    state = data.draw(st.sampled_from(sorted(lifecycle.workflow.states)), label="state")
    kind = data.draw(st.sampled_from(["review", "merged", "closed", "checks"]), label="kind")
    by = data.draw(st.sampled_from(["wendy", "maria", "bob"]), label="by")
    if kind == "review":
        verdict = data.draw(st.sampled_from(["approved", "changes_requested"]))
        event = lifecycle.reviewed(verdict, by, state)
    elif kind == "checks":
        event = lifecycle.checks(state, "failure", failing=(CheckNote(name="tests"),))
    else:
        event = lifecycle.pr_closed(by, state, merged=kind == "merged")
    first = lifecycle.decide(with_pr(lifecycle, state), event)
    if first.record is None:
        return
    after = first.record
    forgotten = data.draw(st.booleans(), label="the event id fell out of memory")
    if forgotten:
        after = after.model_copy(update={"processed": []})
    # GitHub delivers it again: a new run (a re-run of the same run may name the agent again).
    shown = event.model_copy(
        update={"issue": lifecycle.issue(after.state, labels=None), "run_id": "redelivery"}
    )
    if event.issue.state == "closed":
        shown = shown.model_copy(
            update={"issue": shown.issue.model_copy(update={"state": "closed"})}
        )

    again = lifecycle.decide(after, shown)

    assert again.state == after.state
    assert again.outcome in {Outcome.ignored, Outcome.noted}
    assert again.message is None
    if again.record is not None:  # only the checks kept again: the same failures, once
        assert again.record.work.failing_checks == after.work.failing_checks
        assert again.record.history == after.history
