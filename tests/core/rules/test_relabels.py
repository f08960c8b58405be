"""Labels added to an issue in the workflow, decided directly: forced moves, refusals,
unknown status labels and the trigger label."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from baton.workflow.config import Who

FORCES = [
    pytest.param("maria", None, id="a maintainer forces a state the table has no edge to"),
    pytest.param("tess", None, id="triage is enough by default"),
    pytest.param("ada", Who(permission="admin"), id="an admin passes when maintainers need admin"),
]


@pytest.mark.parametrize(("login", "maintainers"), FORCES)
def test_a_maintainers_relabel_forces_the_state(lifecycle, login, maintainers):
    build = lifecycle if maintainers is None else lifecycle.with_policy(maintainers=maintainers)
    record = build.record(
        "implementing", iteration=7, attempt=2, visits={"implementing": 3, "creating_pr": 1}
    )

    decision = build.decide(record, build.labeled("status:creating-pr", login, "implementing"))

    assert (decision.outcome, decision.state, decision.forced) == (
        Outcome.transition,
        "creating_pr",
        True,
    )
    assert decision.reason == f"implementing → creating_pr: forced by {login} (relabelled)"
    assert decision.labels == ("bug", "status:creating-pr")
    assert decision.repairs == (), "the relabel's own label swap is not drift"
    moved = decision.record
    assert (moved.iteration, moved.attempt, moved.budget_from) == (8, 1, 8)
    assert moved.visits == {"creating_pr": 1}, "a human's move counts visits afresh"
    assert moved.history[-1].forced and moved.history[-1].actor == login
    assert decision.agent == "pm"


REFUSED = [
    pytest.param("alice", None, id="the author's relabel is reverted with a note"),
    pytest.param("bob", None, id="a stranger's relabel is reverted with a note"),
    pytest.param("dependabot[bot]", None, id="a bot's relabel is reverted, whatever its role"),
    pytest.param(
        "maria",
        Who(permission="admin"),
        id="maintain does not force a state when maintainers need admin",
    ),
]


@pytest.mark.parametrize(("login", "maintainers"), REFUSED)
def test_a_relabel_by_anyone_else_is_reverted(lifecycle, login, maintainers):
    build = lifecycle if maintainers is None else lifecycle.with_policy(maintainers=maintainers)
    record = build.record("implementing")
    event = build.labeled("status:completed", login, "implementing")

    decision = build.decide(record, event)

    assert (decision.outcome, decision.state) == (Outcome.refused, "implementing")
    assert decision.reason == f"refused relabel by {login}"
    assert decision.labels == ("bug", "status:implementing")
    assert "I removed status:completed and kept status:implementing" in decision.message
    assert event.id in decision.record.processed
    assert decision.record.outbox.text == decision.message


def test_an_unknown_status_label_is_removed(lifecycle):
    record = lifecycle.record("implementing")

    decision = lifecycle.decide(record, lifecycle.labeled("status:bogus", "maria", "implementing"))

    assert (decision.outcome, decision.state) == (Outcome.noted, "implementing")
    assert decision.labels == ("bug", "status:implementing")
    assert "status:creating-pr" in decision.message


def test_relabelling_to_the_current_state_is_remembered_and_moves_nothing(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.labeled("status:implementing", "maria", None)
    event = event.model_copy(update={"issue": lifecycle.issue("implementing")})

    decision = lifecycle.decide(record, event)

    assert (decision.outcome, decision.state) == (Outcome.noted, "implementing")
    assert decision.record.history == record.history
    assert event.id in decision.record.processed


TRIGGERS = [
    pytest.param(
        "completed", "maria", "received", id="a maintainer's trigger restarts a finished issue"
    ),
    pytest.param("completed", "bob", "completed", id="a stranger's trigger restarts nothing"),
    pytest.param(
        "implementing", "maria", "implementing", id="the trigger on a running issue is consumed"
    ),
]


@pytest.mark.parametrize(("state", "login", "after"), TRIGGERS)
def test_the_trigger_label_on_an_issue_in_the_workflow(lifecycle, state, login, after):
    record = lifecycle.record(state)

    decision = lifecycle.decide(record, lifecycle.labeled("baton", login, state))

    assert decision.state == after
    assert decision.labels == ("bug", lifecycle.label(after)), "the trigger label is removed"
    if after == state:
        assert decision.outcome is Outcome.noted
        assert decision.reason == (
            f"already in the workflow at {state}; trigger consumed; repaired: labels"
        )
    else:
        assert decision.forced and decision.record.history[-1].reason.endswith(
            "restarted by the trigger label"
        )


def test_a_removed_status_label_is_put_back(lifecycle):
    record = lifecycle.record("implementing")
    event = lifecycle.labeled("status:implementing", "bob", "implementing", added=False)

    decision = lifecycle.decide(record, event)

    assert decision.outcome is Outcome.noted
    assert decision.labels == ("bug", "status:implementing")
    assert decision.repairs == ("the status label was missing; status:implementing restored",)


@pytest.mark.parametrize(
    ("maintainers", "named"),
    [
        pytest.param(None, "triage or above", id="the maintainers' permission by default"),
        pytest.param(Who(permission="admin"), "admin or above", id="the permission configured"),
        pytest.param(Who(users=["maria"]), "listed users or above", id="no permission: the list"),
    ],
)
def test_the_refusal_names_who_may_move_the_issue(lifecycle, maintainers, named):
    build = lifecycle if maintainers is None else lifecycle.with_policy(maintainers=maintainers)
    event = build.labeled("status:completed", "bob", "implementing")

    decision = build.decide(build.record("implementing"), event)

    assert f"only maintainers ({named}) can move this issue" in decision.message
