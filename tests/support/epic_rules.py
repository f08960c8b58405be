"""The epic's rules decided directly (`tests/core/rules/epic/`): the `feature-epic` preset from a
config as the Action reads it, the rules tests' `Build` (`tests/core/rules/conftest.py`) for
issue #1, and the records an epic's phases start from."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision
from baton.core.model.epic import (
    Discovery,
    EpicState,
    PlannedTask,
    TaskObservation,
    TaskSpec,
    TaskStatus,
)
from baton.core.model.facts import Facts
from baton.core.model.record import Record
from baton.core.model.work import Work
from baton.workflow.config import Config, settings_from


def engine_builders() -> Any:
    """`tests/core/rules/conftest.py`, whose `Build` makes the records and events of issue #1."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "core" / "rules" / "conftest.py"
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
NO_TASKS = Facts(tasks=[])  # a conducting epic's tasks, read: none of them says anything new


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


def say(
    record: Record,
    body: str,
    by: str,
    *,
    comment_id: int = 100,
    facts: Facts = NO_TASKS,
    **event: Any,
) -> Decision:
    """`by` comments `body` on the epic; a conducting epic's run has read its tasks (`facts`:
    none by default)."""
    comment = B.commented(body, by, record.state, comment_id=comment_id, **event)
    return B.decide(record, comment, facts)


def epic(decision: Decision) -> EpicState:
    assert decision.record is not None and decision.record.epic is not None
    return decision.record.epic


def plan_report(specs: list[TaskSpec], **event: Any) -> Any:
    return B.reported("planning", result(tasks=specs), **event)


def with_plan(specs: list[TaskSpec]) -> Record:
    return B.record("planning", epic=EpicState(pending_plan=specs))


def pass_(record: Record, observations: list[TaskObservation], **facts: Any) -> Decision:
    """The conductor's pass: a dispatch, with the tasks observed (and any other `facts`)."""
    return B.decide(record, B.dispatched(record.state), Facts(tasks=observations, **facts))
