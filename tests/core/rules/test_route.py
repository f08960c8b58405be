"""`core/rules/route.py`: `decide` sends each event to the rule for its kind, and refuses a
record whose state the workflow does not have (a caller's bug, never guessed around)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.errors import StateNotInWorkflow

DUE = timedelta(minutes=5)  # a tick long before any timeout: nothing is due


def test_a_record_in_a_state_the_workflow_lacks_is_an_error(lifecycle, gate):
    record = gate.record("phase_1")

    with pytest.raises(StateNotInWorkflow, match="record state 'phase_1' is not in workflow"):
        lifecycle.decide(record, lifecycle.tick("implementing", after=DUE))
