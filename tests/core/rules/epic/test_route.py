"""An epic's rules through `decide` (the `feature-epic` preset): the discovery dialogue, the
plan made into sub-issues, the conductor's passes, the breaker, completion.

Settings come from a config as the Action reads it; `for_labels` picks the epic's workflow.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision, Outcome
from baton.core.model.epic import (
    Breaker,
    CreatedTask,
    Discovery,
    EpicState,
    PlannedTask,
    TaskCreationFacts,
    TaskLink,
    TaskObservation,
    TaskSpec,
    TaskStatus,
)
from baton.core.model.record import Record
from baton.core.model.work import Work
from baton.workflow.config import Config, settings_from
from baton.workflow.graph import to_mermaid


def engine_builders() -> Any:
    """`tests/core/rules/conftest.py`, whose `Build` makes the records and events of issue #1."""
    import importlib.util

    path = Path(__file__).parent.parent / "conftest.py"
    spec_ = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    sys.modules[spec_.name] = module
    spec_.loader.exec_module(module)
    return module


SETTINGS = settings_from(
    Config.model_validate(
        {"epics": {"warn_turns": 2, "max_turns": 3, "max_parallel": 2, "breaker_threshold": 2}}
    )
)
EPIC = SETTINGS.for_labels(["baton:epic"])
B = engine_builders().Build(EPIC.workflow, EPIC.policy)
README = Path(__file__).resolve().parents[4] / "README.md"


def result(**fields: Any) -> AgentResult:
    return AgentResult(**{"status": "success", "confidence": 0.9, **fields})


def in_discovery(phase: str, **found: Any) -> Record:
    discovery = Discovery(phase=phase, **found)  # type: ignore[arg-type]
    dispatch = (
        B.record("discovery").dispatch if phase in ("asking", "generating", "editing") else None
    )
    return B.record("discovery", epic=EpicState(discovery=discovery), dispatch=dispatch)


def spec(key: str, *deps: str) -> TaskSpec:
    return TaskSpec(key=key, title=f"Task {key}", depends_on=list(deps))


def planned(
    key: str, number: int, status: TaskStatus = TaskStatus.pending, **more: Any
) -> PlannedTask:
    return PlannedTask(key=key, title=f"Task {key}", number=number, status=status, **more)


def observed(number: int, status: TaskStatus, **more: Any) -> TaskObservation:
    return TaskObservation(number=number, status=status, **more)


def conducting(state: str, tasks: list[PlannedTask], **epic: Any) -> Record:
    return B.record(
        state,
        dispatch=None,
        epic=EpicState(tasks=tasks, plan_version=1, branch="baton/issue-1", **epic),
        work=Work(branch="baton/issue-1"),
    )


def say(record: Record, body: str, by: str, *, comment_id: int = 100, **event: Any) -> Decision:
    return B.decide(record, B.commented(body, by, record.state, comment_id=comment_id, **event))


def epic(decision: Decision) -> EpicState:
    assert decision.record is not None and decision.record.epic is not None
    return decision.record.epic


# --- the dialogue -----------------------------------------------------------------------------
def test_the_agents_questions_wait_for_an_answer() -> None:
    record = in_discovery("asking")
    decision = B.decide(record, B.reported("discovery", result(questions=["Who uses it?"])))
    assert decision.outcome is Outcome.noted
    assert epic(decision).discovery.phase == "answering"
    assert epic(decision).discovery.category == "purpose"
    assert decision.message and "Who uses it?" in decision.message
    assert decision.record.dispatch is None  # type: ignore[union-attr]


def test_an_answer_sends_the_discovery_agent_to_ask_again() -> None:
    decision = say(in_discovery("answering", category="purpose"), "Admins.", "alice")
    assert decision.outcome is Outcome.resume
    assert decision.agent == "discovery"
    found = epic(decision).discovery
    assert (found.phase, found.turns, found.categories_done) == ("asking", 1, ["purpose"])


@pytest.mark.parametrize(
    ("turns", "warned", "phase", "warns"),
    [
        pytest.param(0, False, "asking", False, id="an answer below warn_turns only asks again"),
        pytest.param(1, False, "warned", True, id="the answer reaching warn_turns warns"),
        pytest.param(1, True, "asking", False, id="a warning already given is not given twice"),
    ],
)
def test_the_turn_warning_is_given_exactly_once_at_warn_turns(
    turns: int, warned: bool, phase: str, warns: bool
) -> None:
    record = in_discovery("answering", turns=turns, warned=warned, category="scope")
    decision = say(record, "More detail.", "alice")
    assert epic(decision).discovery.phase == phase
    assert (decision.message is not None and "generate now" in decision.message) is warns
    assert (decision.agent is None) is warns


@pytest.mark.parametrize(
    ("body", "phase", "agent"),
    [
        pytest.param("generate now", "generating", "discovery", id="generate now writes the spec"),
        pytest.param("continue", "asking", "discovery", id="continue asks more questions"),
    ],
)
def test_after_the_warning_the_humans_choose(body: str, phase: str, agent: str) -> None:
    decision = say(in_discovery("warned", turns=2, warned=True), body, "alice")
    assert decision.outcome is Outcome.resume
    assert (epic(decision).discovery.phase, decision.agent) == (phase, agent)


def test_the_answer_reaching_max_turns_forces_generation() -> None:
    record = in_discovery("answering", turns=2, warned=True, category="scope")
    decision = say(record, "Last answer.", "alice")
    assert epic(decision).discovery.phase == "generating"
    assert decision.agent == "discovery"
    assert decision.message and "3 answers, the limit" in decision.message


def test_a_specification_is_presented_for_approval() -> None:
    decision = B.decide(in_discovery("generating"), B.reported("discovery", result(spec="# Spec")))
    found = epic(decision).discovery
    assert (found.phase, found.spec, found.spec_version) == ("presenting", "# Spec", 1)
    assert decision.message and "Specification, version 1" in decision.message


@pytest.mark.parametrize(
    ("body", "by", "outcome", "state", "phase"),
    [
        pytest.param(
            "approved",
            "maria",
            Outcome.transition,
            "planning",
            "presenting",
            id="an approver's approval moves to planning",
        ),
        pytest.param(
            "approved",
            "alice",
            Outcome.refused,
            "discovery",
            "presenting",
            id="the author's approval is refused",
        ),
        pytest.param(
            "/edit rename the page",
            "maria",
            Outcome.resume,
            "discovery",
            "editing",
            id="edit sends the agent to apply minor edits",
        ),
        pytest.param(
            "/revise wrong users",
            "maria",
            Outcome.resume,
            "discovery",
            "asking",
            id="revise sends the agent back to asking",
        ),
        pytest.param(
            "/edit anything",
            "bob",
            Outcome.refused,
            "discovery",
            "presenting",
            id="a strangers command is refused",
        ),
    ],
)
def test_the_presented_specification_takes_only_an_approvers_commands(
    body: str, by: str, outcome: Outcome, state: str, phase: str
) -> None:
    record = in_discovery("presenting", spec="# Spec", spec_version=1)
    decision = say(record, body, by)
    assert decision.outcome is outcome
    assert decision.state == state
    if decision.record is not None and decision.record.epic is not None:
        assert decision.record.epic.discovery.phase == phase
    if outcome is Outcome.transition:
        assert decision.agent == "planner"


# --- planning ---------------------------------------------------------------------------------
def plan_report(specs: list[TaskSpec], **event: Any) -> Any:
    return B.reported("planning", result(tasks=specs), **event)


def test_a_cyclic_plan_is_refused_and_planned_again() -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, plan_report([spec("a", "b"), spec("b", "a")]))
    assert decision.outcome is Outcome.retry
    assert decision.agent == "planner"
    assert epic(decision).plan_problem and "DAG cycle detected" in epic(decision).plan_problem
    assert decision.message and "attempt 2 of 3" in decision.message
    assert decision.create_tasks is None


def test_the_retry_ladder_holds_the_epic_after_the_last_refused_plan() -> None:
    record = B.record("planning", epic=EpicState(), attempt=3)
    decision = B.decide(record, plan_report([spec("a", "a")]))
    assert decision.agent is None
    assert decision.outcome is not Outcome.retry


def test_a_valid_plan_is_recorded_first_and_the_epics_next_run_is_dispatched() -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, plan_report([spec("model"), spec("api", "model")]))
    assert decision.outcome is Outcome.noted
    assert decision.create_tasks is None  # nothing on GitHub before the record holds the plan
    assert [t.key for t in epic(decision).pending_plan] == ["model", "api"]
    assert decision.notify == (record.issue,)
    assert decision.state == "planning" and decision.agent is None


def with_plan(specs: list[TaskSpec]) -> Record:
    return B.record("planning", epic=EpicState(pending_plan=specs))


def test_the_recorded_plan_asks_for_its_sub_issues_first() -> None:
    decision = B.decide(with_plan([spec("model"), spec("api", "model")]), B.dispatched("planning"))
    assert decision.outcome is Outcome.noted
    assert decision.create_tasks is not None
    assert [t.key for t in decision.create_tasks.tasks] == ["model", "api"]
    assert decision.create_tasks.edges == [("api", "model")]
    assert all("baton:task" in t.labels for t in decision.create_tasks.tasks)
    assert decision.state == "planning"


def test_the_planner_s_titles_and_bodies_reach_the_sub_issues_as_data() -> None:
    """A task's title becomes its pull request's title and a squash merge's headline: a
    closing keyword or a mention there must stay text."""
    hostile = TaskSpec(
        key="gh-1",
        title="Fixes #1 for @octo-org/security",
        body="Closes https://github.com/o/r/issues/2, cc @alice",
    )
    decision = B.decide(with_plan([hostile]), B.dispatched("planning"))
    assert decision.create_tasks is not None
    (task,) = decision.create_tasks.tasks
    z = "\u200b"
    assert task.title == f"Fixes #{z}1 for @{z}octo-org/security"
    assert f"> Closes https:{z}//github.com/o/r/issues/{z}2, cc @{z}alice" in task.body
    assert re.findall(r"#\d|@[a-z]|://", task.body) == ["#1"]  # "of epic #1": Baton's own


def test_the_created_sub_issues_move_to_implementing_and_start_the_ready_tasks() -> None:
    specs = [spec("a"), spec("b"), spec("c"), spec("d", "a")]
    created = TaskCreationFacts(
        created=[CreatedTask(key=s.key, number=10 + i) for i, s in enumerate(specs)]
    )
    event = B.dispatched("planning").model_copy(update={"created": created})
    decision = B.decide(with_plan(specs), event)
    assert decision.outcome is Outcome.transition
    assert decision.state == "implementing"
    assert decision.notify == (10, 11)  # two slots (max_parallel), plan order
    assert [t.starts for t in epic(decision).tasks] == [1, 1, 0, 0]
    assert epic(decision).plan_version == 1 and epic(decision).pending_plan == []
    assert decision.message and "The plan: 4 tasks" in decision.message


def test_a_blocked_planner_sends_the_epic_back_to_discovery() -> None:
    record = B.record("planning", epic=EpicState())
    event = B.reported("planning", result(status="blocked", summary="the spec contradicts itself"))
    decision = B.decide(record, event)
    assert decision.outcome is Outcome.transition
    assert decision.state == "discovery"
    assert epic(decision).discovery.phase == "asking"
    assert decision.agent == "discovery"


# --- the conductor ----------------------------------------------------------------------------
def pass_(record: Record, observations: list[TaskObservation]) -> Decision:
    event = B.dispatched(record.state).model_copy(update={"tasks": observations})
    return B.decide(record, event)


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


def test_resume_half_opens_the_breaker_and_goes_back_to_implementing() -> None:
    tasks = [planned("a", 10, TaskStatus.completed), planned("b", 11, starts=0)]
    record = conducting("blocked", tasks, breaker=Breaker(state="open", failures=2))
    decision = say(record, "/resume", "maria")
    assert decision.outcome is Outcome.transition
    assert decision.state == "implementing"
    assert epic(decision).breaker.state == "half_open"
    assert decision.notify == (11,)
    assert decision.message and "probe" in decision.message


def test_replan_in_blocked_sends_the_planner() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)])
    decision = say(record, "/replan split it", "maria")
    assert decision.outcome is Outcome.transition
    assert decision.state == "planning"
    assert decision.agent == "planner"


def test_a_strangers_resume_is_refused() -> None:
    record = conducting("blocked", [planned("a", 10, TaskStatus.failed)])
    decision = say(record, "/resume", "bob")
    assert decision.outcome is Outcome.refused
    assert decision.state == "blocked"


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


def test_an_approval_in_completing_finishes_the_epic() -> None:
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)])
    decision = say(record, "approved", "maria")
    assert (decision.outcome, decision.state) == (Outcome.transition, "done")


def test_continue_in_completing_goes_back_to_implementing_with_the_planner_due() -> None:
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)])
    decision = say(record, "/continue add an export", "maria")
    assert (decision.outcome, decision.state) == (Outcome.transition, "implementing")
    assert decision.agent == "planner"
    assert epic(decision).extension == "add an export"


def test_the_readme_shows_the_generated_feature_epic_diagram() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(
        r"<!-- epic-diagram:start -->\n```mermaid\n(.*?)\n```\n<!-- epic-diagram:end -->",
        text,
        re.S,
    )
    assert match, "the README keeps the epic diagram between its markers"
    assert match.group(1) == to_mermaid(EPIC.workflow), (
        "regenerate it with `baton graph --workflow feature-epic`"
    )
