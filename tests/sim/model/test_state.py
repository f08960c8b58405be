"""One repository's state: one clock and one counter of ids for everything in it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from baton.sim.model.issues import User
from baton.sim.model.state import GitHubState

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def test_every_part_stamps_with_the_states_clock_and_ids_order_creation() -> None:
    state = GitHubState("octo/demo", bot_login="github-actions[bot]", now=START)
    issue = state.issues.open("Bug", "", User("alice"))
    state.now += timedelta(hours=1)
    state.git.push("fix", {"a.txt": b"a"}, "A fix", "maria", state.clock())
    pull = state.pulls.open("fix", "Fix", "", User("maria"), draft=False)
    assert (issue.created_at, state.issues.issues[pull.number].created_at) == (
        START,
        START + timedelta(hours=1),
    )
    assert issue.id < pull.id and pull.number == issue.number + 1
    assert (state.owner, state.git.resolve("main") is not None) == ("octo", True)
