"""Pins the rules of `core/rules/epic/route.py` that a mutation sample found unprotected (issue 18,
item 5): which report is stale, when a dispatched run starts the epic's agent, when a conductor
pass changes nothing, whether a held epic starts tasks, how the 100-sub-issue limit counts
an extension's plan, and what the discovery and planning agents are told when they run again."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision, Outcome
from baton.core.model.epic import (
    CreatedTask,
    Discovery,
    EpicState,
    PlannedTask,
    TaskCreationFacts,
    TaskObservation,
    TaskSpec,
    TaskStatus,
)
from baton.core.model.facts import Facts
from baton.core.model.record import Dispatch, Record
from baton.core.model.work import Work
from baton.workflow.config import Config, settings_from


def _builders() -> Any:
    path = Path(__file__).parent.parent / "conftest.py"
    spec_ = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    sys.modules[spec_.name] = module
    spec_.loader.exec_module(module)
    return module


_BUILD = _builders()
EPIC = settings_from(Config.model_validate({"epics": {"max_parallel": 2}})).for_labels(
    ["baton:epic"]
)
B = _BUILD.Build(EPIC.workflow, EPIC.policy)
ENTERED = _BUILD.ENTERED
LIMIT = "the epic would have more than 100 sub-issues (GitHub's limit)"


def result(**fields: Any) -> AgentResult:
    return AgentResult(**{"status": "success", "confidence": 0.9, **fields})


def spec(key: str) -> TaskSpec:
    return TaskSpec(key=key, title=f"Task {key}")


def planned(key: str, number: int, status: TaskStatus = TaskStatus.pending, **more: Any) -> Any:
    return PlannedTask(key=key, title=f"Task {key}", number=number, status=status, **more)


def due(agent: str, state: str) -> Dispatch:
    return Dispatch(agent=agent, state=state, attempt=1, at=ENTERED)


def conducting(state: str, tasks: list[PlannedTask], **record: Any) -> Record:
    epic = EpicState(tasks=tasks, plan_version=1, branch="baton/issue-1")
    changes: dict[str, Any] = {"dispatch": None, "epic": epic, "work": Work(branch="baton/issue-1")}
    return B.record(state, **{**changes, **record})


def pass_(record: Record, observations: list[TaskObservation]) -> Decision:
    event, facts = B.dispatched(record.state), Facts(tasks=observations)
    return B.decide(record, event, facts)


# --- stale reports ------------------------------------------------------------------------
def _asking() -> EpicState:
    return EpicState(discovery=Discovery(phase="answering", category="purpose"))


@pytest.mark.parametrize(
    ("record", "report", "why"),
    [
        pytest.param(
            B.record("discovery", epic=_asking(), dispatch=None),
            B.reported("discovery", result(questions=["Who?"])),
            "stale report: discovery is not waiting on an agent",
            id="no agent was dispatched",
        ),
        pytest.param(
            B.record("planning", epic=EpicState(), dispatch=due("planner", "discovery")),
            B.reported("planning", result(tasks=[spec("a")])),
            "stale report: planning is not waiting on an agent",
            id="the dispatch was for another state",
        ),
        pytest.param(
            B.record("planning", epic=EpicState(), held=True),
            B.reported("planning", result(tasks=[spec("a")])),
            "stale report: planning is not waiting on an agent",
            id="the epic is held for a human",
        ),
        pytest.param(
            B.record("planning", epic=EpicState()),
            B.reported("discovery", result(spec="# Spec"), agent="planner"),
            "stale report: the report is for discovery, but the epic is in planning",
            id="the report names another state",
        ),
        pytest.param(
            B.record("planning", epic=EpicState()),
            B.reported("planning", result(tasks=[spec("a")]), agent="discovery"),
            "stale report: the report is from discovery, but planning waits on the planner",
            id="the report is from another agent",
        ),
    ],
)
def test_a_report_the_epic_is_not_waiting_for_is_refused_and_remembered(
    record: Record, report: Any, why: str
) -> None:
    decision = B.decide(record, report)
    assert (decision.outcome, decision.reason) == (Outcome.refused, why)
    assert decision.agent is None
    assert decision.record is not None and report.id in decision.record.processed
    assert decision.record.epic == record.epic  # nothing of the report was taken


def test_a_report_the_epic_waits_for_is_taken() -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, B.reported("planning", result(tasks=[spec("a")])))
    assert decision.outcome is Outcome.noted
    assert decision.record is not None and decision.record.epic is not None
    assert [t.key for t in decision.record.epic.pending_plan] == ["a"]


# --- a dispatched run ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("held", "outcome", "agent", "why"),
    [
        pytest.param(
            False, Outcome.resume, "planner", "planning is due: run the planner", id="due"
        ),
        pytest.param(True, Outcome.ignored, None, "nothing to run in planning", id="held"),
    ],
)
def test_a_dispatched_run_starts_the_epics_agent_only_when_it_is_due_and_not_held(
    held: bool, outcome: Outcome, agent: str | None, why: str
) -> None:
    record = B.record("planning", epic=EpicState(), held=held)
    decision = B.decide(record, B.dispatched("planning"))
    assert (decision.outcome, decision.agent, decision.reason) == (outcome, agent, why)
    assert decision.record is None


def test_a_dispatched_run_on_a_closed_epic_starts_nothing() -> None:
    record = B.record("planning", epic=EpicState())
    event = B.dispatched("planning")
    event = event.model_copy(update={"issue": event.issue.model_copy(update={"state": "closed"})})
    decision = B.decide(record, event)
    assert (decision.outcome, decision.agent) == (Outcome.ignored, None)


# --- the conductor's pass -----------------------------------------------------------------
def test_a_conductor_pass_that_changes_nothing_writes_nothing() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.in_progress, starts=1)])
    decision = pass_(record, [TaskObservation(number=10, status=TaskStatus.in_progress)])
    assert (decision.outcome, decision.reason) == (
        Outcome.ignored,
        "the conductor's pass: nothing changed",
    )
    assert decision.record is None and decision.message is None and decision.notify == ()


def test_a_conductor_pass_that_sees_a_task_move_records_it() -> None:
    record = conducting("implementing", [planned("a", 10, TaskStatus.in_progress, starts=1)])
    decision = pass_(record, [TaskObservation(number=10, status=TaskStatus.pending_review)])
    assert (decision.outcome, decision.reason) == (Outcome.noted, "the conductor's pass")
    assert decision.record is not None and decision.record.epic is not None
    assert [t.status for t in decision.record.epic.tasks] == [TaskStatus.pending_review]
    assert decision.record.revision == record.revision + 1


@pytest.mark.parametrize(
    ("held", "notify", "starts"),
    [
        pytest.param(False, (10,), 1, id="an epic at work starts its ready task"),
        pytest.param(True, (), 0, id="a held epic starts none"),
    ],
)
def test_only_an_epic_not_held_starts_its_ready_tasks(
    held: bool, notify: tuple[int, ...], starts: int
) -> None:
    record = conducting("implementing", [planned("a", 10, starts=0)], held=held)
    decision = pass_(record, [TaskObservation(number=10, status=TaskStatus.pending)])
    assert decision.notify == notify
    epic = (decision.record or record).epic
    assert epic is not None and epic.tasks[0].starts == starts


# --- GitHub's limit of 100 sub-issues -----------------------------------------------------
def extending(live: int) -> Record:
    """An epic in implementing after `/continue`, `live` sub-issues done, the planner due."""
    tasks = [planned(f"t{i}", 100 + i, TaskStatus.completed) for i in range(live)]
    record = conducting("implementing", tasks, dispatch=due("planner", "implementing"))
    assert record.epic is not None
    return record.model_copy(
        update={"epic": record.epic.model_copy(update={"extension": "add an export"})}
    )


@pytest.mark.parametrize(
    ("live", "added", "refused"),
    [
        pytest.param(98, 2, False, id="98 plus 2 makes 100, the limit"),
        pytest.param(99, 2, True, id="99 plus 2 makes 101"),
        pytest.param(100, 1, True, id="100 plus 1 makes 101"),
    ],
)
def test_an_extension_counts_its_new_tasks_against_githubs_limit(
    live: int, added: int, refused: bool
) -> None:
    report = B.reported(
        "implementing", result(tasks=[spec(f"n{i}") for i in range(added)]), agent="planner"
    )
    decision = B.decide(extending(live), report)
    assert decision.record is not None and decision.record.epic is not None
    epic = decision.record.epic
    if refused:
        assert decision.outcome is Outcome.retry
        assert (epic.plan_problem, epic.pending_plan) == (LIMIT, [])
        assert decision.record.feedback == [LIMIT]
    else:
        assert decision.outcome is Outcome.noted
        assert epic.plan_problem is None and len(epic.pending_plan) == added


def test_a_replan_that_would_create_a_101st_sub_issue_is_refused() -> None:
    tasks = [planned(f"t{i}", 100 + i, TaskStatus.completed) for i in range(100)]
    record = conducting("planning", tasks, dispatch=due("planner", "planning"))
    decision = B.decide(record, B.reported("planning", result(tasks=[spec("more")])))
    assert decision.record is not None and decision.record.epic is not None
    assert decision.record.epic.plan_problem == LIMIT


def test_a_replan_within_githubs_limit_counting_the_replaced_sub_issues_goes_on() -> None:
    tasks = [planned(f"t{i}", 100 + i, TaskStatus.completed) for i in range(99)]
    record = conducting("planning", tasks, dispatch=due("planner", "planning"))
    decision = B.decide(record, B.reported("planning", result(tasks=[spec("more")])))
    assert decision.record is not None and decision.record.epic is not None
    assert decision.record.epic.plan_problem is None
    assert [s.key for s in decision.record.epic.pending_plan] == ["more"]


# --- what the epic's agents are told, and when they run -------------------------------------
def test_an_unreadable_report_retries_with_the_reason_it_was_unreadable() -> None:
    record = B.record("planning", epic=EpicState())
    decision = B.decide(record, B.reported("planning", None, error="the result is not JSON"))
    assert decision.outcome is Outcome.retry
    assert decision.record is not None
    assert decision.record.feedback == ["the result is not JSON"]


def test_the_discovery_agents_questions_are_kept_clipped_to_500_characters() -> None:
    record = B.record("discovery", epic=EpicState(discovery=Discovery(phase="asking")))
    decision = B.decide(record, B.reported("discovery", result(questions=["q" * 600])))
    assert decision.record is not None
    assert decision.record.open_questions == ["q" * 499 + "…"]


def test_a_discovery_report_with_nothing_in_it_names_the_categories_left() -> None:
    found = Discovery(phase="asking", categories_done=["purpose"])
    record = B.record("discovery", epic=EpicState(discovery=found))
    decision = B.decide(record, B.reported("discovery", result(summary="hmm")))
    assert decision.outcome is Outcome.retry
    assert decision.record is not None
    assert decision.record.feedback == [
        "the discovery returned neither questions nor a specification: "
        "ask about users, scope, constraints, edge_cases"
    ]


def test_an_answer_runs_the_discovery_agent_from_attempt_one() -> None:
    found = Discovery(phase="answering", category="purpose")
    record = B.record("discovery", epic=EpicState(discovery=found), dispatch=None, attempt=2)
    decision = B.decide(record, B.commented("Admins.", "alice", "discovery"))
    assert decision.outcome is Outcome.resume
    assert decision.record is not None and decision.record.dispatch is not None
    dispatch = decision.record.dispatch
    assert (dispatch.agent, dispatch.state, dispatch.attempt) == ("discovery", "discovery", 1)
    assert decision.record.attempt == 1


def test_sub_issues_github_did_not_create_refuse_the_plan_naming_them() -> None:
    record = B.record("planning", epic=EpicState(pending_plan=[spec("a"), spec("b")]))
    created = TaskCreationFacts(created=[CreatedTask(key="a", number=10)])
    event, facts = B.dispatched("planning"), Facts(created=created)
    decision = B.decide(record, event, facts)
    assert decision.outcome is Outcome.retry
    assert decision.record is not None and decision.record.epic is not None
    assert decision.record.epic.plan_problem == "GitHub did not create the sub-issues of b"
    assert decision.record.epic.tasks == [] and decision.record.epic.pending_plan == []


def test_a_plan_refused_at_the_last_attempt_hands_over_with_the_escalation_message() -> None:
    record = B.record("planning", epic=EpicState(), attempt=3)
    decision = B.decide(record, B.reported("planning", result(tasks=[spec("a"), spec("a")])))
    assert (decision.outcome, decision.state) == (Outcome.transition, "blocked")
    assert decision.message is not None
    assert decision.message.startswith("### 🚨 A human decision is needed (`planning`)")
    assert "/replan" in decision.message


# --- what a human says to an epic ------------------------------------------------------------
def _discovery(phase: str, **found: Any) -> Record:
    return B.record("discovery", epic=EpicState(discovery=Discovery(phase=phase, **found)))


def _say(record: Record, body: str, by: str) -> Decision:
    return B.decide(record, B.commented(body, by, record.state))


PRESENTING = {"spec": "# Spec", "spec_version": 1}


@pytest.mark.parametrize(
    ("record", "body", "by", "outcome", "reason"),
    [
        pytest.param(
            conducting("completing", [planned("a", 10, TaskStatus.completed)]),
            "/resume",
            "maria",
            Outcome.refused,
            "refused maria: `resume` does nothing while the epic is in completing",
            id="a command that does nothing in completing is refused",
        ),
        pytest.param(
            _discovery("presenting", **PRESENTING),
            "generate now",
            "maria",
            Outcome.refused,
            "refused maria: the specification waits for approval, `/edit` or `/revise`",
            id="generate now while the spec is presented is refused",
        ),
        pytest.param(
            _discovery("presenting", **PRESENTING),
            "rename the page",
            "maria",
            Outcome.resume,
            "the discovery goes on: maria's reply is taken as minor edits",
            id="an approver's plain reply to the spec is taken as minor edits",
        ),
        pytest.param(
            _discovery("presenting", **PRESENTING),
            "rename the page",
            "alice",
            Outcome.noted,
            "kept the reply of alice for the next revision",
            id="the author's plain reply to the spec waits for the next revision",
        ),
        pytest.param(
            _discovery("warned", turns=2, warned=True, category="scope"),
            "Teams of ten.",
            "alice",
            Outcome.resume,
            "the discovery goes on: answer 3 from alice",
            id="a plain answer after the warning is one more answer",
        ),
        pytest.param(
            _discovery("asking"),
            "also admins",
            "alice",
            Outcome.noted,
            "kept the reply of alice for the discovery agent",
            id="a reply while the discovery agent asks is kept for it",
        ),
    ],
)
def test_what_a_human_says_to_an_epic(
    record: Record, body: str, by: str, outcome: Outcome, reason: str
) -> None:
    decision = _say(record, body, by)
    assert (decision.outcome, decision.reason) == (outcome, reason)


def test_an_approved_specification_counts_the_limits_afresh() -> None:
    decision = _say(_discovery("presenting", **PRESENTING), "approved", "maria")
    assert decision.state == "planning" and decision.record is not None
    assert decision.record.budget_from == decision.record.iteration == 2
    assert decision.record.visits == {"planning": 1}


def test_long_requests_are_kept_clipped_to_2000_characters() -> None:
    edited = _say(_discovery("presenting", **PRESENTING), "x" * 2500, "maria")
    assert edited.record is not None and edited.record.epic is not None
    assert edited.record.epic.discovery.request == "x" * 1999 + "…"
    record = conducting("completing", [planned("a", 10, TaskStatus.completed)])
    more = _say(record, "/continue " + "y" * 2500, "maria")
    assert more.record is not None and more.record.epic is not None
    assert more.record.epic.extension == "y" * 1999 + "…"


def test_completion_with_the_epics_pull_request_open_opens_no_other() -> None:
    work = Work(branch="baton/issue-1", pull_request=42, pull_request_id="PR_kwDOfake42")
    tasks = [planned("a", 10, TaskStatus.pending_review, starts=1)]
    record = conducting("implementing", tasks, work=work)
    decision = pass_(record, [TaskObservation(number=10, status=TaskStatus.completed)])
    assert (decision.state, decision.open_pull_request) == ("completing", None)
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.pull_request == 42
    assert decision.message is not None and "pull request #42" in decision.message
