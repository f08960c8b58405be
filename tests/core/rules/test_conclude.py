"""The finishing step every decision takes, decided directly: labels as a projection of the
record, drift repaired and reported, rebuilt records, re-delivered events and re-runs."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome, Reaction
from baton.core.model.record import OUTBOX_LIMIT, HistoryEntry, clip
from baton.workflow.model import AgentStatus

DUE = timedelta(minutes=5)  # a tick long before any timeout: nothing is due


DRIFT = [
    pytest.param(
        (),
        "the status label was missing; status:implementing restored",
        id="a missing status label is restored",
    ),
    pytest.param(
        ("status:implementing", "status:failed"),
        "the labels said status:failed but the record says status:implementing; "
        "status:implementing restored (a maintainer can relabel to force a state)",
        id="a second status label is taken off",
    ),
    pytest.param(
        ("status:implementing", "status:bogus"),
        "removed unknown status label(s) status:bogus",
        id="an unknown status label is taken off",
    ),
    pytest.param(
        ("Status:Failed",),
        "the labels said Status:Failed but the record says status:implementing; "
        "status:implementing restored (a maintainer can relabel to force a state)",
        id="status labels are recognised in any letter case",
    ),
]


@pytest.mark.parametrize(("labels", "note"), DRIFT)
def test_labels_that_disagree_with_the_record_are_repaired_and_reported(lifecycle, labels, note):
    record = lifecycle.record("implementing")
    event = lifecycle.tick("implementing", after=DUE)
    event = event.model_copy(update={"issue": lifecycle.issue(None, labels=labels)})

    decision = lifecycle.decide(record, event)

    assert decision.outcome is Outcome.noted
    assert decision.reason == f"nothing is due in implementing; repaired: {note}"
    assert decision.repairs == (note,)
    assert decision.labels == ("bug", "status:implementing")
    assert note in decision.message
    assert decision.record.revision == record.revision + 1
    assert decision.record.outbox.text == decision.message, "the note is posted again if lost"


def test_labels_that_agree_change_nothing(lifecycle):
    record = lifecycle.record("implementing")

    decision = lifecycle.decide(record, lifecycle.tick("implementing", after=DUE))

    assert decision.outcome is Outcome.ignored
    assert (decision.record, decision.labels, decision.message) == (None, None, None)


def test_a_leftover_trigger_label_is_removed(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.tick("implementing", after=DUE)
    labels = ("status:implementing", "Baton")
    event = event.model_copy(update={"issue": lifecycle.issue(None, labels=labels)})

    decision = lifecycle.decide(record, event)

    assert decision.outcome is Outcome.noted
    assert decision.reason == "nothing is due in implementing; repaired: labels"
    assert decision.labels == ("bug", "status:implementing")
    assert decision.repairs == ()


def test_a_move_whose_label_is_already_on_is_not_drift(lifecycle):
    """An earlier attempt of the run wrote the labels of the move and died before the record."""
    record = lifecycle.record("implementing")
    event = lifecycle.reported(
        "implementing", AgentResult(status=AgentStatus.success, confidence=0.81)
    )
    labels = ("status:implementing", "status:creating-pr")
    event = event.model_copy(update={"issue": lifecycle.issue(None, labels=labels)})

    decision = lifecycle.decide(record, event)

    assert (decision.state, decision.repairs) == ("creating_pr", ())
    assert decision.labels == ("bug", "status:creating-pr")


def test_a_rebuilt_record_is_written_with_a_note_saying_so(lifecycle):
    rebuilt = lifecycle.record("implementing", revision=0)
    note = HistoryEntry(
        at=rebuilt.entered_at,
        to_state="implementing",
        reason="the record was lost; rebuilt from the status label",
        actor="baton",
        trigger="rebuild",
    )
    rebuilt = rebuilt.model_copy(update={"history": [*rebuilt.history, note]})

    decision = lifecycle.decide(rebuilt, lifecycle.tick("implementing", after=DUE))

    assert decision.outcome is Outcome.noted
    assert decision.repairs == ("the record was lost; rebuilt from the status label",)
    assert decision.record.revision == 1


def test_a_long_message_is_clipped_in_the_outbox_only(lifecycle):
    record = lifecycle.record("requirements_unclear")
    asking = AgentResult(
        status=AgentStatus.success,
        confidence=0.9,
        questions=[f"{n}: which of these {'formats ' * 50}?" for n in range(10)],
    )

    decision = lifecycle.decide(record, lifecycle.reported("requirements_unclear", asking))

    assert len(decision.message) > OUTBOX_LIMIT
    assert decision.record.outbox.text == clip(decision.message, OUTBOX_LIMIT)


# --- the same event again, and the same run again ---------------------------------------
def test_a_redelivered_event_changes_nothing(lifecycle):
    record = lifecycle.record("waiting_for_human_input", processed=["comment:100"])
    event = lifecycle.commented("approved", "wendy", "waiting_for_human_input")

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.reason) == (
        Outcome.ignored,
        "event comment:100 was already applied",
    )
    assert (decision.record, decision.labels, decision.reaction, decision.agent) == (
        None,
        None,
        None,
        None,
    )


def test_a_rerun_of_the_run_that_made_the_agent_due_names_it_again(lifecycle):
    event = lifecycle.commented("approved", "wendy", "human_input_received")
    record = lifecycle.record("human_input_received", processed=[event.id])
    record = record.model_copy(
        update={"dispatch": record.dispatch.model_copy(update={"run": event.run_id})}
    )

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.agent) == (Outcome.resume, "pm")
    assert decision.reason == "event comment:100 was already applied; pm is still due"
    assert decision.reaction == Reaction(comment_id=100)


def test_a_repair_in_the_run_that_made_the_agent_due_names_it_again(lifecycle):
    """The finishing step's own re-run check: a run that repairs drift and moves nothing still
    names the agent its earlier attempt made due, and names none once nothing is pending."""
    event = lifecycle.tick("implementing", after=DUE)
    event = event.model_copy(update={"issue": lifecycle.issue(None, labels=()), "run_id": "7"})
    record = lifecycle.record("implementing")
    pending = record.dispatch.model_copy(update={"run": event.run_id})
    due = lifecycle.decide(record.model_copy(update={"dispatch": pending}), event)
    assert (due.outcome, due.agent, due.record.state) == (
        Outcome.noted,
        "developer",
        "implementing",
    )

    idle = lifecycle.decide(record.model_copy(update={"dispatch": None}), event)
    assert (idle.outcome, idle.agent) == (Outcome.noted, None)
    other_run = pending.model_copy(update={"run": "an-earlier-run"})
    assert lifecycle.decide(record.model_copy(update={"dispatch": other_run}), event).agent is None
