"""Whose commit and whose branch it is, and never stuck on a refused commit, in memory: the same
three rules as `tests/test_commit_containment_http.py`, on the in-memory GitHub that `baton
demo`, `baton simulate` and most tests run on, so neither fake is the only one that holds them."""

from __future__ import annotations

import pytest

from baton.core.model.decision import Outcome
from baton.errors import TrackerError
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings, load_config
from support.memory import (
    BRANCH,
    PEOPLE,
    changeset_job,
    changeset_on,
    enter_at,
    messages_of,
    record_of,
    relabel_job,
)

CODE = {"src/export.py": "def export():\n    return 'csv'\n"}


@pytest.fixture
def gh() -> SimGitHub:
    hub = SimGitHub()
    for login, permission in PEOPLE.items():
        hub.set_permission(login, permission)
    hub.set_permission("mallory", "write")
    hub.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    return hub


@pytest.fixture
def settings() -> Settings:
    return load_config(None)


def test_a_pushed_commit_with_the_trailer_is_not_adopted_in_memory(gh, settings):
    enter_at(gh, settings, "implementing")
    base = gh.git.head(BRANCH)
    assert base is not None
    changeset = changeset_on(base, CODE)
    forged = gh.human_push(
        BRANCH, CODE, f"x\n\nBaton-Changeset: {changeset.digest()}", by="mallory"
    )

    result = changeset_job(gh, settings, "developer", changeset, summary="CSV.").run()

    assert result.decision.outcome is Outcome.retry
    record = record_of(gh)
    assert record is not None and record.work is not None
    assert all(mark.oid != forged for mark in record.work.commits)
    assert gh.calls["commit_facts"] == 1
    assert f"commit {forged[:7]} claims these changes but is not Baton's" in messages_of(gh)[-1]


def test_baton_s_own_commit_is_adopted_when_the_record_lost_it(gh, settings):
    enter_at(gh, settings, "implementing")
    base = gh.git.head(BRANCH)
    assert base is not None
    changeset = changeset_on(base, CODE)
    job = changeset_job(gh, settings, "developer", changeset, summary="CSV.")
    gh.fail_next("write", TrackerError("edit_comment: 502"))  # the record fails after the commit
    with pytest.raises(TrackerError, match="edit_comment"):
        job.run()
    committed = gh.git.head(BRANCH)

    job.run()

    record = record_of(gh)
    assert record is not None and record.work is not None
    assert [m.oid for m in record.work.commits] == [committed]
    assert gh.calls["commit_facts"] == 1, "read once, to prove the commit is Baton's"


def test_someone_else_s_branch_is_refused_in_memory(gh, settings):
    theirs = gh.human_push(BRANCH, {"theirs.py": "x\n"}, "Mine", by="bob")

    result = relabel_job(gh, settings, "status:implementing", "maria").run()

    assert (result.decision.state, result.decision.agent) == ("implementing", None)
    assert result.record is not None and result.record.held
    assert gh.git.head(BRANCH) == theirs
    assert "delete or rename that branch" in messages_of(gh)[-1]


def test_a_commit_github_refuses_is_a_failed_attempt_in_memory(gh, settings):
    enter_at(gh, settings, "implementing")
    base = gh.git.head(BRANCH)
    assert base is not None
    changeset = changeset_on(base, {"ghost.py": None})

    result = changeset_job(gh, settings, "developer", changeset, summary="Tidy.").run()

    assert (result.decision.outcome, result.decision.agent) == (Outcome.retry, "developer")
    assert result.dispatched
    assert gh.git.head(BRANCH) == base
    assert "A path was requested for deletion which does not exist" in messages_of(gh)[-1]
