"""Pins the rules of `core/engine/reports.py` that a mutation sample found unprotected (issue
18, item 5): a task's commit opens no pull request of its own (its branch merges into the
epic's, whose pull request shows the work), while an issue's first commit opens its draft."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from baton.core.agent_result import AgentResult
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


BUILD = _builders()
TASK = settings_from(Config.model_validate({})).for_labels(["baton:task"])
T = BUILD.Build(TASK.workflow, TASK.policy)
DONE = AgentResult(status="success", confidence=0.9, summary="Add the API")
COMMITTED = "e" * 40


def test_a_tasks_first_commit_opens_no_pull_request_of_its_own() -> None:
    work = BUILD.work(pull_request=None, commits=[], base="baton/issue-9")
    record = T.record("in_progress", task=TaskLink(epic=9, key="api"), work=work)
    event = T.reported("in_progress", DONE, changeset=BUILD.changeset("committed"))
    decision = T.decide(record, event)
    assert (decision.outcome, decision.state) == (Outcome.transition, "pending_review")
    assert decision.open_pull_request is None
    assert decision.record is not None and decision.record.work is not None
    assert [c.oid for c in decision.record.work.commits] == [COMMITTED]
    assert decision.record.work.pull_request is None


def test_an_issues_first_commit_opens_its_draft_pull_request(lifecycle: Any) -> None:
    record = lifecycle.record("implementing", work=BUILD.work(pull_request=None, commits=[]))
    event = lifecycle.reported("implementing", DONE, changeset=BUILD.changeset("committed"))
    decision = lifecycle.decide(record, event)
    assert decision.open_pull_request is not None
    assert (decision.open_pull_request.branch, decision.open_pull_request.ready) == (
        "baton/issue-1",
        False,
    )
