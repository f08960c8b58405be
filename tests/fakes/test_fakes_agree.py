"""The two faces of the one model of GitHub tell the same story of a branch, its pull request
and an epic through the same `Tracker`: the same answers, the same refusals in GitHub's words,
on the same clock the same commit ids, and the same cost in round trips.

GitHub's rules are tested once, on the model (`tests/sim/github/`), and each face's translation
in its own tests. What can still disagree is the pair: the in-memory GitHub answers the Tracker
protocol itself, while over HTTP `GitHubTracker` asks the HTTP fake in GraphQL and REST. These
tests pin that both land on the same state and tell Baton the same thing.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any, Protocol

import pytest

from baton.core.model.decision import CheckPlan, PullRequestPlan
from baton.core.model.epic import MergeFacts, MergePlan, NewTask, TaskCreationPlan
from baton.core.model.events import Lineage
from baton.errors import CommitRefused, TrackerError
from baton.github.client import GitHubTracker
from baton.github.tracker import BranchHead, CommitFacts, CommitRequest, Tracker, request_count
from baton.sim.memory_github import MemoryGitHub
from fakes.http_github import FakeGitHub

BRANCH = "baton/issue-1"
CLOCK = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)  # the HTTP fake's


class World(Protocol):
    """A repository behind a `Tracker`, and what humans do to it, in the words of either face."""

    tracker: Tracker

    def open_issue(self, title: str) -> int: ...
    def comment(self, number: int, body: str) -> None: ...
    def push(self, branch: str, files: dict[str, str]) -> str: ...
    def forbid_pull_requests(self) -> None: ...


class InMemory:
    def __init__(self) -> None:
        self.gh = MemoryGitHub("octo/demo", now=CLOCK)
        self.tracker: Tracker = self.gh

    def open_issue(self, title: str) -> int:
        return self.gh.open_issue(title)

    def comment(self, number: int, body: str) -> None:
        self.gh.human_comment(number, body, author="alice")

    def push(self, branch: str, files: dict[str, str]) -> str:
        return self.gh.human_push(branch, dict(files), "By hand", by="maria")

    def forbid_pull_requests(self) -> None:
        self.gh.actions_may_open_pull_requests = False


class OverHttp:
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

    def forbid_pull_requests(self) -> None:
        self.fake.actions_may_open_pull_requests = False


def both(transcript: Any) -> tuple[list[object], list[object]]:
    """The transcript told over HTTP, then in memory, on the same clock."""
    with FakeGitHub() as fake:
        over_http = transcript(OverHttp(fake))
    return over_http, transcript(InMemory())


class Refusal:
    """A refusal as Baton meets it: its kind and status, and GitHub's words, which the client
    over HTTP tells after its own context (the call it made) and the in-memory face alone."""

    def __init__(self, refused: TrackerError) -> None:
        self.kind, self.status, self.words = type(refused).__name__, refused.status, str(refused)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Refusal):
            return NotImplemented
        longer, shorter = sorted((self.words, other.words), key=len, reverse=True)
        return (self.kind, self.status) == (other.kind, other.status) and longer.endswith(shorter)

    def __repr__(self) -> str:
        return f"Refusal({self.kind}, {self.status}, {self.words!r})"


def refusal(act: Any) -> Refusal:
    with pytest.raises(TrackerError) as refused:
        act()
    return Refusal(refused.value)


def files(texts: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((path, base64.b64encode(t.encode()).decode()) for path, t in texts.items())


def story(world: World) -> list[object]:
    """An issue, its branch, commits, a human's push, a pull request, and what GitHub refuses."""
    tracker = world.tracker
    said: list[object] = [world.open_issue("Export as CSV")]
    made = tracker.create_branch(BRANCH)
    said.append(refusal(lambda: tracker.create_branch("a..b")))
    pull = PullRequestPlan(branch=BRANCH, title="t", body="")
    said.append(refusal(lambda: tracker.open_pull_request(pull)))
    first = tracker.commit(CommitRequest(BRANCH, made.oid, "Change", "", files({"a.txt": "a"})))
    pushed = world.push(BRANCH, {"notes.txt": "mine"})
    said += [made.oid, first, pushed]
    said.append(refusal(lambda: tracker.commit(CommitRequest(BRANCH, first, "Late", ""))))
    ci = CommitRequest(BRANCH, pushed, "CI", "", files({".github/workflows/ci.yml": "on: push"}))
    said.append(refusal(lambda: tracker.commit(ci)))
    said.append(tracker.open_pull_request(pull).number)
    world.push("other", {"b.txt": "b"})
    world.forbid_pull_requests()
    other = PullRequestPlan(branch="other", title="t", body="")
    said.append(refusal(lambda: tracker.open_pull_request(other)))
    return said


def test_on_the_same_clock_both_faces_make_the_same_commits_and_refusals() -> None:
    over_http, in_memory = both(story)

    assert in_memory == over_http
    assert [(r.kind, r.status) for r in over_http if isinstance(r, Refusal)] == [
        ("TrackerError", 422),  # a branch name git refuses
        ("PullRequestRefused", 422),  # no commits between main and the branch
        ("StaleHead", 409),
        ("CommitRefused", 403),  # a workflow, without the `workflows` permission
        ("PullRequestRefused", 403),  # Actions may not open pull requests
    ]
    assert len(set(over_http[3:6])) == 3  # main, Baton's commit, the human's push
    assert (over_http[0], over_http[-2]) == (1, 2)  # the pull request takes the next number


def first_commit_story(world: World) -> list[object]:
    """The first commit opening its pull request in the same round trip: opened, found open
    already, refused by the Actions setting, and opened all the same after a stale commit."""
    tracker = world.tracker
    said: list[object] = []

    def first(branch: str, expected: str, text: str) -> object:
        before = request_count(tracker) or 0
        plan = PullRequestPlan(branch=branch, title="t", body="")
        request = CommitRequest(branch, expected, "Change", "", files({"a.txt": text}))
        made = tracker.commit_opening(request, plan)
        opened = made.opened.number if made.opened else None
        failed = type(made.failed).__name__ if made.failed else None
        said.append((made.oid, opened, failed, request_count(tracker) - before))  # type: ignore[operator]
        return made.problem

    number = world.open_issue("Export as CSV")
    tracker.read(number, with_issue=True, branch=BRANCH)  # the run's read: the repository's id
    made = tracker.create_branch(BRANCH)
    first(BRANCH, made.oid, "a")
    first(BRANCH, tracker.branch(BRANCH).oid, "b")  # type: ignore[union-attr]
    other = tracker.create_branch("other")
    world.push("other", {"notes.txt": "mine"})
    first("other", other.oid, "c")  # stale: the push is the head, and the pull request opens
    world.forbid_pull_requests()
    third = tracker.create_branch("third")
    said.append(first("third", third.oid, "d"))
    return said


def test_both_faces_open_the_first_commit_s_pull_request_alike() -> None:
    over_http, in_memory = both(first_commit_story)

    assert [s[1:] if isinstance(s, tuple) else s for s in in_memory[:-1]] == [
        s[1:] if isinstance(s, tuple) else s for s in over_http[:-1]
    ]
    assert [s[0] for s in in_memory[:3]] == [s[0] for s in over_http[:3]]  # type: ignore[index]
    assert over_http[:3] == [
        (over_http[0][0], 2, None, 1),  # type: ignore[index]
        (over_http[1][0], 2, None, 2),  # the open one found: one more request (REST)
        ("", 3, "StaleHead", 1),
    ]
    refused = over_http[3]
    assert refused[1:] == (None, None, 1)  # type: ignore[index]
    assert "not permitted to create or approve pull requests" in str(over_http[4])
    assert "not permitted to create or approve pull requests" in str(in_memory[4])


# --- an epic: its tasks as sub-issues, their dependencies, their branches merged back ----------
def epic_transcript(world: World) -> list[object]:
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
    over_http, in_memory = both(epic_transcript)

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
def work_transcript(world: World) -> list[object]:
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
    over_http, in_memory = both(work_transcript)

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


def lineage_transcript(world: World) -> list[object]:
    """A human's commit on top of Baton's, read against Baton's (and the other way round, and
    against a commit GitHub does not know): the same commits, authors and cost."""
    tracker = world.tracker
    made = tracker.create_branch(BRANCH)
    ours = tracker.commit(CommitRequest(BRANCH, made.oid, "Change", "", files({"a.txt": "a"})))
    pushed = world.push(BRANCH, {"b.txt": "b"})
    said: list[object] = []
    for base, commit in ((ours, pushed), (pushed, ours), (ours, "f" * 40)):
        before = request_count(tracker) or 0
        said.append(tracker.lineage(base, commit))
        said.append(request_count(tracker) - before)  # type: ignore[operator]
    return said


def test_both_fakes_tell_the_commits_on_top_of_batons_last_alike() -> None:
    over_http, in_memory = both(lineage_transcript)

    assert in_memory == over_http
    ahead, behind, unknown = over_http[0], over_http[2], over_http[4]
    assert isinstance(ahead, Lineage) and isinstance(behind, Lineage)
    assert [(c.author.login, c.author.is_bot) for c in ahead.commits if c.author] == [
        ("maria", False)
    ]
    assert (ahead.descends, ahead.total, behind.descends, behind.commits) == (True, 1, False, ())
    assert unknown == Lineage(base=ahead.base, behind=1)
    assert over_http[1::2] == [1, 1, 1]


def checks(world: World) -> list[object]:
    """Baton's check run on a commit, a commit GitHub lacks, and what CI reads back of them."""
    tracker = world.tracker
    head = world.push(BRANCH, {"a.txt": "a"})
    plan = CheckPlan(commit=head, conclusion="failure", title="failing", summary="1 fails")
    posted = tracker.create_check_run(plan.model_copy(update={"external_id": "n1"}))
    lacking = plan.model_copy(update={"commit": "0" * 40})
    return [
        posted.url.rsplit("/", 2)[-2],  # both link to the run's page
        refusal(lambda: tracker.create_check_run(lacking)),
        tracker.failing_checks(head),
    ]


def test_both_faces_post_a_check_run_and_refuse_one_alike() -> None:
    over_http, in_memory = both(checks)

    assert in_memory == over_http
    assert over_http[0] == "runs"
