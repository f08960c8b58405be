"""The in-memory GitHub's objects as GitHub's JSON (`sim/memory/github_json.py`), the source
`payloads` builds webhook payloads from."""

from __future__ import annotations

import pytest

from baton.sim.memory_github import MemoryGitHub


@pytest.fixture
def gh() -> MemoryGitHub:
    hub = MemoryGitHub()
    hub.open_issue("Export as CSV", "Please.", author="alice", labels=("bug",))
    return hub


def test_an_issue_renders_with_its_author_labels_and_comment_count(gh: MemoryGitHub) -> None:
    gh.human_comment(1, "Me too", author="bob")
    issue = gh.issue_json(1)
    assert (issue["number"], issue["title"], issue["user"]["login"]) == (
        1,
        "Export as CSV",
        "alice",
    )
    assert ([label["name"] for label in issue["labels"]], issue["comments"]) == (["bug"], 1)


def test_a_label_renders_by_any_case_of_its_name_and_an_unknown_one_is_a_key_error(
    gh: MemoryGitHub,
) -> None:
    assert gh.label_json("BUG")["color"] == "ededed"
    with pytest.raises(KeyError):
        gh.label_json("wontfix")


def test_the_bots_comment_is_by_github_actions(gh: MemoryGitHub) -> None:
    comment = gh.comment_json(gh.create_comment(1, "Received"))
    assert comment["user"]["type"] == "Bot"
    assert comment["performed_via_github_app"] is not None


def test_the_last_actor_is_who_added_the_label(gh: MemoryGitHub) -> None:
    gh.human_label(1, "triaged", by="maria")
    assert gh.last_actor(1, "labeled", "TRIAGED") == ("maria", "User")
    assert gh.last_actor(1, "labeled", "bug") == ("alice", "User")
    assert gh.last_actor(1, "closed") is None
