"""MemoryGitHub's epics: sub-issues and dependencies under GitHub's rules, a plan's tasks created
in the round trips GitHubTracker makes (and again after a crash at any point), several issues
read at once, task branches merged back with their conflicts."""

from __future__ import annotations

import pytest

from baton.core.model.epic import MergePlan, NewTask, TaskCreationPlan
from baton.core.text import task_marker as marker
from baton.errors import TrackerError
from baton.sim.memory_github import MemoryGitHub
from baton.sim.model import relations

TASK = "baton:task"


def plan_of(epic: int, count: int = 10) -> TaskCreationPlan:
    tasks = [
        NewTask(key=f"k{i}", title=f"Task {i}", body=f"Do part {i}.", labels=(TASK,))
        for i in range(count)
    ]
    edges = [(f"k{i}", f"k{i - 1}") for i in range(1, count)]
    return TaskCreationPlan(epic=epic, tasks=tasks, edges=edges)


def edges_of(gh: MemoryGitHub) -> set[tuple[int, int]]:
    return {(n, b) for n, known in gh.relations.blockers.items() for b in known}


# --- creating tasks ------------------------------------------------------------------------------
def test_ten_tasks_cost_the_clients_four_round_trips_and_a_rerun_one() -> None:
    gh = MemoryGitHub()
    epic = gh.open_issue("Epic", labels=("baton:epic",))
    plan = plan_of(epic)
    before = gh.requests

    facts = gh.create_tasks(plan)

    assert gh.requests - before == 4  # read, the label, the issues' document, the edges'
    assert (gh.calls["create_issue"], gh.calls["add_blocked_by"]) == (10, 9)
    numbers = [c.number for c in facts.created]
    assert gh.sub_issues_of(epic) == numbers
    assert edges_of(gh) == {(numbers[i], numbers[i - 1]) for i in range(1, 10)}
    task = gh.issues[numbers[0]]
    assert (task.author, task.labels) == (gh.bot_login, [TASK])
    assert marker.read(task.body) == (epic, "k0")
    assert facts.created[0].node_id == gh.node_id_of(numbers[0])

    before = gh.requests
    assert gh.create_tasks(plan) == facts
    assert gh.requests - before == 1
    assert gh.calls["create_issue"] == 10


def test_a_crash_after_k_issues_or_before_the_edges_is_repaired_by_the_rerun() -> None:
    gh = MemoryGitHub()
    epic = gh.open_issue("Epic")
    plan = plan_of(epic)
    gh.fail_next("create_issue", after=3)  # the document dies at the fourth task

    with pytest.raises(TrackerError, match="injected"):
        gh.create_tasks(plan)
    assert len(gh.sub_issues_of(epic)) == 3

    gh.fail_next("add_blocked_by")  # now the edges' document dies at once
    with pytest.raises(TrackerError, match="injected"):
        gh.create_tasks(plan)
    assert len(gh.sub_issues_of(epic)) == 10
    assert edges_of(gh) == set()

    before = gh.requests
    facts = gh.create_tasks(plan)
    assert gh.requests - before == 2  # the read, the edges
    assert len(edges_of(gh)) == 9
    assert [c.key for c in facts.created] == [t.key for t in plan.tasks]


def test_a_full_epic_refuses_the_task_in_one_line_and_creates_nothing() -> None:
    gh = MemoryGitHub()
    epic = gh.open_issue("Epic")
    for _ in range(relations.SUB_ISSUE_LIMIT):
        gh.add_sub_issue(epic, gh.open_issue("Old"))
    count = len(gh.issues)
    with pytest.raises(TrackerError) as refused:
        gh.create_tasks(plan_of(epic, 1))
    assert str(refused.value) == (
        f"GitHub refused creating 1 of 1 tasks of #{epic} (GraphQL), k0 first: UNPROCESSABLE"
        f" {relations.SUB_ISSUE_LIMIT_MESSAGE}"
    )
    assert len(gh.issues) == count


def test_marks_are_trusted_on_the_bots_issues_only() -> None:
    gh = MemoryGitHub()
    epic = gh.open_issue("Epic")
    forged = gh.open_issue("Forged", marker.render(epic, "k0"), author="mallory")
    gh.add_sub_issue(epic, forged)
    facts = gh.create_tasks(plan_of(epic, 1))
    assert facts.created[0].number != forged
    assert [(s.number, s.marker) for s in gh.sub_issues(epic)] == [
        (forged, None),
        (facts.created[0].number, "k0"),
    ]


# --- reading -------------------------------------------------------------------------------------
def test_read_many_is_one_round_trip_plus_the_pages_of_long_issues() -> None:
    gh = MemoryGitHub()
    small, big = gh.open_issue("a"), gh.open_issue("b")
    gh.human_comment(small, "hi", author="alice")
    for i in range(250):
        gh.human_comment(big, f"c{i}", author="alice")
    before = gh.requests
    assert gh.read_many([]) == {}
    assert gh.requests == before
    read = gh.read_many([small, big, 404])
    assert gh.requests - before == 3  # the document, two more pages of #2
    assert sorted(read) == [small, big]
    assert len(read[big].comments) == 250


# --- branches and merges -------------------------------------------------------------------------
def test_merges_are_merged_up_to_date_conflicting_or_missing() -> None:
    gh = MemoryGitHub()
    gh.create_branch("baton/epic-1")
    gh.human_push("baton/epic-1", {"plan.md": "plan"})
    task = gh.create_branch("baton/issue-2", "baton/epic-1")
    assert task.oid == gh.git.head("baton/epic-1")
    with pytest.raises(TrackerError, match="there is no branch nope"):
        gh.create_branch("baton/issue-3", "nope")
    plan = MergePlan(base="baton/epic-1", head="baton/issue-2", message="Merge k0")
    assert gh.merge(plan).status == "up_to_date"

    gh.human_push("baton/issue-2", {"a.py": "a"})
    gh.human_push("baton/epic-1", {"b.py": "b"})
    merged = gh.merge(plan)
    assert merged.status == "merged"
    commit = gh.git.commits[merged.oid]
    assert (commit.message, commit.author, len(commit.parents)) == ("Merge k0", gh.bot_login, 2)
    assert (gh.file_at("baton/epic-1", "a.py"), gh.file_at("baton/epic-1", "b.py")) == ("a", "b")

    gh.human_push("baton/issue-2", {"a.py": "theirs"})
    gh.human_push("baton/epic-1", {"a.py": "ours"})
    head = gh.git.head("baton/epic-1")
    assert gh.merge(plan).model_dump() == {
        "status": "conflict",
        "oid": "",
        "detail": "Merge conflict",
    }
    assert gh.git.head("baton/epic-1") == head
    missing = gh.merge(MergePlan(base="gone", head="baton/issue-2", message="m"))
    assert (missing.status, missing.detail) == ("missing", "Base does not exist")
