"""Who steers an epic and its tasks by comment: a stranger's words are no answer in the
dialogue, and an approver's /skip frees a task blocked by a failed dependency."""

from __future__ import annotations

from baton.core.model.record import Record
from baton.sim import payloads
from baton.sim.actions import Actions, Play
from baton.sim.memory_github import MemoryGitHub
from baton.workflow.config import Config, settings_from

PLAN = [
    {"key": "base", "title": "The base"},
    {"key": "top", "title": "On top", "depends_on": ["base"]},
]


def _world() -> tuple[MemoryGitHub, Actions, int]:
    settings = settings_from(Config.model_validate({"epics": {"breaker_threshold": 10}}))
    gh = MemoryGitHub()
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


def _say(gh: MemoryGitHub, actions: Actions, number: int, body: str, who: str) -> None:
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
