"""What the player reads of GitHub (`sim/scenario/holding.py`): nothing before the issue is
opened, then the branch, Baton's commits on it and its newest pull request."""

from __future__ import annotations

from collections.abc import Callable

from baton.sim.scenario import holding
from baton.sim.scenario.player import Player


def test_before_the_issue_is_opened_github_holds_nothing_of_its_work(
    played: Callable[[str], Player],
) -> None:
    player = played("steps:\n  - expect: {state: null}\n")

    assert holding.holding(player) == holding.Holding()
    assert holding.baton_commits(player) == 0
    assert holding.open_pull_number(player) is None
    assert holding.record_of(player) is None


def test_a_reported_change_is_one_commit_of_baton_on_the_branch_and_a_draft_pull_request(
    worked: Player,
) -> None:
    player = worked

    now = holding.holding(player)

    assert now.head == player.gh.git.head(player.branch)
    assert holding.baton_commits(player) == 1
    assert now.pull_request_state == "draft"
    assert holding.open_pull_number(player) == now.pull_request


def test_a_commit_lists_its_files_by_what_it_did_to_each(
    worked: Player,
) -> None:
    player = worked
    git = player.gh.git
    head = git.head(player.branch) or ""

    assert holding.files_of(player, head) == ["+ src/export.py"]
    assert holding.commits_between(player, git.head(git.default_branch) or "", head) == [head]
