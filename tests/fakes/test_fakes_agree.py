"""The two faces of the one model of GitHub tell the same story of a branch, its pull request
and an epic: the same refusals in GitHub's words, the same numbers, on the same clock the same
commit ids, and the same cost in round trips.

GitHub's rules are tested once, on the model (`tests/sim/github/`). What can still disagree is
the translation: the in-memory GitHub answers the Tracker protocol itself, the HTTP fake answers
the GraphQL and REST calls `GitHubTracker` makes, and each turns a refusal, an author or a round
trip into its own terms. These tests pin that both translations land on the same state.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

import pytest
import requests

from baton.core.model.decision import PullRequestPlan
from baton.core.model.epic import MergeFacts, MergePlan, NewTask, TaskCreationPlan
from baton.errors import CommitRefused, TrackerError
from baton.github.client import GitHubTracker
from baton.github.tracker import BranchHead, CommitFacts, CommitRequest, Tracker, request_count
from baton.sim.memory_github import MemoryGitHub
from fakes.http_github import FakeGitHub

BRANCH = "baton/issue-1"
CLOCK = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)  # the HTTP fake's


class Refused(Exception):
    """GitHub said no; the message is GitHub's."""


class Story(Protocol):
    """What the story does to a fake, in the words of either."""

    def open_issue(self, title: str) -> int: ...
    def head(self, branch: str) -> str | None: ...
    def create_branch(self, branch: str) -> str: ...
    def commit(self, branch: str, expected: str, files: dict[str, str]) -> str: ...
    def push(self, branch: str, files: dict[str, str]) -> str: ...
    def open_pull_request(self, branch: str) -> int: ...
    def forbid_pull_requests(self) -> None: ...


class InMemory:
    def __init__(self) -> None:
        self.gh = MemoryGitHub("octo/demo", now=CLOCK)

    def open_issue(self, title: str) -> int:
        return self.gh.open_issue(title)

    def head(self, branch: str) -> str | None:
        found = self.gh.branch(branch)
        return found.oid if found else None

    def create_branch(self, branch: str) -> str:
        try:
            return self.gh.create_branch(branch).oid
        except TrackerError as exc:
            raise Refused(str(exc)) from None

    def commit(self, branch: str, expected: str, files: dict[str, str]) -> str:
        additions = tuple((p, base64.b64encode(t.encode()).decode()) for p, t in files.items())
        try:
            return self.gh.commit(CommitRequest(branch, expected, "Change", "", additions))
        except TrackerError as exc:
            raise Refused(str(exc)) from None

    def push(self, branch: str, files: dict[str, str]) -> str:
        return self.gh.human_push(branch, dict(files), "By hand", by="maria")

    def open_pull_request(self, branch: str) -> int:
        try:
            return self.gh.open_pull_request(
                PullRequestPlan(branch=branch, title="t", body="")
            ).number
        except TrackerError as exc:
            raise Refused(str(exc)) from None

    def forbid_pull_requests(self) -> None:
        self.gh.actions_may_open_pull_requests = False


class OverHttp:
    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.headers = {"Authorization": f"Bearer {fake.token}"}

    def _graphql(self, query: str, variables: dict[str, Any], field: str) -> Any:
        answer = requests.post(
            f"{self.fake.url}/graphql",
            json={"query": query, "variables": variables},
            headers=self.headers,
            timeout=5,
        ).json()
        if answer.get("errors"):
            raise Refused(answer["errors"][0]["message"])
        return answer["data"][field]

    def open_issue(self, title: str) -> int:
        return self.fake.add_issue(title)

    def head(self, branch: str) -> str | None:
        query = """query($ref: String!) { repository(owner: "octo", name: "demo") {
            ref(qualifiedName: $ref) { target { oid } } } }"""
        found = self._graphql(query, {"ref": branch}, "repository")["ref"]
        return found["target"]["oid"] if found else None

    def create_branch(self, branch: str) -> str:
        query = """query { repository(owner: "octo", name: "demo") {
            id defaultBranchRef { target { oid } } } }"""
        repository = self._graphql(query, {}, "repository")
        oid = str(repository["defaultBranchRef"]["target"]["oid"])
        mutation = """mutation($id: ID!, $name: String!, $oid: GitObjectID!) {
            createRef(input: {repositoryId: $id, name: $name, oid: $oid}) { ref { name } } }"""
        self._graphql(
            mutation,
            {"id": repository["id"], "name": f"refs/heads/{branch}", "oid": oid},
            "createRef",
        )
        return oid

    def commit(self, branch: str, expected: str, files: dict[str, str]) -> str:
        mutation = """mutation($input: CreateCommitOnBranchInput!) {
            createCommitOnBranch(input: $input) { commit { oid } } }"""
        additions = [
            {"path": p, "contents": base64.b64encode(t.encode()).decode()} for p, t in files.items()
        ]
        made = {
            "branch": {"repositoryNameWithOwner": "octo/demo", "branchName": branch},
            "expectedHeadOid": expected,
            "message": {"headline": "Change", "body": ""},
            "fileChanges": {"additions": additions},
        }
        return str(
            self._graphql(mutation, {"input": made}, "createCommitOnBranch")["commit"]["oid"]
        )

    def push(self, branch: str, files: dict[str, str]) -> str:
        return self.fake.push(branch, dict(files), "By hand", by="maria")

    def open_pull_request(self, branch: str) -> int:
        wanted: dict[str, Any] = {
            "title": "t",
            "head": f"octo:{branch}",
            "base": "main",
            "body": "",
            "draft": True,
        }
        response = requests.post(
            f"{self.fake.url}/repos/octo/demo/pulls", json=wanted, headers=self.headers, timeout=5
        )
        answer = response.json()
        if response.status_code != 201:
            raise Refused(answer.get("errors", [answer])[0]["message"])
        return int(answer["number"])

    def forbid_pull_requests(self) -> None:
        self.fake.actions_may_open_pull_requests = False


@pytest.fixture(params=["in memory", "over HTTP"])
def story(request: pytest.FixtureRequest) -> Iterator[Story]:
    if request.param == "in memory":
        yield InMemory()
        return
    with FakeGitHub() as fake:
        yield OverHttp(fake)


def refusal(act: Any, *args: Any) -> str:
    with pytest.raises(Refused) as refused:
        act(*args)
    return str(refused.value)


def transcript(story: Story) -> list[object]:
    """The story: an issue, its branch, commits, a human's push, a pull request, a refusal."""
    said: list[object] = [story.open_issue("Export as CSV")]
    main = story.head("main")
    start = story.create_branch(BRANCH)
    said += [main, start == main, story.head(BRANCH) == main]
    said.append(refusal(story.create_branch, "a..b"))
    said.append(refusal(story.open_pull_request, BRANCH))
    first = story.commit(BRANCH, start, {"src/export.py": "print('csv')\n"})
    said.append(first)
    pushed = story.push(BRANCH, {"notes.txt": "mine"})
    said.append(pushed)
    said.append(refusal(story.commit, BRANCH, first, {"src/export.py": "stale"}))
    said.append(refusal(story.commit, BRANCH, pushed, {".github/workflows/ci.yml": "on: push"}))
    said.append(story.open_pull_request(BRANCH))
    story.push("other", {"b.txt": "b"})
    story.forbid_pull_requests()
    said.append(refusal(story.open_pull_request, "other"))
    return said


def test_each_fake_refuses_in_githubs_words(story: Story) -> None:
    said = transcript(story)

    assert said[0] == 1
    assert said[2:4] == [True, True]  # the branch starts at the default branch's head
    assert said[4] == "'a..b' is not a valid branch name: it has `..`"
    assert said[5] == "No commits between main and baton/issue-1"
    first = said[6]
    assert said[8] == f'Expected branch to point to "{first}" but it did not. Pull and try again.'
    assert said[9] == (
        "refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml`"
        " without `workflows` permission"
    )
    assert said[10] == 2  # the pull request takes the next issue number
    assert said[11] == "GitHub Actions is not permitted to create or approve pull requests."


def test_on_the_same_clock_both_fakes_make_the_same_commits() -> None:
    with FakeGitHub() as fake:
        over_http = transcript(OverHttp(fake))
    in_memory = transcript(InMemory())

    assert in_memory == over_http
    oids = [x for x in in_memory if isinstance(x, str) and len(x) == 40]
    assert len(set(oids)) == 3  # main, Baton's commit, the human's push


# --- an epic: its tasks as sub-issues, their dependencies, their branches merged back ----------
class EpicWorld(Protocol):
    tracker: Tracker

    def open_issue(self, title: str) -> int: ...
    def comment(self, number: int, body: str) -> None: ...
    def push(self, branch: str, files: dict[str, str]) -> str: ...


class EpicInMemory:
    def __init__(self) -> None:
        self.gh = MemoryGitHub("octo/demo", now=CLOCK)
        self.tracker: Tracker = self.gh

    def open_issue(self, title: str) -> int:
        return self.gh.open_issue(title)

    def comment(self, number: int, body: str) -> None:
        self.gh.human_comment(number, body, author="alice")

    def push(self, branch: str, files: dict[str, str]) -> str:
        return self.gh.human_push(branch, dict(files), "By hand", by="maria")


class EpicOverHttp:
    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.tracker: Tracker = GitHubTracker(
            fake.repo_full_name, fake.token, api_url=fake.url, retry=0
        )

    def open_issue(self, title: str) -> int:
        return self.fake.add_issue(title)

    def comment(self, number: int, body: str) -> None:
        self.fake.add_comment(number, body)

    def push(self, branch: str, files: dict[str, str]) -> str:
        return self.fake.push(branch, dict(files), "By hand", by="maria")


def epic_transcript(world: EpicWorld) -> list[object]:
    """An epic's plan created, re-created, read, and its task branches merged back: what each
    step answered and the round trips it cost."""
    tracker = world.tracker
    said: list[object] = []

    def cost(step: Any) -> object:
        before = request_count(tracker) or 0
        answer = step()
        said.append(request_count(tracker) - before)  # type: ignore[operator]
        return answer

    epic = world.open_issue("Epic: export")
    tasks = [
        NewTask(key=f"k{i}", title=f"Task {i}", body=f"Part {i}", labels=("baton:task",))
        for i in range(10)
    ]
    edges = [(f"k{i}", f"k{i - 1}") for i in range(1, 10)] + [("k9", "k0")]
    plan = TaskCreationPlan(epic=epic, tasks=tasks, edges=edges)
    facts = cost(lambda: tracker.create_tasks(plan))
    said.append([(c.key, c.number) for c in facts.created])  # type: ignore[attr-defined]
    cost(lambda: tracker.create_tasks(plan))
    found = cost(lambda: tracker.sub_issues(epic))
    said.append([(s.number, s.open, s.labels, s.author, s.marker, s.blocked_by) for s in found])
    world.comment(2, "started")
    read = cost(lambda: tracker.read_many([2, 3, 99]))
    said.append({n: [c.body for c in snap.comments] for n, snap in read.items()})

    cost(lambda: tracker.create_branch("baton/epic-1"))
    world.push("baton/epic-1", {"plan.md": "plan"})
    task = cost(lambda: tracker.create_branch("baton/issue-2", "baton/epic-1"))
    said.append(task.oid)  # type: ignore[attr-defined]
    merge = MergePlan(base="baton/epic-1", head="baton/issue-2", message="Merge k0 (#2)")
    said.append(cost(lambda: tracker.merge(merge)))
    world.push("baton/issue-2", {"src/a.py": "a"})
    said.append(cost(lambda: tracker.merge(merge)))
    world.push("baton/issue-2", {"src/a.py": "theirs"})
    world.push("baton/epic-1", {"src/a.py": "ours"})
    said.append(cost(lambda: tracker.merge(merge)))
    said.append(tracker.merge(MergePlan(base="baton/epic-1", head="gone", message="m")))
    return said


def test_both_fakes_tell_the_same_epic_at_the_same_cost() -> None:
    with FakeGitHub() as fake:
        over_http = epic_transcript(EpicOverHttp(fake))
    in_memory = epic_transcript(EpicInMemory())

    assert in_memory == over_http
    assert over_http[0] == 4  # read, the new label, the issues, the edges
    assert over_http[2:4] == [1, 1]  # a re-run reads and finds everything; one read
    merges = [x for x in over_http if isinstance(x, MergeFacts)]
    assert [m.status for m in merges] == ["up_to_date", "merged", "conflict", "missing"]
    assert len(merges[1].oid) == 40  # the same merge commit in both: same clock, same git
    assert merges[2:] == [
        MergeFacts(status="conflict", detail="Merge conflict"),
        MergeFacts(status="missing", detail="Head does not exist"),
    ]


# --- whose commit and whose branch: what the report run asks when a head claims a changeset ---
def work_transcript(world: EpicWorld) -> list[object]:
    """Baton's branch and commit, a human's push on top, each commit's facts, the branch found
    again, and a commit GitHub refuses: what each answered and the round trips it cost."""
    tracker = world.tracker
    said: list[object] = []

    def cost(step: Any) -> Any:
        before = request_count(tracker) or 0
        answer = step()
        said.append(request_count(tracker) - before)  # type: ignore[operator]
        return answer

    made = cost(lambda: tracker.create_branch(BRANCH))
    said.append((made.created, made.ahead))
    said.append(cost(lambda: tracker.create_branch(BRANCH)))  # at the default head: no compare
    added = (("a.txt", base64.b64encode(b"a\n").decode()),)
    ours = tracker.commit(CommitRequest(BRANCH, made.oid, "Change", "", added, ("README.md",)))
    pushed = world.push(BRANCH, {"b.txt": "b"})
    said.append(cost(lambda: tracker.commit_facts(ours)))
    said.append(cost(lambda: tracker.commit_facts(pushed)))
    said.append(cost(lambda: tracker.commit_facts("f" * 40)))
    found = cost(lambda: tracker.create_branch(BRANCH))
    said.append((found.oid == pushed, found.created, found.ahead))
    ghost = CommitRequest(BRANCH, pushed, "Tidy", "", deletions=("ghost.txt",))
    with pytest.raises(CommitRefused) as refused:
        tracker.commit(ghost)
    said.append(str(refused.value).removeprefix("GitHub refused the commit: UNPROCESSABLE "))
    return said


def test_both_fakes_tell_whose_commit_and_whose_branch_it_is_at_the_same_cost() -> None:
    with FakeGitHub() as fake:
        over_http = work_transcript(EpicOverHttp(fake))
    in_memory = work_transcript(EpicInMemory())

    assert in_memory == over_http
    assert over_http[:4] == [
        2,
        (True, 0),
        1,
        BranchHead(BRANCH, over_http[3].oid, "Initial commit"),
    ]
    ours, pushed = over_http[5], over_http[7]
    assert isinstance(ours, CommitFacts) and isinstance(pushed, CommitFacts)
    assert (ours.verified, ours.author) == (True, "github-actions[bot]")
    assert [(f.path, f.status) for f in ours.files] == [
        ("README.md", "removed"),
        ("a.txt", "added"),
    ]
    assert (pushed.verified, pushed.author, pushed.parents) == (False, "maria", (ours.oid,))
    assert over_http[8:10] == [1, None]  # an unknown commit: one call, no facts
    assert over_http[10:12] == [2, (True, False, 2)]  # read the branch, then compare
    assert over_http[12].startswith("A path was requested for deletion which does not exist")
