"""The issue's pull request steering the issue, decided directly: approvers' reviews (requested
changes and approvals), the merge and the close, CI's checks on the branch head; and what
never counts: a stranger's review, another pull request, an older head, a re-delivery."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.events import CheckNote, ReviewNote
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.issue_facts import Actor
from baton.core.model.record import Approval, HumanInput
from baton.core.model.work import PullRequestFacts
from baton.core.rules.authority import needs_identity
from baton.core.rules.pull_requests import needs_failing_checks, needs_review_notes
from baton.core.text import messages
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
    event = lifecycle.reviewed("changes_requested", "wendy", GATE, body="Almost: two things.")

    decision = lifecycle.decide(record, event, Facts(review_notes=list(notes)))

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.transition,
        "addressing_feedback",
        "developer",
    )
    assert not decision.forced  # a route of the workflow, caused by the review: no relabel
    assert decision.reason == (
        "waiting_for_human_input → addressing_feedback: wendy requested changes on pull request #7"
    )
    entry = decision.record.history[-1]
    assert (entry.actor, entry.trigger, entry.forced) == ("wendy", "review", False)
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


# --- an approval is for the commit it reviewed ----------------------------------------------
OLDER = "b" * 40
COUNTS = (
    "An approval counts for Baton's last commit, or for a commit built on it with only "
    "commits of users with write access after it (GitHub's *dismiss stale approvals* drops an "
    "approval when commits come after it): review the latest changes and approve again. If "
    "someone else's commit is on top of Baton's, request changes so that the agent takes it "
    "in, or relabel the issue."
)


@pytest.mark.parametrize(
    ("commit", "seen"),
    [
        pytest.param(OLDER, "`bbbbbbb`", id="an older commit"),
        pytest.param("", "no commit Baton can name", id="no commit named"),
        pytest.param("b" * 7, "no commit Baton can name", id="a short id"),
        pytest.param("d" * 40, "`ddddddd`", id="a push on top, with nothing read of it"),
    ],
)
def test_an_approval_of_a_commit_that_is_not_batons_last_does_not_count(lifecycle, commit, seen):
    record = with_pr(lifecycle, GATE)

    decision = lifecycle.decide(
        record, lifecycle.reviewed("approved", "wendy", GATE, body="Ship it.", commit=commit)
    )

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    at = commit[:7] if len(commit) == 40 else "no commit it can name"
    assert decision.reason == (
        f"wendy approved pull request #7 at {at}, but Baton's last commit is ccccccc: an "
        "approval counts only for Baton's last commit, or a commit built on it by users with "
        "write access"
    )
    assert decision.record.approval is None and decision.agent is None
    assert decision.record.work.last_review == 500, "a re-delivery is not said twice"
    assert decision.message == (
        "### ⚠️ `wendy`'s approval of #7 does not count\n"
        "\n"
        f"It approved {seen}, but Baton's last commit on the branch is `ccccccc`. {COUNTS}\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_with_no_commit_of_batons_recorded_no_approval_counts(lifecycle):
    record = lifecycle.record(GATE, work=lifecycle.work(head=""))

    decision = lifecycle.decide(record, lifecycle.reviewed("approved", "wendy", GATE))

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    assert decision.reason.endswith(
        "but Baton's last commit is none: an approval counts only for Baton's last commit, or a "
        "commit built on it by users with write access"
    )
    assert "Baton's last commit on the branch is `none`." in decision.message


def test_work_with_no_pull_request_is_told_nothing_of_ci(lifecycle):
    record = lifecycle.record("implementing", work=lifecycle.work(pull_request=None))

    decision = _to_review(lifecycle, record)

    assert decision.message is not None  # what the move says, and nothing of CI
    assert "CI on pull request" not in decision.message


def test_a_closed_pull_request_is_told_nothing_of_ci(lifecycle):
    record = lifecycle.record(GATE, work=lifecycle.work(ready=True))

    decision = lifecycle.decide(record, lifecycle.pr_closed("maria", GATE, merged=False))

    assert decision.record.work.closed == "closed"
    assert "CI on pull request" not in (decision.message or "")


def test_a_stale_approval_delivered_again_says_nothing_more(lifecycle):
    first = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.reviewed("approved", "wendy", GATE, commit=OLDER)
    )

    again = lifecycle.decide(
        first.record, lifecycle.reviewed("approved", "wendy", GATE, commit=OLDER)
    )

    assert again.outcome is Outcome.ignored and again.message is None


def test_an_approval_after_a_stale_one_counts_when_it_is_of_batons_last_commit(lifecycle):
    stale = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.reviewed("approved", "wendy", GATE, commit=OLDER)
    )

    fresh = lifecycle.decide(
        stale.record, lifecycle.reviewed("approved", "wendy", GATE, review_id=501)
    )

    assert (fresh.outcome, fresh.state) == (Outcome.transition, "human_input_received")


def test_a_hostile_commit_id_is_shown_as_data(lifecycle):
    hostile = "`@octo/security fixes #1"

    decision = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.reviewed("approved", "wendy", GATE, commit=hostile)
    )

    assert decision.message is not None
    assert "It approved no commit Baton can name, but" in decision.message


def test_requested_changes_on_an_older_commit_still_send_the_work_back(lifecycle):
    decision = lifecycle.decide(
        with_pr(lifecycle, GATE),
        lifecycle.reviewed("changes_requested", "wendy", GATE, body="No.", commit=OLDER),
    )

    assert decision.state == "addressing_feedback"


# --- what approving CI means, said when a writer looks ----------------------------------------
HELD_NOTICE = (
    "### 🔐 CI on pull request #7 waits for a maintainer's approval\n"
    "\n"
    "GitHub holds the CI runs of a pull request that GITHUB_TOKEN opened or updated until "
    "someone with write access clicks **Approve and run** on the pull request page. Approving "
    "runs the agent-written code of the pull request (its tests, a `conftest.py`, a Makefile, "
    "any script CI calls) with the repository's secrets: review the diff first, and approve "
    "only what you would run yourself. Each commit Baton adds waits for approval again; a run "
    "never approved sends nothing back."
)
UNHELD_NOTICE = (
    "### 🔐 CI on pull request #7 runs without approval\n"
    "\n"
    "Baton writes as `baton-app[bot]`, and `.github/baton.yml` accepts "
    "`ci: {unapproved_runs: accept}`: the CI runs its commits start run the agent-written code "
    "(its tests, a `conftest.py`, a Makefile) with the repository's secrets before anyone has "
    "reviewed it."
)


def _to_review(build, record):
    """maria moves the issue to creating_pr, where the pull request is marked ready."""
    return build.decide(record, build.labeled("status:creating-pr", "maria", record.state))


def test_marking_the_pull_request_ready_says_what_approving_ci_means(lifecycle):
    decision = _to_review(lifecycle, with_pr(lifecycle, "implementing"))

    assert decision.state == "creating_pr" and decision.record.work.ready
    assert HELD_NOTICE in decision.message


def test_with_an_app_identity_it_says_ci_runs_without_approval(lifecycle):
    build = lifecycle.with_policy(bot_login="baton-app[bot]")

    decision = _to_review(build, with_pr(build, "implementing"))

    assert UNHELD_NOTICE in decision.message
    assert "Approve and run" not in decision.message


def test_opening_the_pull_request_says_it_too(lifecycle):
    # The run that opened it decides again with its number: the work had none before.
    record = lifecycle.record("implementing", work=lifecycle.work(pull_request=None))
    event = lifecycle.reported(
        "implementing", AgentResult(status=AgentStatus.success, confidence=0.6, summary="x")
    )
    opened = Facts(opened=PullRequestFacts(number=7, node_id="PR_7"))

    decision = lifecycle.decide(record, event, opened)

    assert decision.record.work.pull_request == 7
    assert HELD_NOTICE in decision.message


def test_nothing_is_said_while_the_pull_request_stays_as_it_was(lifecycle):
    ready = lifecycle.record("implementing", work=lifecycle.work(ready=True))

    decision = _to_review(lifecycle, ready)

    assert "CI on pull request" not in (decision.message or "")


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
    assert (entry.actor, entry.trigger, entry.forced) == ("maria", "merge", False)
    assert not decision.forced
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
    assert (entry.actor, entry.trigger, entry.forced) == ("tess", "pull_request", False)
    assert not decision.forced
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
        record, lifecycle.reported("fixing_issues", outcome), Facts(changeset=changes)
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
        False,
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


@pytest.mark.parametrize("conclusion", ["failure", "timed_out", "startup_failure"])
def test_a_failed_run_with_no_failed_check_run_is_nothing_to_fix(lifecycle, conclusion):
    # A pull_request run held for approval and never approved ends `failure` with no job run.
    record = with_pr(lifecycle, GATE)
    event = lifecycle.checks(GATE, conclusion, failing=()).model_copy(
        update={"source": "workflow_run"}
    )

    decision = lifecycle.decide(record, event, Facts(failing_checks=[]))

    assert (decision.outcome, decision.state) == (Outcome.ignored, GATE)
    assert decision.reason == (
        f"workflow_run concluded {conclusion} on ccccccc, but no check run on it failed: no "
        "job ran (a run held for approval and never approved ends so), nothing to fix"
    )
    assert decision.record is None and decision.message is None


def test_a_failed_run_with_a_failed_check_run_sends_the_work_back(lifecycle):
    record = with_pr(lifecycle, GATE)
    event = lifecycle.checks(GATE, "failure", failing=(CheckNote(name="tests"),))

    decision = lifecycle.decide(record, event, Facts(failing_checks=[CheckNote(name="tests")]))

    assert decision.state == "fixing_issues"


def test_the_failing_check_runs_read_name_the_failures_over_the_payloads(lifecycle):
    record = with_pr(lifecycle, GATE)
    event = lifecycle.checks(GATE, "startup_failure", failing=(CheckNote(name="CI"),))
    read = Facts(failing_checks=[CheckNote(name="lint", summary="E501")])

    decision = lifecycle.decide(record, event, read)

    assert decision.record.feedback == ["check lint failed: E501"]


# --- who the run must look up ---------------------------------------------------------------
def test_only_a_weighty_review_by_an_unknown_human_needs_a_lookup(lifecycle):
    review = lifecycle.reviewed("approved", "wendy", GATE)
    known = Facts(permissions={"wendy": "write"})

    assert needs_identity(review, NO_FACTS)
    assert not needs_identity(review.model_copy(update={"verdict": "commented"}), NO_FACTS)
    assert not needs_identity(
        review.model_copy(update={"actor": Actor(login="x[bot]", is_bot=True)}), NO_FACTS
    )
    assert not needs_identity(review, known), "already known"
    assert not needs_identity(lifecycle.pr_closed("maria", GATE, merged=True), NO_FACTS)
    assert not needs_identity(lifecycle.checks(GATE, "failure"), NO_FACTS)


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


@settings(PROPERTY, derandomize=True)
@given(data=st.data())
def test_no_approval_of_another_commit_ever_moves_the_issue(lifecycle, data):
    state = data.draw(st.sampled_from(sorted(lifecycle.workflow.states)), label="state")
    commit = data.draw(st.text(max_size=60).filter(lambda c: c != HEAD), label="commit")
    by = data.draw(st.sampled_from(["wendy", "maria"]), label="by")
    held = data.draw(st.booleans(), label="held")
    record = with_pr(lifecycle, state, held=held)

    decision = lifecycle.decide(record, lifecycle.reviewed("approved", by, state, commit=commit))

    assert decision.state == state
    assert decision.outcome in {Outcome.ignored, Outcome.noted}
    assert decision.record is None or decision.record.approval is None
    assert decision.agent is None


@settings(PROPERTY, derandomize=True)
@given(commit=st.text(max_size=200))
def test_a_stale_approval_message_shows_at_most_seven_characters_of_the_commit(commit):
    said = messages.stale_approval("wendy", 7, commit, HEAD)
    plain = messages.stale_approval("wendy", 7, "a", HEAD)

    assert said.count("\n") == plain.count("\n"), "the commit adds no line"
    assert len(said) <= len(plain) + 6 + 6, "seven characters in a code span, at most"
    before, _, after = said.partition("It approved ")
    assert before == plain.partition("It approved ")[0]
    assert after.partition(", but")[2] == plain.partition("It approved ")[2].partition(", but")[2]


# --- edges the mutation run found unpinned --------------------------------------------------
def _approved_earlier(build, state: str, **changes):
    """The issue with its pull request, carrying an approval given in `state` earlier."""
    record = with_pr(build, state, **changes)
    approval = Approval(by="maria", state=state, iteration=1, at=record.entered_at)
    return record.model_copy(update={"approval": approval, "open_questions": ["Which CSV?"]})


def _routes(build, **routes):
    return build.with_workflow(pull_request=build.workflow.pull_request.model_copy(update=routes))


@pytest.mark.parametrize("closed", ["merged", "closed"])
def test_a_review_of_a_pull_request_already_closed_is_ignored(lifecycle, closed):
    record = lifecycle.record(GATE, work=lifecycle.work(closed=closed))

    decision = lifecycle.decide(record, lifecycle.reviewed("changes_requested", "wendy", GATE))

    assert (decision.outcome, decision.reason) == (
        Outcome.ignored,
        f"pull request #7 is {closed}",
    )


def test_the_review_that_last_counted_delivered_again_is_ignored(lifecycle):
    record = lifecycle.record(GATE, work=lifecycle.work(last_review=500))

    decision = lifecycle.decide(record, lifecycle.reviewed("approved", "wendy", GATE))

    assert (decision.outcome, decision.reason) == (
        Outcome.ignored,
        "review 500 was already handled",
    )


def test_with_only_named_approvers_a_stranger_is_told_who_may_steer(lifecycle):
    build = lifecycle.with_policy(approvers=Who(teams=["acme/reviewers"]))

    decision = build.decide(with_pr(build, GATE), build.reviewed("approved", "bob", GATE))

    assert decision.reason == (
        "bob's review carries no weight: only approvers' reviews steer the issue "
        "(needs a listed user or team)"
    )


def test_reviews_without_a_body_are_remembered_by_what_they_did(lifecycle):
    approved = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.reviewed("approved", "wendy", GATE)
    )
    changes = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.reviewed("changes_requested", "wendy", GATE)
    )

    assert approved.record.pending_input[-1].excerpt == "approved the pull request"
    assert changes.record.pending_input[-1].excerpt == "requested changes"


def test_a_long_review_body_is_clipped_to_500_characters_of_feedback(lifecycle):
    body = "x" * 600
    decision = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.reviewed("changes_requested", "wendy", GATE, body=body)
    )

    first = decision.record.feedback[0]
    assert first == "wendy requested changes: " + "x" * (499 - 25) + "…"
    assert len(first) == 500


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        pytest.param(
            "completed",
            "wendy requested changes on pull request #7; completed is terminal (relabel the "
            "issue to resume): the review is kept for the next agent",
            id="a terminal state",
        ),
        pytest.param(
            "addressing_feedback",
            "wendy requested changes on pull request #7; no route moves it: the review is kept "
            "for the next agent",
            id="already where the route leads",
        ),
    ],
)
def test_requested_changes_that_cannot_move_say_exactly_why(lifecycle, state, reason):
    decision = lifecycle.decide(
        with_pr(lifecycle, state), lifecycle.reviewed("changes_requested", "wendy", state)
    )

    assert decision.reason == reason


def test_requested_changes_looping_back_to_the_route_escalate_with_the_review(lifecycle):
    """The loop check counts the route's state itself: the third visit in a short window."""
    build = lifecycle
    loops = build.workflow.limits.loop_window
    record = with_pr(build, GATE)
    history = list(record.history)
    for i in range(loops):
        state = "addressing_feedback" if i % 2 == 0 else GATE
        history.append(history[-1].model_copy(update={"to_state": state, "iteration": i + 2}))
    record = record.model_copy(update={"history": history, "iteration": loops + 1})
    decision = build.decide(
        record, build.reviewed("changes_requested", "wendy", GATE, body="Still wrong.")
    )

    assert decision.state == ESCALATED
    assert decision.reason.startswith("escalated: a loop was detected")
    assert decision.record.feedback == ["wendy requested changes: Still wrong."]
    assert decision.record.history[-1].actor == "wendy"


def test_requested_changes_clear_the_approval_and_the_open_questions(lifecycle):
    record = _approved_earlier(lifecycle, GATE)

    decision = lifecycle.decide(record, lifecycle.reviewed("changes_requested", "wendy", GATE))

    assert decision.state == "addressing_feedback"
    assert (decision.record.approval, decision.record.open_questions) == (None, [])


def test_a_merge_already_where_the_route_leads_is_noted_with_its_message(lifecycle):
    record = with_pr(lifecycle, "completed")

    decision = lifecycle.decide(record, lifecycle.pr_closed("maria", "completed", merged=True))

    assert decision.reason == "pull request #7 merged by maria"
    assert decision.message == (
        "### 🎉 Pull request #7 was merged by `maria`. The issue is now `completed`.\n\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_a_merge_without_a_route_is_noted_and_recorded(lifecycle):
    build = _routes(lifecycle, merged=None)

    decision = build.decide(with_pr(build, GATE), build.pr_closed("maria", GATE, merged=True))

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    assert decision.record.work.closed == "merged"
    assert decision.message == (
        "### 🎉 Pull request #7 was merged by `maria`.\n\n<sub>— Baton, the PM of this issue</sub>"
    )


@pytest.mark.parametrize("merged", [True, False], ids=["merged", "closed unmerged"])
def test_a_pull_request_route_into_an_agent_s_state_starts_the_agent_unforced(lifecycle, merged):
    route = {"merged": "implementing"} if merged else {"closed": "implementing"}
    build = _routes(lifecycle, **route)
    record = _approved_earlier(build, GATE)

    decision = build.decide(record, build.pr_closed("maria", GATE, merged=merged))

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.transition,
        "implementing",
        "developer",
    )
    assert not decision.forced and decision.record.approval is None
    assert decision.record.history[-1].trigger == ("merge" if merged else "pull_request")
    assert decision.record.work.closed == ("merged" if merged else "closed")


def test_closing_unmerged_where_the_route_leads_is_noted_and_recorded(lifecycle):
    decision = lifecycle.decide(
        with_pr(lifecycle, GATE), lifecycle.pr_closed("tess", GATE, merged=False)
    )

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    assert decision.reason == (
        "pull request #7 closed without merging by tess; the issue stays in waiting_for_human_input"
    )
    assert decision.record.work.closed == "closed"
    assert decision.message == (
        "### ✋ Pull request #7 was closed without merging by `tess`\n"
        "\n"
        "The issue stays in `waiting_for_human_input`, and no agent runs until a maintainer "
        "decides: relabel the issue to the state to resume from (the branch is kept, and a new "
        "pull request opens at the next commit), or close the issue.\n"
        "\n"
        "<sub>— Baton, the PM of this issue</sub>"
    )


def test_closing_unmerged_on_a_closed_issue_says_nothing(lifecycle):
    decision = lifecycle.decide(
        with_pr(lifecycle, "creating_pr"),
        lifecycle.pr_closed("tess", "creating_pr", merged=False, closed=True),
    )

    assert (decision.outcome, decision.state) == (Outcome.noted, "creating_pr")
    assert decision.message is None
    assert decision.record.work.closed == "closed"


def test_closing_unmerged_moves_along_the_route_and_clears_the_approval(lifecycle):
    record = _approved_earlier(lifecycle, "creating_pr")

    decision = lifecycle.decide(record, lifecycle.pr_closed("tess", "creating_pr", merged=False))

    assert not decision.forced and decision.record.approval is None


IGNORED_CHECKS_MORE = [
    pytest.param(
        {"closed": "merged"}, "failure", "pull request #7 is merged", id="a merged pull request"
    ),
    pytest.param(
        {"head": ""},
        "failure",
        "checks on ccccccc, an older head: the branch is at no commit",
        id="a branch with no commit of Baton's",
    ),
    pytest.param({}, "", "checks ended with no conclusion on ccccccc", id="no conclusion"),
]


@pytest.mark.parametrize(("work", "conclusion", "reason"), IGNORED_CHECKS_MORE)
def test_more_checks_that_change_nothing(lifecycle, work, conclusion, reason):
    record = lifecycle.record(GATE, work=lifecycle.work(**work))

    decision = lifecycle.decide(record, lifecycle.checks(GATE, conclusion))

    assert (decision.outcome, decision.reason) == (Outcome.ignored, reason)


def test_failing_checks_move_along_the_route_clearing_the_approval_and_the_failures(lifecycle):
    record = _approved_earlier(lifecycle, GATE)
    record = record.model_copy(
        update={"work": record.work.model_copy(update={"failing_checks": ["check old failed"]})}
    )

    decision = lifecycle.decide(record, lifecycle.checks(GATE, "failure"))

    assert decision.state == "fixing_issues" and not decision.forced
    assert decision.record.approval is None
    assert decision.record.work == lifecycle.work()


def test_failing_checks_past_the_limits_escalate_with_the_failures(lifecycle):
    record = with_pr(lifecycle, GATE, iteration=25, budget_from=0)
    failing = (CheckNote(name="tests", summary="2 failed"),)

    decision = lifecycle.decide(record, lifecycle.checks(GATE, "failure", failing=failing))

    assert (decision.outcome, decision.state) == (Outcome.transition, ESCALATED)
    assert decision.reason == (
        "escalated: the issue reached the limit of 25 transitions since a human last stepped in"
    )
    assert decision.record.feedback == ["check tests failed: 2 failed"]
    entry = decision.record.history[-1]
    assert (entry.actor, entry.trigger) == ("github-actions[bot]", "escalation")


@pytest.mark.parametrize(
    ("routes", "held", "why"),
    [
        pytest.param({}, True, "the issue waits for a human decision", id="a held issue"),
        pytest.param({"checks_failed": None}, False, "no route moves the issue", id="no route"),
        pytest.param({"checks_failed": GATE}, False, "no route moves the issue", id="route here"),
    ],
)
def test_failing_checks_kept_for_later_say_why(lifecycle, routes, held, why):
    build = _routes(lifecycle, **routes)
    record = with_pr(build, GATE, held=held)

    decision = build.decide(record, build.checks(GATE, "failure"))

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    assert decision.reason == f"checks failed on ccccccc; {why}"
    assert decision.record.work.failing_checks == ["check tests failed"]


def test_failing_checks_on_an_escalated_issue_wait_for_the_human(tasks):
    """task-review escalates to `failed`, a waiting state its checks route could leave."""
    record = with_pr(tasks, "failed", escalated_from="in_progress")

    decision = tasks.decide(record, tasks.checks("failed", "failure"))

    assert (decision.outcome, decision.state) == (Outcome.noted, "failed")
    assert decision.reason == "checks failed on ccccccc; the issue waits for a human decision"


def test_failing_checks_move_an_issue_labelled_into_the_escalation_state_by_hand(tasks):
    """Only an escalation (the record says where from) waits for a human; a maintainer's
    label on the escalation state leaves a waiting state the checks route may leave."""
    record = with_pr(tasks, "failed")

    decision = tasks.decide(record, tasks.checks("failed", "failure"))

    assert (decision.outcome, decision.state) == (Outcome.transition, "in_progress")


def test_an_approval_in_a_waiting_state_that_is_no_gate_is_noted(tasks):
    record = with_pr(tasks, "blocked")

    decision = tasks.decide(record, tasks.reviewed("approved", "maria", "blocked"))

    assert (decision.outcome, decision.state) == (Outcome.noted, "blocked")
    assert decision.reason == (
        "maria approved pull request #7, but blocked is no gate: the approval is not applied"
    )


def test_an_approval_of_a_held_issue_is_not_applied(lifecycle):
    record = with_pr(lifecycle, GATE, held=True)

    decision = lifecycle.decide(record, lifecycle.reviewed("approved", "wendy", GATE))

    assert (decision.outcome, decision.state) == (Outcome.noted, GATE)
    assert decision.record.approval is None


def test_failing_checks_looping_back_to_the_route_escalate(lifecycle):
    """The loop check counts the route's state itself, as for requested changes."""
    loops = lifecycle.workflow.limits.loop_window
    record = with_pr(lifecycle, GATE)
    history = list(record.history)
    for i in range(loops):
        state = "fixing_issues" if i % 2 == 0 else GATE
        history.append(history[-1].model_copy(update={"to_state": state, "iteration": i + 2}))
    record = record.model_copy(update={"history": history, "iteration": loops + 1})

    decision = lifecycle.decide(record, lifecycle.checks(GATE, "failure"))

    assert decision.state == ESCALATED
    assert decision.reason.startswith("escalated: a loop was detected")


# --- what a pull request's event needs read first ---------------------------------------------
def test_a_request_for_changes_on_the_issues_pull_request_needs_its_inline_comments(lifecycle):
    record = with_pr(lifecycle, "creating_pr")
    asked = lifecycle.reviewed("changes_requested", "maria", "creating_pr")
    assert needs_review_notes(record, asked)
    noted = Facts(review_notes=[ReviewNote(path="a.py", body="x")])
    assert not needs_review_notes(record, asked, noted), "read already"
    assert not needs_review_notes(record, asked, Facts(review_notes=[])), "read: none"
    assert not needs_review_notes(record, lifecycle.reviewed("approved", "maria", "creating_pr"))
    assert not needs_review_notes(record, lifecycle.reviewed("commented", "maria", "creating_pr"))
    other = lifecycle.reviewed("changes_requested", "maria", "creating_pr", pull_request=99)
    assert not needs_review_notes(record, other), "a stranger's pull request steers nothing"
    assert not needs_review_notes(lifecycle.record("creating_pr"), asked), "no work, no notes"
    assert not needs_review_notes(None, asked)


@pytest.mark.parametrize(
    ("conclusion", "head", "needed"),
    [
        ("failure", HEAD, True),
        ("FAILURE", HEAD, True),
        ("timed_out", HEAD, True),
        ("startup_failure", HEAD, True),
        ("success", HEAD, False),
        ("neutral", HEAD, False),
        ("skipped", HEAD, False),
        ("cancelled", HEAD, False),
        ("failure", "d" * 40, False),
    ],
)
def test_failed_checks_on_batons_last_commit_need_the_failing_runs_read(
    lifecycle, conclusion, head, needed
):
    record = with_pr(lifecycle, "creating_pr")
    event = lifecycle.checks("creating_pr", conclusion, head=head)
    assert needs_failing_checks(record, event) is needed
    assert not needs_failing_checks(record, event, Facts(failing_checks=[])), "read already"
    assert not needs_failing_checks(lifecycle.record("creating_pr"), event)
    assert not needs_failing_checks(None, event)
