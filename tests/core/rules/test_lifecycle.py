"""Reopened and closed issues, dispatched runs and the sweep's ticks, decided directly."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.core.model.decision import Outcome

CLARIFY = "waiting_for_requirements_clarification"  # times out to `blocked` after 7 days


# --- reopen and close -------------------------------------------------------------------
REOPENS = [
    pytest.param(
        "completed",
        "maria",
        Outcome.transition,
        "received",
        "pm",
        id="a maintainer reopens a finished issue at the start",
    ),
    pytest.param(
        "completed",
        "bob",
        Outcome.refused,
        "completed",
        None,
        id="a stranger's reopen leaves a finished issue finished",
    ),
    pytest.param(
        "implementing",
        "bob",
        Outcome.ignored,
        "implementing",
        None,
        id="reopening a running issue starts no second run (see test_reopen.py)",
    ),
    pytest.param(
        CLARIFY, "bob", Outcome.ignored, CLARIFY, None, id="reopening a waiting issue runs nobody"
    ),
]


@pytest.mark.parametrize(("state", "login", "outcome", "after", "agent"), REOPENS)
def test_reopening(lifecycle, state, login, outcome, after, agent):
    record = lifecycle.record(state)

    decision = lifecycle.decide(record, lifecycle.changed("reopened", login, state))

    assert (decision.outcome, decision.state, decision.agent) == (outcome, after, agent)
    if outcome is Outcome.transition:
        assert decision.record.history[-1].trigger == "reopen"


def test_a_closed_issue_runs_no_agent_even_on_a_rerun_that_named_one(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.changed("closed", "alice", "implementing")
    record = record.model_copy(
        update={"dispatch": record.dispatch.model_copy(update={"run": event.run_id})}
    )

    decision = lifecycle.decide(record, event)

    assert decision.outcome is Outcome.ignored
    assert decision.reason == "closed in implementing; no agent runs while it is closed"
    assert decision.agent is None


# --- dispatched runs --------------------------------------------------------------------
DISPATCHES = [
    pytest.param(
        "implementing", {}, Outcome.resume, "developer", id="a dispatch runs the due agent"
    ),
    pytest.param(
        "implementing",
        {"processed": ["report:dispatch-run"]},
        Outcome.ignored,
        None,
        id="a re-run of a dispatch whose agent already reported starts nothing",
    ),
    pytest.param(
        CLARIFY, {}, Outcome.ignored, None, id="a dispatch while a human is awaited runs nobody"
    ),
    pytest.param(
        "implementing",
        {"held": True},
        Outcome.ignored,
        None,
        id="a dispatch on a held issue runs nobody",
    ),
]


@pytest.mark.parametrize(("state", "changes", "outcome", "agent"), DISPATCHES)
def test_a_dispatched_run(lifecycle, state, changes, outcome, agent):
    record = lifecycle.record(state, **changes)

    decision = lifecycle.decide(record, lifecycle.dispatched(state))

    assert (decision.outcome, decision.agent) == (outcome, agent)
    assert decision.record is None


def test_a_hand_over_is_its_own_agent_jobs_to_run_never_a_second_time(lifecycle):
    # A refused hand-over decided in the report job, or one another identity sent: the run
    # Baton waits on is that dispatch's agent job's, so deciding it here starts none.
    record = lifecycle.record("implementing")
    nonce = record.dispatch.nonce
    event = lifecycle.dispatched("implementing").model_copy(update={"nonce": nonce})

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.agent, decision.record) == (Outcome.ignored, None, None)
    assert decision.reason == f"the developer's run {nonce} is its hand-over's to start"


def test_a_late_hand_over_starts_nothing(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.dispatched("implementing").model_copy(update={"nonce": "0" * 16})

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.agent) == (Outcome.ignored, None)
    assert decision.reason == f"the hand-over {'0' * 16} is for an earlier run"


def test_a_hand_over_to_an_issue_closed_since_forgets_the_run(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.dispatched("implementing").model_copy(update={"nonce": record.dispatch.nonce})
    closed = event.model_copy(update={"issue": event.issue.model_copy(update={"state": "closed"})})

    decision = lifecycle.decide(record, closed)

    assert decision.outcome is Outcome.noted
    assert decision.record.dispatch is None


# --- the sweep --------------------------------------------------------------------------
def test_a_wait_that_reaches_its_timeout_moves_on(lifecycle):
    record = lifecycle.record(CLARIFY)

    decision = lifecycle.decide(record, lifecycle.tick(CLARIFY, after=timedelta(days=7)))

    assert (decision.outcome, decision.state, decision.agent) == (
        Outcome.transition,
        "blocked",
        "pm",
    )
    assert decision.reason == f"{CLARIFY} → blocked: the wait timed out"
    entry = decision.record.history[-1]
    assert (entry.trigger, entry.actor, entry.reason) == (
        "timeout",
        "baton",
        "no answer for 7 days",
    )


SWEEPS = [
    pytest.param(
        CLARIFY,
        {},
        timedelta(days=7) - timedelta(minutes=1),
        None,
        id="a wait just short of its timeout",
    ),
    pytest.param(
        CLARIFY, {"held": True}, timedelta(days=30), None, id="a held wait never times out"
    ),
    pytest.param(
        "implementing", {}, timedelta(days=30), None, id="a silent agent with no agent timeout"
    ),
    pytest.param(
        "implementing",
        {"held": True},
        timedelta(hours=3),
        "2h",
        id="a held issue's agent is not chased",
    ),
    pytest.param(
        "implementing",
        {},
        timedelta(hours=1, minutes=59),
        "2h",
        id="an agent just inside its timeout",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        timedelta(hours=3),
        "2h",
        id="an agent that was never dispatched",
    ),
]


@pytest.mark.parametrize(("state", "changes", "after", "agent_timeout"), SWEEPS)
def test_the_sweep_leaves_what_is_not_due(lifecycle, state, changes, after, agent_timeout):
    build = lifecycle.with_policy(agent_timeout=timedelta(hours=2) if agent_timeout else None)
    record = build.record(state, **changes)

    decision = build.decide(record, build.tick(state, after=after))

    assert (decision.outcome, decision.reason) == (Outcome.ignored, f"nothing is due in {state}")
    assert decision.record is None and decision.agent is None


def test_a_silent_agent_is_dispatched_again_up_the_retry_ladder(lifecycle):
    build = lifecycle.with_policy(agent_timeout=timedelta(hours=2))
    record = build.record("implementing", feedback=["mind the header"])

    decision = build.decide(record, build.tick("implementing", after=timedelta(hours=2)))

    assert decision.outcome is Outcome.retry
    assert decision.reason == (
        "the developer did not report within 2:00:00; attempt 2 of 3 runs with the feedback"
    )
    assert decision.record.feedback == ["mind the header"]
    assert decision.agent == "developer"


def test_a_silent_agent_on_its_last_attempt_is_held_for_a_human(gate):
    build = gate.with_policy(agent_timeout=timedelta(hours=2))
    record = build.record("phase_2", attempt=3)

    decision = build.decide(record, build.tick("phase_2", after=timedelta(hours=5)))

    assert decision.outcome is Outcome.noted
    assert decision.record.held and decision.agent is None
