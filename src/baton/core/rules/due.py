"""Which issues the sweep reads: from the listing alone (labels and the last update), why a run
may be owed there. A rule like any other, so the sweep names no state of a preset."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from baton.core.model.epic import WAITING, status_of
from baton.core.rules.epic.phases import IMPLEMENTING, PLANNING
from baton.core.rules.labels import is_trigger, status_labels
from baton.workflow.config import Policy
from baton.workflow.model import StateKind, Workflow

RECENT = timedelta(hours=2)  # activity this recent may be a comment whose run never came
EPIC_RECOVERY = timedelta(hours=1)


def due_reason(
    labels: Sequence[str], idle: timedelta | None, workflow: Workflow, policy: Policy
) -> str | None:
    """Why an issue with `labels`, last updated `idle` ago, is worth reading now; None: skip
    it. `workflow` is the issue's own machine (an epic's or a task's)."""
    trigger = any(is_trigger(label, policy.trigger_label) for label in labels)
    # A trigger label this recent may still have its own run queued: that run takes it in.
    if trigger and (idle is None or idle > RECENT):
        return "the trigger label is still on it (a run that entered it may have died)"
    status = status_labels(labels, policy.label_prefix)
    if not status:
        return None
    states = [workflow.state_for_label(label, policy.label_prefix) for label in status]
    if len(states) != 1 or states[0] is None:
        return "its status labels need repair"
    state = states[0]
    spec = workflow.spec(state)
    if idle is None:
        return "its last update is unknown"
    if spec.kind is StateKind.waiting:
        if spec.timeout and idle >= spec.timeout.after:
            return f"it has waited {idle.days} days"
        if idle <= RECENT:
            return "recent activity while it waits for a human"
    if spec.kind is StateKind.work:
        limit = spec.timeout.after if spec.timeout else policy.agent_timeout
        if limit is not None and idle >= limit:
            return f"the {spec.agent} has been silent for {idle}"
    if state == workflow.escalation.state and idle <= RECENT:
        return "recent activity while it waits for a human decision"
    if idle >= EPIC_RECOVERY:
        return _lost_dispatch(workflow, state, idle)
    return None


def _lost_dispatch(workflow: Workflow, state: str, idle: timedelta) -> str | None:
    """A dispatch lost between an epic's record and its tasks' runs (or back): the conductor
    looks again, a task waiting for its order (counting as pending or blocked) reads it again;
    a task waiting for a human (a sign-off) is left to its timeout, if it has one."""
    role = workflow.role
    if role == "epic" and state == IMPLEMENTING:
        return f"the conductor has not looked for {idle}"
    if role == "epic" and state == PLANNING:
        return f"a plan may wait to be created ({idle} idle)"
    if role == "task" and status_of(workflow, state) in WAITING:
        return f"the task has not read its epic's order for {idle}"
    return None
