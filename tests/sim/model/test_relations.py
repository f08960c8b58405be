"""GitHub's rules for sub-issues and "blocked by" edges, on the model (`relations.py`)."""

from __future__ import annotations

import pytest

from baton.sim.model.relations import SUB_ISSUE_LIMIT, RelationRefusal, Relations


def refused(call: object, *args: int) -> str:
    assert callable(call)
    with pytest.raises(RelationRefusal) as refusal:
        call(*args)
    return refusal.value.message


def test_a_sub_issue_has_one_parent_is_added_once_and_is_never_its_own() -> None:
    rel = Relations()
    rel.add_sub_issue(1, 2)
    assert refused(rel.add_sub_issue, 1, 2) == "Issue may not contain duplicate sub-issues"
    assert refused(rel.add_sub_issue, 3, 2) == "Sub issue may only have one parent"
    assert refused(rel.add_sub_issue, 4, 4) == "An issue cannot be a sub-issue of itself"
    rel.add_sub_issue(3, 2, replace_parent=True)
    assert (rel.parent(2), rel.sub_issues(1), rel.sub_issues(3)) == (3, [], [2])


def test_a_parent_takes_a_hundred_sub_issues_and_refuses_the_next() -> None:
    rel = Relations()
    for child in range(2, SUB_ISSUE_LIMIT + 2):
        rel.add_sub_issue(1, child)
    assert refused(rel.check_sub_issue, 1) == "Parent cannot have more than 100 sub-issues"
    assert refused(rel.add_sub_issue, 1, 500) == "Parent cannot have more than 100 sub-issues"
    assert rel.sub_issues(1) == list(range(2, SUB_ISSUE_LIMIT + 2))


def test_a_blocked_by_edge_is_added_once_never_to_itself_and_read_both_ways() -> None:
    rel = Relations()
    rel.add_blocked_by(2, 1)
    rel.add_blocked_by(3, 1)
    assert refused(rel.add_blocked_by, 2, 1) == "Issue is already blocked by this issue"
    assert refused(rel.add_blocked_by, 2, 2) == "An issue cannot block itself"
    assert (rel.blocked_by(2), rel.blocking(1)) == ([1], [2, 3])
