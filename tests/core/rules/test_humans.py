"""Human comments, decided directly: who may approve and answer, the edited-comment guard,
comments that came too early or were handled already, and the escalation commands."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome, Reaction
from baton.workflow.config import Who

GATE = "waiting_for_human_input"  # approval and reply both move to human_input_received
CLARIFY = "waiting_for_requirements_clarification"  # a reply moves to requirements_clarified
ESCALATED = "requires_human_intervention"


# --- who may approve --------------------------------------------------------------------
APPROVERS = [
    pytest.param("wendy", None, True, id="a writer approves by default"),
    pytest.param("bob", None, False, id="a stranger's approval is refused"),
    pytest.param("dependabot[bot]", None, False, id="a bot's approval is refused, admin or not"),
    pytest.param(
        "maria",
        Who(permission="admin"),
        False,
        id="maintain does not pass a group that requires admin",
    ),
    pytest.param("ada", Who(permission="admin"), True, id="admin passes a group that needs admin"),
    pytest.param("bob", Who(users=["Bob"]), True, id="a named user approves, in any letter case"),
    pytest.param(
        "rita", Who(teams=["acme/reviewers"]), True, id="a member of a named team approves"
    ),
    pytest.param(
        "wendy",
        Who(users=["bob"]),
        False,
        id="with no permission named, write alone does not approve",
    ),
]


@pytest.mark.parametrize(("login", "approvers", "counts"), APPROVERS)
def test_who_may_approve(lifecycle, login, approvers, counts):
    build = lifecycle if approvers is None else lifecycle.with_policy(approvers=approvers)
    record = build.record(GATE)

    decision = build.decide(record, build.commented("approved", login, GATE))

    if counts:
        assert (decision.outcome, decision.state) == (Outcome.transition, "human_input_received")
        assert decision.record.approval.by == login
        assert decision.reaction == Reaction(comment_id=100)
    else:
        assert (decision.outcome, decision.state) == (Outcome.refused, GATE)
        assert decision.reason.startswith(f"refused {login}: only approvers can approve here")
        assert decision.reaction == Reaction(comment_id=100, content="confused")
        assert "comment:100" in decision.record.processed


def test_an_approval_where_there_is_nothing_to_approve_is_refused(lifecycle):
    record = lifecycle.record("implementing")

    decision = lifecycle.decide(record, lifecycle.commented("approved", "wendy", "implementing"))

    assert decision.outcome is Outcome.refused
    assert "there is nothing to approve: the issue is in implementing" in decision.reason


# --- who may answer ---------------------------------------------------------------------
ANSWERERS = [
    pytest.param("alice", "author-or-approvers", True, id="the issue's author answers"),
    pytest.param("wendy", "author-or-approvers", True, id="an approver answers"),
    pytest.param("bob", "author-or-approvers", False, id="a passer-by's reply is not an answer"),
    pytest.param("bob", "anyone", True, id="anyone answers when the config says so"),
    pytest.param("dependabot[bot]", "anyone", False, id="a bot never answers, even then"),
    pytest.param(
        "alice", "approvers", False, id="the author does not answer when only approvers do"
    ),
]


@pytest.mark.parametrize(("login", "answerers", "counts"), ANSWERERS)
def test_who_may_answer(lifecycle, login, answerers, counts):
    build = lifecycle.with_policy(answerers=answerers)
    record = build.record(CLARIFY)

    decision = build.decide(record, build.commented("Semicolons, please.", login, CLARIFY))

    if counts:
        assert (decision.outcome, decision.state) == (Outcome.transition, "requirements_clarified")
        assert [x.excerpt for x in decision.record.pending_input] == ["Semicolons, please."]
    else:
        assert (decision.outcome, decision.state) == (Outcome.ignored, CLARIFY)
        assert decision.reason == f"{login} may not answer here (config: answerers={answerers})"
        assert decision.record is None


def test_a_reply_where_only_an_approval_moves_on_is_kept_for_the_next_agent(gate):
    record = gate.record("awaiting_approval")

    decision = gate.decide(record, gate.commented("Looks close.", "alice", "awaiting_approval"))

    assert (decision.outcome, decision.state) == (Outcome.noted, "awaiting_approval")
    assert [x.author for x in decision.record.pending_input] == ["alice"]
    assert decision.reaction == Reaction(comment_id=100)


# --- comments out of time, and the edited-comment guard ------------------------------------
EARLY = [
    pytest.param(
        {"last_comment_id": 100}, {}, "comment 100 was already handled", id="a handled comment"
    ),
    pytest.param(
        {"entered_after_comment": 100},
        {},
        f"comment 100 was written before the issue entered {GATE}",
        id="a comment written before the state was entered answers an older question",
    ),
    pytest.param(
        {},
        {"edited": True},
        "an edited comment does not count (allow_edited_approvals)",
        id="an edited comment does not count by default",
    ),
]


@pytest.mark.parametrize(("record_changes", "event_changes", "reason"), EARLY)
def test_comments_that_do_not_count_change_nothing(
    lifecycle, record_changes, event_changes, reason
):
    record = lifecycle.record(GATE, **record_changes)
    event = lifecycle.commented("approved", "wendy", GATE, **event_changes)

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.reason) == (Outcome.ignored, reason)
    assert decision.record is None and decision.labels is None and decision.message is None


EDITED = [
    pytest.param({}, id="an edited approval counts when the config allows it"),
    pytest.param(
        {"last_comment_id": 100}, id="an edited approval counts although its comment was handled"
    ),
    pytest.param(
        {"entered_after_comment": 100},
        id="an edited approval counts although its comment predates the state",
    ),
]


@pytest.mark.parametrize("record_changes", EDITED)
def test_an_edited_approval_counts_when_allowed(lifecycle, record_changes):
    build = lifecycle.with_policy(allow_edited_approvals=True)
    record = build.record(GATE, **record_changes)
    event = build.commented("approved", "wendy", GATE, edited=True)
    event = event.model_copy(update={"id": "comment:100:edited:1"})

    decision = build.decide(record, event)

    assert (decision.outcome, decision.state) == (Outcome.transition, "human_input_received")


def test_a_plain_comment_while_an_agent_works_is_ignored(lifecycle):
    record = lifecycle.record("implementing")

    decision = lifecycle.decide(record, lifecycle.commented("Any news?", "alice", "implementing"))

    assert decision.outcome is Outcome.ignored
    assert decision.record is None


# --- escalation commands ----------------------------------------------------------------
def test_a_retry_in_place_releases_a_held_issue_with_the_guidance(gate):
    record = gate.record(
        "phase_2", held=True, escalated_from="phase_2", attempt=3, dispatch=None, iteration=4
    )
    event = gate.commented("/retry keep the old API", "wendy", "phase_2")

    decision = gate.decide(record, event)

    assert (decision.outcome, decision.state, decision.forced) == (Outcome.retry, "phase_2", True)
    assert decision.reason == "wendy: /retry keep the old API"
    moved = decision.record
    assert (moved.held, moved.escalated_from, moved.attempt) == (False, None, 1)
    assert moved.budget_from == 4, "the limits count afresh from the human's step"
    assert moved.feedback == ["keep the old API"]
    assert (moved.dispatch.agent, moved.dispatch.attempt) == ("developer", 1)
    assert moved.iteration == 4 and moved.history == record.history, "no transition"
    assert decision.agent == "developer"


def test_a_retry_in_place_without_guidance_keeps_the_feedback(gate):
    record = gate.record("phase_2", held=True, escalated_from="phase_2", feedback=["no tests"])

    decision = gate.decide(record, gate.commented("/retry", "wendy", "phase_2"))

    assert decision.record.feedback == ["no tests"]


COMMANDS = [
    pytest.param("/retry", "implementing", id="/retry returns to the state that escalated"),
    pytest.param("/skip", "running_tests", id="/skip goes where success would have led"),
    pytest.param("/replan", "analyzing_requirements", id="/replan goes to the replan state"),
]


@pytest.mark.parametrize(("body", "target"), COMMANDS)
def test_an_escalation_command_moves_the_issue_on(lifecycle, body, target):
    record = lifecycle.record(ESCALATED, came_from="implementing", escalated_from="implementing")

    decision = lifecycle.decide(record, lifecycle.commented(body, "wendy", ESCALATED))

    assert (decision.outcome, decision.state, decision.forced) == (Outcome.transition, target, True)
    assert decision.record.visits == {target: 1}, "a human's move counts visits afresh"
    assert decision.record.budget_from == decision.record.iteration


REFUSED_COMMANDS = [
    pytest.param(
        "implementing",
        {},
        "wendy",
        "/retry works only when the issue waits for a human decision; it is in implementing",
        id="/retry while an agent works is refused",
    ),
    pytest.param(
        ESCALATED,
        {"escalated_from": "implementing"},
        "bob",
        "only approvers can use /retry; nothing changed",
        id="/retry from a stranger is refused",
    ),
    pytest.param(
        ESCALATED,
        {},
        "wendy",
        "/retry has nowhere to go here; relabel the issue to the state you want",
        id="/retry with no state to return to is refused",
    ),
]


@pytest.mark.parametrize(("state", "changes", "login", "why"), REFUSED_COMMANDS)
def test_an_escalation_command_that_cannot_apply_is_refused(lifecycle, state, changes, login, why):
    record = lifecycle.record(state, **changes)

    decision = lifecycle.decide(record, lifecycle.commented("/retry", login, state))

    assert (decision.outcome, decision.state) == (Outcome.refused, state)
    assert decision.reason == f"refused {login}: {why}"


def test_a_reply_that_moves_the_issue_is_told_as_the_author_replying(lifecycle):
    record = lifecycle.record(CLARIFY)

    decision = lifecycle.decide(record, lifecycle.commented("Semicolons.", "alice", CLARIFY))

    assert decision.reason == f"{CLARIFY} → requirements_clarified: alice replied"
    assert decision.record.history[-1].reason == "alice replied"
    assert decision.record.history[-1].trigger == "reply"
