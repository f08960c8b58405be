"""`Lookups.look_up` over GitHub (the HTTP fake): every part a decision may ask for answered in
one call, each part costing the round trips of its own read and nothing when not asked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest

from baton.core.model.events import CheckNote, LaterCommit, ReviewNote
from baton.core.model.facts import FailingAsk
from baton.core.model.issue_facts import Actor
from baton.github.client import GitHubTracker
from baton.github.tracker import LookedUp, Lookup
from fakes.http_github import FakeGitHub

BRANCH = "baton/issue-7"


@dataclass(frozen=True)
class Repo:
    """What the fake holds for the lookups: a Baton commit and a later one on a pull request
    reviewed with a note and failing CI, an epic with a task, a failing issue."""

    base: str
    later: str
    pull: int
    review: int
    epic: int
    task: int


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def served(fake: FakeGitHub) -> GitHubTracker:
    return GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0)


@pytest.fixture
def repo(fake: FakeGitHub) -> Repo:
    fake.set_permission("maria", "maintain")
    fake.mark_nonexistent("ghost")
    fake.add_team_member("octo", "core", "maria")
    fake.add_team_member("octo", "core", "bo", state="pending")
    base = fake.push(BRANCH, {"a.txt": "a"}, "Baton's commit")
    later = fake.push(BRANCH, {"a.txt": "b"}, "A human's commit", by="maria")
    pull = fake.open_pull_request(BRANCH, "Add a")
    review = fake.review(pull, "maria", "changes_requested", notes=[("a.txt", 1, "Say c")])
    fake.add_check_run(later, "tests", "failure", "1 failed")
    epic, task = fake.add_issue("Epic"), fake.add_issue("Task")
    fake.add_sub_issue(epic, task)
    fake.add_comment(task, "a task's comment")
    fake.add_issue("Down", labels=["baton:failing"])
    fake.reset_requests()
    return Repo(base, later, pull, review, epic, task)


def operations(fake: FakeGitHub) -> list[str]:
    return [c.operation or f"{c.method} {c.path}" for c in fake.requests]


def everything(fake: FakeGitHub, repo: Repo) -> Lookup:
    return Lookup(
        permissions=("maria", "ghost", "maria"),
        memberships=(("octo/core", "maria"), ("octo/core", "bo")),
        lineage=(repo.base, repo.later),
        review_notes=(repo.pull, repo.review),
        failing_checks=repo.later,
        sub_issues=repo.epic,
        snapshots=(repo.task,),
        failing_issues=FailingAsk(
            label="baton:failing", since=fake.now - timedelta(hours=1), threshold=10
        ),
    )


def test_every_part_is_answered_in_one_call_each_at_the_cost_of_its_own_read(
    fake: FakeGitHub, served: GitHubTracker, repo: Repo
) -> None:
    found = served.look_up(everything(fake, repo))

    assert found.permissions == {"maria": "maintain", "ghost": "none"}
    assert found.members == frozenset({("octo/core", "maria")})  # bo's is pending
    assert found.lineage is not None and found.lineage.behind == 0
    assert found.lineage.commits == (LaterCommit(oid=repo.later, author=Actor(login="maria")),)
    assert found.review_notes == [ReviewNote(path="a.txt", line=1, body="Say c")]
    assert found.failing_checks == [CheckNote(name="tests", summary="1 failed")]
    assert found.sub_issues is not None
    assert [s.number for s in found.sub_issues] == [repo.task]
    assert [c.body for c in found.snapshots[repo.task].comments] == ["a task's comment"]
    assert found.failing_issues == 1
    repository = f"/repos/{fake.repo_full_name}"
    assert operations(fake) == [
        f"GET {repository}/compare/{repo.base}...{repo.later}",
        f"GET {repository}/pulls/{repo.pull}/reviews/{repo.review}/comments",
        f"GET {repository}/commits/{repo.later}/check-runs",
        "BatonSubIssues",
        "BatonReadMany",
        f"GET {repository}/issues",
        f"GET {repository}/collaborators/maria/permission",  # once, though asked twice
        f"GET {repository}/collaborators/ghost/permission",
        "GET /orgs/octo/teams/core/memberships/maria",
        "GET /orgs/octo/teams/core/memberships/bo",
    ]
    assert served.requests == 10


@pytest.mark.parametrize(
    ("part", "cost"),
    [
        ("permissions", 2),  # one per login, each login once
        ("memberships", 2),  # one per (team, login)
        ("lineage", 1),
        ("review_notes", 1),
        ("failing_checks", 1),
        ("sub_issues", 1),
        ("snapshots", 1),
        ("failing_issues", 1),
    ],
)
def test_each_part_alone_costs_its_own_read_and_nothing_more(
    fake: FakeGitHub, served: GitHubTracker, repo: Repo, part: str, cost: int
) -> None:
    alone = Lookup(**{part: getattr(everything(fake, repo), part)})

    found = served.look_up(alone)

    assert served.requests == cost, operations(fake)
    answered = {"memberships": "members"}.get(part, part)
    assert [name for name in vars(found) if name != answered and getattr(found, name)] == []
    assert getattr(found, answered)


def test_nothing_asked_reads_nothing(served: GitHubTracker, fake: FakeGitHub) -> None:
    assert served.look_up(Lookup()) == LookedUp()
    assert served.requests == 0 and fake.requests == []


def test_without_graphql_the_epic_s_parts_go_over_rest(fake: FakeGitHub, repo: Repo) -> None:
    rest = GitHubTracker(fake.repo_full_name, fake.token, api_url=fake.url, retry=0, graphql=False)

    found = rest.look_up(Lookup(snapshots=(repo.task,)))

    assert [c.body for c in found.snapshots[repo.task].comments] == ["a task's comment"]
    assert operations(fake) == [f"GET /repos/{fake.repo_full_name}/issues/{repo.task}/comments"]
