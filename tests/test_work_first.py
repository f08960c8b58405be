"""The GitHub work before a decision is final (`baton.work_first`): a branch made or found, and
someone else's branch handed back to `decide` as facts, never adopted."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model import events
from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.decision import CommitPlan, Decision, Outcome
from baton.core.model.events import AgentReported, tick
from baton.core.model.work import ChangesetFacts
from baton.github.tracker import BranchHead, CommitRequest
from baton.work_first import create_branch, do_work, with_foreign_branch


class Branches:
    """A `Git` role of one branch: what `create_branch` answers."""

    def __init__(self, head: BranchHead) -> None:
        self.head = head
        self.asked: list[tuple[str, str | None]] = []

    def create_branch(self, name: str, base: str | None = None) -> BranchHead:
        self.asked.append((name, base))
        return self.head


def deciding(branch: str) -> Decision:
    return Decision(outcome=Outcome.transition, issue=7, reason="work", create_branch=branch)


def test_a_branch_made_from_the_default_branch_is_said_with_its_head() -> None:
    git = Branches(BranchHead("baton/issue-7", "a" * 40, created=True))
    notes: list[str] = []
    head = create_branch(deciding("baton/issue-7"), git, notes)  # type: ignore[arg-type]
    assert head.created and git.asked == [("baton/issue-7", None)]
    assert notes == ["branch baton/issue-7 created at aaaaaaa"]


def test_someone_else_s_branch_is_not_said_as_found_but_handed_back_as_facts() -> None:
    found = BranchHead("baton/issue-7", "b" * 40, ahead=2)
    notes: list[str] = []
    head = create_branch(deciding("baton/issue-7"), Branches(found), notes)  # type: ignore[arg-type]
    assert head.ahead == 2
    assert notes == []
    handed = with_foreign_branch(tick(7, datetime(2026, 1, 5, tzinfo=UTC)), found, notes)
    assert handed.foreign_branch is not None
    assert (handed.foreign_branch.head, handed.foreign_branch.ahead) == ("b" * 40, 2)
    assert notes == ["branch baton/issue-7 exists with 2 commit(s) Baton did not make"]


class Committer(Branches):
    """A tracker whose new branch is made where GitHub's default branch is now."""

    def __init__(self, head: BranchHead) -> None:
        super().__init__(head)
        self.commits: list[CommitRequest] = []

    def commit(self, request: CommitRequest) -> str:
        self.commits.append(request)
        return "f" * 40


def test_a_new_branch_made_at_another_head_than_the_agent_started_from_is_stale() -> None:
    """The default branch moved while the agent worked: nothing is committed, and the agent
    runs again on the new head."""
    base, moved = "a" * 40, "b" * 40
    plan = CommitPlan(
        branch="baton/issue-7", digest="sha256:d", expected_head=base, headline="Add", body=""
    )
    event = events.report(
        7,
        agent="developer",
        result=None,
        error=None,
        now=datetime(2026, 1, 5, tzinfo=UTC),
        run_id="9",
    ).model_copy(update={"changeset": ChangesetFacts(status="ok", base=base, head="")})
    changeset = Changeset(base=base, files=[FileChange(path="a.txt", contents="eA==")])
    decision = Decision(outcome=Outcome.transition, issue=7, reason="commit", commit=plan)

    for made_at, status in ((moved, "stale"), (base, "committed")):
        tracker = Committer(BranchHead("baton/issue-7", made_at, created=True))
        notes: list[str] = []
        after = do_work(decision, event, changeset, tracker, notes)  # type: ignore[arg-type]
        assert isinstance(after, AgentReported) and after.changeset is not None
        assert after.changeset.status == status
        if status == "stale":
            assert after.changeset.head == moved and tracker.commits == []
            assert notes[-1] == "the branch moved before the commit: baton/issue-7 is at bbbbbbb"
        else:
            assert [c.expected_head for c in tracker.commits] == [base]
