"""Issue 11 over real HTTP, through `baton run` and `baton report` subprocesses with
`record-secret`: a record another workflow posts as the same bot identity neither wins nor gets
the real one deleted, and a signed record put back by editing an hour later is refused and
rebuilt from the status label with a note. GitHub stamps comments by its clock and Baton signs
`written_at` by the runner's: the fake's clock starts at the real time, as GitHub's would."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.action.env import ActionEnv
from baton.core.model.record import Record
from baton.issue import record_comment
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

SECRET = "0123456789abcdef0123456789abcdef"
WITH_SECRET = {"INPUT_RECORD-SECRET": SECRET}
KEY = ActionEnv.model_validate(  # what Baton signs with in the fake's repository
    {"repository": "octo/demo", "record_secret": SECRET}
).secret_value()
RESULT = {"status": "success", "confidence": 0.9}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.now = datetime.now(UTC).replace(microsecond=0)
        server.set_permission("maria", "maintain")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


def _record_comments(fake: FakeGitHub) -> list[tuple[int, str]]:
    return [
        (c["id"], c["body"])
        for c in fake.comments(1)
        if c["user"]["login"] == fake.bot_login and record_comment.has_marker(c["body"])
    ]


def _entered(fake: FakeGitHub, action: ActionRunner) -> tuple[int, str, Record]:
    fake.label_by(1, "baton", "maria")
    step = action.run("issues", P.labeled(fake, 1, "baton"), **WITH_SECRET)
    assert step.outputs["state"] == "received", step.stdout + step.stderr
    [(comment_id, body)] = _record_comments(fake)
    return comment_id, body, record_comment.parse(body, KEY)


def _ok(step: Step) -> Step:
    assert step.returncode == 0, step.stdout + step.stderr
    assert "Traceback" not in step.stderr
    return step


@pytest.mark.parametrize(
    "forger_secret",
    [
        pytest.param(None, id="an unsigned forgery"),
        pytest.param("another-workflow's-guess", id="a forgery signed with another secret"),
    ],
)
def test_a_forged_higher_revision_record_posted_as_the_bot_neither_wins_nor_deletes_the_real(
    fake: FakeGitHub, tmp_path: Path, forger_secret: str | None
) -> None:
    action = ActionRunner(fake, tmp_path)
    real_id, _, real = _entered(fake, action)
    claimed = real.model_copy(update={"state": "completed", "revision": real.revision + 50})
    forged = record_comment.render(claimed, agent=None, secret=forger_secret, written_at=fake.now)
    fake.advance(5)
    forged_id = fake.add_comment(1, forged, user=fake.bot_login, user_type="Bot")["id"]

    step = _ok(action.report(1, RESULT, INPUT_STATE="received", **WITH_SECRET))

    assert step.outputs["state"] == "analyzing_requirements", "applied on the real record"
    [(kept_id, body)] = _record_comments(fake)
    assert kept_id == real_id, "the real record comment is kept and rewritten"
    assert forged_id not in [c["id"] for c in fake.comments(1)], "the forgery is removed"
    record = record_comment.parse(body, KEY)
    assert record.state == "analyzing_requirements"
    assert "completed" not in [e.to_state for e in record.history]
    assert all(e.trigger != "rebuild" for e in record.history)
    assert [x for x in fake.labels_of(1) if x.startswith("status:")] == [
        "status:analyzing-requirements"
    ]


def test_a_signed_record_put_back_by_editing_an_hour_later_is_refused_and_rebuilt(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    action = ActionRunner(fake, tmp_path)
    record_id, saved, _ = _entered(fake, action)  # someone keeps the signed body of `received`
    fake.advance(60)
    moved = _ok(action.report(1, RESULT, INPUT_STATE="received", **WITH_SECRET))
    assert moved.outputs["state"] == "analyzing_requirements"

    fake.advance(3600)
    fake.edit_comment(record_id, saved, by=fake.bot_login, by_type="Bot")  # put back, as the bot
    kicked = _ok(
        action.run(
            "workflow_dispatch",
            P.workflow_dispatch(fake, {"issue": 1}, sender=fake.bot_login),
            **WITH_SECRET,
        )
    )

    [(kept_id, body)] = _record_comments(fake)
    assert kept_id == record_id, "the put-back comment is rewritten with the rebuilt record"
    record = record_comment.parse(body, KEY)
    assert record.state == "analyzing_requirements", "from the status label, not the put-back"
    assert record.written_at is not None
    rebuilt = [e for e in record.history if e.trigger == "rebuild"]
    assert rebuilt and "put back" in rebuilt[-1].reason
    notes = [
        c["body"]
        for c in fake.comments(1)
        if c["user"]["login"] == fake.bot_login and not record_comment.has_marker(c["body"])
    ]
    assert any("put back" in note for note in notes), "a note on the issue says why"
    assert "put back" in kicked.summary + kicked.stdout
    assert [x for x in fake.labels_of(1) if x.startswith("status:")] == [
        "status:analyzing-requirements"
    ]


def test_a_status_label_with_no_baton_record_is_said_in_the_job_log_and_summary(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """A label another app added (or a record deleted before Baton posted any message): no
    record is rebuilt, nothing is written, and the run says why and what a maintainer does."""
    action = ActionRunner(fake, tmp_path)
    fake.label_by(1, "status:implementing", "some-app[bot]", actor_type="Bot")

    step = _ok(
        action.run(
            "workflow_dispatch",
            P.workflow_dispatch(fake, {"issue": 1}, sender="maria"),
            **WITH_SECRET,
        )
    )

    said = "status label status:implementing but no Baton record"
    assert said in step.stdout and said in step.summary
    assert "a maintainer relabels it to enter" in step.summary
    assert _record_comments(fake) == []
    assert [c for c in fake.comments(1) if c["user"]["login"] == fake.bot_login] == []


def test_a_record_signed_for_another_repository_is_refused_and_rebuilt(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """One record-secret across an organisation: a record signed in another repository (the
    same issue number, the bot's own comment) is no record here."""
    action = ActionRunner(fake, tmp_path)
    record_id, _, real = _entered(fake, action)
    claimed = real.model_copy(update={"state": "completed", "revision": real.revision + 1})
    # What Baton running in octo/other signs with, from the same organisation secret.
    other = ActionEnv.model_validate(
        {"repository": "octo/other", "record_secret": SECRET}
    ).secret_value()
    elsewhere = record_comment.render(claimed, agent=None, secret=other, written_at=fake.now)
    fake.edit_comment(record_id, elsewhere, by=fake.bot_login, by_type="Bot")

    step = _ok(
        action.run(
            "workflow_dispatch",
            P.workflow_dispatch(fake, {"issue": 1}, sender=fake.bot_login),
            **WITH_SECRET,
        )
    )

    [(_, body)] = _record_comments(fake)
    record = record_comment.parse(body, KEY)
    assert record.state == "received", "rebuilt from the status label, not the copied record"
    rebuilt = [e for e in record.history if e.trigger == "rebuild"]
    assert rebuilt and "signature does not match" in rebuilt[-1].reason
    assert "signature does not match" in step.stdout + step.summary
