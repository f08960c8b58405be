"""Pins the rules of `core/rules/reports.py` that a mutation sample found unprotected (issue
18, item 5): a task's commit opens no pull request of its own (its branch merges into the
epic's, whose pull request shows the work), while an issue's first commit opens its draft; a
stale report keeps the pull request its run opened and opens none; the message of a waiting
state (questions, or an approval naming only an open pull request); questions clipped; a
changeset never committed leaves no commit mark; a draft opens on entering the ready state
only."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.epic import TaskLink
from baton.core.model.facts import Facts
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
    event = T.reported("in_progress", DONE)
    decision = T.decide(record, event, Facts(changeset=BUILD.changeset("committed")))
    assert (decision.outcome, decision.state) == (Outcome.transition, "pending_review")
    assert decision.open_pull_request is None
    assert decision.record is not None and decision.record.work is not None
    assert [c.oid for c in decision.record.work.commits] == [COMMITTED]
    assert decision.record.work.pull_request is None


def test_an_issues_first_commit_opens_its_draft_pull_request(lifecycle: Any) -> None:
    record = lifecycle.record("implementing", work=BUILD.work(pull_request=None, commits=[]))
    event = lifecycle.reported("implementing", DONE)
    decision = lifecycle.decide(record, event, Facts(changeset=BUILD.changeset("committed")))
    assert decision.open_pull_request is not None
    assert (decision.open_pull_request.branch, decision.open_pull_request.ready) == (
        "baton/issue-1",
        False,
    )


OK = AgentResult(status="success", confidence=0.9, summary="done")


def test_a_stale_report_keeps_the_pull_request_its_run_opened(lifecycle: Any) -> None:
    record = lifecycle.record("validating_solution", work=BUILD.work(pull_request=None))
    event = lifecycle.reported("implementing", OK)
    decision = lifecycle.decide(
        record, event, Facts(opened=BUILD.opened(8), changeset=BUILD.changeset("committed"))
    )
    assert decision.outcome is Outcome.refused
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.pull_request == 8
    assert decision.open_pull_request is None


def test_a_stale_reports_commit_is_kept_but_opens_no_pull_request(lifecycle: Any) -> None:
    record = lifecycle.record("validating_solution", work=BUILD.work(pull_request=None))
    later = BUILD.changeset("committed", digest="sha256:" + "f" * 64)  # a second commit
    event = lifecycle.reported("implementing", OK)
    decision = lifecycle.decide(record, event, Facts(changeset=later))
    assert decision.outcome is Outcome.refused and decision.open_pull_request is None
    assert decision.record is not None and decision.record.work is not None
    assert [c.oid for c in decision.record.work.commits] == [BUILD.HEAD, COMMITTED]


ASKS = AgentResult(
    status="success",
    confidence=0.9,
    summary="needs a decision",
    next_state="waiting_for_human_input",
)
APPROVAL = "### 🙋 Waiting for a human (`waiting_for_human_input`)\n\n> needs a decision\n\n"


@pytest.mark.parametrize(
    ("work", "names_it"),
    [
        pytest.param(BUILD.work(), True, id="an open pull request is named"),
        pytest.param(BUILD.work(closed="closed"), False, id="a closed one is not"),
        pytest.param(None, False, id="no work product"),
    ],
)
def test_a_report_into_an_approval_state_asks_for_approval(
    lifecycle: Any, work: Any, names_it: bool
) -> None:
    record = lifecycle.record("creating_pr", work=work)
    decision = lifecycle.decide(record, lifecycle.reported("creating_pr", ASKS))
    assert decision.state == "waiting_for_human_input"
    assert decision.message is not None and decision.message.startswith(APPROVAL)
    assert ("approve pull request #7 in a review" in decision.message) is names_it


def test_a_report_into_a_reply_state_asks_its_questions_clipped(lifecycle: Any) -> None:
    unclear = AgentResult(
        status="success",
        confidence=0.9,
        summary="unclear",
        next_state="waiting_for_requirements_clarification",
        questions=["q" * 600],
    )
    decision = lifecycle.decide(
        lifecycle.record("requirements_unclear"),
        lifecycle.reported("requirements_unclear", unclear),
    )
    assert decision.record is not None
    assert decision.record.open_questions == ["q" * 499 + "…"]
    assert decision.message is not None
    assert decision.message.startswith(
        "### ❓ Questions before the work goes on (`waiting_for_requirements_clarification`)"
    )


def test_a_changeset_not_committed_leaves_no_commit_mark(lifecycle: Any) -> None:
    record = lifecycle.record(
        "analyzing_requirements", work=BUILD.work(commits=[], pull_request=None)
    )
    event = lifecycle.reported("analyzing_requirements", OK)
    decision = lifecycle.decide(record, event, Facts(changeset=BUILD.changeset("ok")))
    assert decision.reason.endswith(
        "the changeset was not committed: analyzing_requirements does not change code"
    )
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.commits == []


@pytest.mark.parametrize(
    ("to", "opens"),
    [
        pytest.param("running_tests", False, id="a move short of the ready state opens none"),
        pytest.param("creating_pr", True, id="entering the ready state opens the draft"),
    ],
)
def test_without_a_new_commit_only_the_ready_state_opens_the_pull_request(
    lifecycle: Any, to: str, opens: bool
) -> None:
    record = lifecycle.record("implementing", work=BUILD.work(pull_request=None))
    moved = AgentResult(status="success", confidence=0.9, summary="x", next_state=to)
    decision = lifecycle.decide(record, lifecycle.reported("implementing", moved))
    assert decision.state == to
    assert (decision.open_pull_request is not None) is opens


# --- the first commit asks for its pull request in the same request ---------------------------
def test_an_issues_first_commit_is_asked_for_with_its_draft_pull_request(lifecycle: Any) -> None:
    record = lifecycle.record("implementing", work=BUILD.work(pull_request=None, commits=[]))
    event = lifecycle.reported("implementing", DONE)
    decision = lifecycle.decide(record, event, Facts(changeset=BUILD.changeset("ok")))
    assert decision.commit is not None
    assert decision.open_pull_request is not None
    assert (decision.open_pull_request.branch, decision.open_pull_request.node_id) == (
        "baton/issue-1",
        "",
    )


def test_a_later_commit_and_a_tasks_commit_are_asked_for_alone(lifecycle: Any) -> None:
    later = lifecycle.record("implementing", work=BUILD.work())
    event = lifecycle.reported("implementing", DONE)
    assert (
        lifecycle.decide(later, event, Facts(changeset=BUILD.changeset("ok"))).open_pull_request
        is None
    )

    work = BUILD.work(pull_request=None, commits=[], base="baton/issue-9")
    task = T.record("in_progress", task=TaskLink(epic=9, key="api"), work=work)
    decision = T.decide(
        task, T.reported("in_progress", DONE), Facts(changeset=BUILD.changeset("ok"))
    )
    assert decision.commit is not None and decision.open_pull_request is None


@pytest.mark.parametrize("status", ["stale", "refused"])
def test_a_pull_request_opened_beside_a_failed_first_commit_is_recorded(
    lifecycle: Any, status: str
) -> None:
    """GitHub runs the document's pull request after a failed commit: on a branch someone
    pushed to, it opens, and the record must know it (or the branch holds one it does not)."""
    record = lifecycle.record("implementing", work=BUILD.work(pull_request=None, commits=[]))
    changes = BUILD.changeset(status, head="f" * 40, problems=["GitHub refused the commit"])
    event = lifecycle.reported("implementing", DONE)
    opened = Facts(opened=BUILD.opened(8))
    decision = lifecycle.decide(record, event, (opened).merged(changeset=changes))
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.pull_request == 8
    assert decision.record.work.commits == []
    assert decision.commit is None and decision.open_pull_request is None
