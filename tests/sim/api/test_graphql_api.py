"""Tests of the fake GitHub's GraphQL endpoint, over real HTTP and through PyGithub's requester.

The documents are Baton's own (`baton.github_graphql`), so these tests also pin that each of them
validates against the trimmed copy of GitHub's schema and runs. Every write is checked against
the state REST reads, since the two APIs of the fake must never disagree.
"""

from __future__ import annotations

import pytest

import github
from baton.github import graphql as gql
from baton.sim.api import graphql_api as github_graphql
from fakes.graphql_probe import (
    BRANCH,
    BRANCH_QUERY,
    COMMIT,
    CREATE_REF,
    READ_WITH_BRANCH,
    UPDATE_PULL_REQUEST,
    commit_input,
    edges_document,
    errors_of,
    every_write,
    post,
    read_vars,
    run,
    tasks_document,
    through_pygithub,
)
from fakes.http_github import REPOSITORY_ID, Call, FakeGitHub


def test_every_baton_document_validates_against_the_schema() -> None:
    assert "trimmed subset of GitHub's public GraphQL schema" in (
        github_graphql.SCHEMA_PATH.read_text(encoding="utf-8")
    )
    github_graphql.schema()  # builds (graphql-core checks the SDL itself)
    documents = [
        gql.read_document(0),
        gql.read_document(3),
        gql.COMMENTS_PAGE,
        gql.COMMENT_BODY,
        every_write("I_fake1", "IC_fake2", "LA_fake3", "LA_fake4", "IC_fake5").document(),
        gql.sub_issues_document(),
        gql.sub_issues_document(2, operation="BatonTasks"),
        gql.read_many_document([1]),
        gql.read_many_document([3, 5, 8]),
        gql.BRANCH_AND_BASE,
        gql.git.tree_document(["", "a", "a/b"], ["CLAUDE.md", "a/.claude"])[0],
        gql.read_document(1, branch=True, tree=gql.git.tree_selection(["", "src"], [])[:2]),
        tasks_document().document(),
        edges_document().document(),
    ]
    for document in documents:
        assert github_graphql.validation_errors(document) == [], document
    # A field GitHub lacks is refused, as GitHub would.
    assert github_graphql.validation_errors("{ viewer { login } }") == [
        "Cannot query field 'viewer' on type 'Query'."
    ]


def test_operation_names_are_parsed_for_the_log() -> None:
    name = github_graphql.operation_name
    assert name({"query": gql.read_document(1)}) == "BatonRead"
    assert name({"query": gql.COMMENTS_PAGE}) == "BatonComments"
    assert name({"query": gql.COMMENT_BODY}) == "BatonRecordCheck"
    assert name({"query": gql.Mutation().document()}) is None  # no fields: does not parse
    two = "query A { node(id: 1) { id } } query B { node(id: 2) { id } }"
    assert name({"query": two}) is None
    assert name({"query": two, "operationName": "B"}) == "B"
    assert name({"query": "{ node(id: 1) { id } }"}) is None
    assert name(None) is None


def test_a_failing_field_is_null_and_the_fields_after_it_still_run(fake: FakeGitHub) -> None:
    fake.add_label("status:working")
    number = fake.add_issue("Partial")
    issue_id = fake.issue_json(number)["node_id"]
    label_id = fake.label_json("status:working")["node_id"]

    def write(stale: bool) -> gql.Mutation:
        doc = gql.Mutation()
        doc.add_comment("record", issue_id, "record")
        if stale:
            doc.update_comment("stale", "IC_fake999999", "lost")  # a comment deleted meanwhile
        doc.add_labels("labelsAdded", issue_id, [label_id])
        doc.add_comment("message", issue_id, "message")
        return doc

    fake.fail_graphql_field("record", "FORBIDDEN", message="Resource not accessible by integration")
    doc = write(stale=True)
    answer = run(fake, doc.document(), doc.variables)
    assert answer["data"]["record"] is None
    assert answer["data"]["stale"] is None
    assert answer["data"]["labelsAdded"] == {"clientMutationId": None}
    assert answer["data"]["message"] is not None
    assert [(e["type"], e["path"]) for e in answer["errors"]] == [
        ("FORBIDDEN", ["record"]),
        ("NOT_FOUND", ["stale"]),
    ]
    assert answer["errors"][0]["message"] == "Resource not accessible by integration"
    assert set(answer["errors"][0]) == {"type", "path", "locations", "message"}
    errors = gql.field_errors(answer)
    assert (errors["record"].kind, errors["stale"].kind) == ("FORBIDDEN", "NOT_FOUND")
    assert [c["body"] for c in fake.comments(number)] == ["message"]  # record never ran
    assert fake.labels_of(number) == ["status:working"]

    # The injected failure was for one field once: the next document runs whole.
    doc = write(stale=False)
    assert "errors" not in run(fake, doc.document(), doc.variables)
    assert [c["body"] for c in fake.comments(number)] == ["message", "record", "message"]


def test_field_faults_can_be_narrowed_to_an_operation_and_repeated(fake: FakeGitHub) -> None:
    number = fake.add_issue("Faults")
    issue_id = fake.issue_json(number)["node_id"]
    fault = fake.fail_graphql_field("repository", "NOT_FOUND", operation="BatonRead", times=None)
    for _ in range(2):
        answer = run(fake, gql.read_document(0), read_vars(number))
        assert answer["data"] == {"repository": None}
        assert answer["errors"][0]["type"] == "NOT_FOUND"
    assert "errors" not in run(fake, gql.COMMENTS_PAGE, read_vars(number))  # another operation
    assert fault.hits == 2
    fake.clear_faults()
    assert "errors" not in run(fake, gql.read_document(0), read_vars(number))

    fake.fail_graphql_field("message", "UNPROCESSABLE")
    doc = gql.Mutation()
    doc.add_comment("message", issue_id, "hi")
    failed = run(fake, doc.document(), doc.variables)
    assert failed["errors"][0]["type"] == "UNPROCESSABLE"
    assert fake.comments(number) == []
    with pytest.raises(ValueError):
        fake.fail_graphql_field("message", times=0)


def test_documents_that_do_not_validate_answer_200_with_errors_and_no_data(
    fake: FakeGitHub,
) -> None:
    number = fake.add_issue("Strict")
    issue_id = fake.issue_json(number)["node_id"]
    unknown = run(fake, 'query Q { repository(owner: "octo", name: "demo") { stars } }')
    assert unknown == {
        "errors": [
            {
                "locations": [{"line": 1, "column": 53}],
                "message": "Cannot query field 'stars' on type 'Repository'.",
            }
        ]
    }
    # A mutation with one bad field runs none of its fields.
    doc = gql.Mutation()
    doc.add_comment("message", issue_id, "never")
    broken = (
        doc.document()
        .replace("clientMutationId", "x")
        .replace(
            "{ commentEdge",
            '{ nope } x: addComment(input: {subjectId: "a", body: "b"}) { commentEdge',
        )
    )
    refused = run(fake, broken, doc.variables)
    assert "data" not in refused and refused["errors"]
    assert fake.comments(number) == []

    syntax = run(fake, "query {")
    assert "data" not in syntax
    assert syntax["errors"][0]["locations"] == [{"line": 1, "column": 8}]
    variables = run(fake, gql.COMMENT_BODY, {})  # $id missing
    assert "data" not in variables
    assert "$id" in variables["errors"][0]["message"]
    no_query = post(fake, {"variables": {}})
    assert no_query.status_code == 200
    assert no_query.json() == {
        "errors": [{"message": "A query attribute must be specified and must be a string."}]
    }
    assert fake.internal_errors == []


def test_pygithub_reads_not_found_as_github_shapes_it(fake: FakeGitHub, gh: github.Github) -> None:
    """PyGithub's own `graphql_query` turns a lone NOT_FOUND into UnknownObjectException: the
    fake's error shape is the one PyGithub was written against."""
    assert gh.requester.graphql_url == f"{fake.url}/graphql"
    with pytest.raises(github.UnknownObjectException):
        gh.requester.graphql_query(gql.COMMENT_BODY, {"id": "IC_fake1"})


def test_calls_are_logged_with_their_operation(fake: FakeGitHub) -> None:
    number = fake.add_issue("Log")
    run(fake, gql.read_document(0), read_vars(number))
    run(fake, gql.COMMENT_BODY, {"id": "IC_fake1"})
    post(fake, {"query": "not graphql"})
    logged = fake.calls("POST", "/graphql")
    assert [(c.path, c.status, c.operation) for c in logged] == [
        ("/graphql", 200, "BatonRead"),
        ("/graphql", 200, "BatonRecordCheck"),
        ("/graphql", 200, None),
    ]
    assert logged[0].body["variables"]["number"] == number
    assert [c.operation for c in fake.calls(operation="BatonRecordCheck")] == ["BatonRecordCheck"]
    # Call keeps its positional construction; the operation is an optional last field.
    assert Call("GET", "/x", {}, None, 200).operation is None


def test_faults_can_target_one_operation(fake: FakeGitHub, gh: github.Github) -> None:
    number = fake.add_issue("Faulty")
    fake.fail("POST", "/graphql", 502, operation="BatonWrite")
    assert "errors" not in run(fake, gql.read_document(0), read_vars(number))  # not a write
    doc = gql.Mutation()
    doc.add_comment("message", fake.issue_json(number)["node_id"], "hi")
    with pytest.raises(github.GithubException) as failed:
        through_pygithub(gh, doc.document(), doc.variables)
    assert failed.value.status == 502
    assert fake.comments(number) == []  # the fault answered before anything ran
    assert "errors" not in through_pygithub(gh, doc.document(), doc.variables)  # times=1
    assert [c.status for c in fake.calls(operation="BatonWrite")] == [502, 200]

    fake.fail("POST", "/graphql", 403)  # a secondary rate limit, on any document
    limited = post(fake, {"query": gql.COMMENT_BODY, "variables": {"id": "x"}})
    assert limited.status_code == 403
    assert limited.headers["retry-after"] == "1"


def test_authentication_and_rate_metering_apply(fake: FakeGitHub) -> None:
    number = fake.add_issue("Metered")
    body = {"query": gql.read_document(0), "variables": read_vars(number)}
    assert post(fake, body, token="wrong").status_code == 401
    used = fake.rate_used
    response = post(fake, body)
    assert fake.rate_used == used + 1
    assert response.headers["x-ratelimit-resource"] == "graphql"
    fake.graphql_limit = fake.graphql_used
    exhausted = post(fake, body)
    # GitHub says so in a 200 answer without data, not with a 403 as REST does.
    assert exhausted.status_code == 200
    assert exhausted.json() == {
        "errors": [
            {"type": "RATE_LIMITED", "message": "API rate limit exceeded for installation ID 1."}
        ]
    }
    assert post(fake, {"query": "{"}, token="wrong").status_code == 401


def test_every_work_product_document_validates_and_a_wrong_one_is_refused() -> None:
    for document in (BRANCH_QUERY, READ_WITH_BRANCH, CREATE_REF, COMMIT, UPDATE_PULL_REQUEST):
        assert github_graphql.validation_errors(document) == [], document
    commit = 'branch: {branchName: "b"}, expectedHeadOid: "0", message: {headline: "h"}'
    wrong = [
        (  # GitHub's argument is `qualifiedName`
            'query { repository(owner: "o", name: "n") { ref(name: "x") { name } } }',
            "Unknown argument 'name' on field 'Repository.ref'.",
        ),
        (  # a FileAddition has `contents`, not `content`
            f"mutation {{ createCommitOnBranch(input: {{{commit},"
            ' fileChanges: {additions: [{path: "a", content: "eA=="}]}}) { commit { oid } } }',
            "Expected value of type 'FileAddition' not to include unknown field 'content'",
        ),
        (  # expectedHeadOid is required: there is no commit without a compare-and-swap
            'mutation { createCommitOnBranch(input: {branch: {branchName: "b"},'
            ' message: {headline: "h"}}) { commit { oid } } }',
            "Expected value of type 'CreateCommitOnBranchInput' to include required field"
            " 'expectedHeadOid'",
        ),
        (  # a Ref's target is a GitObject: `message` is a Commit's
            'query { repository(owner: "o", name: "n") {'
            ' ref(qualifiedName: "x") { target { message } } } }',
            "Cannot query field 'message' on type 'GitObject'."
            " Did you mean to use an inline fragment on 'Commit'?",
        ),
        (  # a draft is made ready by its own mutation, not by an update
            'mutation { updatePullRequest(input: {pullRequestId: "x", draft: false})'
            " { clientMutationId } }",
            "Expected value of type 'UpdatePullRequestInput' not to include unknown field 'draft'",
        ),
    ]
    for document, message in wrong:
        refused = github_graphql.validation_errors(document)
        assert any(error.startswith(message) for error in refused), (document, refused)


def test_the_new_fields_fail_as_a_test_tells_them_to(fake: FakeGitHub) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    fake.fail_graphql_field("createCommitOnBranch", "INTERNAL", message="boom")
    fake.fail_graphql_field("ref", "NOT_FOUND", operation="BatonBranch")

    failed = run(fake, COMMIT, commit_input(head, {"b.txt": "b"}))
    assert errors_of(failed) == [("INTERNAL", "boom")]
    assert fake.branch_head(BRANCH) == head
    # `ref` is no root field: faults name root fields, so the query runs
    read = run(fake, BRANCH_QUERY, {"owner": "octo", "name": "demo", "ref": BRANCH})
    assert "errors" not in read
    fake.clear_faults()
    fake.fail("POST", "/graphql", 502, operation="BatonCommit")
    assert post(fake, {"query": COMMIT, "variables": commit_input(head)}).status_code == 502
    assert "errors" not in run(fake, COMMIT, commit_input(head, {"b.txt": "b"}))


def test_faults_can_strike_the_nth_matching_request_or_field(fake: FakeGitHub) -> None:
    number = fake.add_issue("Faults")
    fake.fail("POST", "/graphql", 502, operation="BatonRead", after=1)
    assert post(fake, {"query": gql.read_document(0), "variables": read_vars(number)}).ok
    assert (
        post(fake, {"query": gql.read_document(0), "variables": read_vars(number)}).status_code
        == 502
    )
    assert post(fake, {"query": gql.read_document(0), "variables": read_vars(number)}).ok
    epic = fake.node_id(number)
    fault = fake.fail_graphql_field("t1", "FORBIDDEN", after=1)
    for expected in (None, "FORBIDDEN", None):
        doc = tasks_document(f"R_fake{REPOSITORY_ID}", epic, ())
        answer = run(fake, doc.document(), doc.variables)
        kinds = [e["type"] for e in answer.get("errors", [])]
        assert kinds == ([expected] if expected else [])
    assert fault.hits == 1
