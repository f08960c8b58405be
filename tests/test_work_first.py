"""The GitHub work before a decision is final (`baton.work_first`): a branch made or found, and
someone else's branch handed back to `decide` as facts, never adopted."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import tick
from baton.github.tracker import BranchHead
from baton.work_first import create_branch, with_foreign_branch


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
