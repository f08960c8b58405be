"""An epic survives what a hostile review threw at it: a run that dies while the plan's
sub-issues are created, and a task's label that lags its record."""

from __future__ import annotations

import contextlib
from datetime import timedelta

from baton.core.model.record import Record
from baton.errors import TrackerError
from baton.sim import payloads
from baton.sim.actions import CHAIN, Actions, Play
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, settings_from


def _world(
    plan: list[dict[str, object]], max_parallel: int = 2, interleave: bool = False
) -> tuple[SimGitHub, Actions, int, dict[str, int]]:
    settings = settings_from(Config.model_validate({"epics": {"max_parallel": max_parallel}}))
    gh = SimGitHub()
    gh.set_permission("maria", "maintain")
    runs = {"planner": 0}

    def agent(number: int, name: str, record: Record | None) -> Play | None:
        if name == "discovery":
            found = record.epic.discovery if record and record.epic else None
            if found is not None and found.turns >= 1:
                return Play({"spec": "S", "categories": ["purpose"]})
            return Play({"questions": ["Why?"], "categories": ["purpose"]})
        if name == "planner":
            runs["planner"] += 1
            return Play({"tasks": plan})
        return None  # the tasks' agents never report: the epic's side is under test

    actions = Actions(gh, settings, agent, interleave=interleave)
    epic = gh.open_issue("Teams", "Teams please.", author="alice")
    gh.human_label(epic, "baton:epic", by="maria")
    actions.event("issues", payloads.labeled(gh, epic, "baton:epic", sender="maria"))
    actions.drain()
    _say(gh, actions, epic, "To save time.", "alice")
    actions.drain()
    return gh, actions, epic, runs


def _say(gh: SimGitHub, actions: Actions, number: int, body: str, who: str) -> None:
    comment = gh.human_comment(number, body, author=who)
    actions.event("issue_comment", payloads.comment_created(gh, comment.id))


PAIR = [{"key": "a", "title": "A"}, {"key": "b", "title": "B"}]


def test_a_run_dying_after_the_sub_issues_are_made_leaves_the_plan_to_finish() -> None:
    gh, actions, epic, runs = _world(PAIR)
    armed = {"created": False}

    def die_after_creating(op: str) -> None:
        if op == "create_tasks":
            armed["created"] = True
        elif armed["created"] and op == "edit_comment":
            armed["created"] = False
            raise TrackerError("the runner died")

    _say(gh, actions, epic, "approved", "maria")  # the planner reports; its plan is recorded
    gh.on_call = die_after_creating
    with contextlib.suppress(TrackerError):
        actions.drain()
    gh.on_call = None
    assert len(gh.sub_issues_of(epic)) == 2  # made, but the record does not know them yet
    gh.now += timedelta(hours=2)
    actions.event("schedule", payloads.schedule("17 * * * *"))
    actions.drain()
    record = actions.record(epic)
    assert record is not None and record.epic is not None
    assert record.state == "implementing"
    assert sorted(t.number for t in record.epic.tasks) == sorted(gh.sub_issues_of(epic))
    assert len(gh.sub_issues_of(epic)) == 2  # adopted, none made twice
    assert runs["planner"] == 1  # the plan was not asked for again


def test_a_task_label_lagging_its_record_never_frees_its_slot() -> None:
    three = [{"key": "a", "title": "A"}, {"key": "b", "title": "B"}, {"key": "c", "title": "C"}]
    gh, actions, epic, _ = _world(three, max_parallel=1, interleave=True)
    _say(gh, actions, epic, "approved", "maria")
    actions.drain()
    first = gh.sub_issues_of(epic)[0]
    started = actions.record(first)
    assert started is not None and started.state == "in_progress"
    gh.set_permission("tina", "triage")
    gh.human_label(first, "status:in-progress", add=False, by="tina")
    gh.human_label(first, "status:pending", by="tina")  # its own run has not come yet
    gh.dispatch(CHAIN, {"issue": str(epic)})
    actions.drain()
    record = actions.record(epic)
    assert record is not None and record.epic is not None
    assert [t.starts for t in record.epic.tasks] == [1, 0, 0]
    active = [
        n
        for n in gh.sub_issues_of(epic)
        if (r := actions.record(n)) is not None and r.state == "in_progress"
    ]
    assert active == [first]
