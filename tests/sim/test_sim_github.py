"""SimGitHub: the production GitHubTracker over the model of GitHub, in process, with what
people do on GitHub as helpers; its figures are real round trips."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from baton.errors import TrackerError
from baton.sim.sim_github import SEAM, SimGitHub


def test_the_client_reads_over_the_api_what_people_did_on_the_model() -> None:
    gh = SimGitHub(now=datetime(2026, 1, 5, 9, 0))  # no zone: UTC, as GitHub's clock
    number = gh.open_issue("Export", "CSV please", author="alice")
    comment = gh.human_comment(number, "Any news?", author="bob")
    gh.human_label(number, "bug", by="maria")

    snapshot = gh.read(number, with_issue=True)

    assert snapshot.issue is not None and snapshot.issue.labels == ("bug",)
    assert [(c.author, c.body) for c in snapshot.comments] == [("bob", "Any news?")]
    assert gh.now == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert [c.operation for c in gh.sent] == ["BatonRead"] and gh.requests == 1
    assert gh.log == [
        "#1 opened by alice: Export",
        f"#1 comment {comment.id} by bob",
        "#1 +label bug (human)",
    ]


def test_a_comment_github_refuses_is_the_client_s_error_and_changes_nothing() -> None:
    gh = SimGitHub()
    number = gh.open_issue("Export")
    with pytest.raises(TrackerError, match=r"the comment's .*\(422\)"):
        gh.human_comment(number, "x" * 65_537, author="bob")
    assert gh.comments_of(number) == []


def test_fail_next_fails_the_seam_s_call_before_anything_is_sent_then_lets_it_through() -> None:
    gh = SimGitHub()
    number = gh.open_issue("Export")
    gh.fail_next("read", after=1)
    gh.read(number, with_issue=True)
    with pytest.raises(TrackerError, match="injected failure in read"):
        gh.read(number, with_issue=True)
    gh.read(number, with_issue=True)
    assert gh.calls["read"] == 3 and len(gh.sent) == 2
    with pytest.raises(ValueError, match="not a call of the Tracker seam"):
        gh.fail_next("set_labels")
    assert "write" in SEAM and "clock" not in SEAM


def test_on_call_runs_before_each_call_but_not_inside_its_own_calls() -> None:
    gh = SimGitHub()
    number = gh.open_issue("Export")
    seen: list[str] = []

    def hook(name: str) -> None:
        seen.append(name)
        gh.permission("maria")  # a second run's call: not seen again

    gh.on_call = hook
    gh.read(number, with_issue=True)
    assert seen == ["read"]
    assert gh.calls == {"read": 1, "permission": 1}


def test_a_new_run_forgets_what_the_last_run_s_reads_learned() -> None:
    gh = SimGitHub(labels=("status:received",))
    gh.add_label("status:received", "0e8a16", "Baton: received")
    number = gh.open_issue("Export")
    gh.read(number, with_issue=True)
    assert gh.known.lookups == ()
    gh.new_run()
    assert gh.known.lookups == ("status:received",) and gh.known.issue_nodes == {}


def test_writes_sent_are_the_requests_that_change_something() -> None:
    gh = SimGitHub()
    number = gh.open_issue("Export")
    gh.read(number, with_issue=True)
    gh.permission("maria")
    assert gh.writes_sent() == []
    gh.create_issue("Another", "body")
    assert [c.method for c in gh.writes_sent()] == ["POST"]


def test_a_fork_keeps_github_as_it_was_then_diverges_from_its_origin() -> None:
    gh = SimGitHub(labels=("status:received",), graphql=False)
    gh.set_permission("maria", "maintain")
    number = gh.open_issue("Export", "CSV please", author="alice")
    first = gh.human_comment(number, "Any news?", author="bob")
    gh.human_label(number, "bug", by="maria")
    head = gh.human_push("baton/issue-1", {"a.txt": "a\n"})
    gh.read(number, with_issue=True)
    gh.on_call = lambda name: None
    gh.fail_next("read")
    gh.api.fail("GET", "/issues", 502)
    gh.api.on_request = lambda call: None

    fork = gh.fork()

    assert (fork.repo, fork.bot_login, fork.now) == (gh.repo, gh.bot_login, gh.now)
    assert fork.comments_of(number) == gh.comments_of(number)
    assert fork.labels_of(number) == ["bug"] and fork.git.head("baton/issue-1") == head
    assert [c.path for c in fork.sent] == [c.path for c in gh.sent]  # the log so far
    assert fork.permission("maria") == "maintain"
    assert (fork.on_call, fork.api.on_request, fork.api._faults) == (None, None, [])
    fork.read(number, with_issue=True)  # no fault queued on the fork: it reads
    assert not fork._graphql and fork.known.lookups == ("status:received",)

    fork.human_comment(number, "On the fork", author="bob")
    fork.human_label(number, "bug", add=False, by="maria")
    gh.now += timedelta(hours=1)
    second = gh.human_comment(number, "On the origin", author="bob")

    assert [c.body for c in gh.comments_of(number)] == ["Any news?", "On the origin"]
    assert [c.body for c in fork.comments_of(number)] == ["Any news?", "On the fork"]
    assert gh.labels_of(number) == ["bug"] and fork.labels_of(number) == []
    assert fork.now == gh.now - timedelta(hours=1)
    assert second.id > first.id and fork.comments_of(number)[1].id == second.id  # same ids
