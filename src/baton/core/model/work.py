"""The work product of an issue: its branch, the commits Baton made there, its pull request.

Kept in the record (`Record.work`), so every run knows which commits are already on the branch
(a re-run never commits twice) and which pull request is the issue's (a stranger's pull request
from a branch of the same name steers nothing). The words of its commits and pull request are
`core/text/work.py`'s.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

KEEP_COMMITS = 20
TRAILER = "Baton-Changeset"
_TRAILER_LINE = re.compile(rf"^{TRAILER}: (sha256:[0-9a-f]{{64}})$", re.MULTILINE)


class CommitMark(BaseModel):
    """A commit Baton made from an agent's changeset."""

    model_config = ConfigDict(frozen=True)

    digest: str
    oid: str
    agent: str
    state: str
    attempt: int
    files: int
    at: datetime
    summary: str = ""  # the first line of the agent's summary, as it reported it (untrusted)


class Work(BaseModel):
    """Where an issue's work lives on GitHub."""

    model_config = ConfigDict(frozen=True)

    branch: str
    created: bool = False  # the branch exists (Baton made it, or found it)
    base: str = ""  # the branch it is made from: "" the default branch; an epic's for a task
    head: str = ""  # the branch head after Baton's last commit
    commits: list[CommitMark] = Field(default_factory=list)
    pull_request: int | None = None
    pull_request_id: str = ""  # GraphQL node id, for updates in the record's own document
    ready: bool = False  # marked ready for review
    problem: str | None = None  # why the pull request could not be opened, until it is
    closed: Literal["merged", "closed"] | None = None
    # Reports in a row whose changeset was stale (the branch moved under the agent): each one
    # runs the agent again on the new head, and too many in a row hand the issue to a human.
    stale_runs: int = 0
    # Failing checks that arrived while an agent was working, handed to the next agent.
    failing_checks: list[str] = Field(default_factory=list)
    # The newest review of the pull request that counted: GitHub's review ids only grow, so a
    # review delivered again long after (out of the record's memory of events) counts once.
    last_review: int = 0

    @property
    def open_pull_request(self) -> bool:
        """The issue has a pull request that is still open (Baton's last word on it)."""
        return self.pull_request is not None and self.closed is None

    def committed(self, digest: str) -> CommitMark | None:
        return next((c for c in self.commits if c.digest == digest), None)

    def with_commit(self, mark: CommitMark) -> Work:
        """The work with one more commit; a digest it already holds is not added twice (a
        re-run of the report finds its commit already on the branch)."""
        if self.committed(mark.digest) is not None:
            return self
        commits = [*self.commits, mark][-KEEP_COMMITS:]
        return self.model_copy(
            update={"commits": commits, "head": mark.oid, "created": True, "stale_runs": 0}
        )


def branch_name(prefix: str, issue: int) -> str:
    return f"{prefix}{issue}"


def digest_in(message: str) -> str | None:
    """The changeset digest a commit message carries in its trailer, if any (the last one)."""
    found = _TRAILER_LINE.findall(message)
    return found[-1] if found else None


# --- what a run learnt about the work before deciding ---------------------------------------
class ChangesetFacts(BaseModel):
    """An agent's changeset as the report job found it, before `decide` reads the report.

    ok: valid, its base is the branch head: commit it. refused: `problems` say why (Baton's
    checks, or GitHub's refusal of the commit); nothing is written. stale: the branch moved since
    `base` (now `head`); nothing is written and the agent runs again on the new head (`problems`:
    why a head claiming these changes was not taken as Baton's). committed: on the branch as
    `oid` (this run committed it, or an earlier attempt did, provably Baton's: a re-run never
    commits twice). empty: the agent changed nothing."""

    model_config = ConfigDict(frozen=True)

    status: Literal["ok", "refused", "stale", "committed", "empty"]
    digest: str = ""
    base: str = ""
    head: str = ""
    oid: str = ""
    files: int = 0
    bytes: int = 0
    paths: list[str] = Field(default_factory=list)  # the first few, for messages
    problems: list[str] = Field(default_factory=list)


class BranchFacts(BaseModel):
    """The issue's branch as Baton found it when it came to create it: made by someone else
    (the record does not say Baton made it) and carrying `ahead` commits its base lacks."""

    model_config = ConfigDict(frozen=True)

    name: str
    head: str
    ahead: int


class PullRequestFacts(BaseModel):
    """The pull request a run opened for the issue, or why GitHub would not open it."""

    model_config = ConfigDict(frozen=True)

    number: int | None = None
    node_id: str = ""
    problem: str | None = None
