"""Who steers an epic and its tasks by comment: a stranger's words are no answer in the
dialogue, and an approver's /skip frees a task blocked by a failed dependency."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from baton.core.model.epic import (
    Breaker,
    TaskStatus,
)
from baton.core.model.record import HumanInput, Record
from baton.sim import payloads
from baton.sim.actions import Actions, Play
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, settings_from
from support.epic_rules import B, conducting, epic, planned, say

NOW = B.dispatched("implementing").at

PLAN = [
    {"key": "base", "title": "The base"},
    {"key": "top", "title": "On top", "depends_on": ["base"]},
]


def _world() -> tuple[SimGitHub, Actions, int]:
    settings = settings_from(Config.model_validate({"epics": {"breaker_threshold": 10}}))
    gh = SimGitHub()
    gh.set_permission("maria", "maintain")

    def agent(number: int, name: str, record: Record | None) -> Play | None:
        if name == "discovery":
            found = record.epic.discovery if record and record.epic else None
            if found is not None and found.turns >= 1:
                return Play({"spec": "The spec.", "categories": ["purpose", "users"]})
            return Play({"questions": ["Why?"], "categories": ["purpose"]})
        if name == "planner":
            return Play({"tasks": PLAN})
        if name == "reviewer":
            return Play({"status": "failure", "issues_found": ["wrong"]})
        return Play({"summary": "done"})

    actions = Actions(gh, settings, agent)
    epic = gh.open_issue("Teams", "Teams please.", author="alice")
    gh.human_label(epic, "baton:epic", by="maria")
    actions.event("issues", payloads.labeled(gh, epic, "baton:epic", sender="maria"))
    return gh, actions, epic


def _say(gh: SimGitHub, actions: Actions, number: int, body: str, who: str) -> None:
    comment = gh.human_comment(number, body, author=who)
    actions.event("issue_comment", payloads.comment_created(gh, comment.id))


def test_a_strangers_reply_is_no_answer_in_the_dialogue() -> None:
    gh, actions, epic = _world()
    _say(gh, actions, epic, "Because I say so.", "mallory")
    record = actions.record(epic)
    assert record is not None and record.epic is not None
    assert record.epic.discovery.turns == 0 and record.epic.discovery.phase == "answering"


def test_an_approver_skips_a_task_blocked_by_a_failed_dependency() -> None:
    gh, actions, epic = _world()
    _say(gh, actions, epic, "To save time.", "alice")
    _say(gh, actions, epic, "approved", "maria")
    actions.drain()
    subs = gh.sub_issues_of(epic)
    base, top = subs
    assert "status:failed" in gh.labels_of(base)
    assert "status:blocked" in gh.labels_of(top)
    _say(gh, actions, top, "/skip", "mallory")
    assert "status:blocked" in gh.labels_of(top)  # a stranger's /skip changes nothing
    _say(gh, actions, top, "/skip", "maria")
    assert "status:skipped" in gh.labels_of(top)


def test_resume_half_opens_the_breaker_and_goes_back_to_implementing() -> None:
    tasks = [planned("a", 10, TaskStatus.completed), planned("b", 11, starts=0)]
    record = conducting("blocked", tasks, breaker=Breaker(state="open", failures=2))
    decision = say(record, "/resume", "maria")
    assert decision.outcome is Outcome.transition
    assert decision.state == "implementing"
    assert epic(decision).breaker.state == "half_open"
    assert decision.notify == (11,)
    assert decision.message and "probe" in decision.message


def test_replan_in_blocked_sends_the_planner() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)])
    decision = say(record, "/replan split it", "maria")
    assert decision.outcome is Outcome.transition
    assert decision.state == "planning"
    assert decision.agent == "planner"


def test_a_strangers_resume_is_refused() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)])
    decision = say(record, "/resume", "bob")
    assert decision.outcome is Outcome.refused
    assert decision.state == "blocked"


def test_an_approval_in_completing_finishes_the_epic() -> None:
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)])
    decision = say(record, "approved", "maria")
    assert (decision.outcome, decision.state) == (Outcome.transition, "done")


def test_continue_in_completing_goes_back_to_implementing_with_the_planner_due() -> None:
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)])
    decision = say(record, "/continue add an export", "maria")
    assert (decision.outcome, decision.state) == (Outcome.transition, "implementing")
    assert decision.agent == "planner"
    assert epic(decision).extension == "add an export"


def test_an_edited_comment_on_an_epic_counts_only_when_the_config_allows_it() -> None:
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)])
    refused_edit = say(record, "approved", "maria", edited=True)
    assert (refused_edit.outcome, refused_edit.state) == (Outcome.ignored, "completing")
    assert refused_edit.reason == "an edited comment does not count (allow_edited_approvals)"

    allowing = B.with_policy(allow_edited_approvals=True)
    counted = allowing.decide(
        record, allowing.commented("approved", "maria", "completing", edited=True)
    )
    assert (counted.outcome, counted.state) == (Outcome.transition, "done")


def test_a_blocked_epic_given_an_approval_or_a_reply_neither_replans_nor_moves() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)])
    approval = say(record, "approved", "maria")
    assert (approval.outcome, approval.state) == (Outcome.refused, "blocked")
    assert "`approve` does nothing while the epic is in blocked" in approval.reason

    reply = say(record, "It is the CSV module.", "alice")
    assert (reply.outcome, reply.state) == (Outcome.noted, "blocked")
    assert reply.record is not None
    assert [x.excerpt for x in reply.record.pending_input] == ["It is the CSV module."]


def test_a_replan_is_a_humans_move_visits_and_budget_counted_afresh() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)]).model_copy(
        update={"visits": {"blocked": 1, "implementing": 4}, "iteration": 6}
    )
    decision = say(record, "/replan split it", "maria")
    assert decision.record is not None
    assert decision.record.visits == {"planning": 1}
    assert decision.record.budget_from == 7
    assert decision.record.history[-1].reason == "replan asked by maria"


def _implementing(**changes: object) -> Record:
    record = conducting("implementing", [planned("a", 10, TaskStatus.in_progress)])
    return record.model_copy(update=changes)


def test_a_comment_already_handled_or_written_before_the_phase_changes_nothing() -> None:
    handled = say(_implementing(last_comment_id=100), "More tests, please.", "alice")
    assert (handled.outcome, handled.reason) == (
        Outcome.ignored,
        "comment 100 was already handled",
    )
    early = say(_implementing(entered_after_comment=100), "More tests, please.", "alice")
    assert (early.outcome, early.reason) == (Outcome.ignored, "comment 100 predates implementing")
    later = say(_implementing(last_comment_id=99, entered_after_comment=99), "More.", "alice")
    assert later.outcome is Outcome.noted

    allowing = B.with_policy(allow_edited_approvals=True)
    edited = allowing.decide(
        _implementing(last_comment_id=100),
        allowing.commented("More tests, please.", "alice", "implementing", edited=True),
    )
    assert edited.outcome is Outcome.noted, "an edit is news even below the floor"


@pytest.mark.parametrize(
    ("state", "body", "by", "reason"),
    [
        pytest.param(
            "completing",
            "approved",
            "bob",
            "refused bob: only approvers can approve here (needs write); nothing changed",
            id="a stranger's approval: the common rule's refusal",
        ),
        pytest.param(
            "blocked",
            "/resume",
            "bob",
            "refused bob: only approvers give the epic's commands",
            id="a stranger's epic command",
        ),
        pytest.param(
            "blocked",
            "/continue more",
            "maria",
            "refused maria: `continue` does nothing while the epic is in blocked",
            id="an epic command out of its phase",
        ),
        pytest.param(
            "implementing",
            "approved",
            "maria",
            "refused maria: `approve` does nothing while the epic is in implementing",
            id="a common command out of its phase",
        ),
    ],
)
def test_commands_the_epic_does_not_take_are_refused_saying_why(
    state: str, body: str, by: str, reason: str
) -> None:
    record = conducting(state, [planned("a", 10, TaskStatus.failed)])
    decision = say(record, body, by)
    assert (decision.outcome, decision.state, decision.reason) == (Outcome.refused, state, reason)


def test_retry_resumes_a_blocked_epic_unless_the_retry_ladder_escalated_it() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)])
    resumed = say(record, "/retry", "maria")
    assert (resumed.state, resumed.reason) == (
        "implementing",
        "blocked → implementing: resumed by maria",
    )

    escalated = say(record.model_copy(update={"escalated_from": "planning"}), "/retry", "maria")
    assert (escalated.state, escalated.agent) == ("planning", "planner")
    assert escalated.reason == "blocked → planning: maria: /retry"


def test_a_reply_is_kept_for_the_next_agent_the_last_five_only() -> None:
    earlier = [
        HumanInput(author="alice", excerpt=f"note {n}", at=NOW, state="implementing")
        for n in range(5)
    ]
    decision = say(_implementing(pending_input=earlier), "More tests, please.", "alice")
    assert decision.reason == "kept the reply of alice for the next agent"
    assert decision.record is not None
    assert [x.excerpt for x in decision.record.pending_input] == [
        "note 1",
        "note 2",
        "note 3",
        "note 4",
        "More tests, please.",
    ]
    stranger = say(_implementing(), "More tests, please.", "bob")
    assert (stranger.outcome, stranger.reason, stranger.record) == (
        Outcome.ignored,
        "bob is not one whose replies are taken",
        None,
    )


def test_the_completed_epics_approval_is_a_humans_move_to_done() -> None:
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)]).model_copy(
        update={"visits": {"completing": 1, "implementing": 3}, "iteration": 4}
    )
    decision = say(record, "approved", "maria")
    assert decision.reason == "completing → done: approved by maria"
    assert decision.record is not None
    last = decision.record.history[-1]
    assert (last.reason, last.actor, last.trigger) == ("approved by maria", "maria", "approval")
    assert decision.record.visits == {"done": 1}
    assert decision.record.budget_from == 5
