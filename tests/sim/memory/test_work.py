"""The in-memory GitHub's calls on the work product (`sim/memory/work.py`) and the helpers
that play humans and CI on it: its repository behaves as GitHub's does for Baton's branches,
commits and pull requests, in the round trips `GitHubTracker` makes."""

from __future__ import annotations

import base64
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from baton.core.model.decision import CheckPlan, PullRequestPlan
from baton.core.model.events import ReviewNote
from baton.errors import CommitRefused, PullRequestRefused, StaleHead, TrackerError
from baton.github.tracker import ChangedFile, CommitFacts, CommitRequest, LabelSpec, Writes
from baton.sim.memory_github import MemoryGitHub
from baton.sim.model import git, pulls

SPEC = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")

# The memory fake's write operations.
WRITES = (
    "create_comment",
    "edit_comment",
    "delete_comment",
    "set_labels",
    "react",
    "dispatch",
    "create_ref",
    "commit",
    "create_pull_request",
    "update_pull_request",
    "mark_ready_for_review",
)


@pytest.fixture
def gh() -> MemoryGitHub:
    hub = MemoryGitHub()
    hub.open_issue("Export as CSV", author="alice")
    return hub


# --- the repository: branches, commits, pull requests ------------------------------------------
BRANCH = "baton/issue-1"


def encoded(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def change(gh: MemoryGitHub, files: dict[str, str], *, delete: tuple[str, ...] = ()) -> str:
    """Baton commits `files` on the issue's branch (made if need be) at its current head."""
    head = gh.create_branch(BRANCH).oid
    return gh.commit(
        CommitRequest(
            branch=BRANCH,
            expected_head=head,
            headline="Add the export",
            body="Baton-Changeset: sha256:" + "0" * 64,
            additions=tuple((path, encoded(text)) for path, text in files.items()),
            deletions=delete,
        )
    )


def plan(**fields: Any) -> PullRequestPlan:
    return PullRequestPlan(
        **{"branch": BRANCH, "title": "Export as CSV", "body": "Fixes #1"} | fields
    )


def test_the_repository_starts_with_a_readme_on_main_under_a_git_commit_id(
    gh: MemoryGitHub,
) -> None:
    main = gh.branch("main")

    assert main is not None and re.fullmatch(r"[0-9a-f]{40}", main.oid)
    assert gh.file_at("main", "README.md") == "# demo\n"
    assert gh.branch("nope") is None


def test_a_branch_starts_at_the_default_head_and_is_created_once(gh: MemoryGitHub) -> None:
    before = gh.requests
    first = gh.create_branch(BRANCH)
    assert gh.requests - before == 2  # look the branch up, then createRef

    before = gh.requests
    again = gh.create_branch(BRANCH)

    assert gh.requests - before == 1
    assert (first.created, again.created) == (True, False)
    assert first.oid == again.oid == gh.git.head("main")
    assert again.ahead == 0


def test_an_existing_branch_counts_the_commits_it_carries_that_the_base_lacks(
    gh: MemoryGitHub,
) -> None:
    """Compared (one more round trip) only when its head is not the base's."""
    gh.human_push(BRANCH, {"mine.txt": "1"}, by="bob")
    gh.human_push(BRANCH, {"mine.txt": "2"}, by="bob")
    before = gh.requests

    found = gh.create_branch(BRANCH)

    assert (found.created, found.ahead, found.oid) == (False, 2, gh.git.head(BRANCH))
    assert gh.requests - before == 2
    assert gh.calls["compare"] == 1


def test_a_branch_behind_the_moved_default_branch_carries_nothing_of_its_own(
    gh: MemoryGitHub,
) -> None:
    """Baton made it, died before its record said so, and main moved on: still adoptable."""
    made = gh.create_branch(BRANCH)
    gh.human_push("main", {"later.txt": "x"}, by="maria")

    found = gh.create_branch(BRANCH)

    assert (found.oid, found.ahead, found.created) == (made.oid, 0, False)


def test_baton_s_commit_is_signed_and_its_own_a_pushed_one_is_neither(gh: MemoryGitHub) -> None:
    gh.human_push("main", {"old.txt": "same", "gone.txt": "x"}, by="maria")
    base = gh.create_branch(BRANCH).oid
    ours = gh.commit(
        CommitRequest(
            BRANCH,
            base,
            "Add",
            "",
            (("new.txt", encoded("same")), ("README.md", encoded("# new\n"))),
            ("old.txt", "gone.txt"),
        )
    )
    pushed = gh.human_push(BRANCH, {"x.txt": "x"}, "Baton-Changeset: forged", by="mallory")

    facts = gh.commit_facts(ours)
    theirs = gh.commit_facts(pushed)

    assert facts == CommitFacts(
        oid=ours,
        parents=(base,),
        files=(
            ChangedFile("README.md", "modified", git.blob_oid(b"# new\n")),
            ChangedFile("gone.txt", "removed", git.blob_oid(b"x")),
            ChangedFile("new.txt", "renamed", git.blob_oid(b"same"), "old.txt"),
        ),
        verified=True,
        author="github-actions[bot]",
        committer="web-flow",
        reason="valid",
        message="Add",
    )
    assert theirs is not None
    assert (theirs.parents, theirs.verified, theirs.author) == ((ours,), False, "mallory")
    assert (theirs.committer, theirs.reason) == ("mallory", "unsigned")  # as GitHub answers
    assert theirs.message == "Baton-Changeset: forged"
    assert theirs.files == (ChangedFile("x.txt", "added", git.blob_oid(b"x")),)
    assert gh.commit_facts("f" * 40) is None
    assert gh.calls["commit_facts"] == 3


def test_a_commit_with_more_files_than_a_page_says_there_are_more(gh: MemoryGitHub) -> None:
    files = {f"f{i}.txt": str(i) for i in range(git.COMMIT_FILES_PAGE + 1)}
    oid = gh.human_push(BRANCH, files, by="bob")

    facts = gh.commit_facts(oid)

    assert facts is not None and facts.more_files
    assert len(facts.files) == git.COMMIT_FILES_PAGE


def test_a_branch_name_git_refuses_is_a_422(gh: MemoryGitHub) -> None:
    with pytest.raises(TrackerError) as refused:
        gh.create_branch("a..b")
    assert refused.value.status == 422


def test_a_commit_writes_its_files_and_moves_the_head(gh: MemoryGitHub) -> None:
    before = gh.requests
    oid = change(gh, {"src/export.py": "print('csv')\n", "README.md": "# demo\nCSV\n"})
    assert gh.requests - before == 3  # 2 for the new branch, 1 for the commit

    head = gh.branch(BRANCH)
    assert head is not None and head.oid == oid
    assert head.message.startswith("Add the export\n\nBaton-Changeset: sha256:")
    assert gh.file_at(BRANCH, "src/export.py") == "print('csv')\n"
    assert gh.file_at("main", "src/export.py") is None  # main did not move

    change(gh, {}, delete=("src/export.py",))
    assert gh.file_at(BRANCH, "src/export.py") is None
    assert gh.file_at(oid, "src/export.py") == "print('csv')\n"  # the old commit keeps it


def test_a_commit_on_a_head_a_human_moved_is_stale_and_writes_nothing(gh: MemoryGitHub) -> None:
    base = gh.create_branch(BRANCH).oid
    pushed = gh.human_push(BRANCH, {"notes.txt": "mine"}, "WIP", by="maria")

    with pytest.raises(StaleHead) as stale:
        gh.commit(CommitRequest(BRANCH, base, "Add", "", (("a.txt", encoded("a")),)))

    assert stale.value.head == pushed
    assert str(stale.value) == (
        f'Expected branch to point to "{base}" but it did not. Pull and try again.'
    )
    assert gh.git.head(BRANCH) == pushed
    assert gh.file_at(BRANCH, "a.txt") is None


def test_a_change_to_a_workflow_is_refused_as_github_refuses_github_token(
    gh: MemoryGitHub,
) -> None:
    head = gh.create_branch(BRANCH).oid
    request = CommitRequest(
        BRANCH, head, "CI", "", (("ok.txt", encoded("x")), (".github/workflows/ci.yml", "eDo="))
    )

    with pytest.raises(CommitRefused) as refused:
        gh.commit(request)

    assert refused.value.status == 403
    assert "without `workflows` permission" in str(refused.value)
    assert gh.git.head(BRANCH) == head  # all or nothing
    gh.workflows_permission = True  # a token that has it (a GitHub App's, granted)
    gh.commit(request)


def test_deleting_a_path_that_is_not_there_is_refused(gh: MemoryGitHub) -> None:
    head = gh.create_branch(BRANCH).oid

    with pytest.raises(CommitRefused) as refused:
        gh.commit(CommitRequest(BRANCH, head, "Tidy", "", deletions=("gone.txt",)))

    assert str(refused.value) == (
        f"A path was requested for deletion which does not exist as of commit oid `{head}`"
    )
    assert refused.value.status == 422
    assert gh.git.head(BRANCH) == head


def test_a_pull_request_needs_a_commit_the_base_lacks(gh: MemoryGitHub) -> None:
    gh.create_branch(BRANCH)

    with pytest.raises(PullRequestRefused) as refused:
        gh.open_pull_request(plan())

    assert str(refused.value) == "No commits between main and baton/issue-1"
    assert refused.value.status == 422


def test_a_draft_pull_request_takes_the_next_issue_number_and_is_opened_once(
    gh: MemoryGitHub,
) -> None:
    change(gh, {"a.txt": "a"})
    gh.open_issue("Another")  # #2

    before = gh.requests
    opened = gh.open_pull_request(plan())
    assert gh.requests - before == 2  # look for one, then open it
    before = gh.requests
    again = gh.open_pull_request(plan(title="changed"))

    assert gh.requests - before == 1
    assert opened == again
    assert opened.number == 3
    pull = gh.pull_requests[3]
    assert (pull.draft, pull.head, pull.base, pull.author) == (
        True,
        BRANCH,
        "main",
        "github-actions[bot]",
    )
    info = gh.issue(3)
    assert info.is_pull_request and info.title == "Export as CSV" and info.body == "Fixes #1"
    assert gh.pull_request_of(BRANCH) == 3


def test_a_strangers_open_pull_request_from_the_branch_is_the_one_returned(
    gh: MemoryGitHub,
) -> None:
    gh.human_push(BRANCH, {"x.txt": "x"}, by="bob")
    theirs = gh.human_open_pull_request(BRANCH, "Mine", by="bob")

    assert gh.open_pull_request(plan()).number == theirs


def test_when_actions_may_not_open_pull_requests_github_says_so(gh: MemoryGitHub) -> None:
    change(gh, {"a.txt": "a"})
    gh.actions_may_open_pull_requests = False

    with pytest.raises(PullRequestRefused) as refused:
        gh.open_pull_request(plan())

    assert (
        str(refused.value) == "GitHub Actions is not permitted to create or approve pull requests."
    )
    assert refused.value.status == 403
    assert gh.pull_requests == {}


def test_the_pull_request_is_updated_in_the_records_own_request(gh: MemoryGitHub) -> None:
    change(gh, {"a.txt": "a"})
    opened = gh.open_pull_request(plan())
    update = plan(body="Fixes #1\n\nReady.", node_id=opened.node_id, ready=True)

    before = gh.requests
    written = gh.write(Writes(number=1, record="<!-- record -->", pull_request=update))

    assert gh.requests - before == 1
    assert written.pull_request_updated and written.pull_request_problem is None
    assert gh.issue(opened.number).body == "Fixes #1\n\nReady."
    assert not gh.pull_requests[opened.number].draft


def test_a_pull_request_update_alone_is_a_request_of_its_own(gh: MemoryGitHub) -> None:
    change(gh, {"a.txt": "a"})
    opened = gh.open_pull_request(plan())

    before = gh.requests
    written = gh.write(Writes(number=1, pull_request=plan(body="new", node_id=opened.node_id)))

    assert gh.requests - before == 1
    assert written.pull_request_updated
    assert gh.pull_requests[opened.number].draft  # not asked to be ready


@pytest.mark.parametrize("operation", ["update_pull_request", "mark_ready_for_review"])
def test_a_failed_pull_request_update_is_reported_not_raised(
    gh: MemoryGitHub, operation: str
) -> None:
    change(gh, {"a.txt": "a"})
    opened = gh.open_pull_request(plan())
    gh.fail_next(operation, times=2)  # the document's field, then the write's one redo

    written = gh.write(
        Writes(
            number=1,
            record="<!-- record -->",
            pull_request=plan(node_id=opened.node_id, ready=True),
        )
    )

    assert written.record_comment is not None
    assert not written.pull_request_updated
    assert written.pull_request_problem == f"injected failure in {operation}"


def test_reviews_keep_their_inline_notes_and_the_head_they_saw(gh: MemoryGitHub) -> None:
    head = change(gh, {"a.txt": "a"})
    number = gh.open_pull_request(plan()).number

    review = gh.human_review(
        number, "maria", "changes_requested", "Almost", notes=[("a.txt", 1, "Say b")]
    )

    assert gh.reviews[review].commit == head
    assert gh.review_notes(number, review) == [ReviewNote(path="a.txt", line=1, body="Say b")]
    with pytest.raises(TrackerError) as missing:
        gh.review_notes(number + 1, review)
    assert missing.value.status == 404


def test_failing_checks_are_the_latest_run_of_each_check_that_failed(gh: MemoryGitHub) -> None:
    head = change(gh, {"a.txt": "a"})
    gh.add_check_run(head, "lint", "failure", "E501 line too long")
    gh.add_check_run(head, "lint", "success")  # re-run: passes now
    gh.add_check_run(
        head, "tests", "failure", "2 failed\n" + "\n".join(map(str, range(20))), title="pytest"
    )
    gh.add_check_run(head, "docs", "cancelled")
    gh.add_check_run(head, "slow", None)  # still running
    gh.add_check_run("0" * 40, "other", "failure")

    failing = gh.failing_checks(head)

    assert [note.name for note in failing] == ["tests"]
    assert failing[0].summary.splitlines()[:2] == ["pytest", "2 failed"]
    assert len(failing[0].summary.splitlines()) == pulls.SUMMARY_LINES


def test_a_merge_brings_the_change_to_main_and_closes_the_pull_request(gh: MemoryGitHub) -> None:
    change(gh, {"a.txt": "a"})
    number = gh.open_pull_request(plan()).number
    gh.human_push("main", {"other.txt": "o"}, "Meanwhile on main")

    merge = gh.human_merge(number, by="maria")

    assert gh.git.head("main") == merge
    assert gh.file_at("main", "a.txt") == "a" and gh.file_at("main", "other.txt") == "o"
    pull = gh.pull_requests[number]
    assert pull.merged and gh.issue(number).state == "closed"
    assert gh.pull_request_of(BRANCH) is None
    with pytest.raises(PullRequestRefused, match="No commits between"):
        gh.open_pull_request(plan())  # all of the branch is on main now


def test_a_closed_pull_request_is_not_the_branchs_open_one(gh: MemoryGitHub) -> None:
    change(gh, {"a.txt": "a"})
    first = gh.open_pull_request(plan()).number
    gh.human_close_pr(first, by="maria")

    second = gh.open_pull_request(plan()).number

    assert second != first and not gh.pull_requests[first].merged


def test_a_read_brings_the_branch_head_in_the_same_request(gh: MemoryGitHub) -> None:
    head = change(gh, {"a.txt": "a"})

    before = gh.requests
    snapshot = gh.read(1, with_issue=True, branch=BRANCH)
    missing = gh.read(1, with_issue=False, branch="baton/issue-9")

    assert gh.requests - before == 2
    assert snapshot.branch is not None and snapshot.branch.oid == head
    assert missing.branch is None
    assert gh.read(1, with_issue=False).branch is None


@pytest.mark.parametrize(
    "operation, act",
    [
        ("create_branch", lambda gh: gh.create_branch(BRANCH)),
        ("create_ref", lambda gh: gh.create_branch(BRANCH)),
        ("commit", lambda gh: change(gh, {"a.txt": "a"})),
        ("open_pull_request", lambda gh: gh.open_pull_request(plan())),
        ("create_pull_request", lambda gh: gh.open_pull_request(plan())),
        ("branch", lambda gh: gh.read(1, with_issue=False, branch=BRANCH)),
        ("failing_checks", lambda gh: gh.failing_checks("0" * 40)),
        ("lineage", lambda gh: gh.lineage("0" * 40, "1" * 40)),
    ],
)
def test_the_new_operations_can_be_made_to_fail(
    gh: MemoryGitHub, operation: str, act: Callable[[MemoryGitHub], object]
) -> None:
    gh.fail_next(operation)

    with pytest.raises(TrackerError, match=f"injected failure in {operation}"):
        act(gh)


def test_finding_the_branch_and_the_pull_request_again_writes_nothing(gh: MemoryGitHub) -> None:
    change(gh, {"a.txt": "a"})
    gh.open_pull_request(plan())
    written = Counter(gh.calls)

    gh.create_branch(BRANCH)
    gh.open_pull_request(plan())

    assert {op: gh.calls[op] - written[op] for op in WRITES if gh.calls[op] != written[op]} == {}


def test_the_commits_on_top_of_batons_last_name_their_accounts_in_one_call(
    gh: MemoryGitHub,
) -> None:
    ours = change(gh, {"a.txt": "a"})
    pushed = gh.human_push(BRANCH, {"b.txt": "b"}, by="wendy")
    stranger = gh.git.push(BRANCH, {"c.txt": b"c"}, "x", "eve", gh.now, email="eve@example.com")
    before = gh.requests

    found = gh.lineage(ours, stranger.oid)

    assert gh.requests - before == 1
    assert [(c.oid, c.author.login if c.author else None) for c in found.commits] == [
        (pushed, "wendy"),
        (stranger.oid, None),
    ]
    assert (found.base, found.descends, found.total) == (ours, True, 2)
    assert not gh.lineage(stranger.oid, ours).descends
    assert not gh.lineage(ours, "f" * 40).descends, "a commit GitHub does not know"


# --- the check runs Baton posts ----------------------------------------------------------------
def test_a_check_run_is_posted_in_one_call_and_listed_for_its_commit(gh: MemoryGitHub) -> None:
    head = gh.git.head("main")
    assert head is not None
    plan = CheckPlan(commit=head, conclusion="failure", title="t", summary="s", external_id="n")

    posted = gh.create_check_run(plan)

    (run,) = gh.check_runs_on(head)
    assert (run.id, run.name, run.conclusion, run.external_id) == (
        posted.id,
        "Baton / tests",
        "failure",
        "n",
    )
    assert posted.url == f"https://github.com/octo/demo/runs/{run.id}"
    assert gh.calls["create_check_run"] == 1
    assert gh.failing_checks(head)[0].name == "Baton / tests"


def test_a_check_run_github_refuses_is_its_422(gh: MemoryGitHub) -> None:
    plan = CheckPlan(commit="0" * 40, conclusion="success", title="t", summary="s")
    with pytest.raises(TrackerError) as refused:
        gh.create_check_run(plan)
    assert refused.value.status == 422
    assert refused.value.said == f"No commit found for SHA: {'0' * 40}"
