"""What one run decided: the plan `apply` carries out, and the outputs a workflow reads."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from baton.core.model.epic import MergePlan, TaskCreationPlan
from baton.core.model.facts import Asks
from baton.core.model.record import Record


class Outcome(StrEnum):
    transition = "transition"  # the state changed (an entry, a forced relabel, an escalation too)
    retry = "retry"  # the same state's agent goes again (the retry ladder)
    resume = "resume"  # nothing changed; the state's agent is due (a dispatch, a reopen)
    noted = "noted"  # the record changed without a move (a reply kept, drift repaired)
    refused = "refused"  # a human's command was refused, with a reply saying why
    ignored = "ignored"  # nothing to do; the reason says why


class Reaction(BaseModel):
    model_config = ConfigDict(frozen=True)

    comment_id: int
    content: str = "eyes"


class CommitPlan(BaseModel):
    """Commit the report's changeset (digest) onto the branch, before the record is written: the
    run commits, then decides again with the commit's id (`ChangesetFacts.committed`)."""

    model_config = ConfigDict(frozen=True)

    branch: str
    digest: str
    expected_head: str
    headline: str
    body: str


class PullRequestPlan(BaseModel):
    """Open the issue's draft pull request (the run opens it, then decides again), or update the
    one it has (`node_id` set: written with the record, in the same request)."""

    model_config = ConfigDict(frozen=True)

    branch: str
    title: str
    body: str
    node_id: str = ""
    number: int | None = None  # set with node_id: the REST fall-back addresses it by number
    ready: bool = False  # mark it ready for review


class CheckPlan(BaseModel):
    """A check run to post on a commit after the record is written (`Baton / tests`): what
    the evidence that settled a state showed, so the pull request shows it too."""

    model_config = ConfigDict(frozen=True)

    name: str = "Baton / tests"
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    conclusion: Literal["success", "failure", "neutral"]
    title: str = Field(max_length=1000)
    summary: str = Field(max_length=60000, description="Markdown, issue text escaped.")
    external_id: str = Field(
        default="", description="The attempt it reports on (`Dispatch.nonce`): posted once."
    )


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    issue: int
    reason: str
    previous_state: str | None = None
    state: str | None = None
    forced: bool = False
    record: Record | None = Field(default=None, description="The record to write; None: none.")
    labels: tuple[str, ...] | None = Field(
        default=None, description="The issue's full label set wanted; None: leave labels alone."
    )
    message: str | None = None
    reaction: Reaction | None = None
    agent: str | None = None
    repairs: tuple[str, ...] = ()
    event: str = ""
    event_id: str = ""  # the event's id, marked on the message so its re-run knows it
    create_branch: str | None = Field(
        default=None, description="A branch to create from the default branch before the record."
    )
    commit: CommitPlan | None = None
    open_pull_request: PullRequestPlan | None = None
    update_pull_request: PullRequestPlan | None = None
    create_tasks: TaskCreationPlan | None = Field(
        default=None, description="An epic's sub-issues and their dependencies, created first."
    )
    merge: MergePlan | None = Field(
        default=None, description="A finished task's branch merged into its epic's, first."
    )
    asks: Asks | None = Field(
        default=None,
        description="Facts to look up before this can be decided (nothing is written then): "
        "the shell answers them (`issue/fulfil.py`) and decides again.",
    )
    check: CheckPlan | None = Field(
        default=None, description="A check run posted on a commit once the record is written."
    )
    notify: tuple[int, ...] = Field(
        default=(),
        description="Other issues whose run is dispatched after the write: the tasks an epic's "
        "conductor ordered, the epic a task's change concerns.",
    )

    @property
    def work_first(self) -> bool:
        """Whether GitHub must do something before this decision is final (a commit, a new
        pull request), whose answer the run hands to `decide` again."""
        return (
            self.commit is not None
            or self.open_pull_request is not None
            or self.create_tasks is not None
            or self.merge is not None
        )

    @property
    def transitioned(self) -> bool:
        return self.outcome is Outcome.transition

    def summary_json(self) -> str:
        """One-line JSON for the `decision` output: what was decided and why."""
        data = {
            "outcome": self.outcome.value,
            "issue": self.issue,
            "from": self.previous_state,
            "to": self.state,
            "forced": self.forced,
            "agent": self.agent,
            "reason": self.reason,
            "event": self.event,
            "repairs": list(self.repairs),
        }
        return json.dumps(data, ensure_ascii=True, separators=(",", ":"))
