"""The fake's state and what its routes share: a snapshot of GitHub's side."""

from __future__ import annotations

import copy

from baton.sim.api.face import GitHubApi


def test_a_snapshot_copies_github_s_side_with_a_lock_of_its_own_and_no_faults() -> None:
    api = GitHubApi("octo", "demo", token="t0")
    number = api.add_issue("Export", labels=["bug"])
    api.add_comment(number, "first")
    api.set_permission("maria", "maintain")
    workflow = api.add_workflow("baton.yml", inputs=["issue"])
    api.push("baton/issue-1", {"a.txt": "a\n"})
    api.fail("GET", "/issues", 502)
    api.fail_graphql_field("addComment")
    api.on_request = lambda call: None

    copied = api.snapshot()

    assert copied._lock is not api._lock and copied._state is not api._state
    assert (copied._faults, copied._field_faults, copied.on_request) == ([], [], None)
    assert [c["body"] for c in copied.comments(number)] == ["first"]
    assert copied._workflows["baton.yml"]["id"] == workflow
    assert copied._git.head("baton/issue-1") == api._git.head("baton/issue-1")
    assert copied._store is copied._state.issues  # the aliases point into the copy's state
    copied.add_comment(number, "on the copy")
    api.add_comment(number, "on the origin")
    assert [c["body"] for c in copied.comments(number)] == ["first", "on the copy"]
    assert [c["body"] for c in api.comments(number)] == ["first", "on the origin"]
    assert copy.deepcopy(api)._faults == [] and len(api._faults) == 1
