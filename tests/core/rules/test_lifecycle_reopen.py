"""Reopening an issue, decided directly: no second run of an agent already due or running, and
who may restart work by reopening is the config's `reopeners` (maintainers by default).

The record's `dispatch` is the agent run Baton started and is waiting on; a decision made while
the issue is closed starts no agent, so it records none, and only then does a reopen start one.
"""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome

CLARIFY = "waiting_for_requirements_clarification"

# state, record changes, reopeners, who reopens → outcome, state after, agent named
REOPENS = [
    pytest.param(
        "implementing",
        {},
        "maintainers",
        "maria",
        Outcome.ignored,
        "implementing",
        None,
        id="a maintainer's reopen while the developer runs starts no second run",
    ),
    pytest.param(
        "implementing",
        {},
        "anyone",
        "alice",
        Outcome.ignored,
        "implementing",
        None,
        id="the author's reopen while the developer runs starts no second run, whoever may",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        "maintainers",
        "maria",
        Outcome.resume,
        "implementing",
        "developer",
        id="a maintainer's reopen starts the agent a closed issue never started",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        "maintainers",
        "alice",
        Outcome.refused,
        "implementing",
        None,
        id="the author's reopen starts nothing when only maintainers may resume",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        "author-or-maintainers",
        "alice",
        Outcome.resume,
        "implementing",
        "developer",
        id="the author's reopen starts the agent when the author may resume",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        "author-or-maintainers",
        "bob",
        Outcome.refused,
        "implementing",
        None,
        id="a stranger's reopen starts nothing when only the author and maintainers may",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        "anyone",
        "bob",
        Outcome.resume,
        "implementing",
        "developer",
        id="a stranger's reopen starts the agent when anyone may resume",
    ),
    pytest.param(
        "implementing",
        {"dispatch": None},
        "anyone",
        "dependabot[bot]",
        Outcome.refused,
        "implementing",
        None,
        id="a bot's reopen never starts an agent",
    ),
    pytest.param(
        "implementing",
        {"held": True, "dispatch": None},
        "anyone",
        "maria",
        Outcome.ignored,
        "implementing",
        None,
        id="a reopen of an issue held for a human starts nothing",
    ),
    pytest.param(
        CLARIFY,
        {},
        "anyone",
        "maria",
        Outcome.ignored,
        CLARIFY,
        None,
        id="a reopen of an issue waiting for a human starts nothing",
    ),
    pytest.param(
        "completed",
        {},
        "maintainers",
        "maria",
        Outcome.transition,
        "received",
        "pm",
        id="a maintainer's reopen restarts a finished issue",
    ),
    pytest.param(
        "completed",
        {},
        "maintainers",
        "alice",
        Outcome.refused,
        "completed",
        None,
        id="the author's reopen leaves a finished issue finished when only maintainers may",
    ),
    pytest.param(
        "completed",
        {},
        "author-or-maintainers",
        "alice",
        Outcome.transition,
        "received",
        "pm",
        id="the author's reopen restarts a finished issue when the author may",
    ),
]


@pytest.mark.parametrize(
    ("state", "changes", "reopeners", "login", "outcome", "after", "agent"), REOPENS
)
def test_reopening(lifecycle, state, changes, reopeners, login, outcome, after, agent):
    build = lifecycle.with_policy(reopeners=reopeners)
    record = build.record(state, **changes)

    decision = build.decide(record, build.changed("reopened", login, state))

    assert (decision.outcome, decision.state, decision.agent) == (outcome, after, agent)


def test_a_resumed_agent_is_recorded_so_the_next_reopen_starts_no_second_run(lifecycle):
    record = lifecycle.record("implementing", dispatch=None, attempt=2)

    first = lifecycle.decide(record, lifecycle.changed("reopened", "maria", "implementing"))
    later = lifecycle.changed("reopened", "maria", "implementing")
    again = lifecycle.decide(first.record, later.model_copy(update={"run_id": "run-8"}))

    pending = first.record.dispatch
    assert (pending.agent, pending.state, pending.attempt) == ("developer", "implementing", 2)
    assert first.record.attempt == 2, "a resume is not a retry: it spends no attempt"
    assert (again.outcome, again.agent) == (Outcome.ignored, None)
    assert "already" in again.reason


def test_a_refused_reopen_says_why_and_who_may(lifecycle):
    record = lifecycle.record("implementing", dispatch=None)

    decision = lifecycle.decide(record, lifecycle.changed("reopened", "alice", "implementing"))

    assert decision.outcome is Outcome.refused
    assert "`alice`" in decision.message
    assert "only maintainers" in decision.message
    assert "reopen" in decision.message
    assert decision.record is not None, "remembered: a re-delivered reopen says it once"


def test_a_refused_reopen_of_a_finished_issue_names_who_may_restart_it(lifecycle):
    record = lifecycle.record("completed")

    decision = lifecycle.decide(record, lifecycle.changed("reopened", "alice", "completed"))

    assert decision.outcome is Outcome.refused
    assert "only maintainers" in decision.message
    assert decision.agent is None


def test_a_reopen_of_a_finished_issue_without_a_restart_state_is_ignored(gate):
    build = gate.with_workflow(reopen=None).with_policy(reopeners="anyone")
    terminal = next(s for s in build.workflow.states if build.workflow.is_terminal(s))
    record = build.record(terminal)

    decision = build.decide(record, build.changed("reopened", "maria", terminal))

    assert (decision.outcome, decision.agent, decision.message) == (Outcome.ignored, None, None)


# --- decisions made while the issue is closed start no agent, so record none ----------------
def test_a_report_while_closed_moves_on_but_records_no_run(lifecycle):
    record = lifecycle.record("implementing")
    closed = lifecycle.issue("implementing").model_copy(update={"state": "closed"})
    event = lifecycle.reported(
        "implementing", None, issue=closed
    )  # an unreadable result: the ladder's retry

    decision = lifecycle.decide(record, event)

    assert decision.outcome is Outcome.retry
    assert decision.agent is None
    assert decision.record.dispatch is None, "no run was started, so a reopen may start one"
    assert decision.record.attempt == 2


def test_a_dispatched_run_on_a_closed_issue_forgets_the_run_it_will_not_start(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.dispatched("implementing")
    closed = event.issue.model_copy(update={"state": "closed"})

    decision = lifecycle.decide(record, event.model_copy(update={"issue": closed}))

    assert decision.agent is None
    assert decision.record is not None and decision.record.dispatch is None
