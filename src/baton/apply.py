"""Carry out a Decision on a Tracker, in the order that survives a crash at any step.

1. the record (the memory) — so a run that dies later leaves labels the next run repairs;
2. the labels (a projection of the record) — only the difference is changed;
3. the one message for humans, and the reaction on the comment acted on;
4. duplicate record comments left by racing runs are removed (the oldest is kept).
Dispatching the next agent is the caller's step, after all of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from baton import record_comment
from baton.config import Policy
from baton.decision import Decision
from baton.errors import TrackerError
from baton.events import IssueInfo
from baton.record_load import Loaded
from baton.tracker import LabelSpec, Tracker
from baton.workflow import StateKind, Workflow

KIND_COLOURS = {StateKind.work: "1d76db", StateKind.waiting: "fbca04", StateKind.terminal: "0e8a16"}
FAILURE_COLOUR = "b60205"
DESCRIPTION_LIMIT = 100


@dataclass
class Applied:
    """What was written, for the log and the job summary."""

    steps: list[str] = field(default_factory=list)
    comment_id: int | None = None


def label_specs(workflow: Workflow, policy: Policy) -> dict[str, LabelSpec]:
    specs = {}
    for state, spec in workflow.states.items():
        colour = spec.color or KIND_COLOURS[spec.kind]
        if spec.kind is StateKind.terminal and state in {"failed", "requires_human_intervention"}:
            colour = spec.color or FAILURE_COLOUR
        description = f"Baton: {spec.description or state}"
        if len(description) > DESCRIPTION_LIMIT:
            description = description[: DESCRIPTION_LIMIT - 1] + "…"
        name = workflow.label_for(state, policy.label_prefix)
        specs[name] = LabelSpec(name=name, color=colour.lower(), description=description)
    return specs


def apply(
    decision: Decision,
    loaded: Loaded,
    issue: IssueInfo,
    tracker: Tracker,
    workflow: Workflow,
    policy: Policy,
    *,
    secret: str | None = None,
) -> Applied:
    done = Applied(comment_id=loaded.comment_id)
    # A message a failed run could not post goes first: the record written next forgets it.
    lost = loaded.record.outbox if loaded.record and loaded.lost_message else None
    if lost is not None:
        note = "\n\n<sub>Re-posted: the run that wrote this could not post it.</sub>"
        tracker.create_comment(
            issue.number, f"{record_comment.message_mark(lost.revision)}\n{lost.text}{note}"
        )
        done.steps.append(f"re-posted the message of revision {lost.revision}")
    if decision.record is not None:
        body = record_comment.render(
            decision.record, agent=workflow.agent_of(decision.record.state), secret=secret
        )
        if loaded.comment_id is not None:
            try:
                tracker.edit_comment(loaded.comment_id, body)
                done.steps.append(f"record updated (revision {decision.record.revision})")
            except TrackerError as exc:
                # Deleted under us, or a lagging 404: either way a new record comment is
                # written, and its newer revision makes it the one the next run keeps.
                if exc.status != 404:
                    raise
                done.comment_id = None  # deleted under us: write a new one below
                done.steps.append(f"record comment {loaded.comment_id} was deleted")
        if done.comment_id is None:
            done.comment_id = tracker.create_comment(issue.number, body)
            done.steps.append(f"record created (comment {done.comment_id})")
    if decision.labels is not None:
        # On a move the new status label is always (re-)added: the payload's snapshot may show
        # it although another run removed it since; adding a label twice changes nothing.
        wanted_status = decision.record.state if decision.record else decision.state
        status = workflow.label_for(wanted_status, policy.label_prefix) if wanted_status else None
        moved = decision.state != decision.previous_state
        current = tuple(x for x in issue.labels if not (moved and x == status))
        # Likewise the label of the state the record was in is removed even if the snapshot
        # predates it (a DELETE of an absent label is harmless).
        if loaded.record is not None:
            before = workflow.label_for(loaded.record.state, policy.label_prefix)
            if before != status and before not in current:
                current = (*current, before)
        tracker.set_labels(issue.number, current, decision.labels, label_specs(workflow, policy))
        removed = [x for x in issue.labels if x not in decision.labels]
        added = [x for x in decision.labels if x not in issue.labels]
        done.steps.append(
            "labels: " + ", ".join([*(f"-{x}" for x in removed), *(f"+{x}" for x in added)])
        )
    if decision.message:
        body = decision.message
        if decision.record is not None and decision.record.outbox is not None:
            body = f"{record_comment.message_mark(decision.record.revision)}\n{body}"
        message_id = tracker.create_comment(issue.number, body)
        done.steps.append(f"message posted (comment {message_id})")
    if decision.reaction:
        # A courtesy: a comment deleted meanwhile must not fail a run whose work is written.
        try:
            tracker.react(decision.reaction.comment_id, decision.reaction.content)
            done.steps.append(
                f"reacted {decision.reaction.content} on {decision.reaction.comment_id}"
            )
        except TrackerError as exc:
            done.steps.append(f"could not react on {decision.reaction.comment_id}: {exc}")
    for duplicate in loaded.duplicates:
        try:
            tracker.delete_comment(duplicate)
        except TrackerError as exc:
            if exc.status != 404:
                raise
        done.steps.append(f"duplicate record comment {duplicate} removed")
    return done
