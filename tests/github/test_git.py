"""The work product's git side over GitHub: a branch created, found or compared with its base,
a commit as one compare-and-swap mutation, a commit's facts, a task branch merged back."""

from __future__ import annotations

import json
from base64 import b64encode
from collections.abc import Iterator
from typing import Any

import pytest
import responses

from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.epic import MergePlan
from baton.errors import CommitRefused, StaleHead, TrackerError
from baton.github import graphql as gql
from baton.github.client import GitHubTracker
from baton.github.tracker import (
    BranchHead,
    ChangedFile,
    CommitFacts,
    CommitRequest,
    TreeAsk,
    TreeRead,
)
from baton.issue.changeset_facts import blob_oid, not_baton_s
from baton.sim.model import git as git_rules
from fakes.http_github import FakeGitHub

API = "https://api.github.com:443"
GRAPHQL = f"{API}/graphql"
REPO = f"{API}/repos/octo/demo"
MAIN = "1" * 40
HEAD = "2" * 40
NEW = "3" * 40


@pytest.fixture
def tracker() -> GitHubTracker:
    return GitHubTracker("octo/demo", "t0ken", retry=0)


def sent(call: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(call.request.body)
    return body


def repository(ref: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "data": {
            "repository": {
                "id": "R_1",
                "defaultBranchRef": {"name": "main", "target": {"oid": MAIN}},
                "ref": ref,
            }
        }
    }


def ref(oid: str, message: str = "init") -> dict[str, Any]:
    return {"name": "baton/issue-7", "target": {"oid": oid, "message": message}}


# --- branches -------------------------------------------------------------------------------
def test_a_new_branch_is_created_at_the_default_branch_head(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json=repository(None))
    mocked.post(GRAPHQL, json={"data": {"createRef": {"ref": ref(MAIN)}}})
    head = tracker.create_branch("baton/issue-7")
    assert head == BranchHead("baton/issue-7", MAIN, "init", created=True)
    look, create = (sent(c) for c in mocked.calls)
    assert look["variables"]["ref"] == "refs/heads/baton/issue-7"
    assert create["variables"] == {
        "repository": "R_1",
        "ref": "refs/heads/baton/issue-7",
        "oid": MAIN,
    }
    assert "createRef" in create["query"]
    assert tracker.requests == 2


def test_an_existing_branch_at_the_default_head_is_returned_without_a_write(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json=repository(ref(MAIN, "init")))
    assert tracker.create_branch("baton/issue-7") == BranchHead("baton/issue-7", MAIN, "init")
    assert tracker.requests == 1


@pytest.mark.parametrize(("ahead_by", "status"), [(0, "behind"), (2, "diverged")])
def test_an_existing_branch_elsewhere_is_compared_with_the_default_head_by_commit_ids(
    mocked: responses.RequestsMock, tracker: GitHubTracker, ahead_by: int, status: str
) -> None:
    mocked.post(GRAPHQL, json=repository(ref(HEAD, "tester: tests")))
    compare = mocked.get(
        f"{REPO}/compare/{MAIN}...{HEAD}",
        json={"status": status, "ahead_by": ahead_by, "behind_by": 1, "total_commits": ahead_by},
    )
    assert tracker.create_branch("baton/issue-7") == BranchHead(
        "baton/issue-7", HEAD, "tester: tests", ahead=ahead_by
    )
    assert compare.call_count == 1
    assert tracker.requests == 2


def test_a_branch_a_racing_run_created_first_is_read_and_used(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json=repository(None))
    mocked.post(
        GRAPHQL,
        json={
            "data": {"createRef": None},
            "errors": [
                {
                    "type": "UNPROCESSABLE",
                    "path": ["createRef"],
                    "message": 'A ref named "refs/heads/baton/issue-7" already exists in the '
                    "repository.",
                }
            ],
        },
    )
    mocked.post(GRAPHQL, json=repository(ref(MAIN)))
    assert tracker.create_branch("baton/issue-7") == BranchHead("baton/issue-7", MAIN, "init")


def test_the_branch_over_rest_when_graphql_is_off(mocked: responses.RequestsMock) -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", retry=0, graphql=False)
    mocked.get(
        f"{REPO}/branches/baton%2Fissue-7",
        json={"name": "baton/issue-7", "commit": {"sha": HEAD, "commit": {"message": "m"}}},
    )
    mocked.get(f"{REPO}/branches/gone", status=404, json={"message": "Branch not found"})
    assert tracker.branch("baton/issue-7") == BranchHead("baton/issue-7", HEAD, "m")
    assert tracker.branch("gone") is None


# --- commits --------------------------------------------------------------------------------
REQUEST = CommitRequest(
    branch="baton/issue-7",
    expected_head=HEAD,
    headline="developer: add dark mode (#7)",
    body="Agent developer in implementing, attempt 1.",
    additions=(("src/theme.py", "ZGFyaw=="),),
    deletions=("old.py",),
)


def test_a_commit_is_one_mutation_with_the_expected_head(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(GRAPHQL, json={"data": {"createCommitOnBranch": {"commit": {"oid": NEW}}}})
    assert tracker.commit(REQUEST) == NEW
    (call,) = mocked.calls
    assert sent(call)["variables"]["input"] == {
        "branch": {"repositoryNameWithOwner": "octo/demo", "branchName": "baton/issue-7"},
        "expectedHeadOid": HEAD,
        "message": {
            "headline": "developer: add dark mode (#7)",
            "body": "Agent developer in implementing, attempt 1.",
        },
        "fileChanges": {
            "additions": [{"path": "src/theme.py", "contents": "ZGFyaw=="}],
            "deletions": [{"path": "old.py"}],
        },
    }


def test_a_moved_head_is_a_stale_head_and_nothing_else(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    message = f'Expected branch to point to "{HEAD}" but it did not. Pull and try again.'
    mocked.post(
        GRAPHQL,
        json={
            "data": {"createCommitOnBranch": None},
            "errors": [
                {"type": "STALE_DATA", "path": ["createCommitOnBranch"], "message": message}
            ],
        },
    )
    with pytest.raises(StaleHead) as caught:
        tracker.commit(REQUEST)
    assert str(caught.value) == f"baton/issue-7 moved since 2222222: {message}"


@pytest.mark.parametrize(
    ("kind", "status", "message"),
    [
        ("FORBIDDEN", 403, "no access"),
        (
            "UNPROCESSABLE",
            422,
            f"A path was requested for deletion which does not exist as of commit oid `{HEAD}`",
        ),
    ],
)
def test_a_refused_commit_is_commit_refused_with_github_s_reason(
    mocked: responses.RequestsMock, tracker: GitHubTracker, kind: str, status: int, message: str
) -> None:
    mocked.post(
        GRAPHQL,
        json={
            "data": {"createCommitOnBranch": None},
            "errors": [{"type": kind, "path": ["createCommitOnBranch"], "message": message}],
        },
    )
    with pytest.raises(CommitRefused) as caught:
        tracker.commit(REQUEST)
    assert caught.value.status == status
    assert str(caught.value) == f"GitHub refused the commit: {kind} {message}"


@pytest.mark.parametrize(
    ("kind", "message", "status"),
    [
        ("INTERNAL", "The request died at this field.", 502),
        ("RATE_LIMITED", "API rate limit exceeded for installation.", 429),
        ("NOT_FOUND", "Could not resolve to a Ref with the name 'baton/issue-7'.", 404),
        ("NOT_RUN", "GitHub answered nothing for it", 502),
        ("RATE_LIMIT", "API rate limit exceeded.", 429),
        ("SERVICE_UNAVAILABLE", "Service unavailable.", 502),
        ("TIMEOUT", "The query timed out.", 502),
        ("ERROR", "Something went wrong while executing your query. This may be ...", 502),
    ],
)
def test_a_commit_field_failing_for_github_s_own_reason_is_no_refusal_of_the_changeset(
    mocked: responses.RequestsMock, tracker: GitHubTracker, kind: str, message: str, status: int
) -> None:
    """A server error, a rate limit or a branch not visible yet says nothing about the
    changeset: the run fails (its re-run commits), the changeset is not refused."""
    mocked.post(
        GRAPHQL,
        json={
            "data": {"createCommitOnBranch": None},
            "errors": [{"type": kind, "path": ["createCommitOnBranch"], "message": message}],
        },
    )
    with pytest.raises(TrackerError) as caught:
        tracker.commit(REQUEST)
    assert not isinstance(caught.value, CommitRefused | StaleHead)
    assert caught.value.status == status
    assert str(caught.value) == f"GitHub could not make the commit now: {kind} {message}"


def test_a_commit_failing_at_the_http_level_is_no_refusal_of_the_changeset(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    """A secondary rate limit (403) or a 502 says nothing about the changeset: the run fails
    and its re-run commits, as before."""
    mocked.post(GRAPHQL, status=403, json={"message": "You have exceeded a secondary rate limit"})
    with pytest.raises(TrackerError) as caught:
        tracker.commit(REQUEST)
    assert not isinstance(caught.value, CommitRefused)


# --- a commit's facts -----------------------------------------------------------------------
def rest_commit(**overrides: Any) -> dict[str, Any]:
    """A commit as REST "get a commit" answers, trimmed to what Baton reads and a little more."""
    answer: dict[str, Any] = {
        "sha": NEW,
        "commit": {
            "message": "developer: x (#7)",
            "verification": {"verified": True, "reason": "valid", "verified_at": "2026-01-05"},
        },
        "author": {"login": "github-actions[bot]", "type": "Bot"},
        "committer": {"login": "web-flow", "type": "User"},
        "parents": [{"sha": HEAD, "url": f"{REPO}/commits/{HEAD}"}],
        "files": [
            {"sha": "a" * 40, "filename": "src/a.py", "status": "modified", "additions": 1},
            {
                "sha": "b" * 40,
                "filename": "new.py",
                "status": "renamed",
                "previous_filename": "old.py",
            },
            {"sha": "c" * 40, "filename": "gone.py", "status": "removed"},
        ],
    }
    answer.update(overrides)
    return answer


def test_a_commit_s_facts_are_one_rest_call(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(f"{REPO}/commits/{NEW}", json=rest_commit())
    facts = tracker.commit_facts(NEW)
    assert facts == CommitFacts(
        oid=NEW,
        parents=(HEAD,),
        files=(
            ChangedFile("src/a.py", "modified", "a" * 40),
            ChangedFile("new.py", "renamed", "b" * 40, "old.py"),
            ChangedFile("gone.py", "removed", "c" * 40),
        ),
        verified=True,
        author="github-actions[bot]",
        committer="web-flow",
        reason="valid",
        message="developer: x (#7)",
    )
    assert tracker.requests == 1


def test_an_unsigned_commit_of_no_account_with_more_files_says_so(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    unsigned = {"message": "m", "verification": {"verified": False, "reason": "unsigned"}}
    mocked.get(
        f"{REPO}/commits/{NEW}",
        json=rest_commit(commit=unsigned, author=None, files=[]),
        headers={"Link": f'<{REPO}/commits/{NEW}?page=2>; rel="next"'},
    )
    facts = tracker.commit_facts(NEW)
    assert facts is not None
    assert (facts.verified, facts.author, facts.files, facts.more_files) == (False, "", (), True)


def test_an_unknown_commit_has_no_facts(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.get(
        f"{REPO}/commits/{NEW}", status=422, json={"message": f"No commit found for SHA: {NEW}"}
    )
    assert tracker.commit_facts(NEW) is None


def test_commits_need_graphql() -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", retry=0, graphql=False)
    with pytest.raises(TrackerError, match="createCommitOnBranch"):
        tracker.commit(REQUEST)


def test_every_document_the_client_sends_validates_against_github_s_schema() -> None:
    from baton.sim.api import graphql_api as github_graphql

    mutation = gql.Mutation()
    mutation.update_pull_request("body", "PR_1", "text")
    mutation.mark_ready("ready", "PR_1")
    for document in (
        gql.read_document(2, branch=True),
        gql.read_document(0, branch=True),
        gql.BRANCH,
        gql.CREATE_REF,
        gql.CREATE_COMMIT,
        mutation.document(),
    ):
        assert github_graphql.validation_errors(document) == [], document


def test_a_commit_a_write_user_signed_with_the_bots_author_email_is_not_adopted(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    # `author` is the account of the author EMAIL, which anyone can write; `verified` holds for
    # any signature GitHub can check against the committer, here mallory's own key. GitHub
    # signs a createCommitOnBranch commit as committer web-flow.
    changeset = Changeset(
        base=HEAD,
        files=[FileChange(path="src/export.py", contents=b64encode(b"print('csv')\n").decode())],
    )
    files = [{"filename": "src/export.py", "status": "added", "sha": blob_oid(b"print('csv')\n")}]
    forged = rest_commit(
        committer={"login": "mallory", "type": "User"},
        parents=[{"sha": HEAD}],
        files=files,
    )
    mocked.get(f"{REPO}/commits/{NEW}", json=forged)
    mocked.get(
        f"{REPO}/commits/{HEAD}", json=rest_commit(sha=HEAD, parents=[{"sha": HEAD}], files=files)
    )

    facts = tracker.commit_facts(NEW)
    ours = tracker.commit_facts(HEAD)

    assert facts is not None and (facts.committer, facts.reason) == ("mallory", "valid")
    assert not_baton_s(changeset, facts) == (
        "its committer is mallory, not web-flow (GitHub itself signs Baton's commits)"
    )
    assert ours is not None and ours.committer == "web-flow"
    assert not_baton_s(changeset, ours) is None


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def served(fake: FakeGitHub) -> GitHubTracker:
    return GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)


def operations(fake: FakeGitHub) -> list[str]:
    return [c.operation or f"{c.method} {c.path}" for c in fake.requests]


# --- branches and merges ---------------------------------------------------------------------
def test_a_task_branch_starts_at_the_epics_and_merges_back(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    epic_branch = served.create_branch("baton/epic-1")
    fake.push("baton/epic-1", {"plan.md": "the plan"})
    epic_head = fake.branch_head("baton/epic-1")
    task = served.create_branch("baton/issue-2", "baton/epic-1")
    assert task == BranchHead(
        "baton/issue-2", str(epic_head), fake.commit_message(epic_head), created=True
    )
    assert epic_branch.oid != epic_head
    # an existing branch is returned as it is, with the commits it carries that the base lacks
    again = served.create_branch("baton/issue-2", "main")
    assert (again.oid, again.created, again.ahead) == (task.oid, False, 1)
    assert served.create_branch("baton/issue-2", "baton/epic-1").ahead == 0
    with pytest.raises(TrackerError, match="there is no branch nope") as missing:
        served.create_branch("baton/issue-3", "nope")
    assert missing.value.status == 404

    plan = MergePlan(base="baton/epic-1", head="baton/issue-2", message="Merge task k0 (#2)")
    fake.reset_requests()
    assert served.merge(plan).status == "up_to_date"
    fake.push("baton/issue-2", {"src/a.py": "a = 1\n"})
    merged = served.merge(plan)
    assert merged.status == "merged"
    assert merged.oid == fake.branch_head("baton/epic-1")
    assert fake.commit_message(merged.oid) == "Merge task k0 (#2)"
    assert fake.file_at("baton/epic-1", "src/a.py") == "a = 1\n"
    assert operations(fake) == ["POST /repos/octo/demo/merges"] * 2
    assert served.merge(plan).status == "up_to_date"


def test_a_conflict_writes_nothing_and_a_missing_branch_says_so(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    served.create_branch("baton/epic-1")
    served.create_branch("baton/issue-2", "baton/epic-1")
    fake.push("baton/issue-2", {"README.md": "theirs"})
    fake.push("baton/epic-1", {"README.md": "ours"})
    head = fake.branch_head("baton/epic-1")

    plan = MergePlan(base="baton/epic-1", head="baton/issue-2", message="m")
    conflict = served.merge(plan)

    assert (conflict.status, conflict.detail) == ("conflict", git_rules.MERGE_CONFLICT)
    assert fake.branch_head("baton/epic-1") == head
    gone = served.merge(MergePlan(base="baton/epic-1", head="baton/issue-9", message="m"))
    assert (gone.status, gone.detail) == ("missing", "Head does not exist")
    fake.fail("POST", "/merges", 500)
    with pytest.raises(TrackerError, match="500"):
        served.merge(plan)


# --- the base's tree: folders and links -----------------------------------------------------
LINKS = {".claude": "tools/claude", "tools": "vendor/tools", "vendor/tools/claude/s.json": "{}"}


def test_a_tree_read_lists_folders_with_git_modes_and_reads_links_targets(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    base = fake.push("main", LINKS, "links", links=[".claude", "tools"])
    fake.reset_requests()

    found = served.read_tree(
        TreeAsk(base, ("", "vendor/tools", "tools", "nope"), (".claude", "tools", "README.md"))
    )

    assert found.folders == {
        "": (
            (".claude", "120000"),
            ("README.md", "100644"),
            ("tools", "120000"),
            ("vendor", "040000"),
        ),
        "vendor/tools": (("claude", "040000"),),
        "tools": None,  # a link, not a folder: GitHub never reads through it
        "nope": None,
    }
    assert found.links == {".claude": "tools/claude", "tools": "vendor/tools", "README.md": None}
    assert operations(fake) == ["BatonTree"]


def test_a_tree_read_of_a_commit_github_lacks_knows_nothing(served: GitHubTracker) -> None:
    assert served.read_tree(TreeAsk("f" * 40, ("",), ())) == TreeRead()


def test_the_issue_read_brings_the_base_s_folders_in_the_same_query(
    fake: FakeGitHub, served: GitHubTracker
) -> None:
    base = fake.push("main", LINKS, "links", links=[".claude", "tools"])
    number = fake.add_issue("x", "y")
    fake.reset_requests()

    snapshot = served.read(number, with_issue=False, tree=TreeAsk(base, ("", "vendor")))

    assert snapshot.tree is not None
    assert snapshot.tree.folders["vendor"] == (("tools", "040000"),)
    assert operations(fake) == ["BatonRead"]


def test_without_graphql_a_tree_read_is_one_clear_error() -> None:
    tracker = GitHubTracker("octo/demo", "t0ken", retry=0, graphql=False)
    with pytest.raises(TrackerError, match="reading the tree of aaaaaaa needs GitHub's GraphQL"):
        tracker.read_tree(TreeAsk("a" * 40, ("",)))


def test_git_modes_are_read_from_github_s_integers() -> None:
    assert [gql.git.git_mode(m) for m in (33188, 33261, 40960, 16384, 57344)] == [
        "100644",
        "100755",
        "120000",
        "040000",
        "160000",
    ]
    assert gql.git.git_mode(None) == "" and gql.git.git_mode("120000") == ""
