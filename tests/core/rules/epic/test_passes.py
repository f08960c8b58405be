"""The conductor's passes through `decide` (`rules/epic/passes.py`): the breaker blocking the
epic, every task done moving it to completing, and the epic's pull request."""

from __future__ import annotations

from baton.core.model.decision import Outcome
from baton.core.model.epic import (
    EpicState,
    PlannedTask,
    Spend,
    TaskLink,
    TaskStatus,
)
from baton.core.model.facts import Facts
from baton.core.model.record import Dispatch, Record
from baton.core.rules.epic.phases import epic_of
from baton.workflow.config_model import Budget, Budgets
from support.epic_rules import B, conducting, epic, observed, pass_, planned

NOW = B.dispatched("implementing").at


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
    event, facts = (
        B.dispatched("implementing"),
        Facts(tasks=[observed(10, TaskStatus.completed)], opened=B.opened(42)),
    )
    decision = B.decide(record, event, facts)
    assert decision.state == "completing"
    assert decision.open_pull_request is None
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.pull_request == 42
    assert decision.message and "pull request #42" in decision.message


def test_a_pass_in_implementing_clears_a_pending_dispatch_unless_more_tasks_are_asked() -> None:
    tasks = [planned("a", 10, TaskStatus.in_progress, starts=1), planned("b", 11, starts=0)]
    pending = Dispatch(agent="planner", state="implementing", attempt=1, at=NOW)
    record = conducting("implementing", tasks).model_copy(update={"dispatch": pending})
    decision = pass_(record, [observed(10, TaskStatus.in_progress)])
    assert decision.record is not None and decision.record.dispatch is None
    assert decision.agent is None

    extending = record.model_copy(
        update={"epic": epic_of(record).model_copy(update={"extension": "add an export"})}
    )
    kept = pass_(extending, [observed(10, TaskStatus.in_progress)])
    assert kept.record is not None and kept.record.dispatch is not None
    assert (kept.record.dispatch.agent, kept.record.dispatch.state) == ("planner", "implementing")
    assert kept.agent == "planner"


def test_a_spent_budget_blocks_the_epic_and_the_move_names_the_stop() -> None:
    build = B.with_policy(budgets=Budgets(epic=Budget(agent_runs=3)))
    tasks = [planned("a", 10, TaskStatus.completed), planned("b", 11, starts=0)]
    record = conducting("implementing", tasks).model_copy(update={"spend": Spend(runs=3)})
    event, facts = build.dispatched("implementing"), Facts(tasks=[])
    decision = build.decide(record, event, facts)
    stop = "the budget of this epic is spent: 3 of 3 agent runs"
    assert (decision.outcome, decision.state) == (Outcome.transition, "blocked")
    assert decision.reason.endswith(f"; {stop}")
    assert decision.record is not None
    assert decision.record.history[-1].reason.endswith(f"; {stop}")
    assert epic(decision).budget_stop == stop


def test_the_epics_pull_request_is_asked_for_ready_for_review() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.pending_review, starts=1)])
    decision = pass_(record, [observed(10, TaskStatus.completed)])
    assert decision.open_pull_request is not None
    assert decision.open_pull_request.ready is True


def test_an_epic_pull_request_that_failed_to_open_completes_with_the_problem_told() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.pending_review, starts=1)])
    event, facts = (
        B.dispatched("implementing"),
        Facts(
            tasks=[observed(10, TaskStatus.completed)],
            opened=B.opened(None, "branch protection said no"),
        ),
    )
    decision = B.decide(record, event, facts)
    assert (decision.outcome, decision.state) == (Outcome.transition, "completing")
    assert decision.open_pull_request is None
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.pull_request is None
    assert decision.message is not None
    assert "The work is in the epic's branch." in decision.message
    assert "The pull request could not be opened: branch protection said no" in decision.message


def test_a_plain_pass_starts_the_ready_tasks_and_says_which_without_the_plan() -> None:
    tasks = [planned("a", 10, TaskStatus.in_progress, starts=1), planned("b", 11, starts=0)]
    decision = pass_(conducting("implementing", tasks), [observed(10, TaskStatus.in_progress)])
    assert (decision.outcome, decision.reason) == (Outcome.noted, "the conductor's pass: started b")
    assert (decision.notify, decision.agent, decision.message) == ((11,), None, None)

    still = [planned("a", 10, TaskStatus.in_progress, starts=1)]
    idle = pass_(conducting("implementing", still), [observed(10, TaskStatus.in_progress)])
    assert (idle.outcome, idle.reason) == (Outcome.ignored, "the conductor's pass: nothing changed")


def test_the_breakers_message_offers_a_retry_on_the_failed_tasks_only() -> None:
    tasks = [
        planned("a", 10, TaskStatus.in_progress),
        planned("b", 11, TaskStatus.in_progress),
        planned("c", 12, TaskStatus.completed),
    ]
    failing = [
        observed(10, TaskStatus.failed, link=TaskLink(epic=1, key="a", failures=1, starts_taken=1)),
        observed(11, TaskStatus.failed, link=TaskLink(epic=1, key="b", failures=1, starts_taken=1)),
    ]
    decision = pass_(conducting("implementing", tasks), failing)
    assert decision.reason == "the conductor's pass; the circuit breaker opened"
    assert decision.message is not None
    assert "- on a failed task (#10, #11): `/retry <guidance>`" in decision.message


def _spent(tasks: list[PlannedTask], **epic_fields: object) -> Record:
    record = conducting("implementing", tasks, **epic_fields)
    return record.model_copy(update={"spend": Spend(runs=3)})


def test_a_spent_budget_does_not_block_an_epic_whose_tasks_are_all_done_or_block_it_twice() -> None:
    build = B.with_policy(budgets=Budgets(epic=Budget(agent_runs=3)))
    done = _spent([planned("a", 10, TaskStatus.pending_review, starts=1)])
    finished = build.decide(
        done,
        build.dispatched("implementing"),
        Facts(tasks=[observed(10, TaskStatus.completed)]),
    )
    assert (finished.state, finished.reason) == (
        "completing",
        "the conductor's pass; every task is done",
    )

    tasks = [planned("a", 10, TaskStatus.completed), planned("b", 11, starts=0)]
    again = _spent(tasks, budget_stop="the budget of this epic is spent: 3 of 3 agent runs")
    decision = build.decide(again, build.dispatched("implementing"), Facts(tasks=[]))
    assert (decision.outcome, decision.state) == (Outcome.ignored, "implementing")

    first = build.decide(_spent(tasks), build.dispatched("implementing"), Facts(tasks=[]))
    assert first.message is not None
    assert (
        "the budget of this epic is spent: 3 of 3 agent runs (spent so far: 3 agent runs)."
        in first.message
    )


def test_the_epics_pull_request_is_asked_for_on_the_default_branch_name_when_none_is_kept() -> None:
    found = EpicState(tasks=[planned("a", 10, TaskStatus.pending_review, starts=1)], plan_version=1)
    record = B.record("implementing", dispatch=None, epic=found, work=None)
    decision = pass_(record, [observed(10, TaskStatus.completed)])
    assert decision.open_pull_request is not None
    assert decision.open_pull_request.branch == "baton/issue-1"
    assert decision.open_pull_request.title == "Export as CSV (#1)"


def test_the_opened_epic_pull_request_is_kept_with_its_node_id() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.pending_review, starts=1)])
    event, facts = (
        B.dispatched("implementing"),
        Facts(tasks=[observed(10, TaskStatus.completed)], opened=B.opened(42)),
    )
    decision = B.decide(record, event, facts)
    assert decision.record is not None and decision.record.work is not None
    work = decision.record.work
    assert (work.pull_request, work.pull_request_id) == (42, B.opened(42).node_id)
    assert work.pull_request_id
    assert decision.message is not None
    assert decision.message.startswith("### ✅ All 1 tasks are done")


def test_a_pass_whose_only_change_is_the_cleared_dispatch_still_writes_it() -> None:
    pending = Dispatch(agent="planner", state="implementing", attempt=1, at=NOW)
    record = conducting("implementing", [planned("a", 10, TaskStatus.in_progress, starts=1)])
    decision = pass_(
        record.model_copy(update={"dispatch": pending}), [observed(10, TaskStatus.in_progress)]
    )
    assert decision.outcome is Outcome.noted
    assert decision.record is not None and decision.record.dispatch is None
