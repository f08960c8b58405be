"""`core/model/events.py`: the events a run builds itself (a tick, an agent's report) carry the
id that makes their re-delivery recognisable, and only what the run knows of the issue."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from baton.core.model.agent_result import AgentResult
from baton.core.model.commands import CommentCommand, EpicCommand, EpicVerb, Verb
from baton.core.model.events import Commented, commented, report, tick
from baton.core.model.issue_facts import Actor, IssueInfo

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def test_a_tick_has_no_id_and_knows_only_the_issue_s_number() -> None:
    event = tick(4, NOW)
    assert (event.id, event.issue.number, event.issue.partial, event.at) == ("", 4, True, NOW)
    assert event.actor.is_bot


def test_a_report_s_id_is_its_run_so_a_re_run_of_the_job_is_known() -> None:
    result = AgentResult.model_validate({"status": "success", "confidence": 1.0})
    event = report(
        4, agent="developer", result=result, error=None, now=NOW, run_id="77", state="review"
    )
    assert (event.id, event.run_id, event.state, event.agent) == (
        "report:77",
        "77",
        "review",
        "developer",
    )
    assert event.result == result and event.issue.partial


def test_a_report_without_a_run_has_no_id() -> None:
    event = report(4, agent=None, result=None, error="no result", now=NOW, run_id="")
    assert (event.id, event.error, event.actor.login) == ("", "no result", "baton")


def _comment(body: str, words: tuple[str, ...]) -> Commented:
    return commented(
        id="comment:9",
        issue=IssueInfo(number=4),
        actor=Actor(login="maria"),
        at=NOW,
        comment_id=9,
        body=body,
        approval_words=words,
    )


def test_a_comment_is_made_with_its_commands_read_once_with_the_policys_words() -> None:
    event = _comment("lgtm\n\n/edit shorter", ("lgtm",))
    assert (event.command, event.epic_command) == (
        CommentCommand(Verb.approve),
        EpicCommand(EpicVerb.edit, "shorter"),
    )
    assert _comment("lgtm", ("approved",)).command is None
    assert (event.id, event.comment_id, event.body, event.edited) == (
        "comment:9",
        9,
        "lgtm\n\n/edit shorter",
        False,
    )


def test_a_comment_made_without_its_commands_is_refused() -> None:
    with pytest.raises(ValidationError, match="command"):
        Commented(
            id="comment:9",
            issue=IssueInfo(number=4),
            actor=Actor(login="maria"),
            at=NOW,
            comment_id=9,
            body="approved",
        )
