"""Pins the rules of `core/rules/epic/tasks.py` that a mutation sample found unprotected (issue 18,
item 5): only an approver's `/skip` skips a blocked task, and nothing else a human says on a
task (a plain reply, another command, a `/skip` in another state) takes that door; a task
enters only from a keyed order, with its first counters; an order applies only to a task tied
to its epic and not held, and one that neither blocks nor starts moves nothing; the counts the
conductor reads count failures and high-severity ones exactly, and only completion merges."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.epic import MergeFacts, TaskLink, TaskOrder
from baton.core.model.facts import Facts
from baton.workflow.config import Config, settings_from


def _builders() -> Any:
    path = Path(__file__).parent.parent / "conftest.py"
    spec = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


TASK = settings_from(Config.model_validate({})).for_labels(["baton:task"])
BUILD = _builders()
B = BUILD.Build(TASK.workflow, TASK.policy)


@pytest.mark.parametrize(
    ("state", "body", "by", "outcome", "to"),
    [
        pytest.param(
            "blocked", "/skip", "maria", Outcome.transition, "skipped", id="an approvers skip"
        ),
        pytest.param(
            "blocked",
            "it looks stuck to me",
            "maria",
            Outcome.noted,
            "blocked",
            id="a plain reply is kept, it skips nothing",
        ),
        pytest.param(
            "blocked", "/retry", "maria", Outcome.refused, "blocked", id="another command"
        ),
        pytest.param(
            "blocked", "approved", "maria", Outcome.refused, "blocked", id="an approval word"
        ),
        pytest.param("blocked", "/skip", "bob", Outcome.refused, "blocked", id="a strangers skip"),
        pytest.param(
            "pending", "/skip", "maria", Outcome.refused, "pending", id="a skip while pending"
        ),
        pytest.param(
            "in_progress",
            "/skip",
            "maria",
            Outcome.refused,
            "in_progress",
            id="a skip while the developer works",
        ),
    ],
)
def test_only_an_approvers_skip_takes_a_blocked_task_to_skipped(
    state: str, body: str, by: str, outcome: Outcome, to: str
) -> None:
    record = B.record(state, task=TaskLink(epic=9, key="api"))
    decision = B.decide(record, B.commented(body, by, state))
    assert (decision.outcome, decision.state) == (outcome, to)
    skipped = decision.state == "skipped"
    assert (decision.reason == "blocked → skipped: skipped by maria") is skipped
    assert (decision.notify == (9,)) is skipped


def test_a_skipped_blocked_task_records_who_skipped_it_as_a_human_command() -> None:
    record = B.record("blocked", task=TaskLink(epic=9, key="api"))
    decision = B.decide(record, B.commented("/skip", "maria", "blocked"))
    assert decision.record is not None
    entry = decision.record.history[-1]
    assert (entry.from_state, entry.to_state, entry.actor, entry.trigger) == (
        "blocked",
        "skipped",
        "maria",
        "command",
    )
    assert entry.reason == "skipped by maria"
    assert decision.record.budget_from == decision.record.iteration  # a human stepped in


def order(**fields: Any) -> TaskOrder:
    defaults: dict[str, Any] = {
        "epic": 9,
        "key": "api",
        "epic_state": "implementing",
        "known": True,
        "base_branch": "baton/issue-9",
    }
    return TaskOrder(**{**defaults, **fields})


def test_a_task_enters_pending_with_its_first_counters() -> None:
    event, facts = B.dispatched("pending"), Facts(order=order(starts=0))
    decision = B.decide(None, event, facts)
    assert (decision.outcome, decision.state) == (Outcome.transition, "pending")
    record = decision.record
    assert record is not None
    assert (record.visits, record.iteration, record.history[0].iteration) == ({"pending": 1}, 0, 0)
    assert decision.reason == "entered at pending: task api of epic #9"


@pytest.mark.parametrize(
    ("build", "mark"),
    [
        pytest.param(B, None, id="no order read from the issue body"),
        pytest.param(B, order(key=""), id="an order without a key"),
        pytest.param(
            BUILD.Build(settings_from(Config.model_validate({})).workflow),
            order(),
            id="an order on an issue of another workflow",
        ),
    ],
)
def test_only_a_keyed_order_enters_a_task(build: Any, mark: TaskOrder | None) -> None:
    shown = "pending" if build is B else None  # the status label of no state elsewhere
    event, facts = build.dispatched(shown), Facts(order=mark)
    decision = build.decide(None, event, facts)
    assert (decision.outcome, decision.record) == (Outcome.ignored, None)


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"held": True}, id="a held task"),
        pytest.param({"task": None}, id="a task whose record lost its epic"),
        pytest.param(
            {"task": TaskLink(epic=9, key="api", starts_taken=1)}, id="a start already taken"
        ),
    ],
)
def test_an_order_that_does_not_apply_moves_nothing(changes: dict[str, Any]) -> None:
    record = B.record("pending", task=TaskLink(epic=9, key="api")).model_copy(update=changes)
    event, facts = B.dispatched("pending"), Facts(order=order(starts=1))
    decision = B.decide(record, event, facts)
    assert (decision.outcome, decision.state, decision.record) == (
        Outcome.ignored,
        "pending",
        None,
    )


def test_a_started_task_runs_its_developer_from_attempt_one() -> None:
    record = B.record("pending", task=TaskLink(epic=9, key="api"))
    event, facts = B.dispatched("pending"), Facts(order=order(starts=1))
    decision = B.decide(record, event, facts)
    assert decision.record is not None and decision.record.dispatch is not None
    dispatch = decision.record.dispatch
    assert (dispatch.agent, dispatch.state, dispatch.attempt) == ("developer", "in_progress", 1)


def _result(status: str, **fields: Any) -> AgentResult:
    return AgentResult(**{"status": status, "confidence": 0.9, "summary": "done", **fields})


@pytest.mark.parametrize(
    ("state", "attempt", "outcome", "to", "counts"),
    [
        pytest.param(
            "in_progress",
            1,
            _result("success"),
            "pending_review",
            (0, 0, 0),
            id="a developer's success counts nothing",
        ),
        pytest.param(
            "pending_review",
            1,
            _result("failure", severity="high", issues_found=["no tests"]),
            "retry_queued",
            (1, 0, 0),
            id="a rejection retried counts a failure, not a high one",
        ),
        pytest.param(
            "in_progress",
            1,
            _result("blocked"),
            "failed",
            (1, 0, 0),
            id="a developer blocked fails the task, not high",
        ),
        pytest.param(
            "in_progress",
            3,
            None,
            "failed",
            (1, 0, 0),
            id="an unreadable result at the last attempt fails it, not high",
        ),
        pytest.param(
            "pending_review",
            1,
            _result("blocked"),
            "failed",
            (1, 1, 0),
            id="a reviewer blocking it is a high failure",
        ),
    ],
)
def test_the_counts_the_conductor_reads(
    state: str, attempt: int, outcome: AgentResult | None, to: str, counts: tuple[int, ...]
) -> None:
    record = B.record(state, task=TaskLink(epic=9, key="api"), attempt=attempt)
    decision = B.decide(record, B.reported(state, outcome))
    assert decision.state == to
    assert decision.record is not None and decision.record.task is not None
    link = decision.record.task
    assert (link.failures, link.high, link.successes) == counts
    assert decision.notify == (9,)


def test_a_move_short_of_completion_asks_for_no_merge() -> None:
    work = BUILD.work(pull_request=None, base="baton/issue-9")
    record = B.record("in_progress", task=TaskLink(epic=9, key="api"), work=work)
    decision = B.decide(record, B.reported("in_progress", _result("success")))
    assert (decision.state, decision.merge) == ("pending_review", None)


def test_a_completion_without_the_epics_branch_asks_for_no_merge() -> None:
    work = BUILD.work(pull_request=None, base="")
    record = B.record("pending_review", task=TaskLink(epic=9, key="api"), work=work)
    decision = B.decide(record, B.reported("pending_review", _result("success")))
    assert (decision.state, decision.merge) == ("completed", None)


def test_a_merge_conflict_counts_a_failure_for_the_conductor() -> None:
    work = BUILD.work(pull_request=None, base="baton/issue-9")
    link = TaskLink(epic=9, key="api", failures=1, high=1, successes=0)
    record = B.record("pending_review", task=link, work=work)
    event = B.reported("pending_review", _result("success"))
    merge = MergeFacts(status="conflict", detail="a.py")
    decision = B.decide(record, event, Facts(merge=merge))
    assert decision.state == "failed"
    assert decision.record is not None and decision.record.task is not None
    task = decision.record.task
    assert (task.failures, task.high, task.successes) == (2, 1, 0)
    assert decision.reason == (
        "pending_review → failed: the task's branch baton/issue-1 could not be merged into the "
        "epic's branch baton/issue-9: conflict (a.py)"
    )
