"""GitHub's GraphQL mutations as the fake runs them (`graphql_mutations.py`) over the same state
as REST: comments, labels, reactions, refs, commits, pull requests, sub-issues, dependencies."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import requests

import github
from baton.github import graphql as gql
from fakes.graphql_probe import (
    BRANCH,
    COMMIT,
    CREATE_REF,
    UPDATE_PULL_REQUEST,
    Json,
    commit_input,
    edges_document,
    errors_of,
    every_write,
    run,
    sub_vars,
    tasks_document,
    through_pygithub,
)
from fakes.http_github import REPOSITORY_ID, FakeGitHub


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


def opening_vars(fake: FakeGitHub, expected: str, **pull: str) -> Json:
    made = {"repositoryId": fake.repo_json()["node_id"], "baseRefName": "main"}
    made |= {"headRefName": BRANCH, "title": "Add the export (#1)", "body": "Closes #1"}
    return commit_input(expected, {"a.txt": "baton"}) | {
        "pullRequest": made | pull | {"draft": True}
    }


def at_main(fake: FakeGitHub) -> str:
    """The issue's branch, made by Baton at the default branch's head: nothing on it yet."""
    main = fake.branch_head("main")
    made = {"repositoryId": fake.repo_json()["node_id"], "name": f"refs/heads/{BRANCH}"}
    run(fake, CREATE_REF, made | {"oid": main})
    assert main is not None
    return main


def test_the_first_commit_and_its_draft_pull_request_are_one_document(fake: FakeGitHub) -> None:
    """Baton's `BatonCommitOpening`: the commit, then the pull request from the branch as the
    commit left it; REST sees the draft."""
    base = at_main(fake)

    answer = run(fake, gql.git.COMMIT_OPENING, opening_vars(fake, base))

    oid = answer["data"]["createCommitOnBranch"]["commit"]["oid"]
    made = answer["data"]["createPullRequest"]["pullRequest"]
    assert fake.branch_head(BRANCH) == oid
    pull = fake.pull_request(made["number"])
    assert made["id"] == f"PR_fake{pull['id']}"
    assert (pull["draft"], pull["head"], pull["head_sha"]) == (True, BRANCH, oid)
    assert fake.issue(made["number"])["body"] == "Closes #1"

    again = run(fake, gql.git.COMMIT_OPENING, opening_vars(fake, oid))
    assert errors_of(again) == [
        ("UNPROCESSABLE", "A pull request already exists for octo:baton/issue-1.")
    ]


def test_github_runs_the_pull_request_whatever_became_of_the_commit(fake: FakeGitHub) -> None:
    """Fields after a failed one still run: on the bare branch the pull request is refused
    (no commits), on a branch a human pushed to it opens, from the human's commit."""
    base = at_main(fake)
    bare = run(fake, gql.git.COMMIT_OPENING, opening_vars(fake, "0" * 40))
    assert [kind for kind, _ in errors_of(bare)] == ["STALE_DATA", "UNPROCESSABLE"]
    assert errors_of(bare)[1][1] == f"No commits between main and {BRANCH}"

    pushed = fake.push(BRANCH, {"a.txt": "human"})
    raced = run(fake, gql.git.COMMIT_OPENING, opening_vars(fake, base))
    assert [kind for kind, _ in errors_of(raced)] == ["STALE_DATA"]
    opened = raced["data"]["createPullRequest"]["pullRequest"]["number"]
    assert fake.pull_request(opened)["head_sha"] == pushed


def test_actions_not_allowed_to_open_pull_requests_is_forbidden_after_the_commit(
    fake: FakeGitHub,
) -> None:
    fake.actions_may_open_pull_requests = False
    refused = run(fake, gql.git.COMMIT_OPENING, opening_vars(fake, at_main(fake)))
    assert refused["data"]["createCommitOnBranch"]["commit"]["oid"] == fake.branch_head(BRANCH)
    assert refused["data"]["createPullRequest"] is None
    assert errors_of(refused) == [
        ("FORBIDDEN", "GitHub Actions is not permitted to create or approve pull requests.")
    ]


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


def test_sub_issue_and_dependency_refusals_are_errors_by_alias(fake: FakeGitHub) -> None:
    """GitHub's rules are the model's (tests/sim/model/test_relations.py); here their
    translation: UNPROCESSABLE by alias, NOT_FOUND for a node that is no issue, a task refused
    whole when its parent is full, an edge refused beside one that is made."""
    epic, other, child = (fake.add_issue(t) for t in ("Epic", "Other", "Child"))
    pr = fake.add_issue("A pull request", is_pull_request=True)
    ids = {n: fake.node_id(n) for n in (epic, other, child, pr)}

    def add_sub(parent: int, sub: int) -> Json:
        doc = gql.Mutation(operation="BatonSub")
        doc.add_sub_issue("s0", ids[parent], ids[sub])
        return run(fake, doc.document(), doc.variables)

    assert add_sub(epic, child)["data"]["s0"] == {
        "issue": {"number": epic},
        "subIssue": {"number": child},
    }
    refused = add_sub(epic, epic)
    assert refused["data"] == {"s0": None}
    assert errors_of(refused) == [("UNPROCESSABLE", "An issue cannot be a sub-issue of itself")]
    assert errors_of(add_sub(epic, pr)) == [
        ("NOT_FOUND", f"Could not resolve to Issue node with the global id of '{ids[pr]}'.")
    ]
    for _ in range(99):
        fake.add_sub_issue(epic, fake.add_issue("More"))
    full = tasks_document(f"R_fake{REPOSITORY_ID}", ids[epic], ())
    last = fake.add_issue("Not a task")
    answer = run(fake, full.document(), full.variables)
    assert answer["data"] == {"t0": None, "t1": None}
    assert {e["message"] for e in answer["errors"]} == {
        "Parent cannot have more than 100 sub-issues"
    }
    assert (len(fake.sub_issues(epic)), fake.add_issue("Next")) == (100, last + 1)

    edge = edges_document((ids[child], ids[other]), (ids[child], ids[other]))
    answer = run(fake, edge.document(), edge.variables)
    assert answer["data"]["e0"] == {"issue": {"number": child}, "blockingIssue": {"number": other}}
    assert errors_of(answer) == [("UNPROCESSABLE", "Issue is already blocked by this issue")]
    assert fake.blocked_by(child) == [other]
