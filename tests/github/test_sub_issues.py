"""An epic's sub-issues over real HTTP, against the fake GitHub: read with what blocks them, a
plan's tasks created idempotently in a handful of GraphQL documents (and again after a crash
half-way), only the bot's marks trusted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from baton.core.model.epic import NewTask, TaskCreationPlan
from baton.core.text import task_marker as marker
from baton.errors import TrackerError
from baton.github import graphql as gql
from baton.github.client import GitHubTracker
from baton.github.tracker import SubIssue
from baton.sim.model import relations
from fakes.http_github import FakeGitHub

TASK = "baton:task"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def tracker(fake: FakeGitHub) -> GitHubTracker:
    return GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)


def plan_of(epic: int, count: int = 10) -> TaskCreationPlan:
    """`count` tasks in a chain (k1 blocked by k0, ...) and k{n} also blocked by k0."""
    tasks = [
        NewTask(key=f"k{i}", title=f"Task {i}", body=f"Do part {i}.", labels=(TASK,))
        for i in range(count)
    ]
    edges = [(f"k{i}", f"k{i - 1}") for i in range(1, count)]
    edges += [(f"k{i}", "k0") for i in range(2, count)]
    return TaskCreationPlan(epic=epic, tasks=tasks, edges=edges)


def operations(fake: FakeGitHub) -> list[str]:
    return [c.operation or f"{c.method} {c.path}" for c in fake.requests]


def wanted_edges(fake: FakeGitHub, plan: TaskCreationPlan, numbers: dict[str, int]) -> bool:
    return fake.blocked_by_edges() == {(numbers[a], numbers[b]) for a, b in plan.edges}


# --- creating a plan's tasks ----------------------------------------------------------------
def test_ten_tasks_and_their_edges_cost_four_calls_and_a_rerun_one(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic: export", labels=["baton:epic"])
    plan = plan_of(epic)
    fake.reset_requests()

    facts = tracker.create_tasks(plan)

    # one read, the missing label (REST), one createIssue document, one addBlockedBy document
    assert operations(fake) == [
        "BatonTasks",
        "POST /repos/octo/demo/labels",
        "BatonCreateTasks",
        "BatonBlockedBy",
    ]
    assert (tracker.requests, tracker.graphql_requests) == (4, 3)
    numbers = {c.key: c.number for c in facts.created}
    assert [c.key for c in facts.created] == [t.key for t in plan.tasks]
    assert fake.sub_issues(epic) == list(numbers.values())  # linked as they were created
    assert all(c.node_id == fake.node_id(c.number) for c in facts.created)
    assert wanted_edges(fake, plan, numbers)
    first = fake.issue(numbers["k0"])
    assert first["user"]["login"] == fake.bot_login
    assert first["labels"] == [TASK]
    assert marker.read(first["body"]) == (epic, "k0")
    assert first["body"].startswith("Do part 0.")

    fake.reset_requests()
    assert tracker.create_tasks(plan) == facts
    assert operations(fake) == ["BatonTasks"]  # found by their marks: nothing made twice
    assert len(fake.sub_issues(epic)) == 10


def test_a_label_the_repository_has_costs_nothing_and_big_plans_are_chunked(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    fake.add_label(TASK, "1d76db", "A task of an epic")
    epic = fake.add_issue("Epic")
    plan = plan_of(epic, 25)  # 25 tasks, 47 edges
    fake.reset_requests()

    tracker.create_tasks(plan)

    # 20 issues to a document; up to 100 edges to one.
    assert operations(fake) == ["BatonTasks"] + ["BatonCreateTasks"] * 2 + ["BatonBlockedBy"]
    assert len(fake.sub_issues(epic)) == 25
    assert len(fake.blocked_by_edges()) == 47


EPIC_BRANCH = "baton/issue-1"


def test_the_epic_s_branch_is_made_in_the_first_creation_document(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """The query reads the default branch's head and whether the branch exists; `createRef`
    rides with the first `createIssue` fields: no call of its own. A branch that exists is
    left to the run's branch step (found, judged), and a re-run makes nothing."""
    fake.add_label(TASK, "1d76db", "A task of an epic")
    epic = fake.add_issue("Epic")
    plan = plan_of(epic).model_copy(update={"branch": EPIC_BRANCH})
    fake.reset_requests()

    facts = tracker.create_tasks(plan)

    assert operations(fake) == ["BatonTasks", "BatonCreateTasks", "BatonBlockedBy"]
    assert facts.branch_created
    assert fake.branch_head(EPIC_BRANCH) == fake.branch_head("main")
    fake.reset_requests()
    again = tracker.create_tasks(plan)
    assert operations(fake) == ["BatonTasks"]
    assert not again.branch_created


def test_with_nothing_left_to_create_the_missing_branch_is_one_document(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    tracker.create_tasks(plan_of(epic))
    fake.reset_requests()

    facts = tracker.create_tasks(plan_of(epic).model_copy(update={"branch": EPIC_BRANCH}))

    assert operations(fake) == ["BatonTasks", "BatonCreateBranch"]
    assert facts.branch_created and fake.branch_head(EPIC_BRANCH) is not None


def test_a_crash_after_the_created_issues_leaves_only_the_edges_to_add(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    plan = plan_of(epic)
    fake.fail("POST", "/graphql", 502, operation="BatonBlockedBy")

    with pytest.raises(TrackerError, match="502"):
        tracker.create_tasks(plan)
    assert len(fake.sub_issues(epic)) == 10
    assert fake.blocked_by_edges() == set()

    fake.reset_requests()
    facts = tracker.create_tasks(plan)

    assert operations(fake) == ["BatonTasks", "BatonBlockedBy"]
    assert wanted_edges(fake, plan, {c.key: c.number for c in facts.created})


def test_a_refused_task_fails_the_run_in_one_line_and_the_rerun_makes_only_it(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    plan = plan_of(epic)
    fake.fail_graphql_field("t3", "FORBIDDEN", operation="BatonCreateTasks")

    with pytest.raises(TrackerError) as refused:
        tracker.create_tasks(plan)
    text = str(refused.value)
    assert "\n" not in text
    assert text == (
        f"GitHub refused creating 1 of 10 tasks of #{epic} (GraphQL), k3 first: FORBIDDEN"
        " Resource not accessible by integration"
    )
    assert refused.value.status == 403
    assert len(fake.sub_issues(epic)) == 9  # the others were created: they stay
    assert fake.blocked_by_edges() == set()

    fake.reset_requests()
    facts = tracker.create_tasks(plan)

    assert operations(fake) == ["BatonTasks", "BatonCreateTasks", "BatonBlockedBy"]
    assert fake.calls(operation="BatonCreateTasks")[0].body["query"].count("createIssue") == 1
    assert len(fake.sub_issues(epic)) == 10
    assert wanted_edges(fake, plan, {c.key: c.number for c in facts.created})


def test_only_the_bots_marks_count_and_present_edges_are_kept(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    plan = plan_of(epic, 3)
    # Someone opens an issue carrying k0's mark and links it: it is no task of Baton's.
    forged = fake.add_issue("Sneaky", marker.render(epic, "k0"), user="mallory")
    fake.add_sub_issue(epic, forged)
    facts = tracker.create_tasks(plan)
    numbers = {c.key: c.number for c in facts.created}
    assert numbers["k0"] != forged
    seen = tracker.sub_issues(epic)
    assert [(s.number, s.marker) for s in seen] == [
        (forged, None),
        (numbers["k0"], "k0"),
        (numbers["k1"], "k1"),
        (numbers["k2"], "k2"),
    ]

    # A maintainer removes nothing, but an edge that a racing run added is taken as done.
    fresh = TaskCreationPlan(
        epic=epic, tasks=plan.tasks, edges=[*plan.edges, ("k2", "k1"), ("k0", "k2")]
    )
    fake.fail_graphql_field(
        "e0", "UNPROCESSABLE", message=relations.ALREADY_BLOCKED_MESSAGE, operation="BatonBlockedBy"
    )
    fake.reset_requests()
    tracker.create_tasks(fresh)
    assert operations(fake) == ["BatonTasks", "BatonBlockedBy"]
    sent = fake.calls(operation="BatonBlockedBy")[0].body["query"]
    assert sent.count("addBlockedBy") == 1  # only the edge missing: (k0, k2)


def test_a_plan_naming_an_unknown_task_in_an_edge_writes_nothing(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    plan = TaskCreationPlan(epic=epic, tasks=plan_of(epic, 2).tasks, edges=[("k1", "ghost")])
    fake.reset_requests()
    with pytest.raises(TrackerError, match="ghost"):
        tracker.create_tasks(plan)
    assert fake.requests == []


def test_a_full_parent_refuses_the_new_task_and_nothing_is_left_unlinked(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    for _ in range(relations.SUB_ISSUE_LIMIT):
        fake.add_sub_issue(epic, fake.add_issue("Old work"))
    before = len(fake.requests)
    with pytest.raises(TrackerError, match=relations.SUB_ISSUE_LIMIT_MESSAGE):
        tracker.create_tasks(plan_of(epic, 1))
    assert len(fake.sub_issues(epic)) == relations.SUB_ISSUE_LIMIT
    assert len(fake.requests) - before == 3  # read, label, the refused document
    assert fake.issue(101)["title"] == "Old work"  # and no issue #102 was opened
    with pytest.raises(KeyError):
        fake.issue(102)


# --- reading sub-issues and several issues ---------------------------------------------------
def test_sub_issues_carry_state_labels_author_mark_and_blockers(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    epic = fake.add_issue("Epic")
    facts = tracker.create_tasks(plan_of(epic, 3))
    one, two, three = (c.number for c in facts.created)
    fake.update_issue(one, state="closed")
    fake.label_by(two, "status:in-progress", "maria")
    fake.reset_requests()

    found = tracker.sub_issues(epic)

    assert operations(fake) == ["BatonSubIssues"]
    assert found[1] == SubIssue(
        number=two,
        node_id=fake.node_id(two),
        open=True,
        labels=(TASK, "status:in-progress"),
        author=fake.bot_login,
        marker="k1",
        blocked_by=(one,),
    )
    assert found[0].open is False
    assert found[2].blocked_by == (two, one)
    assert tracker.sub_issues(three) == []


# --- the documents -----------------------------------------------------------------------------
def test_the_epic_documents_name_their_operations() -> None:
    from baton.sim.api import graphql_api as github_graphql

    doc = gql.Mutation(operation="BatonCreateTasks")
    doc.create_issue("t0", "R_1", "Title", "Body", ["LA_1"], "I_1")
    assert github_graphql.operation_name({"query": doc.document()}) == "BatonCreateTasks"
    assert github_graphql.operation_name({"query": gql.sub_issues_document()}) == ("BatonSubIssues")
    assert github_graphql.operation_name({"query": gql.read_many_document([1, 2])}) == (
        "BatonReadMany"
    )
