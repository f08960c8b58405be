"""`github/issue_writes.py`, the issue's writes over GitHub: one mutation document in the
crash-safe order, and every field that failed redone alone over REST. Tested through
`GitHubTracker`, which composes `GitHubIssueWrites` with the other roles."""

from __future__ import annotations

import pytest
import responses

from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from baton.github.issue_writes import GitHubIssueWrites
from baton.github.tracker import LabelChange, Writes
from support.github_answers import GRAPHQL, REPO, SPECS, read_issue, sent


def test_one_mutation_writes_record_labels_message_and_reaction_in_that_order(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    read_issue(
        mocked,
        labelled,
        triage={"id": "LA_triage", "name": "status:triage", "color": "fbca04"},
        labels=("bug", "status:received"),
    )
    write = mocked.post(
        GRAPHQL,
        json={
            "data": {
                "record": {"issueComment": {"id": "IC_5", "fullDatabaseId": "5"}},
                "labelsAdded": {"clientMutationId": None},
                "labelsRemoved": {"clientMutationId": None},
                "message": {"commentEdge": {"node": {"id": "IC_9", "fullDatabaseId": "9"}}},
                "reaction": {"clientMutationId": None},
            }
        },
    )
    done = labelled.write(
        Writes(
            number=7,
            record="<!-- baton:record -->",
            record_comment=5,
            labels=LabelChange(("bug", "status:received"), ("bug", "status:triage"), SPECS),
            message="Questions for you",
            reaction=(6, "eyes"),
        )
    )
    assert labelled.requests == 2  # the read and the write
    request = sent(write.calls[-1])
    document = request["query"]
    assert document.startswith("mutation BatonWrite(")
    order = [document.index(f"{alias}:") for alias in ("record", "labelsAdded", "labelsRemoved")]
    order += [document.index("message:"), document.index("reaction:")]
    assert order == sorted(order), "the fields run in document order: record first"
    variables = request["variables"]
    assert variables["recordId"] == "IC_5" and variables["recordBody"] == "<!-- baton:record -->"
    assert variables["labelsAddedIds"] == ["LA_triage"]
    assert variables["labelsRemovedIds"] == ["LA_status:received"]
    assert variables["messageSubject"] == "I_7" and variables["reactionContent"] == "EYES"
    assert (done.record_comment, done.message_comment, done.labels, done.reacted) == (
        5,
        9,
        True,
        True,
    )


def test_a_record_comment_deleted_meanwhile_is_written_anew(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"record": None},
            "errors": [
                {"type": "NOT_FOUND", "path": ["record"], "message": "Could not resolve node"}
            ],
        },
    )
    created = mocked.post(f"{REPO}/issues/7/comments", json={"id": 12}, status=201)
    done = labelled.write(Writes(number=7, record="<!-- baton:record -->", record_comment=5))
    assert (done.record_gone, done.record_comment) == (5, 12)
    assert sent(created.calls[0]) == {"body": "<!-- baton:record -->"}


def test_a_failed_field_is_redone_over_rest_once_the_document_has_run(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """GitHub runs the fields after a failed one; the failed one is redone with its own call."""
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {
                "record": None,
                "labelsAdded": {"clientMutationId": None},
                "message": {"commentEdge": {"node": {"id": "IC_9", "fullDatabaseId": "9"}}},
            },
            "errors": [{"type": "FORBIDDEN", "path": ["record"], "message": "try later"}],
        },
    )
    patched = mocked.patch(f"{REPO}/issues/comments/5", json={"id": 5})
    done = labelled.write(
        Writes(
            number=7,
            record="r",
            record_comment=5,
            labels=LabelChange(("bug",), ("bug", "status:received"), SPECS),
            message="Questions",
        )
    )
    assert sent(patched.calls[0]) == {"body": "r"}
    assert (done.record_comment, done.message_comment, done.labels) == (5, 9, True)


def test_a_field_that_fails_again_alone_fails_the_run_naming_both(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"record": None},
            "errors": [{"type": "FORBIDDEN", "path": ["record"], "message": "not allowed"}],
        },
    )
    mocked.patch(f"{REPO}/issues/comments/5", status=403, json={"message": "not allowed"})
    with pytest.raises(TrackerError) as failed:
        labelled.write(Writes(number=7, record="r", record_comment=5))
    assert failed.value.status == 403
    assert "FORBIDDEN not allowed; then GitHub refused updating comment 5" in str(failed.value)


def test_a_failed_reaction_is_tried_again_and_then_reported_not_raised(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {
                "record": {"issueComment": {"id": "IC_5", "fullDatabaseId": "5"}},
                "reaction": None,
            },
            "errors": [{"type": "NOT_FOUND", "path": ["reaction"], "message": "gone"}],
        },
    )
    mocked.post(f"{REPO}/issues/comments/6/reactions", status=404, json={"message": "Not Found"})
    done = labelled.write(Writes(number=7, record="r", record_comment=5, reaction=(6, "eyes")))
    assert not done.reacted and "404" in (done.reaction_problem or "")


def test_only_labels_the_read_saw_on_the_issue_are_removed(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """GitHub may refuse to remove a label an issue does not carry: the document leaves out
    those the read did not see (the record's old label when the snapshot predates it)."""
    read_issue(mocked, labelled, labels=("bug", "baton"))
    write = mocked.post(GRAPHQL, json={"data": {"labelsRemoved": {"clientMutationId": None}}})
    change = LabelChange(("bug", "baton", "status:received"), ("bug",), SPECS)
    done = labelled.write(Writes(number=7, labels=change))
    assert sent(write.calls[-1])["variables"]["labelsRemovedIds"] == ["LA_baton"]
    assert done.labels


def test_a_failed_addition_puts_back_the_label_the_document_removed(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """The new label failed in the document and alone, while the document took the old one
    off: it is put back, so the issue never has zero status labels."""
    read_issue(
        mocked,
        labelled,
        triage={"id": "LA_triage", "name": "status:triage", "color": "fbca04"},
        labels=("status:received",),
    )
    mocked.post(
        GRAPHQL,
        json={
            "data": {"labelsAdded": None, "labelsRemoved": {"clientMutationId": None}},
            "errors": [{"type": "NOT_FOUND", "path": ["labelsAdded"], "message": "no label"}],
        },
    )
    again = mocked.post(f"{REPO}/issues/7/labels", status=422, json={"message": "nope"})
    restored = mocked.post(f"{REPO}/issues/7/labels", json=[])
    change = LabelChange(("status:received",), ("status:triage",), SPECS)
    with pytest.raises(TrackerError, match="labelsAdded"):
        labelled.write(Writes(number=7, labels=change))
    assert sent(again.calls[0]) == {"labels": ["status:triage"]}
    assert sent(restored.calls[-1]) == {"labels": ["status:received"]}


def test_a_field_answered_with_nothing_is_redone(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """Should GitHub stop at a failing field instead of running the rest, the fields after it
    come back empty without an error of their own: they count as not run and are redone."""
    read_issue(mocked, labelled)
    mocked.post(GRAPHQL, json={"data": {"record": {"issueComment": {"fullDatabaseId": "5"}}}})
    posted = mocked.post(f"{REPO}/issues/7/comments", json={"id": 11}, status=201)
    done = labelled.write(Writes(number=7, record="r", record_comment=5, message="Questions"))
    assert done.message_comment == 11 and sent(posted.calls[0]) == {"body": "Questions"}


def test_an_execution_error_on_the_write_is_not_sent_again_over_rest(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """`data: null` from a mutation means GitHub failed while running it, maybe half-way: the
    run fails (the next one repairs) instead of doing it all again over REST."""
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": None,
            "errors": [{"message": "Something went wrong while executing your query."}],
        },
    )
    with pytest.raises(TrackerError, match="could not finish"):
        labelled.write(Writes(number=7, record="r", record_comment=5, message="Questions"))
    assert labelled.graphql, "GraphQL stays on: it did run"


def test_an_error_inside_a_field_that_answered_is_not_a_failed_field(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """An error under `message.commentEdge...` while `message` came back: the comment was
    made, and redoing it would post it twice."""
    read_issue(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"message": {"commentEdge": {"node": None}}},
            "errors": [
                {"type": "INTERNAL", "path": ["message", "commentEdge", "node"], "message": "x"}
            ],
        },
    )
    done = labelled.write(Writes(number=7, message="Questions"))
    assert done.message_comment is None
    assert labelled.requests == 2, "nothing posted again over REST"


def test_after_a_read_over_rest_the_issue_is_written_over_rest_too(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """The first read cached the issue's labels; the next read failed in GraphQL and went
    over REST. Its write must not filter removals by the stale labels: it goes over REST."""
    read_issue(mocked, labelled, labels=("status:received",))
    mocked.post(GRAPHQL, json={"data": None, "errors": [{"message": "timeout"}]})
    mocked.get(f"{REPO}/issues/7/comments", json=[])
    labelled.read(7, with_issue=False)
    added = mocked.post(f"{REPO}/issues/7/labels", json=[{"name": "status:received"}])
    removed = mocked.delete(f"{REPO}/issues/7/labels/status%3Atriage", json=[])
    change = LabelChange(("status:triage",), ("status:received",), SPECS)
    labelled.write(Writes(number=7, labels=change))
    assert len(added.calls) == 1 and len(removed.calls) == 1


def test_the_tracker_writes_through_the_issue_writes_role() -> None:
    assert issubclass(GitHubTracker, GitHubIssueWrites)
    assert GitHubTracker.run_batch is GitHubIssueWrites.run_batch
