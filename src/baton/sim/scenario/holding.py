"""What GitHub holds of a scenario's issue: its record, its branch's head, Baton's commits on
it and its newest pull request, read from the in-memory GitHub as the player's steps leave it.

`Stage` is what these reads (and the narration and the expectations) need of the player, so
neither imports the player that uses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from baton.core.model.record import Record
from baton.issue.load import read_record
from baton.sim import work_news
from baton.sim.model.pulls import PullRequest
from baton.sim.sim_github import SimGitHub
from baton.sim.work_news import PullRequestState
from baton.workflow.config import Settings


class Stage(Protocol):
    """The player as its readers see it: the in-memory GitHub, the settings and the issue."""

    gh: SimGitHub
    settings: Settings
    number: int  # 0 until the issue is opened

    @property
    def branch(self) -> str: ...


@dataclass(frozen=True)
class Holding:
    """What GitHub holds of the issue's work: its branch's head and its newest pull request."""

    head: str | None = None
    pull_request: int | None = None
    pull_request_state: PullRequestState = "none"


def record_of(stage: Stage) -> Record | None:
    """The record as the next run would read it."""
    return read_record(stage.gh.comments_of(stage.number), stage.gh.bot_login)


def due_agent(stage: Stage) -> str | None:
    record = record_of(stage)
    return stage.settings.workflow.agent_of(record.state) if record else None


def open_pull_number(stage: Stage) -> int | None:
    return stage.gh.pull_request_of(stage.branch) if stage.number else None


def latest_pull(stage: Stage) -> PullRequest | None:
    """The newest pull request from the issue's branch, open or not."""
    pulls = [p for p in stage.gh.pull_requests.values() if p.head == stage.branch]
    return max(pulls, key=lambda p: p.number, default=None)


def pull_state(stage: Stage, pull: PullRequest | None) -> PullRequestState:
    return work_news.pull_state(stage.gh, pull)


def holding(stage: Stage) -> Holding:
    if stage.number == 0:
        return Holding()
    pull = latest_pull(stage)
    return Holding(
        head=stage.gh.git.head(stage.branch),
        pull_request=pull.number if pull else None,
        pull_request_state=pull_state(stage, pull),
    )


def baton_commits(stage: Stage) -> int:
    """Baton's commits on the issue's branch (the bot's, from the default branch on)."""
    head = stage.gh.git.head(stage.branch) if stage.number else None
    if head is None:
        return 0
    git = stage.gh.git
    return sum(1 for oid in git.ancestors(head) if git.commits[oid].author == stage.gh.bot_login)


def commits_between(stage: Stage, start: str, head: str) -> list[str]:
    """The commits on `head` that `start` lacks, oldest first (along first parents)."""
    git = stage.gh.git
    known = git.ancestors(start) if start else set()
    chain, _ = git.first_parents(head, known)
    return chain[::-1]


def files_of(stage: Stage, oid: str) -> list[str]:
    """What the commit changed: `+ path` added, `~ path` changed, `- path` deleted."""
    return work_news.changed_files(stage.gh.git, oid)
