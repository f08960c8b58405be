"""Faults over real HTTP: `baton report` and `baton run` as the Action runs them, against the fake
GitHub answering 500, 502, 403 (secondary rate limit, `retry-after: 1`), 404, or too late — to a
whole GraphQL document, to one field of the mutation document (GitHub runs the others), or to
the REST dispatch.

What PyGithub's `GithubRetry` absorbs (a transient failure) must leave the run green and the write
done once; what it cannot (a failure that lasts) must fail the job with an `::error::` annotation
and exit 1, and the re-run of the job (same `GITHUB_RUN_ID`, next attempt) must repair it:
one status label, the record's; the transition once; the message once; the agent dispatched once.

Timeouts use `BATON_HTTP_TIMEOUT=1` (whole seconds, the smallest the Action accepts) and a fake
that answers after 1.25 s, so each costs about a second.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from action_harness import ActionRunner, Step
from baton.action.commands import run_event
from baton.action.env import ActionEnv
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.http import messages_of, record_comments, record_of, status_labels

ISSUE = 1
DISPATCH = r"/dispatches$"
# A run reads with one GraphQL query, checks the record with another and writes with one
# mutation document whose fields are `record`, `labelsAdded`, `labelsRemoved`, `message`...
READ, CHECK, WRITE = "BatonRead", "BatonRecordCheck", "BatonWrite"
QUESTION = "Commas or semicolons?"
REPAIR_NOTE = "I repaired this issue's state"
REPOST_NOTE = "Re-posted: the run that wrote this could not post it."
TIMEOUT = {"BATON_HTTP_TIMEOUT": "1"}
LATE = 1.25  # seconds the fake takes to answer: past the timeout, so the client gives up


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


# --- what humans, agents and re-runs do ---------------------------------------------------
def relabel(action: ActionRunner, fake: FakeGitHub, label: str) -> None:
    """Maria adds `label`; its run is set-up, not under test, so it runs in this process (the
    same `run_event` as `baton run`, over the same HTTP) to spare an interpreter start."""
    fake.label_by(ISSUE, label, "maria")
    event = action.workdir / "setup-event.json"
    event.write_text(json.dumps(payloads.labeled(fake, ISSUE, label)), encoding="utf-8")
    env = ActionEnv.from_environ(
        action.env("issues", event, GITHUB_OUTPUT="", GITHUB_STEP_SUMMARY="")
    )
    outcome = run_event(env)
    assert outcome.exit_code == 0, outcome.error


def at_received(action: ActionRunner, fake: FakeGitHub) -> dict[str, Any]:
    """Enter the issue; the pm's report moves it on to analysing and dispatches the analyst."""
    relabel(action, fake, "baton")
    return {"status": "success", "confidence": 0.9}


def at_unclear(action: ActionRunner, fake: FakeGitHub) -> dict[str, Any]:
    """Put the issue at requirements_unclear; the pm's report posts questions and waits."""
    relabel(action, fake, "status:requirements-unclear")
    return {"status": "success", "confidence": 0.6, "questions": [QUESTION]}


SETUPS = {"at_received": at_received, "at_unclear": at_unclear}
MOVES = {
    "at_received": ("received", "analyzing_requirements", "analyst"),
    "at_unclear": ("requirements_unclear", "waiting_for_requirements_clarification", None),
}


def rerun(action: ActionRunner, result: dict[str, Any], **extra: str) -> Step:
    """Re-run the failed job: the same GITHUB_RUN_ID as the last run, the next attempt."""
    return action.report(
        ISSUE, result, GITHUB_RUN_ID=str(action.run_id), GITHUB_RUN_ATTEMPT="2", **extra
    )


def delete_comment(fake: FakeGitHub, comment_id: int) -> None:
    """Someone deletes a comment, through the API as the UI does."""
    request = urllib.request.Request(
        f"{fake.url}/repos/{fake.repo_full_name}/issues/comments/{comment_id}",
        method="DELETE",
        headers={"Authorization": f"token {fake.token}"},
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 204


def drained(fake: FakeGitHub, received_before: int) -> None:
    """Wait until the fake has answered every request it received since `received_before`: an
    answer that comes too late lands after the client gave up on it. Bounded, never a timing
    assertion: it only waits for the fake to finish what it was asked."""
    for _ in range(200):
        if len(fake.requests) >= fake.rate_used - received_before:
            return
        time.sleep(0.05)
    raise AssertionError("the fake never answered every request")


def answers(fake: FakeGitHub, where: str) -> list[int]:
    """The statuses of the requests to `where`: a GraphQL operation or a REST path pattern."""
    if where in (READ, CHECK, WRITE):
        return [c.status for c in fake.calls(operation=where)]
    return [c.status for c in fake.requests if re.search(where, c.path)]


def inject(fake: FakeGitHub, where: str, status: int | str, *, times: int | None = 1) -> None:
    """A fault on a whole request (`where` an operation or a REST path, `status` an HTTP code),
    or on one field of the mutation document (`where` its alias, `status` GitHub's type)."""
    if isinstance(status, str):
        fake.fail_graphql_field(where, status, times=times, operation=WRITE)
    elif where in (READ, CHECK, WRITE):
        fake.fail("POST", "/graphql", status, times=times, operation=where)
    else:
        fake.fail("POST", where, status, times=times)


# --- what a test reads back ---------------------------------------------------------------
def label_for(state: str) -> str:
    return "status:" + state.replace("_", "-")


def assert_sound(fake: FakeGitHub, setup: str) -> None:
    """One record, one status label (the record's), the pm's report applied once, its question
    posted once, its next agent dispatched once."""
    before, after, agent = MOVES[setup]
    record = record_of(fake, ISSUE)
    assert record.state == after
    assert status_labels(fake, ISSUE) == [label_for(after)]
    moves = [(e.from_state, e.to_state) for e in record.history]
    assert moves.count((before, after)) == 1, moves
    if agent:
        assert [d.inputs["issue"] for d in fake.dispatches] == [str(ISSUE)]
    else:
        assert sum(QUESTION in m for m in messages_of(fake, ISSUE)) == 1, messages_of(fake, ISSUE)
        assert not fake.dispatches


def failed_clearly(step: Step) -> None:
    assert step.returncode == 1, step.stdout + step.stderr
    assert "::error" in step.stdout, step.stdout
    assert "Traceback" not in step.stderr, step.stderr


# --- a transient failure is retried ---------------------------------------------------------
@pytest.mark.parametrize(
    ("setup", "where", "status"),
    [
        pytest.param("at_received", READ, 500, id="a 500 on the read"),
        pytest.param("at_unclear", CHECK, 502, id="a 502 on the record check"),
        pytest.param("at_received", WRITE, 403, id="a secondary rate limit on the write"),
        pytest.param("at_unclear", WRITE, 403, id="a secondary rate limit on posting questions"),
    ],
)
def test_a_single_failure_is_retried_and_the_run_succeeds(fake, action, setup, where, status):
    """Reads are retried on a 5xx; the mutation document only on a rate limit, where GitHub ran
    nothing of it (a 5xx may come after it ran part: see the lasting failures below)."""
    result = SETUPS[setup](action, fake)
    inject(fake, where, status)

    step = action.report(ISSUE, result)

    assert step.returncode == 0, step.stdout
    first, second = answers(fake, where)[:2]
    assert first == status and second < 300, answers(fake, where)
    assert_sound(fake, setup)


# --- a field GitHub refuses is redone alone, in the same run --------------------------------
REDONE_OVER = {
    "record": ("PATCH", r"/issues/comments/\d+$"),
    "labelsAdded": ("POST", r"/issues/1/labels$"),
    "labelsRemoved": ("DELETE", r"/issues/1/labels/status:"),
    "message": ("POST", r"/issues/1/comments$"),
}


@pytest.mark.parametrize(
    ("setup", "alias"),
    [
        pytest.param("at_received", "record", id="the record field"),
        pytest.param("at_unclear", "record", id="the record field, with questions posted"),
        pytest.param("at_received", "labelsAdded", id="adding the new label"),
        pytest.param("at_received", "labelsRemoved", id="removing the old label"),
        pytest.param("at_unclear", "message", id="posting the questions"),
    ],
)
def test_a_field_github_refuses_is_redone_over_rest_and_the_run_succeeds(
    fake, action, setup, alias
):
    """GitHub runs the rest of the document after a failed field; the run redoes that one
    field with its single REST call, so nothing is left behind the rest."""
    result = SETUPS[setup](action, fake)
    inject(fake, alias, "FORBIDDEN", times=None)

    step = action.report(ISSUE, result)

    assert step.returncode == 0, step.stdout + step.stderr
    method, path = REDONE_OVER[alias]
    assert [c.status for c in fake.requests if c.method == method and re.search(path, c.path)]
    assert_sound(fake, setup)
    assert not any(REPAIR_NOTE in m for m in messages_of(fake, ISSUE)), "nothing was left to repair"


def test_a_record_refused_in_the_document_and_alone_fails_the_run_and_nothing_doubles(fake, action):
    """The document ran without its record (the questions went out, the labels moved) and the
    record's PATCH failed as well: the job fails; its re-run writes the record and does not
    post the questions a second time."""
    result = at_unclear(action, fake)
    inject(fake, "record", "FORBIDDEN", times=None)
    fake.fail("PATCH", r"/issues/comments/\d+$", 502, times=None)

    failed = action.report(ISSUE, result)
    fake.clear_faults()
    repaired = rerun(action, result)

    failed_clearly(failed)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "already on the issue" in repaired.stdout
    assert_sound(fake, "at_unclear")
    assert not any(REPAIR_NOTE in m for m in messages_of(fake, ISSUE)), "the labels were only early"


# --- a lasting failure fails the job, and the re-run repairs --------------------------------
@pytest.mark.parametrize(
    ("setup", "where", "status"),
    [
        pytest.param("at_received", WRITE, 502, id="the write fails"),
        pytest.param("at_unclear", WRITE, 502, id="the write with the questions fails"),
        # A 5xx on the dispatch is not retried nor fatal (test_handover: it may have started);
        # one GitHub refuses fails the job, and the re-run sends it.
        pytest.param("at_received", DISPATCH, 404, id="the dispatch is refused"),
        pytest.param("at_received", WRITE, 403, id="the secondary rate limit does not lift"),
    ],
)
def test_a_lasting_failure_fails_the_job_and_the_rerun_repairs_it(
    fake, action, setup, where, status
):
    result = SETUPS[setup](action, fake)
    inject(fake, where, status, times=None)

    failed = action.report(ISSUE, result)
    fake.clear_faults()
    repaired = rerun(action, result)

    failed_clearly(failed)
    assert str(status) in failed.stdout
    assert status_labels(fake, ISSUE), "never zero status labels"
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert_sound(fake, setup)


# --- a deleted record, and answers that come too late ---------------------------------------
def test_a_404_on_the_record_edit_writes_a_new_record_and_the_next_run_keeps_only_it(fake, action):
    result = at_received(action, fake)
    (old,) = record_comments(fake, ISSUE)
    inject(fake, "record", "NOT_FOUND")

    step = action.report(ISSUE, result)
    delete_comment(fake, old.id)  # the 404 was someone deleting it under the run

    assert step.returncode == 0, step.stdout
    assert f"record comment {old.id} was deleted" in step.stdout
    (new,) = record_comments(fake, ISSUE)
    assert new.id != old.id
    name, payload = payloads.from_dispatch(fake, fake.dispatches[-1])
    kicked = action.run(name, payload)
    assert kicked.returncode == 0
    assert [c.id for c in record_comments(fake, ISSUE)] == [new.id]
    assert_sound(fake, "at_received")


def test_a_write_answered_too_late_fails_the_job_clearly_and_the_rerun_repairs(fake, action):
    """The mutation document is answered too late: the job fails, naming the call (a document
    is never sent twice). GitHub applied it after all, so the re-run finds its report applied
    and finishes the rest: the dispatch."""
    result = at_received(action, fake)
    fake.fail("POST", "/graphql", None, delay=LATE, times=None, operation=WRITE)

    received = fake.rate_used
    failed = action.report(ISSUE, result, **TIMEOUT)
    drained(fake, received)
    fake.clear_faults()
    repaired = rerun(action, result, **TIMEOUT)

    failed_clearly(failed)
    assert "timed out" in failed.stdout
    assert repaired.returncode == 0, repaired.stdout
    assert_sound(fake, "at_received")


def test_a_message_answered_too_late_is_not_posted_twice(fake, action):
    """The client gives up on a document that GitHub applies anyway. Sending it again would
    double the comment; the record's outbox and the message mark already let the next run
    re-post a message that truly never landed, so a write needs no blind retry."""
    result = at_unclear(action, fake)
    fake.fail("POST", "/graphql", None, delay=LATE, operation=WRITE)

    received = fake.rate_used
    step = action.report(ISSUE, result, **TIMEOUT)
    drained(fake, received)
    if step.returncode:
        failed_clearly(step)
        assert rerun(action, result, **TIMEOUT).returncode == 0

    assert_sound(fake, "at_unclear")


def test_an_approval_job_that_failed_after_writing_the_record_names_the_pm_when_rerun(fake, action):
    """`baton run` names the next agent in its outputs for the follow-up job of the same workflow
    run. A job that wrote the record and then failed never produced those outputs, so its re-run
    must name the agent again, or the approved issue waits for an agent that never comes."""
    relabel(action, fake, "status:waiting-for-human-input")
    fake.set_permission("wendy", "write")
    # The run stamps the state with the wall clock; the comment comes after it (GitHub's
    # timestamps have whole seconds, hence the second).
    fake.now = datetime.now(UTC) + timedelta(seconds=1)
    approval = fake.add_comment(ISSUE, "Approved.", user="wendy")
    payload = payloads.comment_created(fake, approval["id"])
    # The label field fails, and so does its REST retry; the old label is put back.
    inject(fake, "labelsAdded", "FORBIDDEN", times=None)
    fake.fail("POST", r"/issues/1/labels$", 422, times=1)  # not retried

    failed = action.run("issue_comment", payload)
    fake.clear_faults()
    repaired = action.run(
        "issue_comment", payload, GITHUB_RUN_ID=str(action.run_id), GITHUB_RUN_ATTEMPT="2"
    )

    failed_clearly(failed)
    assert repaired.returncode == 0, repaired.stdout
    assert record_of(fake, ISSUE).state == "human_input_received"
    assert status_labels(fake, ISSUE) == ["status:human-input-received"]
    assert repaired.outputs["agent"] == "pm", repaired.outputs["decision"]
