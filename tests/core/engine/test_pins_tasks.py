"""Pins the rules of `core/engine/tasks.py` that a mutation sample found unprotected (issue 18,
item 5): only an approver's `/skip` skips a blocked task, and nothing else a human says on a
task (a plain reply, another command, a `/skip` in another state) takes that door."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from baton.core.decision import Outcome
from baton.core.epic.model import TaskLink
from baton.workflow.config import Config, settings_from


def _builders() -> Any:
    path = Path(__file__).with_name("conftest.py")
    spec = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


TASK = settings_from(Config.model_validate({})).for_labels(["baton:task"])
B = _builders().Build(TASK.workflow, TASK.policy)


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
