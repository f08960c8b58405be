"""Pins the rules of `run.py` that a mutation sample found unprotected (issue 18, item 5): in
a state that converses with its agent (an epic's `discovery` and, since the planner takes
replies, `planning`), a plain reply from someone the config does not name turns on their
permission, so the run looks it up, over real HTTP through `baton run`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner
from baton.core.model.record import Record
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.epic_http import EpicPlayer, Play, latest_record, status_of

PERMISSION = "/repos/octo/demo/collaborators/{}/permission"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        for login, role in {"maria": "maintain", "wendy": "write", "alice": "read"}.items():
            server.set_permission(login, role)
        server.set_permission("bob", "read")
        yield server


def _discovery(number: int, agent: str, record: Record | None) -> Play | None:
    """The discovery agent asks once, then writes the spec; the planner never reports here."""
    if agent != "discovery":
        return None
    asked = record is not None and record.epic is not None and record.epic.discovery.turns > 0
    if asked:
        return Play({"spec": "# Spec\nTeams.", "categories": ["users", "scope"]})
    return Play({"questions": ["Who uses it?"], "categories": ["purpose"]})


def _in_planning(fake: FakeGitHub, tmp_path: Path) -> tuple[ActionRunner, int]:
    """An epic whose specification maria approved: the planner is due, and has not reported."""
    work = tmp_path / "work"
    work.mkdir()
    action = ActionRunner(fake, work)
    player = EpicPlayer(fake, action, _discovery)
    epic = fake.add_issue("Teams and roles", "Let admins create teams.", user="alice")
    fake.label_by(epic, "baton:epic", "maria")
    player.event("issues", payloads.labeled(fake, epic, "baton:epic"))
    answer = fake.add_comment(epic, "Admins and team leads.", user="alice")
    player.event("issue_comment", payloads.comment_created(fake, answer["id"]))
    approved = fake.add_comment(epic, "approved", user="maria")
    player.event("issue_comment", payloads.comment_created(fake, approved["id"]))
    assert status_of(fake, epic) == "status:planning"
    return action, epic


# ~15 s: five CLI runs bring the epic to planning, then one run for each reply.
def test_a_reply_to_an_epic_in_planning_turns_on_the_repliers_looked_up_permission(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    action, epic = _in_planning(fake, tmp_path)
    for who, outcome, reason in [
        ("wendy", "noted", "kept the reply of wendy for the next agent"),
        ("bob", "ignored", "bob is not one whose replies are taken"),
    ]:
        reply = fake.add_comment(epic, f"please split the export task in two ({who})", user=who)
        step = action.run("issue_comment", payloads.comment_created(fake, reply["id"]))
        assert step.returncode == 0, step.stdout + step.stderr
        assert ("GET", PERMISSION.format(who)) in step.calls, "the replier's role was looked up"
        assert (step.decision["outcome"], step.decision["reason"]) == (outcome, reason)
    record = latest_record(fake, epic)
    assert record is not None and record.state == "planning"
    authors = [i.author for i in record.pending_input]
    assert authors[-1] == "wendy" and "bob" not in authors, authors
