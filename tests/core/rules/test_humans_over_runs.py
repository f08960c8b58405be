"""What people do to an issue, end to end: starting Baton, replies, approvals, escalation
commands, forced relabels, closing and reopening.

Every step is the webhook GitHub would send, built from the in-memory GitHub and handled by
`webhooks.parse` and `run.handle`. maria maintains, tess triages, wendy writes, alice (the issue's
author) and bob only read.
"""

from __future__ import annotations

import pytest

from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import Ignored, commented
from baton.core.model.issue_facts import Actor
from baton.run import handle
from baton.sim import payloads
from support.memory import (
    ISSUE,
    close,
    comment,
    configured,
    deliver,
    edit,
    enter,
    enter_at,
    label_of,
    messages_of,
    record_of,
    relabel,
    reopen,
    report,
    state_of,
    writes,
)

ESCALATED = "requires_human_intervention"
GATE = "waiting_for_human_input"
CLARIFY = "waiting_for_requirements_clarification"


# --- entry ---------------------------------------------------------------------------------
@pytest.mark.parametrize("who", ["maria", "tess", "wendy"])
def test_the_trigger_label_from_a_maintainer_enters_at_received(gh, settings, who):
    decision = enter(gh, settings, by=who)

    record = record_of(gh)
    assert decision.outcome is Outcome.transition
    assert decision.state == "received"
    assert decision.agent == "pm"
    assert gh.labels_of(ISSUE) == ["status:received"]
    assert record.state == "received"
    assert record.history[0].actor == who and record.history[0].trigger == "entry"
    assert not record.history[0].forced


def test_the_trigger_label_leaves_the_issues_other_labels_alone(gh, settings):
    gh.human_label(ISSUE, "enhancement")

    enter(gh, settings)

    assert gh.labels_of(ISSUE) == ["enhancement", "status:received"]


@pytest.mark.parametrize(
    "who", [pytest.param("alice", id="the issue's author"), pytest.param("bob", id="a stranger")]
)
def test_the_trigger_label_from_a_read_only_user_is_refused(gh, settings, who):
    decision = enter(gh, settings, by=who)

    assert decision.outcome is Outcome.refused
    assert "baton" not in gh.labels_of(ISSUE)
    assert record_of(gh) is None
    assert decision.agent is None
    assert f"`{who}`" in messages_of(gh)[-1]
    assert "only maintainers" in messages_of(gh)[-1]


def test_a_status_label_from_a_maintainer_enters_the_workflow_there_forced(gh, settings):
    decision = relabel(gh, settings, "status:implementing", "maria")

    record = record_of(gh)
    assert decision.state == "implementing"
    assert decision.forced
    assert decision.agent == "developer"
    assert record.history[0].forced
    assert gh.labels_of(ISSUE) == ["status:implementing"]


def test_a_status_label_from_a_read_only_user_does_not_enter(gh, settings):
    decision = relabel(gh, settings, "status:implementing", "bob")

    assert decision.outcome is Outcome.refused
    assert gh.labels_of(ISSUE) == []
    assert record_of(gh) is None


def test_status_label_entry_can_be_turned_off(gh):
    settings = configured(entry={"status_label": False})

    decision = relabel(gh, settings, "status:implementing", "maria")

    assert decision.outcome is Outcome.ignored
    assert record_of(gh) is None


@pytest.mark.parametrize(
    ("enter_first", "who"),
    [
        pytest.param(False, "maria", id="on an issue outside the workflow"),
        pytest.param(True, "maria", id="on an issue in the workflow"),
        pytest.param(True, "bob", id="added by a read-only user"),
    ],
)
def test_an_unknown_status_label_is_removed_with_the_valid_ones_listed(
    gh, settings, enter_first, who
):
    if enter_first:
        enter(gh, settings)

    decision = relabel(gh, settings, "status:bogus", who)

    assert "status:bogus" not in gh.labels_of(ISSUE)
    assert state_of(gh) == ("received" if enter_first else None)
    assert decision.agent is None
    message = messages_of(gh)[-1]
    assert "`status:bogus`" in message
    assert all(f"`{label}`" in message for label in ("status:received", "status:completed"))


def test_opening_an_issue_does_not_enter_it_by_default(gh, settings):
    decision = deliver(gh, settings, "issues", payloads.opened(gh, ISSUE, sender="alice"))

    assert decision.outcome is Outcome.ignored
    assert record_of(gh) is None
    assert writes(gh) == 0


def test_opening_an_issue_enters_it_when_the_config_enters_every_issue(gh):
    settings = configured(entry={"on_open": True})

    decision = deliver(gh, settings, "issues", payloads.opened(gh, ISSUE, sender="alice"))

    assert decision.state == "received"
    assert decision.agent == "pm"
    assert gh.labels_of(ISSUE) == ["status:received"]


@pytest.mark.parametrize(
    ("body", "by"),
    [
        pytest.param("Any news on this?", "alice", id="a plain comment"),
        pytest.param("approved", "wendy", id="an approval"),
        pytest.param("/retry try harder", "maria", id="an escalation command"),
        pytest.param("status:completed", "maria", id="a status label named in text"),
    ],
)
def test_a_comment_on_an_issue_outside_the_workflow_writes_nothing(gh, settings, body, by):
    decision = comment(gh, settings, body, by)

    assert decision.outcome is Outcome.ignored
    assert writes(gh) == 0
    assert gh.labels_of(ISSUE) == []


# --- replies in a waiting state ------------------------------------------------------------
@pytest.mark.parametrize(
    "who",
    [pytest.param("alice", id="the issue's author"), pytest.param("wendy", id="an approver")],
)
def test_a_reply_to_the_questions_moves_on_and_is_carried_to_the_next_agent(gh, settings, who):
    enter_at(gh, settings, CLARIFY)

    decision = comment(gh, settings, "Commas, and only the visible columns.", who)

    record = record_of(gh)
    assert decision.state == "requirements_clarified"
    assert decision.agent == "pm"
    assert [(i.author, i.excerpt) for i in record.pending_input] == [
        (who, "Commas, and only the visible columns.")
    ]
    assert record.pending_input[0].state == CLARIFY
    assert "eyes" in gh.reactions_of(record.pending_input[0].comment_id)


def test_the_pm_relays_the_reply_to_the_tester_who_consumes_it(gh, settings):
    enter_at(gh, settings, CLARIFY)
    comment(gh, settings, "Commas.", "alice")

    decision = report(gh, settings, "pm", confidence=0.92)

    assert decision.state == "creating_tests"
    assert [i.excerpt for i in record_of(gh).pending_input] == ["Commas."], "relayed"
    report(gh, settings, "tester")
    assert record_of(gh).pending_input == []


@pytest.mark.parametrize(
    ("answerers", "who", "counts"),
    [
        pytest.param("author-or-approvers", "bob", False, id="a stranger by default"),
        pytest.param("author-or-approvers", "tess", False, id="a triager by default"),
        pytest.param("anyone", "bob", True, id="a stranger when anyone may answer"),
        pytest.param("approvers", "alice", False, id="the author when only approvers may"),
        pytest.param("approvers", "wendy", True, id="an approver when only approvers may"),
    ],
)
def test_who_may_answer_follows_the_config(gh, answerers, who, counts):
    settings = configured(answerers=answerers)
    enter_at(gh, settings, CLARIFY)
    before = writes(gh)

    decision = comment(gh, settings, "Use commas.", who)

    if counts:
        assert decision.state == "requirements_clarified"
    else:
        assert decision.outcome is Outcome.ignored
        assert state_of(gh) == CLARIFY
        assert writes(gh) == before


def test_a_bots_reply_is_never_an_answer(gh, settings):
    enter_at(gh, settings, CLARIFY)

    decision = comment(gh, settings, "Use commas.", "renovate[bot]", bot=True)

    assert isinstance(decision, Ignored)
    assert state_of(gh) == CLARIFY


# --- approvals ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "who"),
    [
        pytest.param("approved", "wendy", id="the bare word from a writer"),
        pytest.param(
            "Approved — the tests look good.", "maria", id="a sentence that opens with it"
        ),
        pytest.param("Thanks!\n\napproved", "wendy", id="the word opening a later line"),
        pytest.param("/approved", "wendy", id="the word as a slash command"),
    ],
)
def test_an_approval_from_an_approver_opens_the_gate(gh, settings, body, who):
    enter_at(gh, settings, GATE)

    decision = comment(gh, settings, body, who)

    approval = record_of(gh).approval
    assert decision.state == "human_input_received"
    assert decision.agent == "pm"
    assert approval is not None
    assert (approval.by, approval.state) == (who, GATE)


@pytest.mark.parametrize(
    ("approvers", "who", "counts"),
    [
        pytest.param({"users": ["bob"]}, "bob", True, id="a reader named in the config"),
        pytest.param({"users": ["BOB"]}, "bob", True, id="a named user in another case"),
        pytest.param({"users": ["bob"]}, "wendy", False, id="a writer when only users are named"),
        pytest.param({"teams": ["octo/qa"]}, "bob", True, id="a member of a named team"),
        pytest.param({"teams": ["octo/qa"]}, "alice", False, id="someone outside the team"),
        pytest.param({"permission": "maintain"}, "wendy", False, id="a writer below maintain"),
        pytest.param({"permission": "maintain"}, "maria", True, id="a maintainer at maintain"),
    ],
)
def test_who_may_approve_follows_the_config(gh, approvers, who, counts):
    settings = configured(approvers=approvers)
    gh.add_team_member("octo/qa", "bob")
    enter_at(gh, settings, GATE)

    decision = comment(gh, settings, "approved", who)

    assert (decision.state == "human_input_received") is counts
    assert (record_of(gh).approval is not None) is counts


@pytest.mark.parametrize(
    ("body", "counts"),
    [
        pytest.param("LGTM", True, id="the configured word"),
        pytest.param("lgtm, ship it", True, id="the configured word in lower case"),
        pytest.param("approved", False, id="the default word once replaced"),
    ],
)
def test_the_approval_words_follow_the_config(gh, body, counts):
    settings = configured(approval_words=["lgtm"])
    enter_at(gh, settings, GATE)

    comment(gh, settings, body, "wendy")

    assert (record_of(gh).approval is not None) is counts


def test_the_pm_completes_an_approved_issue(gh, settings):
    enter_at(gh, settings, GATE)
    comment(gh, settings, "approved", "wendy")

    decision = report(gh, settings, "pm", summary="PR #2 approved; merging.")

    assert decision.state == "completed"
    assert decision.agent is None
    assert gh.labels_of(ISSUE) == ["status:completed"]
    assert "PR #\u200b2 approved; merging." in messages_of(gh)[-1]  # no cross-reference


@pytest.mark.parametrize(
    "who",
    [
        pytest.param("bob", id="a stranger"),
        pytest.param("alice", id="the issue's author"),
        pytest.param("tess", id="a triager"),
    ],
)
def test_an_approval_from_someone_without_write_is_refused(gh, settings, who):
    enter_at(gh, settings, GATE)

    decision = comment(gh, settings, "approved", who)

    record = record_of(gh)
    assert decision.outcome is Outcome.refused
    assert record.state == GATE
    assert record.approval is None
    assert f"`{who}`" in messages_of(gh)[-1] and "only approvers" in messages_of(gh)[-1]
    assert gh.reactions_of(decision.reaction.comment_id) == ["confused"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("not approved", id="not approved"),
        pytest.param("unapproved", id="unapproved"),
        pytest.param("Not approved: the CSV has no header row.", id="not approved with a reason"),
        pytest.param("is this approved?", id="a question about approval"),
        pytest.param("approved?", id="the word as a question"),
        pytest.param("> approved\n\nI disagree with the above.", id="a quoted approval"),
        pytest.param("```\napproved\n```", id="an approval in a code fence"),
        pytest.param("LGTM", id="another word than the configured one"),
    ],
)
def test_a_reply_that_is_not_an_approval_moves_on_without_one(gh, settings, body):
    enter_at(gh, settings, GATE)

    decision = comment(gh, settings, body, "wendy")

    record = record_of(gh)
    assert decision.state == "human_input_received"
    assert record.approval is None
    assert record.pending_input[-1].excerpt == body.strip()
    assert report(gh, settings, "pm").state == "implementing"


def test_an_approval_does_not_carry_over_to_the_next_gate(gh, settings):
    enter_at(gh, settings, GATE)
    comment(gh, settings, "approved", "wendy")
    report(gh, settings, "pm", next_state="creating_pr", summary="one more change first")
    assert report(gh, settings, "pm").state == GATE
    comment(gh, settings, "Please also fix the typo in the README.", "wendy")

    decision = report(gh, settings, "pm")

    assert decision.state != "completed"
    assert decision.state == "implementing"


def test_an_approval_does_not_survive_a_forced_relabel_back_to_the_gate(gh, settings):
    enter_at(gh, settings, GATE)
    comment(gh, settings, "approved", "wendy")
    relabel(gh, settings, label_of(settings, GATE), "maria")
    comment(gh, settings, "One more thing: the header row.", "alice")

    decision = report(gh, settings, "pm")

    assert decision.state == "implementing"


def test_an_edited_comment_that_now_says_approved_is_ignored_by_default(gh, settings):
    enter_at(gh, settings, "creating_pr")
    early = gh.human_comment(ISSUE, "I will review this later.", author="wendy")
    report(gh, settings, "pm")
    before = writes(gh)

    decision = edit(gh, settings, early.id, "approved")

    assert decision.outcome is Outcome.ignored
    assert "edited" in decision.reason
    assert state_of(gh) == GATE
    assert writes(gh) == before


def test_an_edited_approval_counts_when_the_config_allows_it(gh):
    settings = configured(allow_edited_approvals=True)
    enter_at(gh, settings, "creating_pr")
    early = gh.human_comment(ISSUE, "I will review this later.", author="wendy")
    report(gh, settings, "pm")

    decision = edit(gh, settings, early.id, "approved")

    assert decision.state == "human_input_received"
    assert record_of(gh).approval.by == "wendy"


@pytest.mark.parametrize(
    "login", ["dependabot[bot]", "github-actions[bot]", "some-app"], ids=lambda x: f"from {x}"
)
def test_an_approval_from_a_bot_is_ignored_before_any_api_call(gh, settings, login):
    enter_at(gh, settings, GATE)
    calls = sum(gh.calls.values())

    decision = comment(gh, settings, "approved", login, bot=True)

    assert isinstance(decision, Ignored)
    assert state_of(gh) == GATE
    assert sum(gh.calls.values()) == calls


def test_an_approval_from_a_bot_never_counts_even_with_admin_permission(gh, settings):
    gh.set_permission("release-bot", "admin")
    enter_at(gh, settings, GATE)
    posted = gh.human_comment(ISSUE, "approved", author="release-bot", bot=True)
    event = commented(
        id=f"comment:{posted.id}",
        issue=gh.issue(ISSUE),
        actor=Actor(login="release-bot", is_bot=True),
        at=gh.now,
        comment_id=posted.id,
        body="approved",
        approval_words=settings.policy.approval_words,
    )

    decision = handle(event, gh, settings).decision

    assert decision.state == GATE
    assert record_of(gh).approval is None


@pytest.mark.parametrize(
    "state",
    [
        pytest.param("implementing", id="a work state"),
        pytest.param(CLARIFY, id="a waiting state with no approval"),
        pytest.param("completed", id="a terminal state"),
    ],
)
def test_an_approval_where_there_is_nothing_to_approve_is_refused(gh, settings, state):
    enter_at(gh, settings, state)

    decision = comment(gh, settings, "approved", "wendy")

    assert decision.outcome is Outcome.refused
    assert state_of(gh) == state
    assert record_of(gh).approval is None
    assert "nothing to approve" in messages_of(gh)[-1]


def test_a_redelivered_approval_applies_once_and_writes_nothing(gh, settings):
    enter_at(gh, settings, GATE)
    posted = gh.human_comment(ISSUE, "approved", author="wendy")
    payload = payloads.comment_created(gh, posted.id)
    deliver(gh, settings, "issue_comment", payload)
    iteration, before = record_of(gh).iteration, writes(gh)

    again = deliver(gh, settings, "issue_comment", payload)

    assert again.outcome is Outcome.ignored
    assert record_of(gh).iteration == iteration
    assert writes(gh) == before


def test_a_plain_comment_in_a_work_state_moves_nothing(gh, settings):
    enter_at(gh, settings, "implementing")
    before = writes(gh)

    decision = comment(gh, settings, "Looking forward to this!", "bob")

    assert decision.outcome is Outcome.ignored
    assert state_of(gh) == "implementing"
    assert writes(gh) == before


# --- escalation commands --------------------------------------------------------------------
def escalate_from_implementing(gh, settings):
    enter_at(gh, settings, "implementing")
    for _ in range(3):
        decision = report(gh, settings, "developer", status="failure", issues_found=["boom"])
    assert decision.state == ESCALATED


def test_retry_with_guidance_returns_to_the_escalated_state_with_a_fresh_start(gh, settings):
    escalate_from_implementing(gh, settings)

    decision = comment(gh, settings, "/retry use the csv module, not string joins", "wendy")

    record = record_of(gh)
    assert decision.state == "implementing"
    assert decision.agent == "developer"
    assert decision.forced
    assert record.attempt == 1
    assert record.feedback == ["use the csv module, not string joins"]
    assert record.history[-1].actor == "wendy"
    assert record.escalated_from is None
    assert gh.labels_of(ISSUE) == ["status:implementing"]


def test_retry_without_guidance_keeps_the_last_feedback(gh, settings):
    escalate_from_implementing(gh, settings)

    comment(gh, settings, "/retry", "maria")

    assert record_of(gh).feedback == ["boom"]


@pytest.mark.parametrize(
    ("command", "target"),
    [
        pytest.param("/skip", "running_tests", id="skip goes where success would have led"),
        pytest.param("/replan", "analyzing_requirements", id="replan starts the analysis again"),
        pytest.param("/RETRY now", "implementing", id="commands are not case sensitive"),
    ],
)
def test_escalation_commands_send_the_issue_on(gh, settings, command, target):
    escalate_from_implementing(gh, settings)

    decision = comment(gh, settings, command, "wendy")

    assert decision.state == target
    assert decision.agent == settings.workflow.agent_of(target)


def test_the_agent_gets_a_fresh_budget_after_a_retry(gh, settings):
    escalate_from_implementing(gh, settings)
    comment(gh, settings, "/retry", "wendy")

    decision = report(gh, settings, "developer", status="failure")

    assert decision.outcome is Outcome.retry
    assert record_of(gh).attempt == 2


@pytest.mark.parametrize(
    "who",
    [
        pytest.param("bob", id="a stranger"),
        pytest.param("alice", id="the issue's author"),
        pytest.param("tess", id="a triager"),
    ],
)
def test_an_escalation_command_from_a_non_approver_is_refused(gh, settings, who):
    escalate_from_implementing(gh, settings)

    decision = comment(gh, settings, "/retry do it", who)

    assert decision.outcome is Outcome.refused
    assert state_of(gh) == ESCALATED
    assert "only approvers" in messages_of(gh)[-1]
    assert gh.reactions_of(decision.reaction.comment_id) == ["confused"]


@pytest.mark.parametrize("command", ["/retry please", "/skip", "/replan"])
def test_an_escalation_command_when_nothing_is_escalated_is_refused(gh, settings, command):
    enter_at(gh, settings, "implementing")

    decision = comment(gh, settings, command, "maria")

    assert decision.outcome is Outcome.refused
    assert state_of(gh) == "implementing"
    assert "only when the issue waits for a human decision" in messages_of(gh)[-1]


def test_a_quoted_escalation_command_is_not_a_command(gh, settings):
    escalate_from_implementing(gh, settings)

    decision = comment(gh, settings, "> /skip\n\nWhat would skipping do here?", "wendy")

    assert state_of(gh) == ESCALATED
    assert decision.outcome is Outcome.ignored


# --- maintainers force states ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("who", "target"),
    [
        pytest.param("maria", "completed", id="a maintainer to a state with no edge"),
        pytest.param("tess", "creating_pr", id="a triager to a state with no edge"),
        pytest.param("wendy", "analyzing_requirements", id="a writer along an edge"),
        pytest.param("maria", "planning_approach", id="a maintainer to an unreachable state"),
    ],
)
def test_a_relabel_by_triage_or_above_forces_the_state(gh, settings, who, target):
    enter(gh, settings)
    label = settings.workflow.label_for(target, "status:")

    decision = relabel(gh, settings, label, who)

    entry = record_of(gh).history[-1]
    assert decision.state == target
    assert decision.forced
    assert (entry.forced, entry.actor, entry.trigger) == (True, who, "relabel")
    assert gh.labels_of(ISSUE) == [label]
    assert decision.agent == settings.workflow.agent_of(target)


@pytest.mark.parametrize(
    "who", [pytest.param("alice", id="the author"), pytest.param("bob", id="a stranger")]
)
def test_a_relabel_by_a_read_only_user_is_reverted_with_a_note(gh, settings, who):
    enter(gh, settings)

    decision = relabel(gh, settings, "status:completed", who)

    assert decision.outcome is Outcome.refused
    assert state_of(gh) == "received"
    assert gh.labels_of(ISSUE) == ["status:received"]
    note = messages_of(gh)[-1]
    assert f"`{who}`" in note and "status:completed" in note and "status:received" in note


def test_a_relabel_to_the_current_state_changes_nothing(gh, settings):
    enter(gh, settings)
    gh.human_label(ISSUE, "status:received", add=False)
    before = record_of(gh).iteration

    relabel(gh, settings, "status:received", "maria")

    assert record_of(gh).iteration == before
    assert gh.labels_of(ISSUE) == ["status:received"]


@pytest.mark.parametrize(
    "bot",
    [
        pytest.param(True, id="sent as a Bot"),
        pytest.param(False, id="sent by the bot's login typed as a user"),
    ],
)
def test_the_bots_own_label_events_are_ignored_before_any_api_call(gh, settings, bot):
    enter(gh, settings)
    calls = sum(gh.calls.values())

    decision = relabel(gh, settings, "status:completed", "github-actions[bot]", bot=bot)

    assert isinstance(decision, Ignored)
    assert sum(gh.calls.values()) == calls


def test_removing_the_status_label_by_hand_restores_it_with_a_note(gh, settings):
    enter(gh, settings)
    gh.human_label(ISSUE, "status:received", add=False, by="maria")
    payload = payloads.unlabeled(gh, ISSUE, "status:received", sender="maria")

    decision = deliver(gh, settings, "issues", payload)

    assert isinstance(decision, Decision) and decision.repairs
    assert gh.labels_of(ISSUE) == ["status:received"]
    assert "restored" in messages_of(gh)[-1]


def test_the_trigger_label_on_an_issue_in_the_workflow_is_consumed(gh, settings):
    enter(gh, settings)
    report(gh, settings, "pm")

    relabel(gh, settings, "baton", "maria")

    assert state_of(gh) == "analyzing_requirements"
    assert gh.labels_of(ISSUE) == ["status:analyzing-requirements"]


# --- terminal states, closing and reopening ---------------------------------------------------
def complete(gh, settings):
    enter_at(gh, settings, GATE)
    comment(gh, settings, "approved", "wendy")
    assert report(gh, settings, "pm").state == "completed"


def test_a_terminal_state_ignores_reports_and_replies(gh, settings):
    complete(gh, settings)
    before = writes(gh)

    results = [
        report(gh, settings, "pm", next_state="received"),
        report(gh, settings, None, status="failure"),
        comment(gh, settings, "Thanks, works great!", "alice"),
    ]

    assert [r.outcome for r in results] == [Outcome.refused, Outcome.refused, Outcome.ignored]
    assert state_of(gh) == "completed"
    assert writes(gh) - before <= 2, "at most the record remembers the two stale reports"


def test_a_terminal_state_accepts_a_forced_relabel(gh, settings):
    complete(gh, settings)

    decision = relabel(gh, settings, "status:fixing-issues", "maria")

    assert decision.state == "fixing_issues"
    assert decision.agent == "developer"


@pytest.mark.parametrize(
    ("who", "state"),
    [
        pytest.param("maria", "received", id="a maintainer's reopen restarts at received"),
        pytest.param("alice", "completed", id="the author's reopen moves nothing"),
    ],
)
def test_reopening_a_completed_issue(gh, settings, who, state):
    complete(gh, settings)
    close(gh, settings, "maria")

    decision = reopen(gh, settings, who)

    assert state_of(gh) == state
    assert decision.agent == ("pm" if state == "received" else None)
    if state == "received":
        assert record_of(gh).history[-1].trigger == "reopen"


@pytest.mark.parametrize(
    ("who", "state"),
    [
        pytest.param("maria", "received", id="by a maintainer it restarts at received"),
        pytest.param("bob", "completed", id="by a read-only user it is only consumed"),
    ],
)
def test_the_trigger_label_on_a_completed_issue(gh, settings, who, state):
    complete(gh, settings)

    decision = relabel(gh, settings, "baton", who)

    assert state_of(gh) == state
    assert "baton" not in gh.labels_of(ISSUE)
    assert decision.agent == ("pm" if state == "received" else None)


def test_closing_and_reopening_a_running_issue_starts_no_second_run(gh, settings):
    enter_at(gh, settings, "implementing")

    closed = close(gh, settings, "alice")
    reopened = reopen(gh, settings, "alice")

    assert closed.agent is None
    assert state_of(gh) == "implementing"
    assert reopened.outcome is Outcome.ignored, "the developer is still running (test_reopen.py)"
    assert reopened.agent is None


# --- approval-gate: a straight line to one gate -----------------------------------------------
@pytest.fixture
def gate():
    return configured(workflow="approval-gate")


def to_awaiting_approval(gh, settings) -> Decision:
    enter(gh, settings)
    report(gh, settings, "pm")
    report(gh, settings, "analyst")
    return report(gh, settings, "developer", summary="PR #3 is open")


def test_approval_gate_walks_from_new_to_done_with_an_approval(gh, gate):
    path = [enter(gh, gate).state]
    path += [report(gh, gate, agent).state for agent in ("pm", "analyst", "developer")]
    assert "start a comment with **approved**" in messages_of(gh)[-1]

    done = comment(gh, gate, "approved", "wendy")

    assert path == ["new", "phase_1", "phase_2", "awaiting_approval"]
    assert done.state == "done"
    assert done.agent is None
    assert gh.labels_of(ISSUE) == ["status:done"]


def test_a_plain_reply_at_the_approval_gate_is_kept_but_moves_nothing(gh, gate):
    to_awaiting_approval(gh, gate)

    decision = comment(gh, gate, "Could the button be blue?", "alice")

    record = record_of(gh)
    assert decision.outcome is Outcome.noted
    assert record.state == "awaiting_approval"
    assert record.pending_input[-1].excerpt == "Could the button be blue?"
    assert decision.agent is None
    assert gh.reactions_of(decision.reaction.comment_id) == ["eyes"]


def test_a_not_approved_at_the_approval_gate_moves_nothing(gh, gate):
    to_awaiting_approval(gh, gate)

    comment(gh, gate, "not approved", "wendy")

    assert state_of(gh) == "awaiting_approval"


def test_an_approval_from_a_reader_at_the_approval_gate_is_refused(gh, gate):
    to_awaiting_approval(gh, gate)

    decision = comment(gh, gate, "approved", "alice")

    assert decision.outcome is Outcome.refused
    assert state_of(gh) == "awaiting_approval"


# --- task-review: the humans' options on a failed task -----------------------------------------
@pytest.mark.parametrize(
    ("command", "target", "agent"),
    [
        pytest.param("/retry add the missing tests", "in_progress", "developer", id="retry"),
        pytest.param("/skip", "skipped", None, id="skip"),
        pytest.param("/replan", "pending", "pm", id="replan"),
    ],
)
def test_a_failed_task_offers_retry_skip_and_replan(gh, command, target, agent):
    settings = configured(workflow="task-review")
    enter(gh, settings)
    report(gh, settings, "pm")
    assert report(gh, settings, "developer", status="blocked").state == "failed"

    decision = comment(gh, settings, command, "wendy")

    assert decision.state == target
    assert decision.agent == agent
    if command.startswith("/retry"):
        assert record_of(gh).feedback == ["add the missing tests"]


def test_a_stranger_cannot_retry_a_failed_task(gh):
    settings = configured(workflow="task-review")
    enter(gh, settings)
    report(gh, settings, "pm")
    report(gh, settings, "developer", status="blocked")

    decision = comment(gh, settings, "/retry", "bob")

    assert decision.outcome is Outcome.refused
    assert state_of(gh) == "failed"
