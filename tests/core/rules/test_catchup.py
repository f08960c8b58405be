"""Catch-up (`core/rules/catchup.py`): which missed human comment a run handles before its
own event."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from baton.core.model.commands import CommentCommand, Verb
from baton.core.model.events import Dispatched, Event, Labeled
from baton.core.model.issue_facts import Actor, Comment, IssueInfo
from baton.core.model.record import Record
from baton.core.rules.catchup import as_event, missed_comment
from baton.workflow.config import Policy
from baton.workflow.model import load_preset

WORKFLOW = load_preset("issue-lifecycle")
WORDS = Policy().approval_words
WAITING = "waiting_for_requirements_clarification"
WORK = "analyzing_requirements"
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
ISSUE = IssueInfo(number=1, author="alice")


def record(state: str = WAITING, **changes: Any) -> Record:
    base = Record(workflow=WORKFLOW.name, issue=1, state=state, entered_at=NOW, revision=2)
    return base.model_copy(update={"last_comment_id": 10, "entered_after_comment": 10, **changes})


def comment(cid: int, body: str = "use commas", author: str = "alice", **kw: Any) -> Comment:
    return Comment(id=cid, author=author, body=body, created_at=NOW, **kw)


def dispatch() -> Event:
    return Dispatched(id="dispatch:5", issue=ISSUE, actor=Actor(login="bot", is_bot=True), at=NOW)


def missed(rec: Record | None, comments: list[Comment], event: Event | None = None) -> Any:
    found = missed_comment(rec, event or dispatch(), tuple(comments), WORKFLOW, Policy())
    return found.comment_id if found else None


@pytest.mark.parametrize(
    ("rec", "comments", "expected"),
    [
        pytest.param(record(), [comment(11)], 11, id="the author's reply while Baton waits"),
        pytest.param(record(), [comment(12), comment(11)], 11, id="the oldest missed one first"),
        pytest.param(record(), [comment(10)], None, id="at the floor: already considered"),
        pytest.param(
            record(last_comment_id=0, entered_after_comment=10),
            [comment(9)],
            None,
            id="written before the state was entered",
        ),
        pytest.param(record(processed=["comment:11"]), [comment(11)], None, id="already processed"),
        pytest.param(record(WORK), [comment(11)], None, id="a reply while an agent works"),
        pytest.param(record(), [comment(11, author="bob")], None, id="a passer-by's remark"),
        pytest.param(
            record(),
            [comment(11, author="bob", association="MEMBER")],
            11,
            id="a member's reply (the decision checks the permission)",
        ),
        pytest.param(
            record(), [comment(11, "approved", author="bob")], 11, id="anyone's command counts"
        ),
        pytest.param(
            record(held=True, escalated_from=WORK),
            [comment(11, "thanks")],
            None,
            id="escalated: a plain reply is not a command",
        ),
        pytest.param(
            record(held=True, escalated_from=WORK),
            [comment(11, "/retry use v2", author="bob")],
            11,
            id="escalated: an escalation command counts",
        ),
        pytest.param(None, [comment(11)], None, id="no record: nothing to catch up"),
    ],
)
def test_the_missed_comment_a_run_handles_first(
    rec: Record | None, comments: list[Comment], expected: int | None
) -> None:
    assert missed(rec, comments) == expected


def test_labels_and_reports_are_never_displaced() -> None:
    labeled = Labeled(
        id="l", issue=ISSUE, actor=Actor(login="maria"), at=NOW, label="x", added=True
    )
    assert missed(record(), [comment(11)], labeled) is None


def test_only_comments_older_than_the_events_own_count() -> None:
    own = as_event(comment(12), dispatch(), WORDS)
    assert missed(record(), [comment(11), comment(13)], own) == 11
    assert missed(record(), [comment(13)], own) is None
    assert missed(record(), [comment(11)], own.model_copy(update={"edited": True})) is None


def test_a_missed_comment_becomes_the_event_of_its_author() -> None:
    event = as_event(comment(11, "approved", association="MEMBER"), dispatch(), WORDS)
    assert (event.id, event.comment_id, event.body) == ("comment:11", 11, "approved")
    assert (event.actor.login, event.actor.association, event.actor.is_bot) == (
        "alice",
        "MEMBER",
        False,
    )
    assert (event.comments_upto, event.run_id, event.at) == (11, "", NOW)
    assert (event.command, event.epic_command) == (CommentCommand(Verb.approve), None)


def test_a_missed_comment_is_read_with_the_policys_approval_words() -> None:
    lgtm = Policy(approval_words=("lgtm",))
    remark = (comment(11, "lgtm", author="bob"),)  # a passer-by's: it counts only as a command
    found = missed_comment(record(), dispatch(), remark, WORKFLOW, lgtm)
    assert found is not None and found.command == CommentCommand(Verb.approve)
    assert missed_comment(record(), dispatch(), remark, WORKFLOW, Policy()) is None


def test_an_owners_reply_is_caught_up() -> None:
    """The repository's owner is trusted like a member: a missed reply is handled first."""
    assert missed(record(), [comment(11, author="bob", association="OWNER")]) == 11


def test_under_answerers_anyone_a_passer_bys_reply_is_caught_up() -> None:
    found = missed_comment(
        record(), dispatch(), (comment(11, author="bob"),), WORKFLOW, Policy(answerers="anyone")
    )
    assert found is not None and found.comment_id == 11
