"""Helpers of the GraphQL face's tests: a document posted, run, or sent through PyGithub, and
the documents and variables Baton sends."""

from __future__ import annotations

import base64
from typing import Any

import requests

import github
from baton.github import graphql as gql
from fakes.http_github import FakeGitHub

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


def sub_vars(number: int, *lookups: str) -> Json:
    found: Json = {"owner": "octo", "name": "demo", "number": number}
    found.update({f"l{i}": name for i, name in enumerate(lookups)})
    return found
