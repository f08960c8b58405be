"""The repository-wide breaker's two rules, pure: `with_failing` keeps when an issue began
failing, `within_repo_breaker` asks for the count of failing issues and holds an agent's start
at the threshold. Driven directly with a Ctx and a Draft, and once through `decide`."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.facts import Asks, Facts, FailingAsk
from baton.core.model.record import Record
from baton.core.model.work import ChangesetFacts
from baton.core.rules.context import Ctx, Draft, Scene
from baton.core.rules.repo_breaker import with_failing, within_repo_breaker
from baton.workflow.config import RepoBreaker

STATE = "analyzing_requirements"
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the engine conftest's time of every event
ENTERED = NOW - timedelta(hours=1)
Build = Any  # the engine conftest's builder, as its fixtures hand it over
EARLIER = NOW - timedelta(minutes=30)
BREAKER = RepoBreaker(threshold=2, window=timedelta(hours=1), label="api:down")


def ok() -> AgentResult:
    return AgentResult(status="success", confidence=0.9, summary="done")


def failed() -> AgentResult:
    return AgentResult(status="failure", confidence=0.9, summary="the key is exhausted")


def blocked() -> AgentResult:
    return AgentResult(status="blocked", confidence=0.9, summary="waiting")


def _ctx(
    b: Build,
    record: Record,
    event: object,
    failing: int | None = None,
    changeset: ChangesetFacts | None = None,
) -> Ctx:
    facts = Facts(failing_issues=failing, changeset=changeset)
    return Ctx(event=event, workflow=b.workflow, policy=b.policy, record=record, facts=facts)  # type: ignore[arg-type]


def _draft(record: Record | None, **changes: object) -> Draft:
    fields: dict[str, object] = {"outcome": Outcome.transition, "reason": "moved"}
    fields.update(changes)
    return Draft(record=record, **fields)  # type: ignore[arg-type]


# --- with_failing -------------------------------------------------------------------------------
def test_a_failure_marks_the_issue_failing_since_now(lifecycle: Build) -> None:
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, failed()))
    out = with_failing(ctx, _draft(record))
    assert out.record is not None and out.record.failing_since == NOW
    assert record.failing_since is None  # the input is untouched


def test_a_later_failure_keeps_the_first_time(lifecycle: Build) -> None:
    record = lifecycle.record(STATE, failing_since=EARLIER)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, failed()))
    draft = _draft(record)
    out = with_failing(ctx, draft)
    assert out is draft  # nothing to change


def test_the_first_time_comes_from_the_issue_record_not_the_draft(lifecycle: Build) -> None:
    record = lifecycle.record(STATE, failing_since=EARLIER)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, failed()))
    moved = record.model_copy(update={"failing_since": None, "state": "x"})
    out = with_failing(ctx, _draft(moved))
    assert out.record is not None and out.record.failing_since == EARLIER
    assert out.record.state == "x"


def test_an_unreadable_result_counts_as_a_failure(lifecycle: Build) -> None:
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, None))
    out = with_failing(ctx, _draft(record))
    assert out.record is not None and out.record.failing_since == NOW


def test_a_success_clears_it(lifecycle: Build) -> None:
    record = lifecycle.record(STATE, failing_since=EARLIER)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, ok()))
    out = with_failing(ctx, _draft(record))
    assert out.record is not None and out.record.failing_since is None


def test_a_success_on_a_healthy_issue_changes_nothing(lifecycle: Build) -> None:
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, ok()))
    draft = _draft(record)
    assert with_failing(ctx, draft) is draft


@pytest.mark.parametrize("since", [None, EARLIER])
def test_a_blocked_status_leaves_it(lifecycle: Build, since: object) -> None:
    record = lifecycle.record(STATE, failing_since=since)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, blocked()))
    draft = _draft(record)
    assert with_failing(ctx, draft) is draft


def test_a_refused_changeset_counts_as_a_failure(lifecycle: Build) -> None:
    record = lifecycle.record(STATE)
    event = lifecycle.reported(STATE, ok())
    refused = lifecycle.changeset("refused", problems=["a forbidden path"])
    out = with_failing(_ctx(lifecycle, record, event, changeset=refused), _draft(record))
    assert out.record is not None and out.record.failing_since == NOW


@pytest.mark.parametrize("status", ["ok", "stale", "committed", "empty"])
def test_another_changeset_with_a_success_clears_it(lifecycle: Build, status: str) -> None:
    record = lifecycle.record(STATE, failing_since=EARLIER)
    event = lifecycle.reported(STATE, ok())
    changes = lifecycle.changeset(status)
    out = with_failing(_ctx(lifecycle, record, event, changeset=changes), _draft(record))
    assert out.record is not None and out.record.failing_since is None


def test_a_stale_report_changes_nothing(lifecycle: Build) -> None:
    """A report the rules refused or ignored (an old run's) writes no record: nothing to mark."""
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, failed()))
    ignored = _draft(None, outcome=Outcome.ignored, reason="a stale report")
    assert with_failing(ctx, ignored) is ignored
    refused = _draft(record, outcome=Outcome.refused, reason="refused")
    assert with_failing(ctx, refused) is refused


def test_a_stale_report_through_decide_leaves_failing_since(lifecycle: Build) -> None:
    """A failure reported for a state the issue has left marks nothing."""
    record = lifecycle.record(STATE)
    old = lifecycle.reported("received", failed(), agent="pm")
    decision = lifecycle.decide(record, old)
    assert decision.record is None or decision.record.failing_since is None
    fresh = lifecycle.decide(record, lifecycle.reported(STATE, failed()))
    assert fresh.record is not None and fresh.record.failing_since == NOW


@pytest.mark.parametrize("work", ["commit", "open_pull_request", "create_tasks", "merge"])
def test_github_work_first_waits(lifecycle: Build, work: str) -> None:
    """A draft that has GitHub work done first is decided again with the answer: not now."""
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.reported(STATE, failed()))
    draft = _draft(record, **{work: object()})
    assert with_failing(ctx, draft) is draft


def test_not_a_report_changes_nothing(lifecycle: Build) -> None:
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.commented("hello", "maria", STATE))
    draft = _draft(record)
    assert with_failing(ctx, draft) is draft


# --- within_repo_breaker --------------------------------------------------------------------------
def _armed(b: Build) -> Build:
    return b.with_policy(breaker=BREAKER)


def _starting(record: Record | None, **changes: object) -> Draft:
    return _draft(record, agent="analyst", **changes)


def test_no_breaker_configured_changes_nothing(lifecycle: Build) -> None:
    record = lifecycle.record(STATE)
    ctx = _ctx(lifecycle, record, lifecycle.dispatched(STATE))
    draft = _starting(record)
    assert within_repo_breaker(ctx, draft) is draft


def test_a_draft_starting_no_agent_is_left(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.dispatched(STATE))
    draft = _draft(record)
    assert within_repo_breaker(ctx, draft) is draft


def test_an_agent_without_a_count_asks_for_one(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.dispatched(STATE))
    out = within_repo_breaker(ctx, _starting(record))
    assert out == replace(_starting(record), count_failing=True)


def test_through_decide_the_count_is_asked_for(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    decision = b.decide(b.record(STATE), b.dispatched(STATE))
    ask = FailingAsk(label="api:down", since=NOW - timedelta(hours=1), threshold=2)
    assert decision.asks == Asks(failing_issues=ask)
    assert (decision.outcome, decision.record, decision.agent) == (Outcome.ignored, None, None)


@pytest.mark.parametrize("count", [0, 1])
def test_under_the_threshold_it_passes(lifecycle: Build, count: int) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.dispatched(STATE), count)
    draft = _starting(record)
    assert within_repo_breaker(ctx, draft) is draft


@pytest.mark.parametrize("count", [2, 5])
def test_at_the_threshold_the_issue_is_held_and_says_why(lifecycle: Build, count: int) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.dispatched(STATE), count)
    out = within_repo_breaker(ctx, _starting(record, message="before", outcome=Outcome.resume))
    assert out.agent is None and not out.count_failing
    assert out.outcome is Outcome.noted
    assert out.record is not None and out.record.held and out.record.dispatch is None
    assert out.record.escalated_from == STATE
    assert out.reason == f"moved; held: the repository-wide breaker is open ({count} failing)"
    assert out.message is not None and out.message.startswith("before\n\n")
    assert f"{count} open issues labelled `api:down`" in out.message
    assert "within 1:00:00 (the threshold is 2)" in out.message


def test_a_held_transition_stays_a_transition(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    moved = b.record("x_state")
    ctx = _ctx(b, b.record(STATE), b.dispatched(STATE), 2)
    out = within_repo_breaker(ctx, _starting(moved))
    assert out.outcome is Outcome.transition
    assert out.record is not None and out.record.escalated_from == "x_state" and out.record.held
    assert out.message is not None and out.message.startswith("### ⛔")


def test_a_held_draft_without_a_record_holds_the_issues_record(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.dispatched(STATE), 3)
    out = within_repo_breaker(ctx, _starting(None, outcome=Outcome.resume))
    assert out.record is not None and out.record.held and out.record.state == STATE


def test_a_scene_without_a_record_is_left(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    scene = Scene(
        event=b.dispatched(STATE),
        workflow=b.workflow,
        policy=b.policy,
        facts=Facts(failing_issues=3),
    )
    draft = _starting(None)
    assert within_repo_breaker(scene, draft) is draft


def test_through_decide_at_the_threshold_no_agent_starts(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    decision = b.decide(b.record(STATE), b.dispatched(STATE), Facts(failing_issues=2))
    assert decision.agent is None and decision.asks is None
    assert decision.record is not None and decision.record.held


def test_a_maintainers_retry_goes_through_without_a_count(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.commented("/retry the key is renewed", "maria", STATE))
    draft = _starting(record)
    assert within_repo_breaker(ctx, draft) is draft


def test_a_bots_retry_is_no_probe(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.commented("/retry", "dependabot[bot]", STATE))
    assert within_repo_breaker(ctx, _starting(record)).count_failing


def test_another_comment_is_no_probe(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    ctx = _ctx(b, record, b.commented("please retry", "maria", STATE))
    assert within_repo_breaker(ctx, _starting(record)).count_failing


def test_a_successful_report_goes_on(lifecycle: Build) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    draft = _starting(record)
    assert within_repo_breaker(_ctx(b, record, b.reported(STATE, ok()), 9), draft) is draft


@pytest.mark.parametrize("result", [None, "failure", "blocked"])
def test_an_unsuccessful_report_is_counted(lifecycle: Build, result: str | None) -> None:
    b = _armed(lifecycle)
    record = b.record(STATE)
    outcome = None if result is None else AgentResult(status=result, confidence=0.5)
    ctx = _ctx(b, record, b.reported(STATE, outcome))
    assert within_repo_breaker(ctx, _starting(record)).count_failing
