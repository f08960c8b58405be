"""The tracker's plain data: where chained runs go."""

from __future__ import annotations

import pytest

from baton.errors import InvalidWorkflowRef
from baton.github.tracker import DispatchTarget, LabelChange, cost_note, request_count


def test_a_workflow_ref_without_a_ref_is_refused_as_no_place_to_chain_runs() -> None:
    with pytest.raises(InvalidWorkflowRef, match="is not path@ref"):
        DispatchTarget.from_workflow_ref("octo/demo/.github/workflows/baton.yml")


class Counted:
    """A `Transported` stand-in: what a transport counted and GitHub said was left."""

    def __init__(self, requests: int, graphql: int, budget: dict[str, tuple[int, int]]) -> None:
        self.requests, self.graphql_requests, self.budget = requests, graphql, budget
        self.notes: list[str] = []


def test_the_cost_line_splits_graphql_from_rest_and_names_each_budget_left() -> None:
    counted = Counted(4, 3, {"graphql": (997, 1000), "core": (996, 1000)})
    assert request_count(counted) == 4
    assert cost_note(counted) == (
        "4 (3 GraphQL, 1 REST); left this hour: 996 of 1,000 REST, 997 of 1,000 GraphQL"
    )


def test_a_tracker_that_made_no_call_costs_nothing_and_says_no_budget() -> None:
    assert cost_note(Counted(0, 0, {})) == "0"


def test_only_the_difference_of_the_labels_is_changed() -> None:
    change = LabelChange(current=("bug", "status:triage"), wanted=("bug", "status:ready"), specs={})
    assert (change.add, change.remove) == (["status:ready"], ["status:triage"])


def _methods(role: type) -> list[str]:
    return sorted(name for name in vars(role) if not name.startswith("_"))


def test_the_roles_are_the_size_of_the_loop() -> None:
    """What the loop does, and no more: the reads a decision asks for go through one
    `Lookups.look_up`, not a method each (their role modules keep them, behind it)."""
    from baton.github import tracker

    roles = ("Issues", "Lookups", "Pages", "Git", "PullRequests", "SubIssues", "Checks", "Meter")
    assert {role: _methods(getattr(tracker, role)) for role in roles} == {
        "Issues": ["clock", "comment", "dispatch", "open_issues", "read", "write"],
        "Lookups": ["look_up"],
        "Pages": ["closed_issues", "create_issue", "edit_issue", "pin_issue"],
        "Git": ["branch", "commit", "commit_facts", "create_branch", "merge", "read_tree"],
        "PullRequests": ["commit_opening", "open_pull_request", "update_pull_request"],
        "SubIssues": ["create_tasks"],
        "Checks": ["create_check_run"],
        "Meter": ["requests"],
    }
    assert tracker.Lookups in tracker.Tracker.__mro__ and tracker.Lookups in tracker.Board.__mro__
