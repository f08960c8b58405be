"""GitHub's GraphQL objects as the fake answers them (`graphql_nodes.py`): reads of issues,
labels, comments, pull requests, branches and relations, node ids, connections and cursors."""

from __future__ import annotations

import requests

import github
from baton.github import graphql as gql
from fakes.graphql_probe import (
    BRANCH,
    BRANCH_QUERY,
    READ_WITH_BRANCH,
    errors_of,
    issue_of,
    read_vars,
    run,
    through_pygithub,
)
from fakes.http_github import FakeGitHub


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
    assert missing["data"] == {"repository": {"id": "R_fake1296269", "issueOrPullRequest": None}}
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
