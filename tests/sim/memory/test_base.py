"""The in-memory GitHub's bookkeeping (`sim/memory/base.py`): calls counted per operation and
per round trip as `GitHubTracker` counts them, faults injected by name, a hook before each
call, GitHub's refusals as the client's `TrackerError`, and the clock the tracker keeps."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.errors import TrackerError
from baton.sim.memory_github import MemoryGitHub


@pytest.fixture
def gh() -> MemoryGitHub:
    hub = MemoryGitHub()
    hub.open_issue("Export as CSV", author="alice")
    return hub


def test_each_call_is_counted_by_operation_and_a_read_is_one_round_trip(gh: MemoryGitHub) -> None:
    gh.read(1, with_issue=True, branch="main")
    gh.create_comment(1, "Hello")
    assert (gh.calls["issue"], gh.calls["comments"], gh.calls["branch"]) == (1, 1, 1)
    assert (gh.calls["create_comment"], gh.requests) == (1, 2)


def test_a_fault_strikes_the_named_operation_after_the_calls_let_through(
    gh: MemoryGitHub,
) -> None:
    gh.fail_next("create_comment", after=1)
    gh.create_comment(1, "first")
    with pytest.raises(TrackerError, match="injected failure in create_comment"):
        gh.create_comment(1, "second")
    gh.create_comment(1, "third")
    assert [c.body for c in gh.comments_of(1)] == ["first", "third"]


def test_the_hook_runs_before_each_call_and_not_inside_itself(gh: MemoryGitHub) -> None:
    seen: list[str] = []

    def hook(operation: str) -> None:
        seen.append(operation)
        gh.comments(1)  # a second run's call: not seen again

    gh.on_call = hook
    gh.issue(1)
    assert seen == ["issue"] and gh.calls["comments"] == 1


def test_an_unknown_issue_is_githubs_404(gh: MemoryGitHub) -> None:
    with pytest.raises(TrackerError) as missing:
        gh.issue(99)
    assert missing.value.status == 404


def test_the_clock_is_the_trackers_and_moves_every_stamp(gh: MemoryGitHub) -> None:
    gh.now += timedelta(hours=2)
    assert gh.clock() == gh.now == gh.state.now
    gh.create_comment(1, "Later")
    assert gh.comments_of(1)[-1].created_at == gh.clock()
