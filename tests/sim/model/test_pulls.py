"""GitHub's rules for pull requests, reviews and check runs, tested once on the model both
fakes keep (`sim/model/pulls.py`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baton.sim.model.issues import User
from baton.sim.model.pulls import CheckRunRefusal, PullRequestRefusal, check_summary
from baton.sim.model.state import GitHubState

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
MARIA, BOB = User("maria"), User("bob")


@pytest.fixture
def state() -> GitHubState:
    made = GitHubState("octo/demo", bot_login="github-actions[bot]", now=START)
    made.git.push("fix", {"a.txt": b"a"}, "A fix", "bob", START)
    return made


def refusal(state: GitHubState, branch: str, body: str = "") -> tuple[str, str]:
    with pytest.raises(PullRequestRefusal) as refused:
        state.pulls.open(branch, "Fix", body, BOB, draft=True)
    return refused.value.kind, refused.value.message


def test_github_refuses_a_pull_request_word_for_word(state: GitHubState) -> None:
    state.git.create_branch("empty", state.git.refs["main"])
    assert refusal(state, "nowhere") == ("no_head", "head 'nowhere' is not a branch")
    assert refusal(state, "empty") == ("no_commits", "No commits between main and empty")
    assert refusal(state, "fix", "x" * 65_537) == (
        "body",
        "body is too long (maximum is 65536 characters)",
    )
    state.pulls.open("fix", "Fix", "", BOB, draft=True)
    assert refusal(state, "fix") == ("exists", "A pull request already exists for octo:fix.")
    assert len(state.pulls.pulls) == 1


def test_an_open_pull_request_follows_its_branch_and_a_closed_one_keeps_its_head(
    state: GitHubState,
) -> None:
    pull = state.pulls.open("fix", "Fix", "", BOB, draft=False)
    moved = state.git.push("fix", {"b.txt": b"b"}, "More", "bob", START).oid
    assert state.pulls.head_of(pull) == moved
    state.pulls.close(pull, MARIA)
    state.git.push("fix", {"c.txt": b"c"}, "After", "bob", START)
    assert state.pulls.head_of(pull) == moved and state.pulls.open_from("fix") is None


def test_a_merge_closes_the_issue_and_records_who_and_the_commit(state: GitHubState) -> None:
    pull = state.pulls.open("fix", "Fix", "", BOB, draft=False)
    state.now += timedelta(minutes=5)
    oid = state.pulls.merge(pull, MARIA)
    issue = state.issues.issues[pull.number]
    assert (pull.merged, pull.merge_commit, pull.merged_by, pull.merged_at) == (
        True,
        oid,
        MARIA,
        state.now,
    )
    assert (issue.state, state.git.refs["main"]) == ("closed", oid)
    with pytest.raises(ValueError, match="is not open"):
        state.pulls.merge(pull, MARIA)


def test_a_review_is_given_on_the_current_head_with_its_inline_comments(
    state: GitHubState,
) -> None:
    pull = state.pulls.open("fix", "Fix", "", BOB, draft=False)
    review = state.pulls.review(pull, MARIA, "changes_requested", "No.", [("a.txt", 1, "Why?")])
    assert (review.commit, review.pull_request) == (state.git.refs["fix"], pull.number)
    assert [(c.path, c.line, c.body) for c in review.comments] == [("a.txt", 1, "Why?")]
    assert review.comments[0].id > review.id
    with pytest.raises(ValueError, match="unknown verdict"):
        state.pulls.review(pull, MARIA, "lgtm", "", [])


def test_the_latest_run_of_each_check_supersedes_the_earlier_ones(state: GitHubState) -> None:
    head = state.git.refs["fix"]
    first = state.pulls.add_check_run(head, "tests", "failure", "", "", "")
    lint = state.pulls.add_check_run(head, "lint", None, "", "", "")
    again = state.pulls.add_check_run(head, "tests", "success", "", "", "")
    assert state.pulls.latest_runs(head) == [lint, again]
    assert (first.status, first.completed_at, lint.status, lint.completed_at) == (
        "completed",
        START,
        "in_progress",
        None,
    )


def test_an_app_s_check_run_is_completed_by_its_conclusion_and_kept_with_its_reference(
    state: GitHubState,
) -> None:
    head = state.git.refs["fix"]
    made = state.pulls.create_check_run(
        head, "Baton / tests", conclusion="neutral", title="red", summary="s", external_id="n1"
    )
    again = state.pulls.create_check_run(
        head, "Baton / tests", conclusion=None, title="", summary=""
    )
    assert (made.status, made.conclusion, made.external_id, made.app) == (
        "completed",
        "neutral",
        "n1",
        "github-actions",
    )
    assert again.status == "in_progress"
    assert state.pulls.runs_on(head) == [again, made]  # newest first, as `filter=all`
    assert state.pulls.latest_runs(head) == [again]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"name": " "}, "CheckRun.name is missing field", id="no name"),
        pytest.param(
            {"conclusion": "passed"}, "CheckRun.conclusion is invalid", id="an unknown conclusion"
        ),
        pytest.param(
            {"summary": "x" * 65_536},
            "summary is too long (maximum is 65535 characters)",
            id="a summary over the limit",
        ),
        pytest.param(
            {"head_sha": "0" * 40}, f"No commit found for SHA: {'0' * 40}", id="an unknown commit"
        ),
    ],
)
def test_github_refuses_a_check_run_word_for_word(
    state: GitHubState, fields: dict[str, str], message: str
) -> None:
    given = {"head_sha": state.git.refs["fix"], "name": "t", "conclusion": "success"}
    given |= {"title": "t", "summary": "s"} | fields
    with pytest.raises(CheckRunRefusal) as refused:
        state.pulls.create_check_run(
            given["head_sha"],
            given["name"],
            conclusion=given["conclusion"],
            title=given["title"],
            summary=given["summary"],
        )
    assert refused.value.message == message
    assert state.pulls.check_runs == []


def test_a_checks_summary_is_its_title_then_its_first_lines() -> None:
    text = "\n".join(f"line {n}" for n in range(20))
    assert check_summary("Tests failed", text).splitlines()[:2] == ["Tests failed", "line 0"]
    assert len(check_summary("", text).splitlines()) == 10
