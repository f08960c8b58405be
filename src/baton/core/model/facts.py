"""What a run looked up or GitHub answered, apart from the event that happened.

An `Event` is what GitHub (or an agent's result, or the sweep) sent. Everything else a rule may
read is a fact: what the actor and the authors of later commits may do (their
permission, their teams), the epic's tasks, the task's order, a review's inline notes,
the failing checks, the count of failing issues, the commits after Baton's last, a report's
changeset as judged against the branch head, and the answers of the GitHub work a decision
asked for first (a commit, created tasks, a merge, a pull request opened, a branch made or
found). `decide` reads `Facts` and, when one it needs is missing, says so
(`Asks`) instead of guessing; the shell answers and decides again.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from baton.core.model.epic import MergeFacts, TaskCreationFacts, TaskObservation, TaskOrder
from baton.core.model.events import CheckNote, Lineage, ReviewNote
from baton.core.model.issue_facts import Actor
from baton.core.model.work import BranchFacts, ChangesetFacts, PullRequestFacts


class FailingAsk(BaseModel):
    """The repository breaker's count: open issues labelled `label` updated since `since`,
    counted up to `threshold`."""

    model_config = ConfigDict(frozen=True)

    label: str
    since: datetime
    threshold: int


class Asks(BaseModel):
    """What `decide` needs looked up before it can decide; each part None (or empty) when not
    wanted."""

    model_config = ConfigDict(frozen=True)

    actor: Actor | None = Field(
        default=None, description="The actor whose permission and teams are looked up."
    )
    authors: tuple[str, ...] = Field(
        default=(), description="Commit authors whose permission is looked up."
    )
    lineage: tuple[str, str] | None = Field(
        default=None, description="Baton's last commit and the reviewed one: compare them."
    )
    review_notes: tuple[int, int] | None = Field(
        default=None, description="The pull request and review whose inline notes are read."
    )
    failing_checks: str | None = Field(
        default=None, description="The head whose failing check runs are read."
    )
    tasks: bool = Field(default=False, description="The epic's tasks, observed.")
    order: bool = Field(default=False, description="The task's order in its epic's record.")
    failing_issues: FailingAsk | None = None

    def __str__(self) -> str:
        wanted = [
            f"the permission of {self.actor.login}" if self.actor else "",
            f"the permission of {', '.join(self.authors)}" if self.authors else "",
            "the commits after Baton's last" if self.lineage else "",
            "the review's inline notes" if self.review_notes else "",
            "the failing checks" if self.failing_checks else "",
            "the epic's tasks" if self.tasks else "",
            "the task's order" if self.order else "",
            "the failing issues" if self.failing_issues else "",
        ]
        return ", ".join(w for w in wanted if w) or "nothing"


class Facts(BaseModel):
    """The facts one run holds for a decision. None: not looked up (yet)."""

    model_config = ConfigDict(frozen=True)

    permissions: dict[str, str] = Field(
        default_factory=dict, description="Repository permission by login, as looked up."
    )
    teams: dict[str, tuple[str, ...]] = Field(
        default_factory=dict, description="The policy's teams each looked-up actor is in."
    )
    lineage: Lineage | None = None
    review_notes: list[ReviewNote] | None = None
    failing_checks: list[CheckNote] | None = None
    tasks: list[TaskObservation] | None = None
    order: TaskOrder | None = None
    orderless: bool = Field(
        default=False, description="The order was looked up: the task is no epic's we know."
    )
    failing_issues: int | None = None
    changeset: ChangesetFacts | None = Field(
        default=None,
        description="The changeset beside a report's result, as this run judged it against the "
        "branch head it read, then as its commit left it (committed, stale, refused).",
    )
    created: TaskCreationFacts | None = None
    merge: MergeFacts | None = None
    opened: PullRequestFacts | None = Field(
        default=None, description="The pull request this run opened, or why it could not."
    )
    branch: BranchFacts | None = Field(
        default=None, description="The issue's branch as this run made or found it."
    )

    def knows(self, login: str) -> bool:
        """Whether this login's permission and teams are looked up."""
        return login in self.permissions and login in self.teams

    def permission_of(self, login: str) -> str | None:
        """This login's repository permission as looked up (None: not looked up)."""
        return self.permissions.get(login)

    def teams_of(self, login: str) -> tuple[str, ...]:
        """The policy's teams this login is an active member of, as looked up."""
        return self.teams.get(login, ())

    @property
    def foreign_branch(self) -> BranchFacts | None:
        """The issue's branch found made by someone else: refused, never adopted."""
        return self.branch if self.branch is not None and self.branch.ahead else None

    def lineage_of(self, base: str) -> Lineage | None:
        """The lineage read against `base`, if that is the one read."""
        lineage = self.lineage
        return lineage if lineage is not None and lineage.base == base else None

    def merged(self, **more: object) -> Facts:
        """These facts with `more` (dicts of people merged, not replaced)."""
        update = dict(more)
        for key in ("permissions", "teams"):
            if key in update:
                update[key] = {**getattr(self, key), **update[key]}  # type: ignore[dict-item]
        return self.model_copy(update=update)


NO_FACTS = Facts()
