"""The plan through `decide` (`rules/epic/planning.py`): refused and planned again, recorded
first, its sub-issues created as data, a blocked planner sending the epic back to discovery."""

from __future__ import annotations

import re

import pytest

from baton.core.model.decision import Outcome
from baton.core.model.epic import (
    CreatedTask,
    EpicState,
    TaskCreationFacts,
    TaskSpec,
    TaskStatus,
)
from baton.core.model.events import Event
from baton.core.model.facts import Facts
from baton.core.model.record import Dispatch, Record
from baton.core.model.work import Work
from baton.core.rules.epic.phases import epic_of
from support.epic_rules import B, epic, plan_report, planned, result, spec, with_plan


def test_a_cyclic_plan_is_refused_and_planned_again() -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, plan_report([spec("a", "b"), spec("b", "a")]))
    assert decision.outcome is Outcome.retry
    assert decision.agent == "planner"
    assert epic(decision).plan_problem and "DAG cycle detected" in epic(decision).plan_problem
    assert decision.message and "attempt 2 of 3" in decision.message
    assert decision.create_tasks is None


def test_the_retry_ladder_holds_the_epic_after_the_last_refused_plan() -> None:
    record = B.record("planning", epic=EpicState(), attempt=3)
    decision = B.decide(record, plan_report([spec("a", "a")]))
    assert decision.agent is None
    assert decision.outcome is not Outcome.retry


def test_a_valid_plan_is_recorded_first_and_the_epics_next_run_is_dispatched() -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, plan_report([spec("model"), spec("api", "model")]))
    assert decision.outcome is Outcome.noted
    assert decision.create_tasks is None  # nothing on GitHub before the record holds the plan
    assert [t.key for t in epic(decision).pending_plan] == ["model", "api"]
    assert decision.notify == (record.issue,)
    assert decision.state == "planning" and decision.agent is None


def test_the_recorded_plan_asks_for_its_sub_issues_first() -> None:
    decision = B.decide(with_plan([spec("model"), spec("api", "model")]), B.dispatched("planning"))
    assert decision.outcome is Outcome.noted
    assert decision.create_tasks is not None
    assert [t.key for t in decision.create_tasks.tasks] == ["model", "api"]
    assert decision.create_tasks.edges == [("api", "model")]
    assert all("baton:task" in t.labels for t in decision.create_tasks.tasks)
    assert decision.state == "planning"


def test_the_planner_s_titles_and_bodies_reach_the_sub_issues_as_data() -> None:
    """A task's title becomes its pull request's title and a squash merge's headline: a
    closing keyword or a mention there must stay text."""
    hostile = TaskSpec(
        key="gh-1",
        title="Fixes #1 for @octo-org/security",
        body="Closes https://github.com/o/r/issues/2, cc @alice",
    )
    decision = B.decide(with_plan([hostile]), B.dispatched("planning"))
    assert decision.create_tasks is not None
    (task,) = decision.create_tasks.tasks
    z = "\u200b"
    assert task.title == f"Fixes #{z}1 for @{z}octo-org/security"
    assert f"> Closes https:{z}//github.com/o/r/issues/{z}2, cc @{z}alice" in task.body
    assert re.findall(r"#\d|@[a-z]|://", task.body) == ["#1"]  # "of epic #1": Baton's own


def test_the_created_sub_issues_move_to_implementing_and_start_the_ready_tasks() -> None:
    specs = [spec("a"), spec("b"), spec("c"), spec("d", "a")]
    created = TaskCreationFacts(
        created=[CreatedTask(key=s.key, number=10 + i) for i, s in enumerate(specs)]
    )
    event, facts = B.dispatched("planning"), Facts(created=created)
    decision = B.decide(with_plan(specs), event, facts)
    assert decision.outcome is Outcome.transition
    assert decision.state == "implementing"
    assert decision.notify == (10, 11)  # two slots (max_parallel), plan order
    assert [t.starts for t in epic(decision).tasks] == [1, 1, 0, 0]
    assert epic(decision).plan_version == 1 and epic(decision).pending_plan == []
    assert decision.message and "The plan: 4 tasks" in decision.message


def test_a_blocked_planner_sends_the_epic_back_to_discovery() -> None:
    record = B.record("planning", epic=EpicState())
    event = B.reported("planning", result(status="blocked", summary="the spec contradicts itself"))
    decision = B.decide(record, event)
    assert decision.outcome is Outcome.transition
    assert decision.state == "discovery"
    assert epic(decision).discovery.phase == "asking"
    assert decision.agent == "discovery"


def _extension(work: Work | None) -> Record:
    """An epic extended after `/continue`: task a done as #10, the plan for b waiting."""
    found = EpicState(
        tasks=[planned("a", 10, TaskStatus.completed)],
        plan_version=1,
        branch="baton/issue-2-epic",
        extension="add an export",
        pending_plan=[spec("b", "a")],
    )
    return B.record("implementing", dispatch=None, epic=found, work=work)


def test_the_epics_branch_is_made_with_the_tasks_only_when_the_record_has_not_made_it() -> None:
    new = B.decide(with_plan([spec("a")]), B.dispatched("planning"))
    assert new.create_tasks is not None and new.create_tasks.branch == "baton/issue-1"

    cases = [
        (None, "baton/issue-2-epic"),
        (Work(branch="baton/issue-2-epic"), "baton/issue-2-epic"),
        (Work(branch="baton/issue-2-epic", created=True), ""),
    ]
    for work, branch in cases:
        decision = B.decide(_extension(work), B.dispatched("implementing"))
        assert decision.create_tasks is not None, work
        assert decision.create_tasks.branch == branch, work


def test_a_task_body_links_a_dependency_that_has_its_sub_issue_and_names_one_that_has_not() -> None:
    new = B.decide(with_plan([spec("a"), spec("b", "a")]), B.dispatched("planning"))
    assert new.create_tasks is not None
    assert [t.body.split("\n\n")[2] for t in new.create_tasks.tasks] == [
        "Depends on: nothing",
        "Depends on: `a`",
    ]

    extended = B.decide(_extension(None), B.dispatched("implementing"))
    assert extended.create_tasks is not None
    (task,) = extended.create_tasks.tasks
    assert task.body.split("\n\n")[2] == "Depends on: #10"


def _planner_report(record: Record, **fields: object) -> Event:
    return B.reported(record.state, result(**fields), agent="planner")


def _extending() -> Record:
    """An epic after `/continue`: task a done, the planner dispatched to plan more."""
    due = Dispatch(
        agent="planner", state="implementing", attempt=1, at=B.record("planning").entered_at
    )
    found = EpicState(
        tasks=[planned("a", 10, TaskStatus.completed)],
        plan_version=1,
        branch="baton/issue-1",
        extension="add an export",
    )
    work = Work(branch="baton/issue-1", created=True)
    return B.record("implementing", dispatch=due, epic=found, work=work)


def test_an_extension_builds_on_the_epics_tasks_and_may_not_reuse_their_keys() -> None:
    record = _extending()
    taken = B.decide(record, _planner_report(record, tasks=[spec("b", "a")]))
    assert taken.outcome is Outcome.noted
    assert [s.key for s in epic(taken).pending_plan] == ["b"]

    reused = B.decide(record, _planner_report(record, tasks=[spec("a")]))
    assert reused.outcome is Outcome.retry
    assert epic(reused).plan_problem == "task key 'a' is already a task of this epic"

    waiting = planned("p", 11, TaskStatus.pending)
    with_pending = record.model_copy(
        update={
            "epic": epic_of(record).model_copy(update={"tasks": [*epic_of(record).tasks, waiting]})
        }
    )
    on_pending = B.decide(with_pending, _planner_report(with_pending, tasks=[spec("b", "p")]))
    assert on_pending.outcome is Outcome.noted, "an extension keeps every task, pending ones too"

    back = B.decide(record, _planner_report(record, next_state="discovery", summary="Unclear."))
    assert (back.outcome, back.state) == (Outcome.retry, "implementing")
    assert back.reason.startswith("the plan cannot go back to discovery from here")


def test_a_replan_keeps_the_finished_tasks_keys_and_may_replace_a_failed_one() -> None:
    found = EpicState(
        tasks=[planned("a", 10, TaskStatus.completed), planned("b", 11, TaskStatus.failed)],
        plan_version=1,
        branch="baton/issue-1",
        plan_problem="the last plan's problem",
    )
    record = B.record("planning", epic=found)
    replacing = B.decide(record, _planner_report(record, tasks=[spec("b", "a")]))
    assert replacing.outcome is Outcome.noted
    assert epic(replacing).plan_problem is None
    assert [s.key for s in epic(replacing).pending_plan] == ["b"]

    problems = {
        "a": "task key 'a' is already a task of this epic",
        "c": "task 'c' depends on 'b', which is not in the plan",
    }
    for key, problem in problems.items():
        specs = [spec("a")] if key == "a" else [spec("c", "b")]
        refused = B.decide(record, _planner_report(record, tasks=specs))
        assert (refused.outcome, epic(refused).plan_problem) == (Outcome.retry, problem)


@pytest.mark.parametrize(
    ("summary", "asked"),
    [
        pytest.param("", "the planner needs a major revision of the specification", id="unsaid"),
        pytest.param(
            "The spec contradicts itself.\nSee above.", "The spec contradicts itself.", id="said"
        ),
    ],
)
def test_a_blocked_planner_asks_discovery_for_the_revision_it_names(
    summary: str, asked: str
) -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, _planner_report(record, status="blocked", summary=summary))
    assert (decision.state, epic(decision).discovery.phase) == ("discovery", "asking")
    assert epic(decision).discovery.request == asked
    assert decision.record is not None
    last = decision.record.history[-1]
    assert (last.reason, last.actor, last.trigger) == (
        f"major revision needed: {asked}",
        "planner",
        "report",
    )


def test_an_extensions_sub_issues_join_the_tasks_and_the_conductor_goes_on() -> None:
    record = _extending()
    record = record.model_copy(
        update={"epic": epic_of(record).model_copy(update={"pending_plan": [spec("b", "a")]})}
    )
    created = TaskCreationFacts(created=[CreatedTask(key="b", number=11, node_id="I_kwb")])
    event, facts = B.dispatched("implementing"), Facts(created=created, tasks=[])
    decision = B.decide(record, event, facts)
    assert (decision.outcome, decision.state) == (Outcome.noted, "implementing")
    assert decision.reason == "the plan of 1 tasks is created as sub-issues: started b"
    found = epic(decision)
    assert (found.extension, found.plan_version, found.pending_plan) == ("", 2, [])
    assert [(t.key, t.number, t.node_id) for t in found.tasks] == [
        ("a", 10, ""),
        ("b", 11, "I_kwb"),
    ]
    assert decision.record is not None and decision.record.dispatch is None


@pytest.mark.parametrize("made", [True, False])
def test_the_epics_branch_made_with_the_sub_issues_is_not_made_again(made: bool) -> None:
    created = TaskCreationFacts(created=[CreatedTask(key="a", number=10)], branch_created=made)
    decision = B.decide(with_plan([spec("a")]), B.dispatched("planning"), Facts(created=created))
    assert epic(decision).branch == "baton/issue-1"
    assert decision.record is not None and decision.record.work is not None
    assert (decision.record.work.branch, decision.record.work.created) == ("baton/issue-1", True)
    assert decision.create_branch == (None if made else "baton/issue-1"), "no second call"


def test_a_sub_issue_is_labelled_a_pending_task_and_quotes_the_planners_description() -> None:
    described = TaskSpec(key="a", title="Task a", body="Do it.")
    decision = B.decide(with_plan([described, spec("b")]), B.dispatched("planning"))
    assert decision.create_tasks is not None
    first, second = decision.create_tasks.tasks
    assert first.labels == ("baton:task", "status:pending")
    assert first.body.split("\n\n")[1] == "> Do it."
    assert second.body.split("\n\n")[1] == "*(no description)*"
