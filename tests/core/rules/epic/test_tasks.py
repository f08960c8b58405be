"""A task sub-issue's rules tied to its epic (the `epic-task` preset, and `epic-task-test-first`
read through what its states count as) through `decide`: its entry from its order, starts
ordered by the epic, blocks, the counts, the epic notified, the merge."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.epic import MergeFacts, TaskLink, TaskOrder
from baton.core.model.evidence import RedProof, SignedOff, SignOff, TestsRecord
from baton.core.model.facts import Facts
from baton.core.model.record import Record
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
B = _builders().Build(TASK.workflow, TASK.policy)
EPIC_BRANCH = "baton/issue-9"


def order(**fields: Any) -> TaskOrder:
    defaults: dict[str, Any] = {
        "epic": 9,
        "key": "api",
        "epic_state": "implementing",
        "known": True,
        "base_branch": EPIC_BRANCH,
    }
    return TaskOrder(**{**defaults, **fields})


def task(state: str, *, work: Any = None, **link: Any) -> Record:
    return B.record(state, task=TaskLink(epic=9, key="api", **link), work=work)


def result(**fields: Any) -> AgentResult:
    return AgentResult(**{"status": "success", "confidence": 0.9, **fields})


def test_a_sub_issue_with_a_keyed_order_enters_pending_tied_to_its_epic() -> None:
    event, facts = B.dispatched("pending"), Facts(order=order(starts=0))
    decision = B.decide(None, event, facts)
    assert (decision.outcome, decision.state) == (Outcome.transition, "pending")
    assert decision.record is not None and decision.record.task == TaskLink(epic=9, key="api")


@pytest.mark.parametrize(
    ("starts", "taken", "epic_state", "starts_it"),
    [
        pytest.param(1, 0, "implementing", True, id="a new start order starts the task"),
        pytest.param(1, 1, "implementing", False, id="a start already taken starts nothing"),
        pytest.param(2, 1, "blocked", False, id="a blocked epic starts nothing"),
        pytest.param(0, 0, "implementing", False, id="no start order starts nothing"),
    ],
)
def test_a_pending_task_starts_only_on_a_new_order_while_its_epic_implements(
    starts: int, taken: int, epic_state: str, starts_it: bool
) -> None:
    event, facts = B.dispatched("pending"), Facts(order=order(starts=starts, epic_state=epic_state))
    decision = B.decide(task("pending", starts_taken=taken), event, facts)
    assert (decision.state == "in_progress") is starts_it
    if starts_it:
        assert decision.agent == "developer"
        assert decision.record is not None and decision.record.task is not None
        assert decision.record.task.starts_taken == starts
        assert decision.record.work is not None and decision.record.work.base == EPIC_BRANCH
        assert decision.notify == (9,)


@pytest.mark.parametrize(
    ("state", "block", "to"),
    [
        pytest.param("pending", True, "blocked", id="a failed dependency blocks a pending task"),
        pytest.param("blocked", False, "pending", id="a lifted block sends it back to pending"),
    ],
)
def test_the_epics_block_is_applied_and_lifted(state: str, block: bool, to: str) -> None:
    event, facts = B.dispatched(state), Facts(order=order(block=block))
    decision = B.decide(task(state), event, facts)
    assert (decision.outcome, decision.state) == (Outcome.transition, to)
    assert 9 in decision.notify


def test_a_rejected_review_counts_a_failure_and_notifies_the_epic() -> None:
    event = B.reported("pending_review", result(status="failure", issues_found=["no tests"]))
    decision = B.decide(task("pending_review"), event)
    assert decision.state == "retry_queued"
    assert decision.record is not None and decision.record.task is not None
    assert decision.record.task.failures == 1
    assert decision.notify == (9,)


def test_a_blocked_review_counts_a_high_severity_failure() -> None:
    event = B.reported("pending_review", result(status="blocked", summary="unsafe"))
    decision = B.decide(task("pending_review"), event)
    assert decision.state == "failed"
    assert decision.record is not None and decision.record.task is not None
    assert (decision.record.task.failures, decision.record.task.high) == (1, 1)


def test_an_approved_review_without_commits_completes_and_counts_a_success() -> None:
    decision = B.decide(task("pending_review"), B.reported("pending_review", result()))
    assert decision.state == "completed"
    assert decision.merge is None
    assert decision.record is not None and decision.record.task is not None
    assert decision.record.task.successes == 1
    assert decision.notify == (9,)


def test_completion_with_commits_asks_for_the_merge_into_the_epics_branch_first() -> None:
    record = task("pending_review", work=B.work(pull_request=None, base=EPIC_BRANCH))
    decision = B.decide(record, B.reported("pending_review", result()))
    assert decision.merge is not None
    assert (decision.merge.base, decision.merge.head) == (EPIC_BRANCH, "baton/issue-1")


def test_the_merge_commit_names_the_task_and_holds_its_key_as_data() -> None:
    """The key is the planner's: `gh-1` in a commit message would reference issue 1."""
    work = B.work(pull_request=None, base=EPIC_BRANCH)
    record = B.record("pending_review", task=TaskLink(epic=9, key="gh-1"), work=work)
    decision = B.decide(record, B.reported("pending_review", result()))
    assert decision.merge is not None
    assert decision.merge.message == f"Merge task #1 (gh\u200b-1) into {EPIC_BRANCH}"


def test_a_merge_conflict_fails_the_task_and_says_so() -> None:
    record = task("pending_review", work=B.work(pull_request=None, base=EPIC_BRANCH))
    event = B.reported("pending_review", result())
    decision = B.decide(record, event, Facts(merge=MergeFacts(status="conflict")))
    assert (decision.outcome, decision.state) == (Outcome.transition, "failed")
    assert decision.message and "could not be merged" in decision.message
    assert decision.notify == (9,)


# --- epic-task-test-first: each state read as the task status it counts as --------------------
FIRST = settings_from(
    Config.model_validate({"epics": {"task_workflow": "epic-task-test-first"}})
).for_labels(["baton:task"])
F = _builders().Build(FIRST.workflow, FIRST.policy)


def first(state: str, **changes: Any) -> Record:
    return F.record(state, task=TaskLink(epic=9, key="api"), **changes)


def test_a_tests_first_task_s_start_goes_to_its_tester_first() -> None:
    event, ordered = F.dispatched("pending"), Facts(order=order(starts=1))
    decision = F.decide(first("pending"), event, ordered)
    assert (decision.state, decision.agent) == ("writing_tests", "tester")
    assert decision.reason == "pending → writing_tests: selected by the epic's conductor"
    assert decision.record is not None and decision.record.work is not None
    assert (decision.record.work.base, decision.record.work.created) == (EPIC_BRANCH, True)


def test_a_tests_first_task_restarted_after_its_sign_off_resumes_with_its_code() -> None:
    """Its tests are frozen: a tester run again would have to prove them red once more."""
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    proof = RedProof(commit="b" * 40, sets=SignedOff(fail_to_pass=("t::a",)), at=now)
    tests = TestsRecord(signed=SignOff(proof=proof, by="maria", at=now))
    event, ordered = F.dispatched("pending"), Facts(order=order(starts=2))
    decision = F.decide(first("pending", tests=tests), event, ordered)
    assert (decision.state, decision.agent) == ("in_progress", "developer")


@pytest.mark.parametrize(
    ("state", "status", "to"),
    [
        pytest.param("proving", "failure", "retry_queued", id="failing tests"),
        pytest.param("writing_tests", "blocked", "failed", id="the tester blocked"),
        pytest.param("in_progress", "blocked", "failed", id="the developer blocked"),
    ],
)
def test_a_tests_first_attempt_that_fails_counts_a_failure_for_the_breaker(
    state: str, status: str, to: str
) -> None:
    decision = F.decide(first(state), F.reported(state, result(status=status)))
    assert decision.state == to
    assert decision.record is not None and decision.record.task is not None
    assert decision.record.task.failures == 1
    assert decision.notify == (9,)


def test_a_human_s_approval_at_tests_review_sends_the_task_to_its_developer() -> None:
    record = first("tests_review", dispatch=None)
    decision = F.decide(record, F.commented("approved", "maria", "tests_review"))
    assert (decision.state, decision.agent) == ("in_progress", "developer")
    assert decision.record is not None and decision.record.task is not None
    assert decision.record.task.failures == 0


def test_a_tests_first_task_s_green_and_approved_review_completes_with_its_merge() -> None:
    passed = F.decide(first("proving"), F.reported("proving", result()))
    assert (passed.state, passed.agent) == ("pending_review", "reviewer")
    record = first("pending_review", work=F.work(pull_request=None, base=EPIC_BRANCH))
    decision = F.decide(record, F.reported("pending_review", result()))
    assert decision.merge is not None and decision.merge.base == EPIC_BRANCH
