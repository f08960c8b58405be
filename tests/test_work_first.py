"""The GitHub work before a decision is final (`baton.work_first`): a branch made or found, and
someone else's branch handed back to `decide` as facts, never adopted."""

from __future__ import annotations

from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.decision import CommitPlan, Decision, Outcome
from baton.core.model.epic import MergeFacts, MergePlan
from baton.core.model.facts import Facts
from baton.core.model.work import BranchFacts, ChangesetFacts
from baton.github.tracker import BranchHead, CommitRequest
from baton.work_first import create_branch, do_work, found_branch, wants_work


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
    assert head == BranchFacts(name="baton/issue-7", head="a" * 40, ahead=0)
    assert git.asked == [("baton/issue-7", None)]
    assert notes == ["branch baton/issue-7 created at aaaaaaa"]


def test_someone_else_s_branch_is_not_said_as_found_but_handed_back_as_facts() -> None:
    found = BranchHead("baton/issue-7", "b" * 40, ahead=2)
    notes: list[str] = []
    head = create_branch(deciding("baton/issue-7"), Branches(found), notes)  # type: ignore[arg-type]
    assert head == BranchFacts(name="baton/issue-7", head="b" * 40, ahead=2)
    assert Facts(branch=head).foreign_branch == head
    assert notes == ["branch baton/issue-7 exists with 2 commit(s) Baton did not make"]
    assert found_branch(found, []) == head


def test_the_branch_is_work_until_the_run_has_made_or_found_it() -> None:
    decision = deciding("baton/issue-7")
    made = BranchFacts(name="baton/issue-7", head="a" * 40, ahead=0)
    assert wants_work(decision, Facts())
    assert not wants_work(decision, Facts(branch=made))
    assert not wants_work(decision.model_copy(update={"create_branch": None}), Facts())


def test_github_works_answers_are_facts_for_deciding_again() -> None:
    """A task's merge comes back as a fact."""
    plan = MergePlan(base="baton/issue-1", head="baton/issue-7", message="m")
    merging = Decision(outcome=Outcome.noted, issue=7, reason="merge", merge=plan)

    class Merger:
        def merge(self, asked: MergePlan) -> MergeFacts:
            assert asked == plan
            return MergeFacts(status="merged", oid="c" * 40)

    notes: list[str] = []
    facts = do_work(merging, Facts(), None, Merger(), notes)  # type: ignore[arg-type]
    assert facts.merge == MergeFacts(status="merged", oid="c" * 40)
    assert notes == ["merged baton/issue-7 into baton/issue-1: merged"]


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
    judged = Facts(changeset=ChangesetFacts(status="ok", base=base, head=""))
    changeset = Changeset(base=base, files=[FileChange(path="a.txt", contents="eA==")])
    decision = Decision(outcome=Outcome.transition, issue=7, reason="commit", commit=plan)

    for made_at, status in ((moved, "stale"), (base, "committed")):
        tracker = Committer(BranchHead("baton/issue-7", made_at, created=True))
        notes: list[str] = []
        after = do_work(decision, judged, changeset, tracker, notes)  # type: ignore[arg-type]
        assert after.changeset is not None and after.changeset.status == status
        if status == "stale":
            assert after.changeset.head == moved and tracker.commits == []
            assert notes[-1] == "the branch moved before the commit: baton/issue-7 is at bbbbbbb"
        else:
            assert [c.expected_head for c in tracker.commits] == [base]
