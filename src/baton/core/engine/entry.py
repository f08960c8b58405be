"""How an issue with no record enters the workflow, or why it does not."""

from __future__ import annotations

from baton.core import messages
from baton.core.authority import is_member
from baton.core.decision import Decision, Outcome
from baton.core.engine.finish import project
from baton.core.events import Event, IssueChanged, Labeled
from baton.core.labels import is_trigger
from baton.core.record import Dispatch, Entry, Record
from baton.workflow.config import Policy
from baton.workflow.model import Workflow


def enter(event: Event, workflow: Workflow, policy: Policy) -> Decision:
    issue = event.issue
    ignored = Decision(
        outcome=Outcome.ignored,
        issue=issue.number,
        reason="the issue is not in the workflow"
        + (f" (add the {policy.trigger_label!r} label to start)" if policy.trigger_label else ""),
        event=event.kind,
    )
    target: str | None = None
    why = ""
    if isinstance(event, Labeled) and event.added:
        if is_trigger(event.label, policy.trigger_label):
            target, why = workflow.initial, "trigger label"
        else:
            state = workflow.state_for_label(event.label, policy.label_prefix)
            if state is None:
                return _decision_unknown_label(event, workflow, policy)
            if not policy.enter_on_status_label:
                return ignored
            target, why = state, f"status label {event.label}"
        if not is_member(event.actor, policy.maintainers):
            reason = f"only maintainers can start Baton on an issue; I removed {event.label}"
            return Decision(
                outcome=Outcome.refused,
                issue=issue.number,
                reason=f"refused entry by {event.actor.login}",
                labels=tuple(x for x in issue.labels if x != event.label),
                message=messages.refusal(event.actor.login, reason),
                event=event.kind,
            )
    elif isinstance(event, IssueChanged) and event.action == "opened" and policy.enter_on_open:
        target, why = workflow.initial, "opened (the config enters every issue)"
    if target is None:
        return ignored
    forced = target != workflow.initial
    record = Record(
        workflow=workflow.name,
        issue=issue.number,
        state=target,
        entered_at=event.at,
        iteration=0,
        visits={target: 1},
        history=[
            Entry(
                at=event.at,
                from_state=None,
                to_state=target,
                reason=f"entered the workflow: {why} by {event.actor.login}",
                actor=event.actor.login,
                trigger="entry",
                forced=forced,
                iteration=0,
            )
        ],
        processed=[event.id] if event.id else [],
        last_comment_id=event.comments_upto,
        entered_after_comment=event.comments_seen,
        revision=1,
    )
    agent = workflow.agent_of(target)
    if agent:
        record = record.model_copy(
            update={
                "dispatch": Dispatch(
                    agent=agent, state=target, attempt=1, at=event.at, by=event.id, run=event.run_id
                )
            }
        )
    labels = project(issue.labels, workflow.label_for(target, policy.label_prefix), policy)
    return Decision(
        outcome=Outcome.transition,
        issue=issue.number,
        reason=f"entered at {target}: {why} by {event.actor.login}",
        previous_state=None,
        state=target,
        forced=forced,
        record=record,
        labels=labels,
        agent=agent if issue.state != "closed" else None,
        event=event.kind,
    )


def _decision_unknown_label(event: Labeled, workflow: Workflow, policy: Policy) -> Decision:
    valid = [workflow.label_for(s, policy.label_prefix) for s in workflow.states]
    return Decision(
        outcome=Outcome.noted,
        issue=event.issue.number,
        reason=f"unknown status label {event.label!r} removed",
        labels=tuple(x for x in event.issue.labels if x != event.label),
        message=messages.unknown_label(event.label, valid),
        event=event.kind,
    )
