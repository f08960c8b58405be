"""MemoryGitHub's own helpers, the humans and CI of a scenario (`sim/memory_github.py`): each
change they make is logged in a compact readable form and reaches the one model."""

from __future__ import annotations

import pytest

from baton.sim.memory_github import MemoryGitHub


@pytest.fixture
def gh() -> MemoryGitHub:
    hub = MemoryGitHub()
    hub.open_issue("Export as CSV", author="alice")
    return hub


def test_what_humans_do_to_an_issue_is_logged_and_recorded_with_its_actor(
    gh: MemoryGitHub,
) -> None:
    comment = gh.human_comment(1, "Any news?", author="bob")
    gh.human_edit(comment.id, "Any news, please?")
    gh.human_label(1, "bug", by="maria")
    gh.human_close(1, by="maria")
    gh.human_reopen(1, by="alice")
    assert gh.log[1:] == [
        f"#1 comment {comment.id} by bob",
        f"#1 comment {comment.id} edited by bob",
        "#1 +label bug (human)",
        "#1 closed by maria",
        "#1 reopened by alice",
    ]
    assert [(e.kind, e.actor.login) for e in gh.issues[1].events] == [
        ("labeled", "maria"),
        ("closed", "maria"),
        ("reopened", "alice"),
    ]


def test_a_repository_label_exists_before_baton_needs_it_and_only_once(
    gh: MemoryGitHub,
) -> None:
    gh.add_label("status:received", "1D76DB")
    assert gh.label_json("Status:Received")["color"] == "1d76db"
    with pytest.raises(ValueError, match="already exists"):
        gh.add_label("STATUS:received")


def test_a_push_a_pull_request_a_review_and_a_merge_by_hand(gh: MemoryGitHub) -> None:
    head = gh.human_push("fix", {"a.txt": "a"}, by="bob")
    number = gh.human_open_pull_request("fix", "Fix", by="bob")
    review = gh.human_review(number, "maria", "approved", notes=[("a.txt", 1, "Nice")])
    run = gh.add_check_run(head, "tests", "success")
    merged = gh.human_merge(number, by="maria")
    assert (gh.reviews[review].commit, gh.check_runs[-1].id) == (head, run)
    assert gh.pull_requests[number].merge_commit == merged == gh.git.refs["main"]
    assert gh.log[-2:] == [f"#{number} closed by maria", f"#{number} merged by maria"]
    with pytest.raises(ValueError, match="unknown verdict"):
        gh.human_review(number, "maria", "lgtm")
