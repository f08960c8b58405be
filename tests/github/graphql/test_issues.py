"""The documents that read an issue and its comments, as GitHub's schema takes them, and how
their answers are read: a deleted user, a bot named without `[bot]`, an id past 2**31 sent as
a string, a node GitHub left out, a page with more after it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from baton.core.model.issue_facts import Comment, IssueInfo
from baton.github.graphql.issues import (
    COMMENT_BODY,
    COMMENTS_PAGE,
    PAGE,
    LabelFound,
    author_login,
    parse_comment,
    parse_comments,
    parse_read,
    read_document,
    read_many_document,
)
from baton.sim.api import graphql_api as github_graphql

HEAD = "2" * 40
CREATED = "2026-01-05T09:00:00Z"
AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def comment_node(
    database_id: Any = 3_000_000_001, node: str = "IC_1", **fields: Any
) -> dict[str, Any]:
    """An `IssueComment` as GitHub answers `_COMMENT`, never edited, by alice."""
    return {
        "id": node,
        "fullDatabaseId": database_id,
        "body": "Please add a CSV export.",
        "createdAt": CREATED,
        "updatedAt": CREATED,
        "lastEditedAt": None,
        "authorAssociation": "CONTRIBUTOR",
        "author": {"__typename": "User", "login": "alice"},
        "editor": None,
        **fields,
    }


# --- the documents ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "document",
    [
        read_document(0),
        read_document(1),
        read_document(3),
        read_document(0, branch=True),
        read_document(2, branch=True),
        COMMENTS_PAGE,
        COMMENT_BODY,
        read_many_document([7]),
        read_many_document([1, 2, 300]),
    ],
    ids=[
        "read, no labels looked up",
        "read, one label",
        "read, three labels",
        "read with the branch",
        "read with two labels and the branch",
        "a page of comments",
        "one comment by node id",
        "one issue's comments",
        "three issues' comments",
    ],
)
def test_every_document_validates_against_github_s_schema(document: str) -> None:
    assert github_graphql.validation_errors(document) == [], document


def test_a_read_declares_and_looks_up_exactly_the_labels_asked_for() -> None:
    document = read_document(2)

    assert "$l0: String!, $l1: String!" in document and "$l2" not in document
    assert "l0: label(name: $l0) { id name color description }" in document
    assert "l1: label(name: $l1) { id name color description }" in document
    assert "$ref" not in document and "defaultBranchRef" not in document


def test_a_read_with_the_branch_asks_for_its_head_and_the_default_branch() -> None:
    document = read_document(0, branch=True)

    assert "$after: String, $ref: String!)" in document
    assert "defaultBranchRef { name target { oid } }" in document
    assert "ref(qualifiedName: $ref) { name target { oid ... on Commit { message } } }" in document
    assert "label(name:" not in document


def test_comments_are_read_by_full_database_id_a_page_of_a_hundred_at_a_time() -> None:
    # databaseId is a 32-bit Int and comment ids passed 2**31.
    assert PAGE == 100
    for document in (read_document(0), COMMENTS_PAGE, read_many_document([1])):
        assert "comments(first: 100" in document
        assert "fullDatabaseId" in document and " databaseId" not in document


def test_several_issues_are_read_each_under_its_own_alias_and_variable() -> None:
    document = read_many_document([3, 12])

    assert document.startswith(
        "query BatonReadMany($owner: String!, $name: String!, $n3: Int!, $n12: Int!)"
    )
    assert "i3: issue(number: $n3) { id number comments(first: 100)" in document
    assert "i12: issue(number: $n12) { id number comments(first: 100)" in document


def test_the_schema_check_refuses_a_document_github_would_refuse() -> None:
    # Issue's comments have no `databaseIds` field: the check above can fail.
    wrong = COMMENTS_PAGE.replace("fullDatabaseId", "databaseIds")
    assert github_graphql.validation_errors(wrong) != []


# --- who wrote it -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("author", "expected"),
    [
        ({"__typename": "User", "login": "alice"}, ("alice", False)),
        ({"__typename": "Bot", "login": "github-actions"}, ("github-actions[bot]", True)),
        ({"__typename": "Bot", "login": "renovate[bot]"}, ("renovate[bot]", True)),
        ({"__typename": "Organization", "login": "octo"}, ("octo", False)),
        ({"__typename": "User", "login": "mallory[bot]"}, ("mallory[bot]", False)),
        (None, ("ghost", False)),
    ],
    ids=[
        "a user is their login",
        "a bot gets back the [bot] GraphQL leaves off",
        "a bot already suffixed is not suffixed twice",
        "an organization is its login",
        "a user whose login ends in [bot] is still no bot",
        "a deleted account is ghost",
    ],
)
def test_an_author_is_read_as_rest_and_webhooks_name_it(
    author: Any, expected: tuple[str, bool]
) -> None:
    assert author_login(author) == expected


# --- one comment ------------------------------------------------------------------------------
def test_a_comment_is_read_with_its_id_past_two_to_the_31_sent_as_a_string() -> None:
    node = comment_node(database_id="3000000001")

    assert parse_comment(node) == Comment(
        id=3_000_000_001,
        author="alice",
        body="Please add a CSV export.",
        created_at=AT,
        author_is_bot=False,
        association="CONTRIBUTOR",
        updated_at=AT,
        edited_at=AT,  # never edited: GitHub set the body when it created the comment
        editor=None,
    )


def test_an_edited_comment_says_when_and_by_whom() -> None:
    node = comment_node(
        lastEditedAt="2026-01-05T10:30:00Z",
        updatedAt="2026-01-05T11:00:00Z",
        editor={"__typename": "Bot", "login": "github-actions"},
        author={"__typename": "Bot", "login": "github-actions"},
    )

    found = parse_comment(node)

    assert found is not None
    assert (found.author, found.author_is_bot) == ("github-actions[bot]", True)
    assert found.edited_at == datetime(2026, 1, 5, 10, 30, tzinfo=UTC)
    assert found.updated_at == datetime(2026, 1, 5, 11, 0, tzinfo=UTC)
    assert found.editor == "github-actions[bot]"
    assert found.body_set_at == datetime(2026, 1, 5, 10, 30, tzinfo=UTC)


def test_a_comment_by_a_deleted_user_is_ghost_s_and_missing_fields_take_defaults() -> None:
    node = {"id": "IC_9", "fullDatabaseId": 9, "author": None, "createdAt": CREATED}

    assert parse_comment(node) == Comment(
        id=9,
        author="ghost",
        body="",
        created_at=AT,
        association="NONE",
        updated_at=None,
        edited_at=AT,
        editor=None,
    )


def test_a_node_that_is_not_a_comment_is_none() -> None:
    # `node(id:)` of a deleted comment is null; another type answers no fullDatabaseId.
    assert parse_comment(None) is None
    assert parse_comment({"__typename": "Issue"}) is None
    assert parse_comment(comment_node(database_id=None)) is None


# --- a page of comments -----------------------------------------------------------------------
def test_a_page_gives_its_comments_their_node_ids_and_no_cursor_when_it_is_the_last() -> None:
    connection = {
        "pageInfo": {"hasNextPage": False, "endCursor": "Y3Vyc29yOjI="},
        "nodes": [comment_node(5, "IC_5"), None, comment_node("3000000006", "IC_6")],
    }

    comments, nodes, after = parse_comments(connection)

    assert [c.id for c in comments] == [5, 3_000_000_006]  # the node GitHub left out is skipped
    assert nodes == {5: "IC_5", 3_000_000_006: "IC_6"}
    assert after is None


def test_a_page_with_more_after_it_gives_the_cursor_to_read_on_from() -> None:
    connection = {
        "pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29yOjEwMA=="},
        "nodes": [comment_node(1, "IC_1")],
    }

    assert parse_comments(connection)[2] == "Y3Vyc29yOjEwMA=="


def test_a_page_with_more_but_no_cursor_or_no_page_info_ends_there() -> None:
    assert parse_comments({"pageInfo": {"hasNextPage": True, "endCursor": None}}) == ([], {}, None)
    assert parse_comments({"nodes": None}) == ([], {}, None)


# --- the whole read ---------------------------------------------------------------------------
def read_answer(**issue: Any) -> dict[str, Any]:
    """`data` of `read_document(2, branch=True)` for issue #1, status:received looked up and
    found, status:done looked up and missing."""
    found = {
        "__typename": "Issue",
        "id": "I_1",
        "number": 1,
        "title": "Export the report as CSV",
        "body": "Please add a CSV export.",
        "issueState": "OPEN",
        "updatedAt": "2026-01-05T09:30:00Z",
        "author": {"__typename": "User", "login": "alice"},
        "labels": {"nodes": [{"id": "LA_1", "name": "Baton"}, None, {"id": "LA_2", "name": "bug"}]},
        "comments": {
            "pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29yOjEwMA=="},
            "nodes": [comment_node(3_000_000_001, "IC_1")],
        },
        **issue,
    }
    return {
        "repository": {
            "issueOrPullRequest": found,
            "l0": {
                "id": "LA_7",
                "name": "status:received",
                "color": "1d76db",
                "description": "Baton: received",
            },
            "l1": None,
            "defaultBranchRef": {"name": "main"},
            "ref": {"name": "baton/issue-1", "target": {"oid": HEAD, "message": "Add CSV"}},
        }
    }


def test_a_read_gives_the_issue_its_comments_the_node_ids_and_the_branch() -> None:
    result = parse_read(read_answer(), ["Status:Received", "status:done"])

    assert result is not None
    assert result.issue == IssueInfo(
        number=1,
        title="Export the report as CSV",
        body="Please add a CSV export.",
        state="open",
        labels=("Baton", "bug"),
        author="alice",
        is_pull_request=False,
        updated_at=datetime(2026, 1, 5, 9, 30, tzinfo=UTC),
    )
    assert result.issue_node == "I_1"
    assert [c.id for c in result.comments] == [3_000_000_001]
    assert result.comment_nodes == {3_000_000_001: "IC_1"}
    # by casefolded name: the issue's own labels and the ones looked up that exist
    assert result.label_nodes == {"baton": "LA_1", "bug": "LA_2", "status:received": "LA_7"}
    assert result.styles == {
        "status:received": LabelFound(node_id="LA_7", color="1d76db", description="Baton: received")
    }
    assert result.next_page == "Y3Vyc29yOjEwMA=="
    assert result.branch == ("baton/issue-1", HEAD, "Add CSV")
    assert result.default_branch == "main"


def test_a_read_without_the_branch_or_lookups_has_none_of_them() -> None:
    data = read_answer()
    for key in ("l0", "l1", "defaultBranchRef", "ref"):
        del data["repository"][key]

    result = parse_read(data, [])

    assert result is not None
    assert (result.branch, result.default_branch, result.styles) == (None, None, {})
    assert result.label_nodes == {"baton": "LA_1", "bug": "LA_2"}


def test_a_merged_pull_request_reads_as_a_closed_pull_request() -> None:
    data = read_answer(__typename="PullRequest", pullRequestState="MERGED")
    del data["repository"]["issueOrPullRequest"]["issueState"]

    result = parse_read(data, [])

    assert result is not None
    assert (result.issue.state, result.issue.is_pull_request) == ("closed", True)


def test_a_closed_issue_by_a_deleted_user_reads_closed_and_ghost_s() -> None:
    result = parse_read(read_answer(issueState="CLOSED", author=None, updatedAt=None), [])

    assert result is not None
    assert (result.issue.state, result.issue.author, result.issue.updated_at) == (
        "closed",
        "ghost",
        None,
    )


def test_an_issue_github_does_not_find_reads_as_none() -> None:
    assert parse_read({"repository": {"issueOrPullRequest": None}}, []) is None
    assert parse_read({"repository": None}, []) is None
