"""The tracker's GraphQL transport at the HTTP boundary, with `responses`: what one read and one
write send, how each field's answer is read, and when REST takes over."""

from __future__ import annotations

import json
from typing import Any

import pytest
import responses

from baton.errors import TrackerError
from baton.github.client import GitHubTracker
from baton.github.tracker import LabelChange, LabelSpec, Writes, cost_note

API = "https://api.github.com:443"
GRAPHQL = f"{API}/graphql"
REPO = f"{API}/repos/octo/demo"
RECEIVED = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")
TRIAGE = LabelSpec("status:triage", "fbca04", "Baton: triage")
SPECS = {RECEIVED.name: RECEIVED, TRIAGE.name: TRIAGE}


@pytest.fixture
def tracker() -> GitHubTracker:
    return GitHubTracker("octo/demo", "t0ken", retry=0, labels=(RECEIVED.name, TRIAGE.name))


def node(database_id: int, login: str = "alice", *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": f"IC_{database_id}",
        "fullDatabaseId": str(database_id),
        "body": f"comment {database_id}",
        "createdAt": "2026-01-05T09:00:00Z",
        "authorAssociation": "NONE" if bot else "MEMBER",
        "author": {"__typename": "Bot" if bot else "User", "login": login},
    }


def issue_answer(
    comments: list[dict[str, Any]],
    *,
    more: bool = False,
    typename: str = "Issue",
    triage: dict[str, Any] | None = None,
    labels: tuple[str, ...] = ("bug",),
) -> dict[str, Any]:
    return {
        "data": {
            "repository": {
                "issueOrPullRequest": {
                    "__typename": typename,
                    "id": "I_7",
                    "number": 7,
                    "title": "Add dark mode",
                    "body": "please",
                    "issueState": "OPEN",
                    "updatedAt": "2026-01-05T09:00:00Z",
                    "author": {"__typename": "User", "login": "alice"},
                    "labels": {"nodes": [{"id": f"LA_{x}", "name": x} for x in labels]},
                    "comments": {
                        "pageInfo": {"hasNextPage": more, "endCursor": "c1" if more else None},
                        "nodes": comments,
                    },
                },
                "l0": {
                    "id": "LA_status:received",
                    "name": "status:received",
                    "color": "1d76db",
                    "description": "Baton: Issue just arrived",
                },
                "l1": triage,
            }
        }
    }


def sent(call: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(call.request.body)
    return body


def test_one_query_reads_the_issue_its_labels_comments_and_the_status_label_ids(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    comments = [node(1), node(2, "github-actions", bot=True)]
    query = mocked.post(GRAPHQL, json=issue_answer(comments))
    snapshot = tracker.read(7, with_issue=True)
    assert tracker.requests == 1
    request = sent(query.calls[0])
    assert request["query"].startswith("query BatonRead(")
    assert request["variables"] == {
        "owner": "octo",
        "name": "demo",
        "number": 7,
        "after": None,
        "l0": "status:received",
        "l1": "status:triage",
    }
    assert snapshot.issue is not None
    assert snapshot.issue.labels == ("bug",) and snapshot.issue.state == "open"
    assert not snapshot.issue.is_pull_request
    assert [c.id for c in snapshot.comments] == [1, 2]
    # GraphQL names a bot without the suffix REST, webhooks and the record's author check use.
    assert snapshot.comments[1].author == "github-actions[bot]"
    assert snapshot.comments[1].author_is_bot and not snapshot.comments[0].author_is_bot
    assert snapshot.comments[0].association == "MEMBER"


def test_comments_past_the_first_hundred_are_paged_with_the_cursor(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json=issue_answer([node(i) for i in range(1, 101)], more=True))
    page = {
        "data": {
            "repository": {
                "issueOrPullRequest": {
                    "__typename": "Issue",
                    "comments": {
                        "pageInfo": {"hasNextPage": False, "endCursor": "c2"},
                        "nodes": [node(101)],
                    },
                }
            }
        }
    }
    mocked.post(GRAPHQL, json=page)
    snapshot = tracker.read(7, with_issue=False)
    assert len(snapshot.comments) == 101 and tracker.requests == 2
    second = sent(mocked.calls[1])
    assert second["query"].startswith("query BatonComments(")
    assert second["variables"]["after"] == "c1"


def test_a_missing_issue_is_a_404(mocked: responses.RequestsMock, tracker: GitHubTracker) -> None:
    mocked.post(
        GRAPHQL,
        json={
            "data": {"repository": {"issueOrPullRequest": None, "l0": None, "l1": None}},
            "errors": [
                {
                    "type": "NOT_FOUND",
                    "path": ["repository", "issueOrPullRequest"],
                    "message": "Could not resolve to an issue with the number of 7.",
                }
            ],
        },
    )
    with pytest.raises(TrackerError) as failed:
        tracker.read(7, with_issue=True)
    assert failed.value.status == 404 and "number of 7" in str(failed.value)


def test_a_document_graphql_will_not_run_sends_the_run_over_rest(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(
        GRAPHQL,
        json={"errors": [{"message": "Field 'issueOrPullRequest' doesn't exist on type 'Repo'"}]},
    )
    mocked.get(f"{REPO}/issues/7", json={"number": 7, "labels": [], "state": "open"})
    mocked.get(f"{REPO}/issues/7/comments", json=[])
    snapshot = tracker.read(7, with_issue=True)
    assert snapshot.issue is not None and snapshot.comments == []
    assert not tracker.graphql
    assert tracker.notes and "went on over REST" in tracker.notes[0]
    assert "doesn't exist" in tracker.notes[0]


def _read(mocked: responses.RequestsMock, tracker: GitHubTracker, **kwargs: Any) -> None:
    record = node(5, "github-actions", bot=True)
    mocked.post(GRAPHQL, json=issue_answer([node(1), record, node(6)], **kwargs))
    tracker.read(7, with_issue=False)


def test_one_mutation_writes_record_labels_message_and_reaction_in_that_order(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    _read(
        mocked,
        tracker,
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
    done = tracker.write(
        Writes(
            number=7,
            record="<!-- baton:record -->",
            record_comment=5,
            labels=LabelChange(("bug", "status:received"), ("bug", "status:triage"), SPECS),
            message="Questions for you",
            reaction=(6, "eyes"),
        )
    )
    assert tracker.requests == 2  # the read and the write
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
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    _read(mocked, tracker)
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
    done = tracker.write(Writes(number=7, record="<!-- baton:record -->", record_comment=5))
    assert (done.record_gone, done.record_comment) == (5, 12)
    assert sent(created.calls[0]) == {"body": "<!-- baton:record -->"}


def test_a_failed_field_is_redone_over_rest_once_the_document_has_run(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """GitHub runs the fields after a failed one; the failed one is redone with its own call."""
    _read(mocked, tracker)
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
    done = tracker.write(
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
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    _read(mocked, tracker)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"record": None},
            "errors": [{"type": "FORBIDDEN", "path": ["record"], "message": "not allowed"}],
        },
    )
    mocked.patch(f"{REPO}/issues/comments/5", status=403, json={"message": "not allowed"})
    with pytest.raises(TrackerError) as failed:
        tracker.write(Writes(number=7, record="r", record_comment=5))
    assert failed.value.status == 403
    assert "FORBIDDEN not allowed; then GitHub refused updating comment 5" in str(failed.value)


def test_a_failed_reaction_is_tried_again_and_then_reported_not_raised(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    _read(mocked, tracker)
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
    done = tracker.write(Writes(number=7, record="r", record_comment=5, reaction=(6, "eyes")))
    assert not done.reacted and "404" in (done.reaction_problem or "")


def test_only_labels_the_read_saw_on_the_issue_are_removed(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """GitHub may refuse to remove a label an issue does not carry: the document leaves out
    those the read did not see (the record's old label when the snapshot predates it)."""
    _read(mocked, tracker, labels=("bug", "baton"))
    write = mocked.post(GRAPHQL, json={"data": {"labelsRemoved": {"clientMutationId": None}}})
    change = LabelChange(("bug", "baton", "status:received"), ("bug",), SPECS)
    done = tracker.write(Writes(number=7, labels=change))
    assert sent(write.calls[-1])["variables"]["labelsRemovedIds"] == ["LA_baton"]
    assert done.labels


def test_a_status_label_used_for_the_first_time_is_created_with_its_colour(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    _read(mocked, tracker)  # status:triage is not in the repository yet
    created = mocked.post(f"{REPO}/labels", json={"node_id": "LA_new"}, status=201)
    write = mocked.post(GRAPHQL, json={"data": {"labelsAdded": {"clientMutationId": None}}})
    tracker.write(Writes(number=7, labels=LabelChange(("bug",), ("bug", "status:triage"), SPECS)))
    assert sent(created.calls[0]) == {
        "name": "status:triage",
        "color": "fbca04",
        "description": "Baton: triage",
    }
    assert sent(write.calls[-1])["variables"]["labelsAddedIds"] == ["LA_new"]
    assert tracker.requests == 3


def test_a_5xx_on_a_mutation_is_not_retried(mocked: responses.RequestsMock) -> None:
    # The default retry policy, not retry=0: reads are retried on 5xx, mutations are not.
    tracker = GitHubTracker("octo/demo", "t0ken", labels=(RECEIVED.name,))
    mocked.post(GRAPHQL, json=issue_answer([node(5, "github-actions", bot=True)]))
    write = mocked.post(GRAPHQL, status=502, json={"message": "Server Error"})
    tracker.read(7, with_issue=False)
    with pytest.raises(TrackerError) as failed:
        tracker.write(Writes(number=7, record="r", record_comment=5))
    assert failed.value.status == 502
    assert len(write.calls) == 1  # a retry would have answered 502 again
    assert tracker.requests == 2


def test_the_concurrency_check_reads_the_record_through_graphql(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    _read(mocked, tracker)
    check = mocked.post(
        GRAPHQL,
        json={
            "data": {"node": {"__typename": "IssueComment", **node(5, "github-actions", bot=True)}}
        },
    )
    found = tracker.comment(5)
    assert found is not None and found.body == "comment 5"
    assert sent(check.calls[-1])["variables"] == {"id": "IC_5"}
    mocked.post(
        GRAPHQL,
        json={
            "data": {"node": None},
            "errors": [{"type": "NOT_FOUND", "path": ["node"], "message": "gone"}],
        },
    )
    assert tracker.comment(5) is None


def test_a_failed_addition_puts_back_the_label_the_document_removed(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """The new label failed in the document and alone, while the document took the old one
    off: it is put back, so the issue never has zero status labels."""
    _read(
        mocked,
        tracker,
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
        tracker.write(Writes(number=7, labels=change))
    assert sent(again.calls[0]) == {"labels": ["status:triage"]}
    assert sent(restored.calls[-1]) == {"labels": ["status:received"]}


def test_a_field_answered_with_nothing_is_redone(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """Should GitHub stop at a failing field instead of running the rest, the fields after it
    come back empty without an error of their own: they count as not run and are redone."""
    _read(mocked, tracker)
    mocked.post(GRAPHQL, json={"data": {"record": {"issueComment": {"fullDatabaseId": "5"}}}})
    posted = mocked.post(f"{REPO}/issues/7/comments", json={"id": 11}, status=201)
    done = tracker.write(Writes(number=7, record="r", record_comment=5, message="Questions"))
    assert done.message_comment == 11 and sent(posted.calls[0]) == {"body": "Questions"}


def test_an_execution_error_on_the_write_is_not_sent_again_over_rest(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """`data: null` from a mutation means GitHub failed while running it, maybe half-way: the
    run fails (the next one repairs) instead of doing it all again over REST."""
    _read(mocked, tracker)
    mocked.post(
        GRAPHQL,
        json={
            "data": None,
            "errors": [{"message": "Something went wrong while executing your query."}],
        },
    )
    with pytest.raises(TrackerError, match="could not finish"):
        tracker.write(Writes(number=7, record="r", record_comment=5, message="Questions"))
    assert tracker.graphql, "GraphQL stays on: it did run"


def test_each_run_says_what_it_cost_and_what_is_left_of_each_budget(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    budget = {"x-ratelimit-limit": "1000", "x-ratelimit-remaining": "990"}
    mocked.post(
        GRAPHQL,
        json=issue_answer([]),
        headers={**budget, "x-ratelimit-resource": "graphql"},
    )
    mocked.get(
        f"{REPO}/collaborators/maria/permission",
        json={"permission": "write"},
        headers={**budget, "x-ratelimit-remaining": "977", "x-ratelimit-resource": "core"},
    )
    tracker.read(7, with_issue=True)
    tracker.permission("maria")
    assert cost_note(tracker) == (
        "2 (1 GraphQL, 1 REST); left this hour: 977 of 1,000 REST, 990 of 1,000 GraphQL"
    )
    assert cost_note(GitHubTracker("octo/demo", "t0ken")) == "0"  # no call made yet


def test_an_error_inside_a_field_that_answered_is_not_a_failed_field(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """An error under `message.commentEdge...` while `message` came back: the comment was
    made, and redoing it would post it twice."""
    _read(mocked, tracker)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"message": {"commentEdge": {"node": None}}},
            "errors": [
                {"type": "INTERNAL", "path": ["message", "commentEdge", "node"], "message": "x"}
            ],
        },
    )
    done = tracker.write(Writes(number=7, message="Questions"))
    assert done.message_comment is None
    assert tracker.requests == 2, "nothing posted again over REST"


def test_a_comment_is_not_posted_again_after_a_5xx(mocked: responses.RequestsMock) -> None:
    """GitHub may answer 502 after creating the comment; the outbox re-posts a message that
    truly never landed, so the POST is not retried (other calls are)."""
    tracker = GitHubTracker("octo/demo", "t0ken")
    posted = mocked.post(f"{REPO}/issues/7/comments", status=502, json={"message": "Bad"})
    with pytest.raises(TrackerError) as failed:
        tracker.create_comment(7, "Questions")
    assert failed.value.status == 502 and len(posted.calls) == 1


def test_a_read_that_failed_while_running_is_read_over_rest_once(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """`data: null` on a query (GitHub timed out reading): this read goes over REST, and the
    next one tries GraphQL again; only a document GitHub refuses turns GraphQL off."""
    mocked.post(GRAPHQL, json={"data": None, "errors": [{"message": "timeout"}]})
    mocked.get(f"{REPO}/issues/7/comments", json=[])
    tracker.read(7, with_issue=False)
    assert tracker.graphql and "read over REST instead" in tracker.notes[0]


def test_a_label_id_github_no_longer_knows_is_looked_up_again(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """The label was deleted and made again since the read: its old id fails the document, the
    addition is redone by name over REST, and the next write creates no stale reference."""
    _read(mocked, tracker)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"labelsAdded": None},
            "errors": [{"type": "NOT_FOUND", "path": ["labelsAdded"], "message": "no node"}],
        },
    )
    redone = mocked.post(f"{REPO}/issues/7/labels", json=[{"name": "status:received"}])
    change = LabelChange(("bug",), ("bug", "status:received"), SPECS)
    tracker.write(Writes(number=7, labels=change))
    assert sent(redone.calls[0]) == {"labels": ["status:received"]}
    created = mocked.post(f"{REPO}/labels", json={"node_id": "LA_again"}, status=201)
    write = mocked.post(GRAPHQL, json={"data": {"labelsAdded": {"clientMutationId": None}}})
    tracker.write(Writes(number=7, labels=change))
    assert len(created.calls) == 1
    assert sent(write.calls[-1])["variables"]["labelsAddedIds"] == ["LA_again"]


def test_a_comment_page_answered_with_an_error_fails_the_read(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """A missing page would read like a lost record or an approval never given."""
    mocked.post(GRAPHQL, json=issue_answer([node(i) for i in range(1, 101)], more=True))
    mocked.post(
        GRAPHQL,
        json={
            "data": {"repository": None},
            "errors": [{"type": "FORBIDDEN", "path": ["repository"], "message": "no"}],
        },
    )
    with pytest.raises(TrackerError, match="comments after 100"):
        tracker.read(7, with_issue=False)


def test_after_a_read_over_rest_the_issue_is_written_over_rest_too(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """The first read cached the issue's labels; the next read failed in GraphQL and went
    over REST. Its write must not filter removals by the stale labels: it goes over REST."""
    _read(mocked, tracker, labels=("status:received",))
    mocked.post(GRAPHQL, json={"data": None, "errors": [{"message": "timeout"}]})
    mocked.get(f"{REPO}/issues/7/comments", json=[])
    tracker.read(7, with_issue=False)
    added = mocked.post(f"{REPO}/issues/7/labels", json=[{"name": "status:received"}])
    removed = mocked.delete(f"{REPO}/issues/7/labels/status%3Atriage", json=[])
    change = LabelChange(("status:triage",), ("status:received",), SPECS)
    tracker.write(Writes(number=7, labels=change))
    assert len(added.calls) == 1 and len(removed.calls) == 1
