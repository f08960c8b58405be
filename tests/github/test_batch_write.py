"""The write document and what is redone after it (`github/batch_write.py`), on SimGitHub with
GitHub's failed fields queued at request level: the rest of the document runs, the run redoes the
field (by REST), and a redo that fails too fails the run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from baton.errors import TrackerError
from baton.github.tracker import LabelChange, Writes
from baton.issue import record_comment
from baton.issue.apply import label_specs, writes_for
from baton.issue.load import Loaded
from baton.run import handle
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings
from support.memory import (
    ISSUE,
    enter_at,
    messages_of,
    record_of,
    report_job,
    status_labels,
)

QUESTION = "Commas or semicolons?"


LABELS_REDONE = r"^/repos/octo/demo/issues/1/labels$"  # the addition redone, by REST
RECORD_REDONE = r"^/repos/octo/demo/issues/comments/\d+$"  # the record's edit redone


@pytest.fixture(autouse=True)
def _every_fault_struck(gh: SimGitHub) -> Iterator[None]:
    """Each fault a test queued met its request: the test played the failure it names."""
    yield
    assert all(f.hits for f in [*gh.api._faults, *gh.api._field_faults]), "a fault never struck"


def label_addition_fails_twice(gh: SimGitHub) -> None:
    """The document's label addition fails as a field (its removal runs), and its redo fails:
    GitHub's 502 on the REST call that adds the labels."""
    gh.read(ISSUE, with_issue=True)  # the run's read, which gives the document its node ids
    gh.api.fail_graphql_field("addLabelsToLabelable", "INTERNAL", operation="BatonWrite")
    gh.api.fail("POST", LABELS_REDONE, 502)


def test_the_put_back_names_only_labels_the_document_took_off(
    gh: SimGitHub, settings: Settings
) -> None:
    """The document's removal named the record's old label too (the payload predates it), but
    only the label really on the issue came off: only that one is put back."""
    gh.human_label(ISSUE, "status:implementing")
    # The document's addition fails, its removal runs, the addition redone fails: the put-back.
    label_addition_fails_twice(gh)
    change = LabelChange(
        ("status:received", "status:implementing"),
        ("status:analyzing-requirements",),
        label_specs(settings.workflow, settings.policy),
    )

    with pytest.raises(TrackerError, match="labelsAdded"):
        gh.write(Writes(number=ISSUE, labels=change))

    assert status_labels(gh) == ["status:implementing"], gh.sent


def test_a_document_that_removed_nothing_puts_nothing_back(
    gh: SimGitHub, settings: Settings
) -> None:
    gh.human_label(ISSUE, "status:implementing")
    label_addition_fails_twice(gh)
    change = LabelChange(
        ("status:received",),  # not on the issue
        ("status:analyzing-requirements", "status:implementing"),
        label_specs(settings.workflow, settings.policy),
    )

    with pytest.raises(TrackerError):
        gh.write(Writes(number=ISSUE, labels=change))

    assert status_labels(gh) == ["status:implementing"], gh.sent


def test_a_rerun_does_not_post_again_questions_its_first_attempt_posted_with_a_repair_note(
    gh: SimGitHub, settings: Settings
) -> None:
    """The first attempt's questions carried a note (an unknown label removed); its record
    failed twice. The re-run finds no drift left to note, so its words differ, but the mark
    (revision and event) is the same: the questions are not posted twice."""
    enter_at(gh, settings, "requirements_unclear")
    gh.human_label(ISSUE, "status:bogus")
    job = report_job(gh, settings, "pm", confidence=0.6, questions=[QUESTION])
    # The record's edit fails as a field of the document, and again when redone alone.
    gh.api.fail_graphql_field("updateIssueComment", "INTERNAL", operation="BatonWrite")
    gh.api.fail("PATCH", RECORD_REDONE, 502)

    with pytest.raises(TrackerError):
        job.run()
    rerun = job.run()

    assert sum(QUESTION in m for m in messages_of(gh)) == 1, messages_of(gh)
    assert "message already on the issue (an earlier attempt posted it)" in rerun.applied.steps
    record = record_of(gh)
    assert record is not None and record.state == "waiting_for_requirements_clarification"
    assert status_labels(gh) == ["status:waiting-for-requirements-clarification"]


def test_a_message_with_the_same_revision_and_words_for_another_event_is_posted(
    gh: SimGitHub, settings: Settings
) -> None:
    """After a record is rebuilt its revisions start again: an older message with the same
    revision and words, for another event, does not stop this event's message."""
    enter_at(gh, settings, "requirements_unclear")
    job = report_job(gh, settings, "pm", confidence=0.6, questions=[QUESTION])
    decision = handle(job.event_at(gh.now), gh, settings, dry_run=True).decision
    assert decision.record is not None and decision.message
    loaded = Loaded(record=record_of(gh), comment_id=1)
    body = writes_for(decision, loaded, gh.issue(ISSUE), settings.workflow, settings.policy).message
    assert body is not None
    revision, event = record_comment.mark_of(body) or (0, None)
    assert (revision, event) == (decision.record.revision, decision.event_id)

    def planned(*posted: tuple[int, str | None, str]) -> str | None:
        seen = Loaded(record=loaded.record, comment_id=1, posted=frozenset(posted))
        return writes_for(
            decision, seen, gh.issue(ISSUE), settings.workflow, settings.policy
        ).message

    words = decision.message
    assert planned((revision, "other", "Other words.")) == body
    assert planned((revision, event, "Other words (a repair note since gone).")) is None
    # Marks without an event (a sweep's tick, a message from before marks named events):
    # told apart by their words.
    assert planned((revision, None, words)) is None
    assert planned((revision, None, "An older message at a reused revision.")) == body
    assert planned((revision + 1, event, words)) == body


def test_a_mark_carries_only_characters_that_cannot_close_the_comment() -> None:
    mark = record_comment.message_mark(3, "label:status: x-->y <b>--")
    assert mark.startswith("<!-- baton:message r=3 e=") and mark.count("-->") == 1
    assert record_comment.mark_of(mark) == (3, "label:status:x-yb-")
    assert record_comment.mark_of(record_comment.message_mark(4)) == (4, None)


def test_labels_already_showing_the_state_moved_to_are_not_drift() -> None:
    """An earlier attempt wrote the labels of the move and not its record: on the re-run the
    new label is the move arriving early. An unknown label beside it is still reported, and
    no 'missing' note is made up for the old one."""
    from baton.core.rules.conclude import _drift
    from baton.workflow.config import load_config

    settings = load_config(None)
    old, new = "status:received", "status:analyzing-requirements"
    wf, policy = settings.workflow, settings.policy
    assert _drift((new,), old, policy, wf, ahead=new) == []
    assert _drift((old, new), old, policy, wf, ahead=new) == []
    assert _drift((new, "status:bogus"), old, policy, wf, ahead=new) == [
        "removed unknown status label(s) status:bogus"
    ]
    assert _drift((new,), old, policy, wf) != [], "without a move it is drift"


def test_a_record_that_fails_twice_leaves_the_old_status_label_on(
    gh: SimGitHub, settings: Settings
) -> None:
    """In the document the record and the new label fail while the old label comes off; the
    record fails again alone. The run fails with the record as it was, and its status label
    goes back on, so the issue never drops out of the workflow."""
    enter_at(gh, settings, "requirements_unclear")
    job = report_job(gh, settings, "pm", confidence=0.6, questions=[QUESTION])
    # In the document the record and the new label fail while the old label comes off; the
    # record's redo fails too.
    gh.api.fail_graphql_field("updateIssueComment", "INTERNAL", operation="BatonWrite")
    gh.api.fail_graphql_field("addLabelsToLabelable", "INTERNAL", operation="BatonWrite")
    gh.api.fail("PATCH", RECORD_REDONE, 502)

    with pytest.raises(TrackerError, match="record"):
        job.run()

    record = record_of(gh)
    assert record is not None and record.state == "requirements_unclear"
    assert status_labels(gh) == ["status:requirements-unclear"], gh.sent
