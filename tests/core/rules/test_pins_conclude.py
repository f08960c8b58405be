"""Pins the rules of `core/rules/conclude.py` that a mutation sample found unprotected (issue
18, item 5): a record rebuilt from the status label is written back as it was rebuilt, even
when the event changes nothing, so the next run reads it instead of rebuilding again."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from baton.core.model.decision import Outcome
from baton.core.model.record import HistoryEntry, Record

STATE = "analyzing_requirements"  # no code: the record carries no work product
REBUILT = "the record comment was lost; rebuilt from the label status:analyzing-requirements"


def rebuilt(build: Any, state: str) -> Record:
    """The record `issue/load.py` makes from the status label: revision 0, one rebuild entry."""
    entry = HistoryEntry(
        at=build.record(state).entered_at,
        from_state=None,
        to_state=state,
        reason=REBUILT,
        actor="baton",
        trigger="rebuild",
        iteration=0,
    )
    return Record(
        workflow=build.workflow.name,
        issue=1,
        state=state,
        entered_at=entry.at,
        visits={state: 1},
        history=[entry],
        revision=0,
    )


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(lambda b: b.tick(STATE, after=timedelta(minutes=5)), id="a tick"),
        pytest.param(
            lambda b: b.commented("thanks, looking forward to it", "bob", STATE),
            id="a strangers reply",
        ),
    ],
)
def test_a_rebuilt_record_is_written_back_as_rebuilt_when_the_event_changes_nothing(
    lifecycle: Any, event: Any
) -> None:
    record = rebuilt(lifecycle, STATE)
    decision = lifecycle.decide(record, event(lifecycle))
    assert decision.outcome is Outcome.noted
    assert decision.repairs == (REBUILT,)
    assert decision.record is not None
    assert decision.record.revision == 1
    assert decision.record.outbox is not None and REBUILT in decision.record.outbox.text
    as_rebuilt = decision.record.model_copy(update={"revision": 0, "outbox": None})
    assert as_rebuilt == record  # nothing the rule did not decide: the event is not taken


@pytest.mark.parametrize("revision", [1, 3])
def test_a_record_read_back_is_not_rewritten_when_the_event_changes_nothing(
    lifecycle: Any, revision: int
) -> None:
    record = lifecycle.record(STATE, revision=revision)
    decision = lifecycle.decide(record, lifecycle.tick(STATE, after=timedelta(minutes=5)))
    assert (decision.outcome, decision.record, decision.repairs) == (Outcome.ignored, None, ())
