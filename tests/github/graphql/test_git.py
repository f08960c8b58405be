"""The git side's documents (a branch's head, a new branch, a commit) as GitHub's schema takes
them, and how a `Ref` answer and a commit's input are read and built."""

from __future__ import annotations

from typing import Any

from graphql import execute_sync, parse

from baton.github.graphql.git import (
    BRANCH,
    BRANCH_AND_BASE,
    CREATE_COMMIT,
    CREATE_REF,
    commit_input,
    parse_ref,
    qualified,
)
from baton.sim.api import graphql_api as github_graphql

HEAD = "2" * 40


def refusals(input_: dict[str, Any]) -> list[str]:
    """What GitHub's schema says against `input_` as the `$input` of `CREATE_COMMIT`: variables
    are checked before anything runs, so a resolver-less run says exactly that."""
    ran = execute_sync(
        github_graphql.schema(), parse(CREATE_COMMIT), {}, variable_values={"input": input_}
    )
    return [error.message for error in ran.errors or []]


# --- the documents ----------------------------------------------------------------------------
def test_every_git_document_validates_against_github_s_schema() -> None:
    for document in (BRANCH, BRANCH_AND_BASE, CREATE_REF, CREATE_COMMIT):
        assert github_graphql.validation_errors(document) == [], document


def test_the_schema_check_refuses_a_git_document_github_would_refuse() -> None:
    # The check above is worth something only if it can fail: a field `Ref` lacks.
    wrong = BRANCH.replace("target { oid", "target { sha", 1)
    assert github_graphql.validation_errors(wrong) != []


def test_the_branch_and_its_base_are_read_under_two_aliases_of_one_query() -> None:
    assert "ref(qualifiedName: $ref)" in BRANCH_AND_BASE
    assert "base: ref(qualifiedName: $base)" in BRANCH_AND_BASE
    assert "ref(qualifiedName: $ref)" in BRANCH and "$base" not in BRANCH


def test_a_branch_name_is_qualified_as_a_head_ref() -> None:
    assert qualified("main") == "refs/heads/main"
    assert qualified("baton/issue-12") == "refs/heads/baton/issue-12"


# --- reading a Ref ----------------------------------------------------------------------------
def test_a_ref_answers_its_name_head_and_head_message() -> None:
    node = {"name": "baton/issue-1", "target": {"oid": HEAD, "message": "Add the CSV export"}}
    assert parse_ref(node) == ("baton/issue-1", HEAD, "Add the CSV export")


def test_a_branch_that_does_not_exist_is_none() -> None:
    # GitHub answers `ref: null` for a qualified name it does not hold.
    assert parse_ref(None) is None


def test_a_ref_without_a_head_oid_is_none() -> None:
    assert parse_ref({"name": "x", "target": None}) is None
    assert parse_ref({"name": "x", "target": {}}) is None
    assert parse_ref({"name": "x", "target": {"oid": 7}}) is None
    assert parse_ref(["not", "a", "ref"]) is None


def test_a_ref_whose_target_is_not_a_commit_has_an_empty_message() -> None:
    # `... on Commit { message }`: an annotated tag's target answers only its oid.
    assert parse_ref({"name": "v1", "target": {"oid": HEAD}}) == ("v1", HEAD, "")
    assert parse_ref({"name": None, "target": {"oid": HEAD, "message": None}}) == ("", HEAD, "")


# --- a commit's input -------------------------------------------------------------------------
def test_a_commit_input_holds_the_branch_its_expected_head_message_and_files() -> None:
    built = commit_input(
        "octo/demo",
        "baton/issue-1",
        HEAD,
        "Add the CSV export",
        "Baton-Changeset: abc",
        [("src/export.py", "cHJpbnQoKQ=="), ("README.md", "IyBSZWFkbWU=")],
        ["old.py"],
    )

    assert built == {
        "branch": {"repositoryNameWithOwner": "octo/demo", "branchName": "baton/issue-1"},
        "expectedHeadOid": HEAD,
        "message": {"headline": "Add the CSV export", "body": "Baton-Changeset: abc"},
        "fileChanges": {
            "additions": [
                {"path": "src/export.py", "contents": "cHJpbnQoKQ=="},
                {"path": "README.md", "contents": "IyBSZWFkbWU="},
            ],
            "deletions": [{"path": "old.py"}],
        },
    }
    assert refusals(built) == []


def test_a_commit_with_only_additions_or_only_deletions_sends_no_empty_list() -> None:
    added = commit_input("octo/demo", "b", HEAD, "h", "", [("a.txt", "YQ==")], [])
    deleted = commit_input("octo/demo", "b", HEAD, "h", "", [], ["a.txt"])
    empty = commit_input("octo/demo", "b", HEAD, "h", "", [], [])

    assert added["fileChanges"] == {"additions": [{"path": "a.txt", "contents": "YQ=="}]}
    assert deleted["fileChanges"] == {"deletions": [{"path": "a.txt"}]}
    assert empty["fileChanges"] == {}
    for built in (added, deleted, empty):
        assert refusals(built) == []


def test_the_input_check_refuses_what_github_s_schema_refuses() -> None:
    # A deletion carrying contents is not a FileDeletion: the check above can fail.
    built = commit_input("octo/demo", "b", HEAD, "h", "", [], ["a.txt"])
    built["fileChanges"]["deletions"][0]["contents"] = "YQ=="
    assert refusals(built) != []
