"""When the record cannot be written in a run, however that write fails, the labels end where
the record stands: the run fails clearly, the issue keeps the status label of its recorded
state, and the next run (a re-run of the job) lands the transition once. Over real HTTP
through `baton report`, with GitHub's failures injected at the fake."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.issue import record_comment
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

WRITE = "BatonWrite"
EDIT = r"/issues/comments/\d+$"
CREATE = r"/issues/1/comments$"
RESULT = {"status": "success", "confidence": 0.9}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


def _status(fake: FakeGitHub) -> list[str]:
    return [x for x in fake.labels_of(1) if x.startswith("status:")]


def _records(fake: FakeGitHub) -> list[record_comment.Record]:
    return [
        record_comment.parse(c["body"])
        for c in fake.comments(1)
        if c["user"]["login"] == fake.bot_login and record_comment.has_marker(c["body"])
    ]


def _field_and_redo_refused(fake: FakeGitHub) -> None:
    fake.fail_graphql_field("record", "FORBIDDEN", times=1, operation=WRITE)
    fake.fail("PATCH", EDIT, 422, times=1)


def _field_refused_and_redo_down(fake: FakeGitHub) -> None:
    fake.fail_graphql_field("record", "INTERNAL", times=1, operation=WRITE)
    fake.fail("PATCH", EDIT, 500, times=None)


def _record_deleted_and_recreate_refused(fake: FakeGitHub) -> None:
    fake.fail_graphql_field("record", "NOT_FOUND", times=1, operation=WRITE)
    fake.fail("PATCH", EDIT, 404, times=1)
    fake.fail("POST", CREATE, 422, times=1)


def _document_down_and_record_refused(fake: FakeGitHub) -> None:
    fake.fail("POST", "/graphql", 502, times=None, operation=WRITE)
    fake.fail("PATCH", EDIT, 422, times=1)


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(_field_and_redo_refused, id="the record field and its redo are refused"),
        pytest.param(_field_refused_and_redo_down, id="the record field fails, REST is down"),
        pytest.param(
            _record_deleted_and_recreate_refused,
            id="the record comment is gone and a new one is refused",
        ),
        pytest.param(
            _document_down_and_record_refused,
            id="the whole document fails, then the record step is refused",
        ),
    ],
)
def test_a_record_that_cannot_be_written_leaves_the_labels_at_its_state(
    fake: FakeGitHub, tmp_path: Path, fault: Callable[[FakeGitHub], None]
) -> None:
    action = ActionRunner(fake, tmp_path)
    fake.label_by(1, "baton", "maria")
    entered = action.run("issues", P.labeled(fake, 1, "baton"))
    assert entered.outputs["state"] == "received"

    fault(fake)
    failed: Step = action.report(1, RESULT, INPUT_STATE="received")
    fake.clear_faults()

    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "::error" in failed.stdout and "Traceback" not in failed.stderr
    assert [r.state for r in _records(fake)] == ["received"]
    assert _status(fake) == ["status:received"], "the labels say what the record says"

    again = action.report(
        1,
        RESULT,
        INPUT_STATE="received",
        GITHUB_RUN_ID=str(action.run_id),
        GITHUB_RUN_ATTEMPT="2",
    )
    assert again.returncode == 0, again.stdout + again.stderr
    (record,) = _records(fake)
    assert record.state == "analyzing_requirements"
    assert [e.to_state for e in record.history].count("analyzing_requirements") == 1
    assert _status(fake) == ["status:analyzing-requirements"]
