"""Entry, decided directly: how an issue with no record comes into the workflow, or why not."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from baton.workflow.config import Who

HINT = "the issue is not in the workflow (add the 'baton' label to start)"


ENTRIES = [
    pytest.param("baton", "maria", "received", False, id="a maintainer's trigger label enters"),
    pytest.param("BATON", "tess", "received", False, id="the trigger label in any letter case"),
    pytest.param(
        "status:implementing",
        "maria",
        "implementing",
        True,
        id="a maintainer's status label enters there, forced",
    ),
    pytest.param(
        "status:waiting-for-human-input",
        "tess",
        "waiting_for_human_input",
        True,
        id="entering a waiting state names no agent",
    ),
]


@pytest.mark.parametrize(("label", "login", "state", "forced"), ENTRIES)
def test_a_maintainers_label_enters_the_issue(lifecycle, label, login, state, forced):
    event = lifecycle.labeled(label, login, None)

    decision = lifecycle.decide(None, event)

    assert (decision.outcome, decision.previous_state, decision.state) == (
        Outcome.transition,
        None,
        state,
    )
    assert decision.forced is forced
    assert decision.labels == ("bug", lifecycle.label(state)), "the trigger label goes"
    record = decision.record
    assert (record.state, record.iteration, record.visits, record.revision) == (
        state,
        0,
        {state: 1},
        1,
    )
    assert [(e.from_state, e.to_state, e.trigger, e.forced) for e in record.history] == [
        (None, state, "entry", forced)
    ]
    assert record.processed == [event.id]
    agent = lifecycle.workflow.agent_of(state)
    assert decision.agent == agent
    if agent:
        assert (record.dispatch.agent, record.dispatch.run, record.dispatch.by) == (
            agent,
            event.run_id,
            event.id,
        )
    else:
        assert record.dispatch is None
    assert record.outbox is None and decision.message is None


REFUSALS = [
    pytest.param("baton", "bob", None, id="a stranger's trigger label is removed with a note"),
    pytest.param(
        "status:implementing", "alice", None, id="the author's status label is removed too"
    ),
    pytest.param(
        "baton",
        "maria",
        Who(permission="admin"),
        id="maintain does not start Baton when maintainers must be admins",
    ),
]


@pytest.mark.parametrize(("label", "login", "maintainers"), REFUSALS)
def test_only_maintainers_start_baton(lifecycle, label, login, maintainers):
    build = lifecycle if maintainers is None else lifecycle.with_policy(maintainers=maintainers)

    decision = build.decide(None, build.labeled(label, login, None))

    assert (decision.outcome, decision.reason) == (Outcome.refused, f"refused entry by {login}")
    assert decision.labels == ("bug",)
    assert f"I removed {label}" in decision.message
    assert decision.record is None and decision.state is None and decision.agent is None


def test_an_admin_starts_baton_when_maintainers_must_be_admins(lifecycle):
    build = lifecycle.with_policy(maintainers=Who(permission="admin"))

    decision = build.decide(None, build.labeled("baton", "ada", None))

    assert decision.state == "received"


def test_an_unknown_status_label_is_removed_with_the_valid_ones_listed(lifecycle):
    decision = lifecycle.decide(None, lifecycle.labeled("status:bogus", "maria", None))

    assert (decision.outcome, decision.reason) == (
        Outcome.noted,
        "unknown status label 'status:bogus' removed",
    )
    assert decision.labels == ("bug",)
    assert "status:implementing" in decision.message
    assert decision.record is None


IGNORED = [
    pytest.param(
        lambda b: b.labeled("status:implementing", "maria", None),
        {"enter_on_status_label": False},
        id="a status label when the config says no",
    ),
    pytest.param(
        lambda b: b.changed("opened", "alice", None),
        {},
        id="an opened issue when entry is by label",
    ),
    pytest.param(
        lambda b: b.changed("closed", "alice", None),
        {"enter_on_open": True},
        id="a closed issue, whatever the config",
    ),
    pytest.param(
        lambda b: b.labeled("baton", "maria", None, added=False),
        {},
        id="a label taken off an issue outside the workflow",
    ),
    pytest.param(
        lambda b: b.commented("approved", "maria", None), {}, id="a comment, even an approval"
    ),
]


@pytest.mark.parametrize(("happens", "policy"), IGNORED)
def test_events_that_do_not_enter_leave_the_issue_alone(lifecycle, happens, policy):
    build = lifecycle.with_policy(**policy)

    decision = build.decide(None, happens(build))

    assert (decision.outcome, decision.reason) == (Outcome.ignored, HINT)
    assert decision.record is None and decision.labels is None and decision.message is None


def test_the_hint_names_no_label_when_there_is_no_trigger_label(lifecycle):
    build = lifecycle.with_policy(trigger_label=None)

    decision = build.decide(None, build.changed("opened", "alice", None))

    assert decision.reason == "the issue is not in the workflow"


def test_an_opened_issue_enters_when_the_config_enters_every_issue(lifecycle):
    build = lifecycle.with_policy(enter_on_open=True)

    decision = build.decide(None, build.changed("opened", "alice", None))

    assert (decision.state, decision.forced, decision.agent) == ("received", False, "pm")
    assert decision.reason == "entered at received: opened (the config enters every issue) by alice"


def test_a_closed_issue_enters_but_no_agent_runs(lifecycle):
    event = lifecycle.labeled("baton", "maria", None)
    event = event.model_copy(update={"issue": event.issue.model_copy(update={"state": "closed"})})

    decision = lifecycle.decide(None, event)

    assert decision.state == "received"
    assert decision.agent is None
    assert decision.record.dispatch is None, "no run was started: a reopen starts the pm"
