"""The conductor's passes through `decide` (`rules/epic/passes.py`): the breaker blocking the
epic, every task done moving it to completing, and the epic's pull request."""

from __future__ import annotations

from baton.core.model.decision import Outcome
from baton.core.model.epic import (
    TaskLink,
    TaskStatus,
)
from support.epic_rules import B, conducting, epic, observed, pass_, planned


def test_the_breaker_opening_blocks_the_epic_with_the_options() -> None:
    tasks = [planned("a", 10, TaskStatus.in_progress), planned("b", 11, TaskStatus.in_progress)]
    record = conducting("implementing", tasks)
    failing = [
        observed(10, TaskStatus.failed, link=TaskLink(epic=1, key="a", failures=1, starts_taken=1)),
        observed(11, TaskStatus.failed, link=TaskLink(epic=1, key="b", failures=1, starts_taken=1)),
    ]
    decision = pass_(record, failing)
    assert decision.outcome is Outcome.transition
    assert decision.state == "blocked"
    assert epic(decision).breaker.state == "open"
    assert decision.message and "circuit breaker opened" in decision.message
    assert "/resume" in decision.message and "/replan" in decision.message


def test_every_task_done_moves_to_completing_and_asks_for_the_epic_pull_request_first() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.pending_review, starts=1)])
    decision = pass_(record, [observed(10, TaskStatus.completed)])
    assert decision.outcome is Outcome.transition
    assert decision.state == "completing"
    assert decision.open_pull_request is not None
    assert decision.open_pull_request.branch == "baton/issue-1"
    assert decision.open_pull_request.body.startswith("Closes #1.")


def test_the_opened_epic_pull_request_is_kept_in_the_record() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.pending_review, starts=1)])
    event = B.dispatched("implementing").model_copy(
        update={"tasks": [observed(10, TaskStatus.completed)], "opened": B.opened(42)}
    )
    decision = B.decide(record, event)
    assert decision.state == "completing"
    assert decision.open_pull_request is None
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.pull_request == 42
    assert decision.message and "pull request #42" in decision.message
