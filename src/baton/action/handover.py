"""`baton context`: the briefing of the agent due, read with a read-only token, and the agent
job's own check of a run Baton dispatched with the state it hands over.

A report that moves an issue to a state with an agent dispatches the next run with that state
as an input; that run has no decision job, its agent job starts at once. So the agent job checks
the dispatch against the record it reads itself (`refusal`): a write user can dispatch with any
inputs, and a state the record does not hold, or an agent it does not wait for, runs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from baton.errors import BatonError

if TYPE_CHECKING:
    from baton.action.env import ActionEnv
    from baton.core.model.issue_facts import IssueInfo
    from baton.core.model.record import Record
    from baton.github.tracker import ActionTracker
    from baton.workflow.config import Settings
    from baton.workflow.model import Workflow


def refusal(
    record: Record, issue: IssueInfo, workflow: Workflow, *, state: str, run_id: str
) -> str | None:
    """Why a run dispatched for `state` must start no agent, or None when the record waits
    for that state's agent: what the skipped decision job would have found (`on_dispatch`)."""
    if issue.state == "closed":
        return f"#{issue.number} is closed; no agent runs on a closed issue"
    if record.state != state:
        return f"the dispatch named {state}, but #{issue.number} is in {record.state}"
    agent = workflow.agent_of(state)
    if agent is None or record.held:
        why = "is held for a human" if record.held else "has no agent"
        return f"{state} {why}"
    pending = record.dispatch
    if pending is None or pending.state != state or pending.agent != agent:
        return f"no run of the {agent} is due in {state}"
    if run_id and record.has_processed(f"report:{run_id}"):
        return "this run's agent already reported; a re-run starts nothing"
    return None


@dataclass
class Briefed:
    """The briefing (empty when refused) and the outputs the agent job steps by."""

    text: str
    outputs: dict[str, str]
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_briefing(
    env: ActionEnv,
    settings: Settings,
    tracker: ActionTracker,
    *,
    issue: int,
    fmt: str,
    state: str | None,
    now: datetime,
) -> Briefed:
    """The briefing and the outputs the agent job steps by (`agent`, `state`, `branch`); with
    `state`, none unless the record waits for that state's agent (then a warning says why)."""
    from baton.agents import briefing
    from baton.issue.load import load

    snapshot = tracker.read(issue, with_issue=True)
    info, comments = snapshot.issue, snapshot.comments
    if info is None:
        raise BatonError(f"issue #{issue} could not be read")
    settings = settings.for_labels(info.labels)
    loaded = load(
        issue,
        info.labels,
        comments,
        settings.workflow,
        settings.policy,
        now=now,
        secret=env.secret_value(),
    )
    record = loaded.record
    if record is None:
        raise BatonError(f"issue #{issue} is not in the workflow")
    if state is not None:
        why = refusal(record, info, settings.workflow, state=state, run_id=env.run_id)
        if why is not None:
            outputs = {"agent": "", "state": record.state, "branch": ""}
            return Briefed("", outputs, warnings=[f"no agent runs: {why}"])
    brief = briefing.build(env.repository, info, record, comments, settings)
    work = record.work
    outputs = {
        "agent": brief.agent or "",
        "state": brief.state,
        "branch": work.branch if work is not None and work.created else "",
    }
    text = briefing.to_json(brief) if fmt == "json" else briefing.to_markdown(brief)
    return Briefed(text, outputs, log=[f"context for #{issue} in {brief.state} ({brief.agent})"])
