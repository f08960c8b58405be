"""How a GraphQL answer says what failed: by alias, a field that ran kept apart from one that
did not, and the ids of a comment a field created."""

from __future__ import annotations

from baton.github.graphql.answers import FieldError, created_id, field_errors, nested_errors


def test_a_field_asked_for_and_answered_with_nothing_did_not_run() -> None:
    answer = {"data": {"record": {"ok": True}, "message": None}}
    assert field_errors(answer, ["record", "message"]) == {
        "message": FieldError("message", "NOT_RUN", "GitHub answered nothing for it")
    }


def test_an_error_names_its_field_with_github_s_type_and_message() -> None:
    answer = {
        "data": {"labels": None},
        "errors": [{"path": ["labels"], "type": "NOT_FOUND", "message": "Could not resolve"}],
    }
    assert field_errors(answer, ["labels"]) == {
        "labels": FieldError("labels", "NOT_FOUND", "Could not resolve")
    }


def test_an_error_inside_a_field_that_answered_is_not_the_field_failing() -> None:
    answer = {
        "data": {"message": {"commentEdge": None}},
        "errors": [{"path": ["message", "commentEdge"], "message": "partial"}],
    }
    assert field_errors(answer, ["message"]) == {}


def test_the_errors_under_a_root_field_are_by_their_alias() -> None:
    answer = {"errors": [{"path": ["repository", "i7"], "type": "NOT_FOUND", "message": "gone"}]}
    assert nested_errors(answer, "repository") == {"i7": FieldError("i7", "NOT_FOUND", "gone")}


def test_a_created_comment_gives_its_database_and_node_id() -> None:
    data = {"c": {"commentEdge": {"node": {"id": "IC_1", "fullDatabaseId": "3000000000"}}}}
    assert created_id(data, "c") == (3_000_000_000, "IC_1")
    assert created_id({"c": None}, "c") is None
