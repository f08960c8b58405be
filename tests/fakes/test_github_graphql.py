"""Tests of the fake GitHub's GraphQL endpoint, over real HTTP and through PyGithub's requester.

The documents are Baton's own (`baton.github_graphql`), so these tests also pin that each of them
validates against the trimmed copy of GitHub's schema and runs. Every write is checked against
the state REST reads, since the two APIs of the fake must never disagree.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
import requests

import github
from baton.github import graphql as gql
from fakes import github_graphql
from fakes.http_github import REPOSITORY_ID, Call, FakeGitHub

Json = dict[str, Any]


def post(fake: FakeGitHub, body: Any, *, token: str | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {token or fake.token}"}
    return requests.post(f"{fake.url}/graphql", json=body, headers=headers, timeout=5)


def run(fake: FakeGitHub, query: str, variables: Json | None = None) -> Json:
    """One document over plain HTTP; GitHub answers 200 whatever the document does."""
    response = post(fake, {"query": query, "variables": variables or {}})
    assert response.status_code == 200, response.text
    assert fake.internal_errors == []
    answer: Json = response.json()
    return answer


def through_pygithub(gh: github.Github, query: str, variables: Json) -> Json:
    """As Baton sends it: PyGithub's requester, POST to its GraphQL URL."""
    requester = gh.requester
    _, answer = requester.requestJsonAndCheck(
        "POST", requester.graphql_url, input={"query": query, "variables": variables}
    )
    assert isinstance(answer, dict)
    return answer


def read_vars(number: int, *lookups: str, after: str | None = None) -> Json:
    found: Json = {"owner": "octo", "name": "demo", "number": number, "after": after}
    found.update({f"l{i}": name for i, name in enumerate(lookups)})
    return found


def issue_of(answer: Json) -> Json:
    issue: Json = answer["data"]["repository"]["issueOrPullRequest"]
    return issue


def every_write(issue: str, record: str, added: str, removed: str, duplicate: str) -> gql.Mutation:
    """A BatonWrite with each kind of field, in the order Baton writes them."""
    doc = gql.Mutation()
    doc.add_comment("repost", issue, "re-posted")
    doc.update_comment("record", record, "record v2")
    doc.add_labels("labelsAdded", issue, [added])
    doc.remove_labels("labelsRemoved", issue, [removed])
    doc.add_comment("message", issue, "hello")
    doc.add_reaction("reaction", record, "rocket")
    doc.delete_comment("duplicate0", duplicate)
    return doc


def tasks_document(
    repository: str = "R_fake1", parent: str = "I_fake1", labels: tuple[str, ...] = ("LA_fake3",)
) -> gql.Mutation:
    doc = gql.Mutation(operation="BatonCreateTasks")
    doc.create_issue("t0", repository, "First", "body", list(labels), parent)
    doc.create_issue("t1", repository, "Second", "", [], parent)
    return doc


def edges_document(*pairs: tuple[str, str]) -> gql.Mutation:
    doc = gql.Mutation(operation="BatonBlockedBy")
    for i, (issue, blocking) in enumerate(pairs or (("I_fake1", "I_fake2"),)):
        doc.add_blocked_by(f"e{i}", issue, blocking)
    return doc


# --------------------------------------------------------------------------- the documents


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


# --------------------------------------------------------------------------- reads


def test_read_returns_the_issue_its_labels_comments_and_label_lookups(
    fake: FakeGitHub, gh: github.Github
) -> None:
    fake.add_label("status:ready", "0e8a16", "Ready for an agent")
    number = fake.add_issue("Crash", "on start", user="carol", labels=["bug", "area:ui"])
    comment = fake.add_comment(number, "me too", user="dave", association="CONTRIBUTOR")
    answer = through_pygithub(gh, gql.read_document(2), read_vars(number, "STATUS:READY", "nope"))

    assert "errors" not in answer
    issue = issue_of(answer)
    rest = fake.issue_json(number)
    assert issue["__typename"] == "Issue"
    assert issue["id"] == rest["node_id"] == f"I_fake{rest['id']}"
    assert (issue["number"], issue["title"], issue["body"], issue["issueState"]) == (
        number,
        "Crash",
        "on start",
        "OPEN",
    )
    assert issue["updatedAt"] == rest["updated_at"]
    assert issue["author"] == {"__typename": "User", "login": "carol"}
    # GitHub orders an issue's labels by the labels' creation.
    assert issue["labels"]["nodes"] == [
        {"id": fake.label_json("bug")["node_id"], "name": "bug"},
        {"id": fake.label_json("area:ui")["node_id"], "name": "area:ui"},
    ]
    assert issue["comments"]["pageInfo"]["hasNextPage"] is False
    assert issue["comments"]["nodes"] == [
        {
            "id": f"IC_fake{comment['id']}",
            "fullDatabaseId": str(comment["id"]),
            "body": "me too",
            "createdAt": comment["created_at"],
            "updatedAt": comment["created_at"],
            "lastEditedAt": None,  # never edited
            "authorAssociation": "CONTRIBUTOR",
            "author": {"__typename": "User", "login": "dave"},
            "editor": None,
        }
    ]
    repository = answer["data"]["repository"]
    assert repository["l0"] == {  # looked up case-insensitively, answered with its real name
        "id": fake.label_json("status:ready")["node_id"],
        "name": "status:ready",
        "color": "0e8a16",
        "description": "Ready for an agent",
    }
    assert repository["l1"] is None  # a missing label is null, not an error

    found = gql.parse_read(answer["data"], ["status:ready", "nope"])
    assert found is not None
    assert found.issue.labels == ("bug", "area:ui")
    assert "nope" not in found.label_nodes and "status:ready" in found.label_nodes


def test_pull_requests_closed_issues_and_empty_bodies(fake: FakeGitHub) -> None:
    pr = fake.add_issue("Fix", is_pull_request=True)
    closed = fake.add_issue("Old")
    fake.update_issue(closed, state="closed")
    issue = issue_of(run(fake, gql.read_document(0), read_vars(pr)))
    assert (issue["__typename"], issue["pullRequestState"], issue["body"]) == (
        "PullRequest",
        "OPEN",
        "",
    )
    assert fake.issue_json(pr)["body"] is None  # REST says null where GraphQL says ""
    assert issue_of(run(fake, gql.read_document(0), read_vars(closed)))["issueState"] == "CLOSED"


def test_bot_logins_have_no_bot_suffix_in_graphql(fake: FakeGitHub) -> None:
    number = fake.add_issue("Nightly", user="github-actions[bot]", user_type="Bot")
    comment = fake.add_comment(number, "report", user="dependabot[bot]", user_type="Bot")
    issue = issue_of(run(fake, gql.read_document(0), read_vars(number)))
    assert issue["author"] == {"__typename": "Bot", "login": "github-actions"}
    assert issue["comments"]["nodes"][0]["author"] == {"__typename": "Bot", "login": "dependabot"}
    assert fake.comment_json(comment["id"])["user"]["login"] == "dependabot[bot]"  # REST keeps it


def test_comments_are_paged_past_100_by_cursor(fake: FakeGitHub, gh: github.Github) -> None:
    number = fake.add_issue("Busy")
    ids = [fake.add_comment(number, f"comment {i}")["id"] for i in range(130)]
    first = issue_of(through_pygithub(gh, gql.read_document(0), read_vars(number)))
    page = first["comments"]
    assert [int(c["fullDatabaseId"]) for c in page["nodes"]] == ids[:100]
    assert page["pageInfo"]["hasNextPage"] is True
    after = page["pageInfo"]["endCursor"]

    fake.reset_requests()
    rest = through_pygithub(gh, gql.COMMENTS_PAGE, read_vars(number, after=after))
    more = issue_of(rest)["comments"]
    assert [int(c["fullDatabaseId"]) for c in more["nodes"]] == ids[100:]
    assert more["pageInfo"] == {"hasNextPage": False, "endCursor": more["pageInfo"]["endCursor"]}
    assert [c.operation for c in fake.requests] == ["BatonComments"]

    # A cursor stays good when the comment it points at is deleted meanwhile.
    requests.delete(
        f"{fake.url}/repos/octo/demo/issues/comments/{ids[99]}",
        headers={"Authorization": f"Bearer {fake.token}"},
        timeout=5,
    )
    again = issue_of(run(fake, gql.COMMENTS_PAGE, read_vars(number, after=after)))
    assert [int(c["fullDatabaseId"]) for c in again["comments"]["nodes"]] == ids[100:]

    counted = run(
        fake,
        'query($n: Int!) { repository(owner: "octo", name: "demo") { issueOrPullRequest('
        "number: $n) { ... on Issue { comments(first: 1) { totalCount edges { cursor } "
        "pageInfo { hasPreviousPage startCursor } } } } } }",
        {"n": number},
    )
    connection = issue_of(counted)["comments"]
    assert connection["totalCount"] == 129
    assert connection["edges"][0]["cursor"] == connection["pageInfo"]["startCursor"]
    assert connection["pageInfo"]["hasPreviousPage"] is False


def test_connections_refuse_more_than_100_missing_first_and_bad_cursors(fake: FakeGitHub) -> None:
    number = fake.add_issue("Paged")
    query = (
        'query($first: Int, $after: String) { repository(owner: "octo", name: "demo") {'
        f" issueOrPullRequest(number: {number}) {{ ... on Issue {{"
        " labels(first: $first, after: $after) { nodes { name } } } } } }"
    )
    too_many = run(fake, query, {"first": 101})
    assert too_many["data"]["repository"]["issueOrPullRequest"] == {"labels": None}
    assert too_many["errors"] == [
        {
            "type": "EXCESSIVE_PAGINATION",
            "path": ["repository", "issueOrPullRequest", "labels"],
            "locations": [{"line": 1, "column": query.index("labels(") + 1}],
            "message": "Requesting 101 records on the `labels` connection exceeds the `first` "
            "limit of 100 records.",
        }
    ]
    missing = run(fake, query, {})
    assert [e["type"] for e in missing["errors"]] == ["MISSING_PAGINATION_BOUNDARIES"]
    bad = run(fake, query, {"first": 5, "after": "not-a-cursor"})
    assert [e["type"] for e in bad["errors"]] == ["INVALID_CURSOR_ARGUMENTS"]


def test_unknown_repository_and_number_are_null_with_not_found(fake: FakeGitHub) -> None:
    other = run(fake, gql.read_document(0), read_vars(1) | {"name": "other"})
    assert other == {
        "data": {"repository": None},
        "errors": [
            {
                "type": "NOT_FOUND",
                "path": ["repository"],
                "locations": [{"line": 2, "column": 3}],
                "message": "Could not resolve to a Repository with the name 'octo/other'.",
            }
        ],
    }
    missing = run(fake, gql.read_document(0), read_vars(42))
    assert missing["data"] == {"repository": {"issueOrPullRequest": None}}
    [error] = missing["errors"]
    assert error["type"] == "NOT_FOUND"
    assert error["path"] == ["repository", "issueOrPullRequest"]
    assert (
        error["message"] == "Could not resolve to an issue or pull request with the number of 42."
    )
    assert gql.field_errors(missing)["repository"].kind == "NOT_FOUND"
    # Owner and name match case-insensitively, as on GitHub.
    fake.add_issue("Here")
    assert "errors" not in run(fake, gql.read_document(0), read_vars(1) | {"owner": "OCTO"})


def test_node_finds_comments_issues_and_labels_by_their_rest_node_ids(fake: FakeGitHub) -> None:
    number = fake.add_issue("Nodes")
    comment = fake.add_comment(number, "<!-- record -->")
    node_id = fake.comment_json(comment["id"])["node_id"]
    answer = run(fake, gql.COMMENT_BODY, {"id": node_id})
    assert "errors" not in answer
    found = answer["data"]["node"]
    assert found["__typename"] == "IssueComment"
    assert (found["fullDatabaseId"], found["body"]) == (str(comment["id"]), "<!-- record -->")
    fake.add_label("triage")
    query = "query($id: ID!) { node(id: $id) { __typename id } }"
    for rest_id, typename in [
        (fake.issue_json(number)["node_id"], "Issue"),
        (fake.label_json("triage")["node_id"], "Label"),
        (fake.repo_json()["node_id"], "Repository"),
        (fake.comment_json(comment["id"])["user"]["node_id"], "User"),
    ]:
        assert run(fake, query, {"id": rest_id})["data"]["node"] == {
            "__typename": typename,
            "id": rest_id,
        }

    fake.edit_comment(comment["id"], "edited in the UI")
    assert run(fake, gql.COMMENT_BODY, {"id": node_id})["data"]["node"]["body"] == (
        "edited in the UI"
    )
    for unknown in ("IC_fake999999", "nonsense"):
        gone = run(fake, gql.COMMENT_BODY, {"id": unknown})
        assert gone["data"] == {"node": None}
        assert gone["errors"][0]["type"] == "NOT_FOUND"
        assert gone["errors"][0]["path"] == ["node"]
        assert gone["errors"][0]["message"] == (
            f"Could not resolve to a node with the global id of '{unknown}'."
        )


# --------------------------------------------------------------------------- mutations


def test_add_comment_is_the_bots_and_rest_sees_it(fake: FakeGitHub) -> None:
    number = fake.add_issue("Talk")
    before = fake.issue(number)["updated_at"]
    fake.advance(60)
    doc = gql.Mutation()
    doc.add_comment("message", fake.issue_json(number)["node_id"], "on it")
    answer = run(fake, doc.document(), doc.variables)

    [comment] = fake.comments(number)
    assert answer == {
        "data": {
            "message": {
                "commentEdge": {
                    "node": {"id": f"IC_fake{comment['id']}", "fullDatabaseId": str(comment["id"])}
                }
            }
        }
    }
    assert gql.created_id(answer["data"], "message") == (comment["id"], f"IC_fake{comment['id']}")
    rest = fake.comment_json(comment["id"])
    assert (rest["body"], rest["user"]["login"], rest["user"]["type"]) == (
        "on it",
        "github-actions[bot]",
        "Bot",
    )
    assert fake.issue(number)["updated_at"] > before  # bumped, as a REST comment bumps it


def test_comment_bodies_are_checked_like_rest(fake: FakeGitHub) -> None:
    number = fake.add_issue("Limits")
    issue_id = fake.issue_json(number)["node_id"]
    doc = gql.Mutation()
    doc.add_comment("long", issue_id, "x" * 65537)
    doc.add_comment("blank", issue_id, "   ")
    doc.add_comment("fine", issue_id, "x" * 65536)
    answer = run(fake, doc.document(), doc.variables)
    assert answer["data"]["long"] is None
    assert answer["data"]["blank"] is None
    assert answer["data"]["fine"] is not None
    errors = {e["path"][0]: e for e in answer["errors"]}
    assert errors["long"]["type"] == "UNPROCESSABLE"
    assert errors["long"]["message"] == "Body is too long (maximum is 65536 characters)"
    assert errors["blank"]["message"] == "Body can't be blank"
    assert [len(c["body"]) for c in fake.comments(number)] == [65536]


def test_update_and_delete_comment(fake: FakeGitHub) -> None:
    number = fake.add_issue("Record")
    comment = fake.add_comment(number, "v1", user="github-actions[bot]", user_type="Bot")
    node_id = f"IC_fake{comment['id']}"
    fake.advance(5)
    doc = gql.Mutation()
    doc.update_comment("record", node_id, "v2")
    answer = run(fake, doc.document(), doc.variables)
    assert answer["data"]["record"] == {
        "issueComment": {"id": node_id, "fullDatabaseId": str(comment["id"])}
    }
    rest = fake.comment_json(comment["id"])
    assert rest["body"] == "v2"
    assert rest["updated_at"] > rest["created_at"]

    doc = gql.Mutation()
    doc.delete_comment("duplicate0", node_id)
    assert run(fake, doc.document(), doc.variables) == {
        "data": {"duplicate0": {"clientMutationId": None}}
    }
    assert fake.comments(number) == []
    gone = requests.get(
        f"{fake.url}/repos/octo/demo/issues/comments/{comment['id']}",
        headers={"Authorization": f"Bearer {fake.token}"},
        timeout=5,
    )
    assert gone.status_code == 404

    again = run(fake, doc.document(), doc.variables)  # deleting it twice: NOT_FOUND
    assert again["data"] == {"duplicate0": None}
    assert again["errors"][0]["type"] == "NOT_FOUND"


def test_labels_are_added_and_removed_with_events_by_the_bot(fake: FakeGitHub) -> None:
    ready = fake.add_label("status:ready")
    working = fake.add_label("status:working")
    number = fake.add_issue("Labels", labels=["status:ready"])
    issue_id = fake.issue_json(number)["node_id"]
    ids = {name: fake.label_json(name)["node_id"] for name in ("status:ready", "status:working")}
    fake.reset_requests()

    doc = gql.Mutation()
    doc.add_labels("labelsAdded", issue_id, [ids["status:working"], ids["status:ready"]])
    doc.remove_labels("labelsRemoved", issue_id, [ids["status:ready"]])
    answer = run(fake, doc.document(), doc.variables)
    assert answer == {
        "data": {
            "labelsAdded": {"clientMutationId": None},
            "labelsRemoved": {"clientMutationId": None},
        }
    }
    assert fake.labels_of(number) == ["status:working"]
    events = [(e["event"], e["label"]["name"], e["actor"]["login"]) for e in fake.events(number)]
    assert events == [
        ("labeled", "status:ready", "alice"),  # when the issue was opened
        ("labeled", "status:working", "github-actions[bot]"),  # ready was already on: no event
        ("unlabeled", "status:ready", "github-actions[bot]"),
    ]
    assert (ready["id"], working["id"]) == (
        fake.labels()["status:ready"]["id"],
        fake.labels()["status:working"]["id"],
    )

    # Removing a label that is not on the issue does nothing and is no error.
    doc = gql.Mutation()
    doc.remove_labels("labelsRemoved", issue_id, [ids["status:ready"]])
    answer = run(fake, doc.document(), doc.variables)
    assert answer == {"data": {"labelsRemoved": {"clientMutationId": None}}}
    assert len(fake.events(number)) == 3
    assert fake.labels_of(number) == ["status:working"]

    # An unknown label id: NOT_FOUND, and none of the field's labels is applied.
    doc = gql.Mutation()
    doc.add_labels("labelsAdded", issue_id, [ids["status:ready"], "LA_fake424242"])
    answer = run(fake, doc.document(), doc.variables)
    assert answer["data"] == {"labelsAdded": None}
    assert answer["errors"][0]["type"] == "NOT_FOUND"
    assert fake.labels_of(number) == ["status:working"]


def test_reactions_are_made_once_per_content(fake: FakeGitHub) -> None:
    number = fake.add_issue("React")
    comment = fake.add_comment(number, "please")
    node_id = f"IC_fake{comment['id']}"
    doc = gql.Mutation()
    doc.add_reaction("reaction", node_id, "rocket")
    for _ in range(2):
        assert run(fake, doc.document(), doc.variables) == {
            "data": {"reaction": {"clientMutationId": None}}
        }
    [reaction] = fake.comment(comment["id"])["reactions"]
    assert (reaction["content"], reaction["user"]["login"]) == ("rocket", "github-actions[bot]")
    # REST sees the same reaction, and making it over REST again changes nothing.
    rest = requests.post(
        f"{fake.url}/repos/octo/demo/issues/comments/{comment['id']}/reactions",
        json={"content": "rocket"},
        headers={"Authorization": f"Bearer {fake.token}"},
        timeout=5,
    )
    assert rest.status_code == 200
    assert rest.json()["id"] == reaction["id"]

    query = (
        "mutation($s: ID!) { addReaction(input: {subjectId: $s, content: THUMBS_UP,"
        ' clientMutationId: "x"}) { clientMutationId reaction { content id'
        " reactable { __typename id } } subject { id } } }"
    )
    issue_id = fake.issue_json(number)["node_id"]
    made = run(fake, query, {"s": issue_id})["data"]["addReaction"]
    [on_issue] = fake.issue(number)["reactions"]
    assert made == {
        "clientMutationId": "x",
        "reaction": {
            "content": "THUMBS_UP",
            "id": f"REA_fake{on_issue['id']}",
            "reactable": {"__typename": "Issue", "id": issue_id},
        },
        "subject": {"id": issue_id},
    }
    assert on_issue["content"] == "+1"


def test_a_whole_baton_write_runs_in_order(fake: FakeGitHub, gh: github.Github) -> None:
    fake.add_label("status:ready")
    fake.add_label("status:working")
    number = fake.add_issue("All", labels=["status:ready"])
    record = fake.add_comment(number, "v1", user="github-actions[bot]", user_type="Bot")
    duplicate = fake.add_comment(number, "dup", user="github-actions[bot]", user_type="Bot")
    doc = every_write(
        fake.issue_json(number)["node_id"],
        f"IC_fake{record['id']}",
        fake.label_json("status:working")["node_id"],
        fake.label_json("status:ready")["node_id"],
        f"IC_fake{duplicate['id']}",
    )
    answer = through_pygithub(gh, doc.document(), doc.variables)

    assert "errors" not in answer
    assert list(answer["data"]) == [
        "repost",
        "record",
        "labelsAdded",
        "labelsRemoved",
        "message",
        "reaction",
        "duplicate0",
    ]
    bodies = [c["body"] for c in fake.comments(number)]
    assert bodies == ["record v2", "re-posted", "hello"]
    repost_id = gql.created_id(answer["data"], "repost")
    message_id = gql.created_id(answer["data"], "message")
    assert repost_id is not None and message_id is not None
    labeled = [e for e in fake.events(number) if e["actor"]["login"] == "github-actions[bot]"]
    # One counter numbers everything the fake makes: the document ran in its order.
    assert repost_id[0] < labeled[0]["id"] < labeled[1]["id"] < message_id[0]
    assert fake.labels_of(number) == ["status:working"]
    assert [r["content"] for r in fake.comment(record["id"])["reactions"]] == ["rocket"]
    assert fake.calls("POST", "/graphql")[-1].operation == "BatonWrite"


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


# --------------------------------------------------------------------------- refusals


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


# --------------------------------------------------------------------------- the HTTP plumbing


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


# --------------------------------------------------------------------------- the repository
# The documents Baton's client sends for its work product, written here as the client writes them.

BRANCH_QUERY = """
query BatonBranch($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    id
    defaultBranchRef { name target { oid } }
    ref(qualifiedName: $ref) { name target { oid ... on Commit { message } } }
  }
}
"""
READ_WITH_BRANCH = """
query BatonRead($owner: String!, $name: String!, $number: Int!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) { ... on Issue { number title } }
    ref(qualifiedName: $ref) { name target { oid ... on Commit { message } } }
  }
}
"""
CREATE_REF = """
mutation BatonCreateBranch($repositoryId: ID!, $name: String!, $oid: GitObjectID!) {
  createRef(input: {repositoryId: $repositoryId, name: $name, oid: $oid}) {
    ref { name target { oid } }
  }
}
"""
COMMIT = """
mutation BatonCommit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url } }
}
"""
UPDATE_PULL_REQUEST = """
mutation BatonWrite($id: ID!, $body: String!, $title: String!) {
  pullRequest: updatePullRequest(input: {pullRequestId: $id, body: $body, title: $title}) {
    pullRequest { number }
  }
  ready: markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } }
}
"""
BRANCH = "baton/issue-1"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def commit_input(
    expected: str,
    additions: dict[str, str] | None = None,
    deletions: tuple[str, ...] = (),
    *,
    branch: Json | None = None,
) -> Json:
    return {
        "input": {
            "branch": branch or {"repositoryNameWithOwner": "octo/demo", "branchName": BRANCH},
            "expectedHeadOid": expected,
            "message": {"headline": "Add the export", "body": "Baton-Changeset: sha256:0"},
            "fileChanges": {
                "additions": [
                    {"path": p, "contents": b64(t)} for p, t in (additions or {}).items()
                ],
                "deletions": [{"path": p} for p in deletions],
            },
        }
    }


def errors_of(answer: Json) -> list[tuple[str, str]]:
    return [(error.get("type", ""), error["message"]) for error in answer.get("errors", [])]


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


def test_the_default_branch_and_a_branch_are_read_with_the_repository_id(
    fake: FakeGitHub, gh: github.Github
) -> None:
    fake.push(BRANCH, {"a.txt": "a"}, "Add a\n\nwith a body")
    where = {"owner": "octo", "name": "demo", "ref": f"refs/heads/{BRANCH}"}

    repository = through_pygithub(gh, BRANCH_QUERY, where)["data"]["repository"]

    assert repository["id"] == fake.repo_json()["node_id"]
    assert repository["defaultBranchRef"] == {
        "name": "main",
        "target": {"oid": fake.branch_head("main")},
    }
    assert repository["ref"] == {
        "name": BRANCH,
        "target": {"oid": fake.branch_head(BRANCH), "message": "Add a\n\nwith a body"},
    }
    short = run(fake, BRANCH_QUERY, where | {"ref": BRANCH})  # the short name works too
    assert short["data"]["repository"]["ref"]["name"] == BRANCH
    missing = run(fake, BRANCH_QUERY, where | {"ref": "refs/heads/nope"})
    assert missing == {"data": {"repository": missing["data"]["repository"] | {"ref": None}}}


def test_the_branch_can_be_read_with_the_issue_in_one_document(fake: FakeGitHub) -> None:
    number = fake.add_issue("Export as CSV")
    fake.push(BRANCH, {"a.txt": "a"})
    where = {"owner": "octo", "name": "demo", "number": number, "ref": BRANCH}

    answer = run(fake, READ_WITH_BRANCH, where)

    assert answer["data"]["repository"]["issueOrPullRequest"]["title"] == "Export as CSV"
    assert answer["data"]["repository"]["ref"]["target"]["oid"] == fake.branch_head(BRANCH)
    assert len(fake.calls("POST", "/graphql")) == 1


def test_create_ref_makes_a_branch_once(fake: FakeGitHub) -> None:
    main = fake.branch_head("main")
    made = {
        "repositoryId": fake.repo_json()["node_id"],
        "name": f"refs/heads/{BRANCH}",
        "oid": main,
    }

    answer = run(fake, CREATE_REF, made)
    assert answer == {"data": {"createRef": {"ref": {"name": BRANCH, "target": {"oid": main}}}}}
    assert fake.branch_head(BRANCH) == main

    again = run(fake, CREATE_REF, made)
    assert again["data"] == {"createRef": None}
    assert errors_of(again) == [
        ("UNPROCESSABLE", f'A ref named "refs/heads/{BRANCH}" already exists in the repository.')
    ]
    bad_name = run(fake, CREATE_REF, made | {"name": "refs/heads/a..b"})
    assert "is not a valid branch name" in errors_of(bad_name)[0][1]
    no_object = run(fake, CREATE_REF, made | {"name": "refs/heads/x", "oid": "0" * 40})
    assert errors_of(no_object)[0][0] == "UNPROCESSABLE"
    assert fake.branch_head("x") is None


def test_a_commit_on_branch_writes_files_and_returns_its_oid(fake: FakeGitHub) -> None:
    main = fake.push(BRANCH, {"old.txt": "old"})

    answer = run(fake, COMMIT, commit_input(main, {"src/a.py": "print(1)\n"}, ("old.txt",)))

    oid = answer["data"]["createCommitOnBranch"]["commit"]["oid"]
    assert answer["data"]["createCommitOnBranch"]["commit"]["url"] == (
        f"https://github.com/octo/demo/commit/{oid}"
    )
    assert fake.branch_head(BRANCH) == oid
    assert fake.file_at(BRANCH, "src/a.py") == "print(1)\n"
    assert fake.file_at(BRANCH, "old.txt") is None
    assert fake.commit_message(oid) == "Add the export\n\nBaton-Changeset: sha256:0"


def test_a_commit_on_a_moved_head_is_stale_data_and_writes_nothing(fake: FakeGitHub) -> None:
    base = fake.push(BRANCH, {"a.txt": "a"})
    pushed = fake.push(BRANCH, {"a.txt": "human"}, "A human's fix")

    answer = run(fake, COMMIT, commit_input(base, {"a.txt": "baton"}))

    assert answer["data"] == {"createCommitOnBranch": None}
    assert errors_of(answer) == [
        ("STALE_DATA", f'Expected branch to point to "{base}" but it did not. Pull and try again.')
    ]
    assert answer["errors"][0]["path"] == ["createCommitOnBranch"]
    assert fake.branch_head(BRANCH) == pushed
    assert fake.file_at(BRANCH, "a.txt") == "human"


def test_a_commit_touching_a_workflow_is_refused_without_the_workflows_permission(
    fake: FakeGitHub,
) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})

    answer = run(
        fake, COMMIT, commit_input(head, {"b.txt": "b", ".github/workflows/ci.yml": "on: push"})
    )

    assert errors_of(answer) == [
        (
            "FORBIDDEN",
            "refusing to allow a GitHub App to create or update workflow "
            "`.github/workflows/ci.yml` without `workflows` permission",
        )
    ]
    assert fake.branch_head(BRANCH) == head and fake.file_at(BRANCH, "b.txt") is None


@pytest.mark.parametrize(
    "variables, kind, words",
    [
        pytest.param(
            lambda head: commit_input(head, deletions=("gone.txt",)),
            "UNPROCESSABLE",
            "requested for deletion which does not exist",
            id="deleting a path that is not there",
        ),
        pytest.param(
            lambda head: commit_input(
                head, branch={"repositoryNameWithOwner": "octo/other", "branchName": BRANCH}
            ),
            "NOT_FOUND",
            "Could not resolve to a Repository with the name 'octo/other'.",
            id="another repository",
        ),
        pytest.param(
            lambda head: commit_input(
                head, branch={"repositoryNameWithOwner": "octo/demo", "branchName": "nope"}
            ),
            "NOT_FOUND",
            "nope",
            id="a branch that is not there",
        ),
        pytest.param(
            lambda head: {
                "input": commit_input(head)["input"]
                | {"fileChanges": {"additions": [{"path": "a", "contents": "%%"}]}}
            },
            "UNPROCESSABLE",
            "not base64",
            id="contents that are not base64",
        ),
    ],
)
def test_a_commit_github_refuses_is_refused_whole(
    fake: FakeGitHub, variables: Callable[[str], Json], kind: str, words: str
) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})

    answer = run(fake, COMMIT, variables(head))

    assert answer["data"] == {"createCommitOnBranch": None}
    assert errors_of(answer)[0][0] == kind and words in errors_of(answer)[0][1]
    assert fake.branch_head(BRANCH) == head


def test_a_commit_may_name_its_branch_by_the_refs_node_id(fake: FakeGitHub) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    rest = requests.get(
        f"{fake.url}/repos/octo/demo/git/ref/heads/{BRANCH}",
        headers={"Authorization": f"Bearer {fake.token}"},
        timeout=5,
    ).json()

    answer = run(fake, COMMIT, commit_input(head, {"b.txt": "b"}, branch={"id": rest["node_id"]}))

    assert "errors" not in answer  # the REST ref's node id is the one GraphQL knows
    assert fake.file_at(BRANCH, "b.txt") == "b"


def test_a_pull_request_is_updated_and_marked_ready_and_rest_sees_it(
    fake: FakeGitHub, gh: github.Github
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    number = (
        gh.get_repo("octo/demo")
        .create_pull(base="main", head=BRANCH, title="CSV", body="v1", draft=True)
        .number
    )
    node_id = gh.get_repo("octo/demo").get_pull(number).node_id

    answer = through_pygithub(
        gh, UPDATE_PULL_REQUEST, {"id": node_id, "body": "v2", "title": "CSV!"}
    )

    assert answer["data"] == {
        "pullRequest": {"pullRequest": {"number": number}},
        "ready": {"pullRequest": {"isDraft": False}},
    }
    pull = gh.get_repo("octo/demo").get_pull(number)
    assert (pull.body, pull.title, pull.draft) == ("v2", "CSV!", False)
    assert run(fake, UPDATE_PULL_REQUEST, {"id": node_id, "body": "v3", "title": "CSV!"})["data"][
        "ready"
    ] == {"pullRequest": {"isDraft": False}}  # ready already: no error

    unknown = run(fake, UPDATE_PULL_REQUEST, {"id": "PR_fake1", "body": "x", "title": "x"})
    assert [kind for kind, _ in errors_of(unknown)] == ["NOT_FOUND", "NOT_FOUND"]
    too_long = run(fake, UPDATE_PULL_REQUEST, {"id": node_id, "body": "x" * 65_537, "title": "t"})
    assert errors_of(too_long)[0] == (
        "UNPROCESSABLE",
        "Body is too long (maximum is 65536 characters)",
    )


def test_a_pull_request_reads_as_one_by_number_and_by_node_id(fake: FakeGitHub) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    number = fake.open_pull_request(BRANCH, "CSV", draft=True)
    node_id = f"PR_fake{fake.pull_request(number)['id']}"
    fields = (
        "... on PullRequest"
        " { id number isDraft headRefName headRefOid baseRefName merged state url }"
    )
    query = (
        f'query {{ repository(owner: "octo", name: "demo") {{'
        f" issueOrPullRequest(number: {number}) {{ {fields} }} }}"
        f' node(id: "{node_id}") {{ {fields} }} }}'
    )

    answer = run(fake, query)

    expected = {
        "id": node_id,
        "number": number,
        "isDraft": True,
        "headRefName": BRANCH,
        "headRefOid": head,
        "baseRefName": "main",
        "merged": False,
        "state": "OPEN",
        "url": f"https://github.com/octo/demo/pull/{number}",
    }
    assert answer["data"]["repository"]["issueOrPullRequest"] == expected
    assert answer["data"]["node"] == expected
    fake.merge(number)
    merged = run(fake, query)["data"]["node"]
    assert (merged["state"], merged["merged"]) == ("MERGED", True)


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


# --------------------------------------------------------------------------- epics


def sub_vars(number: int, *lookups: str) -> Json:
    found: Json = {"owner": "octo", "name": "demo", "number": number}
    found.update({f"l{i}": name for i, name in enumerate(lookups)})
    return found


def test_create_issue_makes_the_bots_sub_issue_with_labels_in_one_field(fake: FakeGitHub) -> None:
    epic = fake.add_issue("Epic")
    label = fake.add_label("baton:task", "1d76db")
    state = run(
        fake, gql.sub_issues_document(1, operation="BatonTasks"), sub_vars(epic, "BATON:task")
    )
    repository = state["data"]["repository"]
    assert repository["l0"] == {"id": f"LA_fake{label['id']}", "name": "baton:task"}
    assert repository["issue"]["subIssues"]["nodes"] == []
    doc = tasks_document(repository["id"], repository["issue"]["id"], (repository["l0"]["id"],))

    answer = run(fake, doc.document(), doc.variables)

    made = [answer["data"][alias]["issue"]["number"] for alias in ("t0", "t1")]
    assert made == [2, 3]
    assert fake.sub_issues(epic) == made
    assert fake.parent_of(2) == epic
    assert fake.issue(2)["user"] == {"login": fake.bot_login, "type": "Bot"}
    assert (fake.labels_of(2), fake.labels_of(3)) == (["baton:task"], [])
    assert fake.events(2)[0]["event"] == "labeled"
    listed = run(fake, gql.sub_issues_document(), sub_vars(epic))["data"]["repository"]["issue"]
    first = listed["subIssues"]["nodes"][0]
    assert (first["number"], first["state"], first["author"]["login"]) == (
        2,
        "OPEN",
        "github-actions",
    )
    assert first["labels"]["nodes"] == [{"name": "baton:task"}]


def test_sub_issue_and_dependency_refusals_are_githubs(fake: FakeGitHub) -> None:
    epic, other, child = (fake.add_issue(t) for t in ("Epic", "Other", "Child"))
    pr = fake.add_issue("A pull request", is_pull_request=True)
    ids = {n: fake.node_id(n) for n in (epic, other, child, pr)}

    def add_sub(parent: int, sub: int, alias: str = "s0") -> Json:
        doc = gql.Mutation(operation="BatonSub")
        doc.add_sub_issue(alias, ids[parent], ids[sub])
        return run(fake, doc.document(), doc.variables)

    assert add_sub(epic, child)["data"]["s0"] == {
        "issue": {"number": epic},
        "subIssue": {"number": child},
    }
    said = [errors_of(add_sub(epic, epic)), errors_of(add_sub(epic, child))]
    said.append(errors_of(add_sub(other, child)))
    said.append(errors_of(add_sub(epic, pr)))
    assert said == [
        [("UNPROCESSABLE", "An issue cannot be a sub-issue of itself")],
        [("UNPROCESSABLE", "Issue may not contain duplicate sub-issues")],
        [("UNPROCESSABLE", "Sub issue may only have one parent")],
        [("NOT_FOUND", f"Could not resolve to Issue node with the global id of '{ids[pr]}'.")],
    ]
    for _ in range(99):
        fake.add_sub_issue(epic, fake.add_issue("More"))
    late = fake.add_issue("The 101st")
    ids[late] = fake.node_id(late)
    assert errors_of(add_sub(epic, late)) == [
        ("UNPROCESSABLE", "Parent cannot have more than 100 sub-issues")
    ]
    full = tasks_document(f"R_fake{REPOSITORY_ID}", ids[epic], ())
    count = len(fake.sub_issues(epic))
    answer = run(fake, full.document(), full.variables)
    assert answer["data"] == {"t0": None, "t1": None}
    assert {e["message"] for e in answer["errors"]} == {
        "Parent cannot have more than 100 sub-issues"
    }
    assert len(fake.sub_issues(epic)) == count == 100

    edge = edges_document(
        (ids[child], ids[other]), (ids[child], ids[other]), (ids[child], ids[child])
    )
    answer = run(fake, edge.document(), edge.variables)
    assert answer["data"]["e0"] == {"issue": {"number": child}, "blockingIssue": {"number": other}}
    assert errors_of(answer) == [
        ("UNPROCESSABLE", "Issue is already blocked by this issue"),
        ("UNPROCESSABLE", "An issue cannot block itself"),
    ]
    assert fake.blocked_by(child) == [other]


def test_an_issues_relations_read_from_both_ends(fake: FakeGitHub) -> None:
    epic, one, two = (fake.add_issue(t) for t in ("Epic", "One", "Two"))
    fake.add_sub_issue(epic, one)
    fake.add_sub_issue(epic, two)
    fake.add_blocked_by(two, one)
    fake.update_issue(one, state="closed")
    query = """query($number: Int!) { repository(owner: "octo", name: "demo") {
      issue(number: $number) {
        parent { number }
        subIssuesSummary { total completed percentCompleted }
        subIssues(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { number } }
        blockedBy(first: 5) { nodes { number } }
        blocking(first: 5) { nodes { number } }
      } } }"""
    epic_node = run(fake, query, {"number": epic})["data"]["repository"]["issue"]
    assert epic_node["parent"] is None
    assert epic_node["subIssuesSummary"] == {"total": 2, "completed": 1, "percentCompleted": 50}
    page = epic_node["subIssues"]
    assert (page["totalCount"], page["nodes"], page["pageInfo"]["hasNextPage"]) == (
        2,
        [{"number": one}],
        True,
    )
    nodes = [run(fake, query, {"number": n})["data"]["repository"]["issue"] for n in (one, two)]
    assert nodes[0]["parent"] == {"number": epic}
    assert (nodes[0]["blocking"]["nodes"], nodes[1]["blockedBy"]["nodes"]) == (
        [{"number": two}],
        [{"number": one}],
    )
    pr = fake.add_issue("PR", is_pull_request=True)
    missing = run(fake, query, {"number": pr})
    assert errors_of(missing) == [
        ("NOT_FOUND", f"Could not resolve to an Issue with the number of {pr}.")
    ]


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
