"""`decide` asks for the facts it lacks (`core/rules/asking.py`): exactly what the rule turns on,
all at once where they do not depend on each other, and nothing once the facts are in."""

from __future__ import annotations

import importlib.util
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.decision import Decision, Outcome
from baton.core.model.epic import EpicState, TaskOrder
from baton.core.model.events import Lineage
from baton.core.model.facts import NO_FACTS, Asks, Facts, FailingAsk
from baton.core.model.issue_facts import Actor
from baton.core.rules.route import decide
from baton.workflow.config import RepoBreaker
from baton.workflow.model import load_preset


def _builders() -> Any:
    path = Path(__file__).resolve().parent / "conftest.py"
    spec = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


RULES = _builders()
B = RULES.Build(load_preset("issue-lifecycle"))
GATE = "waiting_for_human_input"
LATER = "d" * 40
STRANGER = Actor(login="sam")


def asked(record: Any, event: Any, facts: Facts = NO_FACTS, build: Any = B) -> Asks | None:
    decision = decide(record, event, build.workflow, build.policy, RULES.with_cast(facts))
    if decision.asks is not None:
        assert (decision.outcome, decision.record, decision.labels) == (Outcome.ignored, None, None)
        assert decision.message is None and decision.agent is None and not decision.work_first
    return decision.asks


def _with_pr(state: str) -> Any:
    return B.record(state, work=RULES.work())


def test_a_request_for_changes_asks_for_the_reviews_inline_notes() -> None:
    event = B.reviewed("changes_requested", "maria", "creating_pr", review_id=501)
    assert asked(_with_pr("creating_pr"), event) == Asks(review_notes=(RULES.PR, 501))
    assert asked(_with_pr("creating_pr"), event, Facts(review_notes=[])) is None


def test_failed_checks_on_batons_last_commit_ask_for_the_failing_runs() -> None:
    event = B.checks("creating_pr", "failure")
    assert asked(_with_pr("creating_pr"), event) == Asks(failing_checks=RULES.HEAD)
    assert asked(_with_pr("creating_pr"), event, Facts(failing_checks=[])) is None


def test_an_approval_of_a_later_commit_at_the_gate_asks_for_the_commits_between() -> None:
    event = B.reviewed("approved", "maria", GATE, commit=LATER, review_id=502)
    assert asked(_with_pr(GATE), event) == Asks(lineage=(RULES.HEAD, LATER))
    assert asked(_with_pr(GATE), event, Facts(lineage=Lineage(base=RULES.HEAD))) is None


def test_an_unknown_actor_is_asked_for_with_what_else_the_event_needs_at_once() -> None:
    event = B.reviewed("changes_requested", "maria", GATE, review_id=503)
    event = event.model_copy(update={"actor": STRANGER})
    assert asked(_with_pr(GATE), event) == Asks(actor=STRANGER, review_notes=(RULES.PR, 503))
    looked = Facts(permissions={"sam": "read"}, teams={"sam": ()}, review_notes=[])
    assert asked(_with_pr(GATE), event, looked) is None


def test_a_command_by_an_unknown_actor_asks_who_they_are_and_a_bot_is_never_asked() -> None:
    event = B.commented("approved", "maria", GATE).model_copy(update={"actor": STRANGER})
    assert asked(B.record(GATE), event) == Asks(actor=STRANGER)
    bot = event.model_copy(update={"actor": Actor(login="ci[bot]", is_bot=True)})
    assert asked(B.record(GATE), bot) is None


def test_an_epic_conducting_its_tasks_asks_for_them() -> None:
    settings = RULES.Build(load_preset("feature-epic"))
    record = settings.record("implementing", epic=EpicState())
    tick = settings.tick("implementing", after=timedelta(minutes=5))
    assert asked(record, tick, build=settings) == Asks(tasks=True)
    assert asked(record, tick, Facts(tasks=[]), build=settings) is None


def test_a_task_woken_while_waiting_for_its_epic_asks_for_its_order() -> None:
    tasks = RULES.Build(load_preset("epic-task"))
    woken = tasks.dispatched("pending")
    assert asked(None, woken, build=tasks) == Asks(order=True)
    order = TaskOrder(epic=9, epic_state="implementing", known=True)
    assert asked(None, woken, Facts(order=order), build=tasks) is None
    assert asked(None, woken, Facts(orderless=True), build=tasks) is None, "no epic's: asked once"


def test_an_agent_due_under_the_repository_breaker_asks_for_the_failing_issues() -> None:
    breaker = RepoBreaker(threshold=2, window=timedelta(hours=1), label="api:down")
    armed = B.with_policy(breaker=breaker)
    event = armed.dispatched("analyzing_requirements")
    since = RULES.NOW - timedelta(hours=1)
    want = Asks(failing_issues=FailingAsk(label="api:down", since=since, threshold=2))
    assert asked(armed.record("analyzing_requirements"), event, build=armed) == want
    looked = Facts(failing_issues=0)
    assert asked(armed.record("analyzing_requirements"), event, looked, build=armed) is None


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(B.reviewed("approved", "maria", "creating_pr"), id="of Baton's last commit"),
        pytest.param(B.reviewed("commented", "maria", "creating_pr"), id="a plain review"),
        pytest.param(
            B.reviewed("changes_requested", "maria", "creating_pr", pull_request=99),
            id="another pull request",
        ),
        pytest.param(B.checks("creating_pr", "success"), id="passing checks"),
        pytest.param(B.checks("creating_pr", "failure", head="e" * 40), id="an older head"),
        pytest.param(B.commented("hello", "maria", "creating_pr"), id="a known human's chat"),
    ],
)
def test_nothing_is_asked_for_what_the_rules_do_not_turn_on(event: Any) -> None:
    assert asked(_with_pr("creating_pr"), event) is None


def test_no_pull_request_or_head_recorded_asks_nothing_of_a_review() -> None:
    event = B.reviewed("changes_requested", "maria", "creating_pr")
    assert asked(B.record("creating_pr"), event) is None
    assert asked(None, event) is None


def test_a_reply_at_the_gate_by_an_unknown_actor_asks_who_they_are_only_on_a_record() -> None:
    """The record says the issue waits for an answer; with none, a plain comment is nothing."""
    event = B.commented("The CSV should have a header row.", "maria", GATE)
    event = event.model_copy(update={"actor": STRANGER})
    assert asked(B.record(GATE), event) == Asks(actor=STRANGER)
    assert asked(None, event) is None


def test_a_pull_request_recorded_without_a_head_still_has_its_review_read() -> None:
    event = B.reviewed("changes_requested", "maria", "creating_pr", review_id=504)
    record = B.record("creating_pr", work=RULES.work(head="", commits=[]))
    assert asked(record, event) == Asks(review_notes=(RULES.PR, 504))


def test_a_head_recorded_without_a_pull_request_still_has_its_failing_checks_read() -> None:
    record = B.record("creating_pr", work=RULES.work(pull_request=None))
    assert asked(record, B.checks("creating_pr", "failure")) == Asks(failing_checks=RULES.HEAD)


def test_the_decision_that_asks_names_its_event_and_writes_nothing() -> None:
    event = B.commented("approved", "maria", GATE).model_copy(update={"actor": STRANGER})
    decision = decide(B.record(GATE), event, B.workflow, B.policy)
    assert decision == Decision(
        outcome=Outcome.ignored,
        issue=event.issue.number,
        reason="asks for the permission of sam",
        event="comment",
        event_id=event.id,
        asks=Asks(actor=STRANGER),
    )
