"""An epic's sub-issues document as GitHub's schema takes it, how its answer is read, a task's
body with its mark, and the issue a `createIssue` field created."""

from __future__ import annotations

from typing import Any

import pytest

from baton.core.text import task_marker
from baton.github.graphql.mutation import Mutation
from baton.github.graphql.sub_issues import (
    BLOCKERS,
    SUB_ISSUE_LABELS,
    SubIssueFound,
    created_issue,
    parse_sub_issues,
    sub_issues_document,
    task_body,
)
from baton.sim.api import graphql_api as github_graphql


def sub_issue(number: int, **fields: Any) -> dict[str, Any]:
    """A sub-issue node as GitHub answers `_SUB_ISSUE`: open, by the bot, one label."""
    return {
        "id": f"I_{number}",
        "number": number,
        "state": "OPEN",
        "body": f"Task {number}",
        "author": {"__typename": "Bot", "login": "github-actions"},
        "labels": {"nodes": [{"name": "status:ready"}]},
        "blockedBy": {"nodes": []},
        **fields,
    }


# --- the document -----------------------------------------------------------------------------
@pytest.mark.parametrize("label_count", [0, 1, 4])
def test_the_sub_issues_document_validates_against_github_s_schema(label_count: int) -> None:
    document = sub_issues_document(label_count)
    assert github_graphql.validation_errors(document) == [], document


def test_the_task_creation_documents_validate_against_github_s_schema() -> None:
    # The query `create_tasks` makes under its own name, and the mutation it builds from
    # `task_body` and the ids the query found.
    doc = Mutation(operation="BatonCreateTasks")
    doc.create_issue("t0", "R_1", "Write the parser", task_body(7, "parser", "Parse."), [], "I_7")
    doc.create_issue("t1", "R_1", "Test it", task_body(7, "tests", ""), ["LA_1", "LA_2"], "I_7")
    edges = Mutation(operation="BatonBlockedBy")
    edges.add_blocked_by("e0", "I_9", "I_8")

    for document in (
        sub_issues_document(2, operation="BatonTasks"),
        doc.document(),
        edges.document(),
    ):
        assert github_graphql.validation_errors(document) == [], document


def test_the_document_reads_one_page_of_sub_issues_with_their_labels_and_blockers() -> None:
    document = sub_issues_document()

    assert document.startswith(
        "query BatonSubIssues($owner: String!, $name: String!, $number: Int!) {"
    )
    assert "subIssues(first: 100)" in document  # GitHub holds at most 100 per parent
    assert (SUB_ISSUE_LABELS, BLOCKERS) == (20, 50)
    assert "labels(first: 20) { nodes { name } }" in document
    assert "blockedBy(first: 50) { nodes { number } }" in document
    assert "label(name:" not in document


def test_the_document_looks_up_the_labels_asked_for_under_its_operation_name() -> None:
    document = sub_issues_document(2, operation="BatonTasks")

    assert document.startswith(
        "query BatonTasks($owner: String!, $name: String!, $number: Int!, $l0: String!, "
        "$l1: String!) {"
    )
    assert "l0: label(name: $l0) { id name }" in document
    assert "l1: label(name: $l1) { id name }" in document
    assert "$l2" not in document


def test_the_schema_check_refuses_a_document_github_would_refuse() -> None:
    wrong = sub_issues_document().replace("blockedBy(first: 50)", "blockers(first: 50)")
    assert github_graphql.validation_errors(wrong) != []  # Issue has no `blockers`


# --- the answer -------------------------------------------------------------------------------
def test_sub_issues_are_read_with_state_author_body_labels_and_blockers() -> None:
    issue = {
        "id": "I_7",
        "subIssues": {
            "nodes": [
                sub_issue(8),
                sub_issue(
                    9,
                    state="CLOSED",
                    author={"__typename": "User", "login": "maria"},
                    body=None,
                    labels={"nodes": [{"name": "status:done"}, None, {"name": "epic-task"}]},
                    blockedBy={"nodes": [{"number": 8}, None, {"number": 3}]},
                ),
            ]
        },
    }

    assert parse_sub_issues(issue) == [
        SubIssueFound(
            number=8,
            node_id="I_8",
            open=True,
            labels=("status:ready",),
            author="github-actions[bot]",
            body="Task 8",
            blocked_by=(),
        ),
        SubIssueFound(
            number=9,
            node_id="I_9",
            open=False,
            labels=("status:done", "epic-task"),
            author="maria",
            body="",
            blocked_by=(8, 3),
        ),
    ]


def test_a_sub_issue_by_a_deleted_user_is_ghost_s_and_its_missing_parts_are_empty() -> None:
    node = sub_issue(4, author=None, labels=None, blockedBy=None)
    del node["state"]

    found = parse_sub_issues({"subIssues": {"nodes": [node]}})

    assert found == [
        SubIssueFound(
            number=4,
            node_id="I_4",
            open=True,  # no state answered: taken as open
            labels=(),
            author="ghost",
            body="Task 4",
            blocked_by=(),
        )
    ]


def test_a_node_github_left_out_is_skipped() -> None:
    found = parse_sub_issues({"subIssues": {"nodes": [None, sub_issue(5), "junk"]}})
    assert [sub.number for sub in found] == [5]


def test_an_issue_without_sub_issues_has_none() -> None:
    assert parse_sub_issues(None) == []
    assert parse_sub_issues({"subIssues": None}) == []
    assert parse_sub_issues({"subIssues": {"nodes": []}}) == []


# --- a task's body ----------------------------------------------------------------------------
MARK = '<!-- baton:task {"epic":7,"key":"parser"} -->'


def test_a_task_s_body_ends_with_its_mark() -> None:
    assert task_marker.render(7, "parser") == MARK
    assert task_body(7, "parser", "Parse the CSV.\n\n") == f"Parse the CSV.\n\n{MARK}"
    assert task_marker.read(task_body(7, "parser", "Parse the CSV.")) == (7, "parser")


def test_an_empty_task_body_is_the_mark_alone() -> None:
    assert task_body(7, "parser", "") == MARK
    assert task_body(7, "parser", "  \n ") == MARK


def test_a_body_that_already_carries_its_own_mark_is_kept_as_it_is() -> None:
    body = f"Parse the CSV.\n\n{MARK}\n"
    assert task_body(7, "parser", body) == body


def test_a_planner_s_text_carrying_another_task_s_mark_still_gets_this_one_last() -> None:
    # The last mark wins when read back: another epic's or key's mark is overridden.
    forged = '<!-- baton:task {"epic":3,"key":"admin"} -->'
    body = task_body(7, "parser", f"Parse.\n{forged}")

    assert body == f"Parse.\n{forged}\n\n{MARK}"
    assert task_marker.read(body) == (7, "parser")


# --- what createIssue created -----------------------------------------------------------------
def test_a_created_issue_gives_its_number_and_node_id() -> None:
    data = {"t0": {"issue": {"id": "I_12", "number": 12}}, "t1": None}

    assert created_issue(data, "t0") == (12, "I_12")


def test_a_create_issue_field_that_failed_or_was_not_asked_created_nothing() -> None:
    data = {"t0": None, "t1": {"issue": None}, "t2": {"issue": {"id": "I_1", "number": None}}}

    assert created_issue(data, "t0") is None
    assert created_issue(data, "t1") is None
    assert created_issue(data, "t2") is None
    assert created_issue(data, "t9") is None
