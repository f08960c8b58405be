"""`core/rules/work_product.py` on its own: the branch a record gets, the ready flag, and the
pull request's update only when the work changed (the rules' tests are in test_work.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.events import tick
from baton.core.model.evidence import ProofCounts, TestsRecord
from baton.core.model.record import Record
from baton.core.model.work import CommitMark, Work
from baton.core.rules.context import Scene
from baton.core.rules.work_product import update, with_branch, with_ready, work_of
from baton.workflow.config import Policy, WorkSettings
from baton.workflow.model import load_preset

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SCENE = Scene(event=tick(7, NOW), workflow=load_preset("issue-lifecycle"), policy=Policy())


def record(state: str, work: Work | None = None) -> Record:
    return Record(workflow="issue-lifecycle", issue=7, state=state, entered_at=NOW, work=work)


def opened(**changes: object) -> Work:
    base = Work(branch="baton/issue-7", created=True, pull_request=12, pull_request_id="PR_12")
    return base.model_copy(update=changes)


def test_the_work_an_issue_would_have_follows_the_configured_prefix() -> None:
    policy = Policy(work=WorkSettings(branch_prefix="agents/"))
    assert work_of(record("implementing"), policy) == Work(branch="agents/7")
    assert work_of(record("implementing", opened()), policy) == opened()


def test_a_code_state_without_a_branch_gets_one_and_says_which_to_create() -> None:
    moved, branch = with_branch(SCENE, record("implementing"))
    assert branch == "baton/issue-7"
    assert moved.work == Work(branch="baton/issue-7", created=True)


def test_no_branch_is_made_outside_code_states_or_twice() -> None:
    plain = record("analyzing_requirements")
    assert with_branch(SCENE, plain) == (plain, None)
    made = record("implementing", opened())
    assert with_branch(SCENE, made) == (made, None)


def test_the_ready_state_marks_an_open_pull_request_ready_once() -> None:
    assert with_ready(SCENE, record("creating_pr", opened())).work == opened(ready=True)
    ready = record("creating_pr", opened(ready=True))
    assert with_ready(SCENE, ready) is ready
    elsewhere = record("implementing", opened())
    assert with_ready(SCENE, elsewhere) is elsewhere


def test_the_pull_request_is_updated_only_when_the_work_changed() -> None:
    before = opened()
    assert update(SCENE, before, record("implementing", before)) is None
    mark = CommitMark(
        digest="sha256:" + "1" * 64,
        oid="f" * 40,
        agent="developer",
        state="implementing",
        attempt=1,
        files=1,
        at=NOW,
    )
    plan = update(SCENE, before, record("implementing", before.with_commit(mark)))
    assert plan is not None
    assert (plan.node_id, plan.number, plan.ready, plan.branch) == (
        "PR_12",
        12,
        False,
        "baton/issue-7",
    )
    became_ready = update(SCENE, before, record("creating_pr", opened(ready=True)))
    assert became_ready is not None and became_ready.ready is True


def test_the_pull_request_is_updated_when_the_evidence_changed() -> None:
    before = opened()
    counted = TestsRecord(counts=ProofCounts(green=1))
    with_tests = record("implementing", before).model_copy(update={"tests": counted})
    plan = update(SCENE, before, with_tests, tests=None)
    assert plan is not None
    assert "Evidence so far: 0 red, 1 green, 0 failing, 0 broken." in plan.body
    assert update(SCENE, before, with_tests, tests=counted) is None
