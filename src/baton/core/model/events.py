"""The typed events `decide` reads: one per thing that can happen to an issue Baton follows.

They are built from webhook payloads by `baton.webhooks.parse`, from an agent's result by
`baton report`, and by the sweep (`tick`); none of that parsing lives here, but for a comment's
command: a `Commented` is made by `commented`, which reads its command once
(`core.model.commands`), so no rule parses a body again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from baton.core.model.agent_result import AgentResult
from baton.core.model.commands import CommentCommand, EpicCommand, parse_command
from baton.core.model.evidence import Evidence
from baton.core.model.issue_facts import Actor, IssueInfo


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str = Field(description="A key that is the same when GitHub delivers the event again.")
    issue: IssueInfo
    actor: Actor
    at: datetime
    comments_upto: int = Field(
        default=0, description="The newest human comment id the run has read and considered."
    )
    comments_seen: int = Field(
        default=0, description="The newest human comment id on the issue when the run read it."
    )
    run_id: str = Field(default="", description="GITHUB_RUN_ID of the run handling it.")


class IssueChanged(_Event):
    kind: Literal["issue"] = "issue"
    action: Literal["opened", "reopened", "closed", "edited"]


class Labeled(_Event):
    kind: Literal["label"] = "label"
    label: str
    added: bool


class Commented(_Event):
    """A human's comment, with what it asks read once where it was made (`commented`)."""

    kind: Literal["comment"] = "comment"
    comment_id: int
    body: str
    edited: bool = False
    command: CommentCommand | None = Field(
        description="The comment's first approval or escalation command, if any."
    )
    epic_command: EpicCommand | None = Field(
        description="The comment's first epic command (`generate now`, `/edit …`), if any."
    )


def commented(
    *,
    id: str,
    issue: IssueInfo,
    actor: Actor,
    at: datetime,
    comment_id: int,
    body: str,
    approval_words: tuple[str, ...],
    edited: bool = False,
    comments_upto: int = 0,
    comments_seen: int = 0,
    run_id: str = "",
) -> Commented:
    """The one maker of a `Commented`: its command parsed from `body` with the policy's
    approval words, once."""
    command, epic_command = parse_command(body, approval_words)
    return Commented(
        id=id,
        issue=issue,
        actor=actor,
        at=at,
        comment_id=comment_id,
        body=body,
        edited=edited,
        command=command,
        epic_command=epic_command,
        comments_upto=comments_upto,
        comments_seen=comments_seen,
        run_id=run_id,
    )


class AgentReported(_Event):
    kind: Literal["report"] = "report"
    agent: str | None = None
    state: str | None = Field(default=None, description="The state the agent worked on.")
    result: AgentResult | None = None
    error: str | None = Field(default=None, description="Why the result could not be read.")
    nonce: str = Field(
        default="",
        description="The attempt the agent's run was dispatched for (`Dispatch.nonce`), from "
        "the dispatch or the baton job; a report for another attempt is stale.",
    )
    evidence: Evidence | None = Field(
        default=None,
        description="`baton-evidence.json` beside the result, validated: what the tests showed "
        "(a `proof` state is settled by it, judged again from its tests, never its verdict).",
    )
    evidence_problem: str | None = Field(
        default=None, description="Why the evidence beside the result could not be read."
    )


class Dispatched(_Event):
    kind: Literal["dispatch"] = "dispatch"
    source: str = "workflow_dispatch"
    nonce: str = Field(
        default="", description="The attempt a hand-over names (its `handover` input), if any."
    )


class Tick(_Event):
    kind: Literal["tick"] = "tick"


class ReviewNote(BaseModel):
    """An inline comment of a review: where, and what the reviewer said."""

    model_config = ConfigDict(frozen=True)

    path: str
    line: int | None = None
    body: str


class LaterCommit(BaseModel):
    """A commit a reviewed commit holds that Baton's last does not: its id and the GitHub
    account GitHub links its author to (None: none). Their permission is a fact, looked up
    apart (`Facts.permission_of`)."""

    model_config = ConfigDict(frozen=True)

    oid: str
    author: Actor | None = None


class Lineage(BaseModel):
    """How a reviewed commit stands to Baton's last commit (`base`), as REST's compare
    `base...commit` tells it: the commits it holds that `base` lacks, oldest first (GitHub
    lists a page of them: `total` says how many there are), and how many of `base`'s it lacks
    (`behind`: 0 when the reviewed commit descends from `base`)."""

    model_config = ConfigDict(frozen=True)

    base: str
    behind: int = 0
    commits: tuple[LaterCommit, ...] = ()
    total: int = 0

    @property
    def descends(self) -> bool:
        return self.behind == 0

    @property
    def complete(self) -> bool:
        return len(self.commits) >= self.total


class Reviewed(_Event):
    """A review submitted on the issue's pull request (`issue` is the issue it belongs to)."""

    kind: Literal["review"] = "review"
    pull_request: int
    review_id: int
    verdict: Literal["approved", "changes_requested", "commented"]
    body: str = ""
    commit: str = Field(default="", description="The head the review was given on.")


class PullRequestClosed(_Event):
    """The issue's pull request closed: merged, or closed without merging."""

    kind: Literal["pull_request"] = "pull_request"
    pull_request: int
    merged: bool


class CheckNote(BaseModel):
    """A failing check: its name and the first lines of what it said."""

    model_config = ConfigDict(frozen=True)

    name: str
    summary: str = ""


class ChecksCompleted(_Event):
    """CI finished on the issue's branch (a check suite or a workflow run)."""

    kind: Literal["checks"] = "checks"
    branch: str
    head: str
    conclusion: str
    pull_request: int | None = None
    failing: list[CheckNote] = Field(
        default_factory=list, description="What the payload names as failed (a workflow run)."
    )
    source: str = "check_suite"


Event = Annotated[
    IssueChanged
    | Labeled
    | Commented
    | AgentReported
    | Dispatched
    | Tick
    | Reviewed
    | PullRequestClosed
    | ChecksCompleted,
    Field(discriminator="kind"),
]


class Ignored(BaseModel):
    model_config = ConfigDict(frozen=True)

    reason: str
    issue: int | None = None


class Sweep(BaseModel):
    """A scheduled run: it covers many issues, so it is not an event on one."""

    model_config = ConfigDict(frozen=True)

    at: datetime


def bare_issue(number: int) -> IssueInfo:
    return IssueInfo(number=number, partial=True)


def tick(number: int, now: datetime) -> Tick:
    return Tick(id="", issue=bare_issue(number), actor=Actor(login="baton", is_bot=True), at=now)


def report(
    number: int,
    *,
    agent: str | None,
    result: AgentResult | None,
    error: str | None,
    now: datetime,
    run_id: str,
    actor: str = "baton",
    state: str | None = None,
    nonce: str = "",
    evidence: Evidence | None = None,
    evidence_problem: str | None = None,
) -> AgentReported:
    return AgentReported(
        run_id=run_id,
        state=state,
        nonce=nonce,
        evidence=evidence,
        evidence_problem=evidence_problem,
        id=f"report:{run_id}" if run_id else "",
        issue=bare_issue(number),
        actor=Actor(login=actor, is_bot=True),
        at=now,
        agent=agent,
        result=result,
        error=error,
    )
