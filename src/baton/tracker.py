"""The narrow interface Baton needs from GitHub, and nothing more.

Two implementations: `github_tracker.GitHubTracker` (PyGithub, the Action) and
`memory_tracker.MemoryGitHub` (in memory: `baton demo`, `baton simulate`, most tests). The core
never imports PyGithub; only `github_tracker.py` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from baton.events import IssueInfo


@dataclass(frozen=True)
class Comment:
    id: int
    author: str
    body: str
    created_at: datetime
    author_is_bot: bool = False
    association: str = "NONE"


@dataclass(frozen=True)
class LabelSpec:
    """How a status label looks when Baton creates it."""

    name: str
    color: str
    description: str


@dataclass(frozen=True)
class DispatchTarget:
    """Where chained runs go: the running workflow file and its ref (from GITHUB_WORKFLOW_REF)."""

    workflow: str
    ref: str

    @classmethod
    def from_workflow_ref(cls, workflow_ref: str) -> DispatchTarget:
        """Parse `owner/repo/.github/workflows/baton.yml@refs/heads/main`."""
        path, _, ref = workflow_ref.partition("@")
        if not path or not ref:
            raise ValueError(f"GITHUB_WORKFLOW_REF {workflow_ref!r} is not path@ref")
        return cls(workflow=path.rsplit("/", 1)[-1], ref=ref)


def request_count(tracker: object) -> int | None:
    """API calls a tracker has made so far, if it counts them (both implementations do)."""
    count = getattr(tracker, "requests", None)
    return count if isinstance(count, int) else None


class Tracker(Protocol):
    """Every GitHub operation Baton makes. Errors raise `baton.errors.TrackerError`."""

    def issue(self, number: int) -> IssueInfo: ...

    def comments(self, number: int) -> list[Comment]:
        """All comments, oldest first (implementations paginate to the end)."""
        ...

    def comment(self, comment_id: int) -> Comment | None:
        """One comment, or None if it was deleted."""
        ...

    def permission(self, login: str) -> str:
        """The login's repository permission: admin, maintain, write, triage, read or none."""
        ...

    def is_team_member(self, team: str, login: str) -> bool:
        """Whether login is an active member of `org/team-slug`."""
        ...

    def create_comment(self, number: int, body: str) -> int: ...

    def edit_comment(self, comment_id: int, body: str) -> None: ...

    def delete_comment(self, comment_id: int) -> None: ...

    def react(self, comment_id: int, content: str) -> None: ...

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None:
        """Change only the difference between current and wanted; create status labels with
        their colour and description on first use."""
        ...

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None: ...

    def open_issues(self, page: int) -> tuple[list[IssueInfo], int | None]:
        """One page of open issues (oldest first) with their labels, and the next page number."""
        ...
