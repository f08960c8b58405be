"""When something is missing or wrong, the next run puts it right and says so.

Labels are a projection of the record, the record is the memory, and the clock stands in for
people who never answer and agents that never report: a label removed or added behind Baton's
back, a lost or duplicated record, a forged one, a wait that runs out, a silent agent.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.core.model.decision import Decision, Outcome
from baton.issue import record_comment
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from baton.sweep import sweep as run_sweep
from support.memory import (
    ISSUE,
    Skipped,
    comment,
    configured,
    deliver,
    enter,
    enter_at,
    messages_of,
    record_comments,
    record_of,
    relabel,
    report,
    seen_as,
    state_of,
    sweep,
    writes,
)

CLARIFY = "waiting_for_requirements_clarification"


ISSUE_READS = ("BatonRead", "BatonReadMany", "BatonComments")  # a read of an issue's comments


def issue_reads(gh: SimGitHub) -> int:
    """Requests so far that read an issue's comments (where its record is)."""
    return sum(1 for call in gh.sent if call.operation in ISSUE_READS)


def comments_deleted(gh: SimGitHub) -> int:
    """Comments deleted so far: a write document's deleteIssueComment fields, REST deletes."""
    fields = sum(seen_as(c).split().count("deleteIssueComment") for c in gh.writes_sent())
    rest = sum(1 for c in gh.writes_sent() if c.method == "DELETE" and "/comments/" in c.path)
    return fields + rest


def next_run(gh, settings):
    """The next workflow run Baton dispatched for issue #1 starts."""
    payload = payloads.workflow_dispatch(gh, {"issue": ISSUE}, sender=gh.bot_login)
    return deliver(gh, settings, "workflow_dispatch", payload)


def forged(gh, state, **changes):
    """The body of a record comment that claims `state`, as anyone could paste it."""
    record = record_of(gh).model_copy(update={"state": state, **changes})
    return record_comment.render(record, agent=None)


# --- labels that drifted from the record --------------------------------------------------
def test_a_status_label_removed_by_hand_is_restored_and_reported(gh, settings):
    enter(gh, settings)
    gh.human_label(ISSUE, "status:received", add=False)

    decision = next_run(gh, settings)

    assert gh.labels_of(ISSUE) == ["status:received"]
    assert state_of(gh) == "received"
    assert decision.agent == "pm"
    assert any("missing" in r for r in decision.repairs)
    assert "status:received restored" in messages_of(gh)[-1]


def test_a_second_status_label_added_while_its_run_was_skipped_is_repaired(gh, settings):
    enter(gh, settings)
    gh.human_label(ISSUE, "status:implementing")  # its `labeled` run never happened

    decision = next_run(gh, settings)

    assert gh.labels_of(ISSUE) == ["status:received"]
    assert state_of(gh) == "received"
    note = messages_of(gh)[-1]
    assert "status:implementing" in note and "the record says status:received" in note
    assert decision.repairs


def test_a_status_label_removed_by_hand_is_restored_and_a_later_reply_counts(gh, settings):
    enter_at(gh, settings, CLARIFY)
    label = "status:waiting-for-requirements-clarification"
    gh.human_label(ISSUE, label, add=False, by="tess")
    payload = payloads.unlabeled(gh, ISSUE, label, sender="tess")

    restored = deliver(gh, settings, "issues", payload)

    assert isinstance(restored, Decision) and restored.repairs
    assert gh.labels_of(ISSUE) == [label]
    decision = comment(gh, settings, "Commas, please.", "alice")
    assert state_of(gh) == "requirements_clarified"
    assert decision.agent == "pm"
    assert gh.labels_of(ISSUE) == ["status:requirements-clarified"]


def test_a_reply_dropped_while_the_label_was_missing_is_caught_up_by_the_next_run(gh, settings):
    enter_at(gh, settings, CLARIFY)
    label = "status:waiting-for-requirements-clarification"
    gh.human_label(ISSUE, label, add=False)
    dropped = comment(gh, settings, "Commas, please.", "alice")
    assert isinstance(dropped, Decision) and "not in the workflow" in dropped.reason

    kicked = deliver(
        gh,
        settings,
        "workflow_dispatch",
        payloads.workflow_dispatch(gh, {"issue": ISSUE}, sender="maria"),
    )

    assert isinstance(kicked, Decision)
    assert state_of(gh) == "requirements_clarified", "the missed reply counts"
    assert gh.labels_of(ISSUE) == ["status:requirements-clarified"]


def test_an_unknown_status_label_slipped_in_is_removed_and_reported(gh, settings):
    enter(gh, settings)
    gh.human_label(ISSUE, "status:wontfix")

    next_run(gh, settings)

    assert gh.labels_of(ISSUE) == ["status:received"]
    assert "status:wontfix" in messages_of(gh)[-1]


def test_repairs_ride_along_with_the_transition_of_the_same_run(gh, settings):
    enter(gh, settings)
    gh.human_label(ISSUE, "status:received", add=False)

    decision = report(gh, settings, "pm")

    assert decision.state == "analyzing_requirements"
    assert gh.labels_of(ISSUE) == ["status:analyzing-requirements"]
    assert "status:received restored" in messages_of(gh)[-1]


def test_labels_that_agree_with_the_record_are_not_touched_whatever_their_order(gh, settings):
    enter(gh, settings)
    next_run(gh, settings)
    gh.human_label(ISSUE, "enhancement")  # now after the status label
    before = writes(gh)

    decision = next_run(gh, settings)

    assert decision.outcome is Outcome.resume
    assert decision.repairs == ()
    assert decision.labels is None
    assert writes(gh) == before


def test_a_sweep_after_entry_with_nothing_due_passes_the_issue_over(gh, settings):
    enter(gh, settings)
    before = writes(gh)

    decision = sweep(gh, settings, after=timedelta(hours=1))

    assert decision == Skipped()
    assert writes(gh) == before


# --- a lost, duplicated or forged record ------------------------------------------------------
def lose_the_record_after_a_marked_message(gh, settings, state="received"):
    """Baton worked on issue #1 and said something (alice's relabel, reverted with a marked
    note), then someone deleted its record comment: Baton's trace is left on the issue."""
    enter_at(gh, settings, state)
    reverted = relabel(gh, settings, "status:completed", "alice")
    assert isinstance(reverted, Decision) and reverted.message
    assert messages_of(gh) and record_comment.mark_of(messages_of(gh)[-1]) is not None
    for found in record_comments(gh):
        gh.comment_store.pop(found.id)


def test_a_missing_record_is_rebuilt_from_the_one_status_label_and_written(gh, settings):
    lose_the_record_after_a_marked_message(gh, settings)
    gh.human_label(ISSUE, "status:received", add=False)
    gh.human_label(ISSUE, "status:implementing")

    decision = next_run(gh, settings)

    record = record_of(gh)
    assert record is not None
    assert record.state == "implementing"
    assert record.history[0].trigger == "rebuild"
    assert decision.agent == "developer"
    assert "there was no record" in messages_of(gh)[-1]


def test_a_status_label_with_no_trace_of_baton_is_not_rebuilt_and_the_run_says_so(gh, settings):
    """Baton posts only its record on entry, so a record deleted before any marked message
    leaves nothing to tell it from a label someone else added: the issue is out of the
    workflow, and the run's reason (job log and summary) says how a maintainer puts it back."""
    gh.human_label(ISSUE, "status:implementing")

    decision = next_run(gh, settings)

    assert decision.outcome is Outcome.ignored
    assert record_of(gh) is None
    assert "status label status:implementing but no Baton record" in decision.reason
    assert "a maintainer relabels it to enter" in decision.reason
    assert messages_of(gh) == []


def test_a_report_after_the_record_was_deleted_right_after_entry_says_why_it_is_ignored(
    gh, settings
):
    enter_at(gh, settings, "implementing")
    for found in record_comments(gh):
        gh.comment_store.pop(found.id)

    decision = report(gh, settings, "developer", confidence=0.95)

    assert decision.outcome is Outcome.ignored
    assert "no Baton record" in decision.reason
    assert record_of(gh) is None


def test_a_report_on_an_issue_whose_record_was_lost_applies_on_the_rebuilt_one(gh, settings):
    lose_the_record_after_a_marked_message(gh, settings, "implementing")

    decision = report(gh, settings, "developer", confidence=0.95)

    record = record_of(gh)
    assert decision.state == "running_tests"
    assert [e.trigger for e in record.history] == ["rebuild", "report"]
    assert len(record_comments(gh)) == 1


def test_a_missing_record_with_two_status_labels_keeps_one_and_says_which(gh, settings):
    lose_the_record_after_a_marked_message(gh, settings)
    gh.human_label(ISSUE, "status:received", add=False)
    gh.human_label(ISSUE, "status:implementing")
    gh.human_label(ISSUE, "status:running-tests")

    next_run(gh, settings)

    state = state_of(gh)
    assert state in {"implementing", "running_tests"}
    assert gh.labels_of(ISSUE) == [settings.workflow.label_for(state, "status:")]
    note = messages_of(gh)[-1]
    assert "status:implementing" in note and "status:running-tests" in note


def test_an_issue_with_no_record_and_no_status_label_is_left_alone(gh, settings):
    decision = next_run(gh, settings)

    assert decision.outcome is Outcome.ignored
    assert writes(gh) == 0


def test_an_unreadable_record_is_rebuilt_from_the_label_and_reported(gh, settings):
    enter(gh, settings)
    (found,) = record_comments(gh)
    gh.comment_store[found.id].body = "<!-- baton:record\n{not json\n-->"

    next_run(gh, settings)

    record = record_of(gh)
    assert record.state == "received"
    assert record.history[0].trigger == "rebuild"
    assert "could not be read" in messages_of(gh)[-1]
    assert [c.id for c in record_comments(gh)] == [found.id]


def test_a_record_for_another_issue_is_not_trusted(gh, settings):
    enter(gh, settings)
    (found,) = record_comments(gh)
    gh.comment_store[found.id].body = forged(gh, "completed", issue=2)

    next_run(gh, settings)

    assert state_of(gh) == "received"


def test_of_two_record_comments_by_the_bot_the_newer_is_deleted(gh, settings):
    enter(gh, settings)
    (original,) = record_comments(gh)
    gh.human_comment(
        ISSUE, forged(gh, "completed"), author=gh.bot_login, bot=True
    )  # a racing run's copy

    next_run(gh, settings)

    assert [c.id for c in record_comments(gh)] == [original.id]
    assert state_of(gh) == "received"
    assert comments_deleted(gh) == 1


@pytest.mark.parametrize(
    "login",
    [
        pytest.param("alice", id="by the issue's author"),
        pytest.param("maria", id="by a maintainer"),
        pytest.param("github-actions", id="by a user named like the bot"),
    ],
)
def test_a_record_comment_forged_by_a_human_is_ignored(gh, settings, login):
    enter(gh, settings)
    body = forged(gh, "completed")
    fake = gh.human_comment(ISSUE, body, author=login)

    decision = report(gh, settings, "pm")

    assert decision.state == "analyzing_requirements"
    assert state_of(gh) == "analyzing_requirements"
    assert gh.comment_store[fake.id].body == body  # neither trusted nor overwritten


def test_a_forged_record_does_not_bring_an_issue_into_the_workflow(gh, settings):
    enter(gh, settings)
    body = forged(gh, "implementing")  # copied while it was in the workflow
    gh.issues[ISSUE].labels.clear()
    for found in record_comments(gh):
        gh.comment_store.pop(found.id)
    gh.human_comment(ISSUE, body, author="bob")
    before = writes(gh)

    decision = report(gh, settings, "developer", confidence=0.95)

    assert decision.outcome is Outcome.ignored
    assert record_of(gh) is None
    assert writes(gh) == before


def test_a_forged_record_posted_as_a_comment_moves_nothing(gh, settings):
    enter_at(gh, settings, CLARIFY)
    before = record_of(gh)

    comment(gh, settings, forged(gh, "completed"), "bob")

    assert record_of(gh).state == CLARIFY
    assert record_of(gh).iteration == before.iteration


# --- time: waits that run out ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("waited", "state"),
    [
        pytest.param(timedelta(days=6, hours=23), CLARIFY, id="a day short of the timeout"),
        pytest.param(timedelta(days=7), "blocked", id="exactly the timeout"),
        pytest.param(timedelta(days=8), "blocked", id="a day past the timeout"),
    ],
)
def test_an_unanswered_question_times_out_to_blocked_after_seven_days(gh, settings, waited, state):
    enter_at(gh, settings, CLARIFY)

    decision = sweep(gh, settings, after=waited)

    assert state_of(gh) == state
    if state == "blocked":
        assert decision.agent == "pm"
        assert record_of(gh).history[-1].trigger == "timeout"
    else:
        assert decision == Skipped()


def test_a_sweep_before_the_timeout_writes_nothing(gh, settings):
    enter_at(gh, settings, CLARIFY)
    before = writes(gh)

    sweep(gh, settings, after=timedelta(days=3))

    assert writes(gh) == before


def test_a_reply_before_the_timeout_stops_the_clock(gh, settings):
    enter_at(gh, settings, CLARIFY)
    comment(gh, settings, "Commas.", "alice")

    sweep(gh, settings, after=timedelta(days=8))

    assert state_of(gh) == "requirements_clarified"


@pytest.mark.parametrize(
    ("waited", "state"),
    [
        pytest.param(timedelta(days=13), "waiting_for_human_input", id="before 14 days"),
        pytest.param(timedelta(days=15), "blocked", id="after 14 days"),
    ],
)
def test_an_unreviewed_pr_times_out_after_fourteen_days(gh, settings, waited, state):
    enter_at(gh, settings, "waiting_for_human_input")

    sweep(gh, settings, after=waited)

    assert state_of(gh) == state


def test_the_config_can_shorten_a_wait(gh):
    settings = configured(timeouts={CLARIFY: "2d"})
    enter_at(gh, settings, CLARIFY)

    sweep(gh, settings, after=timedelta(days=3))

    assert state_of(gh) == "blocked"


def test_a_sweep_passes_over_issues_outside_the_workflow(gh, settings):
    decision = sweep(gh, settings, after=timedelta(days=30))

    assert decision == Skipped()
    assert writes(gh) == 0
    assert issue_reads(gh) == 0, "the listing alone shows it is not Baton's"


# --- time: agents that never report -----------------------------------------------------------
@pytest.fixture
def patient():
    return configured(agent_timeout="2h")


def test_a_silent_agent_is_dispatched_again_after_the_agent_timeout(gh, patient):
    enter(gh, patient)

    decision = sweep(gh, patient, after=timedelta(hours=3))

    assert decision.outcome is Outcome.retry
    assert decision.agent == "pm"
    assert record_of(gh).attempt == 2
    assert "did not report within" in decision.reason


def test_an_agent_within_the_agent_timeout_is_left_to_work(gh, patient):
    enter(gh, patient)

    decision = sweep(gh, patient, after=timedelta(hours=1))

    assert decision == Skipped()
    assert record_of(gh).attempt == 1


def test_an_agent_that_stays_silent_climbs_the_ladder_to_a_human(gh, patient):
    enter(gh, patient)

    outcomes = [sweep(gh, patient, after=timedelta(hours=3)) for _ in range(3)]

    assert [d.outcome for d in outcomes[:2]] == [Outcome.retry, Outcome.retry]
    assert outcomes[2].state == "requires_human_intervention"
    assert record_of(gh).escalated_from == "received"


def test_each_dispatch_gets_the_full_agent_timeout(gh, patient):
    enter(gh, patient)
    sweep(gh, patient, after=timedelta(hours=3))

    decision = sweep(gh, patient, after=timedelta(hours=1))

    # The retry edited the record comment, which leaves the issue's `updated_at` as it was on
    # GitHub: the listing shows it idle 4h, so the sweep reads it, and the rule (the record's
    # dispatch an hour ago) finds nothing due.
    assert isinstance(decision, Decision) and decision.outcome is Outcome.ignored
    assert decision.reason == "nothing is due in received"
    assert record_of(gh).attempt == 2


def test_without_an_agent_timeout_a_silent_agent_is_never_chased(gh, settings):
    enter(gh, settings)

    decision = sweep(gh, settings, after=timedelta(days=30))

    assert decision == Skipped()
    assert record_of(gh).attempt == 1
    assert state_of(gh) == "received"


def test_a_sweep_reads_only_the_issues_where_something_can_be_due(gh, settings):
    """A thousand quiet issues cost the listing pages, not a read each."""
    for n in range(60):
        gh.open_issue(f"quiet {n}", author="alice")
    enter(gh, settings)  # issue #1: pm due, no agent timeout configured
    waiting = gh.open_issue("asked", author="alice")
    gh.human_label(waiting, "status:waiting-for-requirements-clarification")
    gh.now += timedelta(days=8)
    reads = issue_reads(gh)

    swept = run_sweep(gh, settings, now=gh.now, chain=None)

    assert [r.decision.issue for r in swept.results] == [waiting]
    assert issue_reads(gh) - reads <= 2, "one issue read (twice: a repair re-reads)"
    assert swept.listed == 62
