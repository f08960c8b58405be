"""Labels a human adds: forced moves, refused relabels, unknown labels, the trigger."""

from __future__ import annotations

from baton.core.model.decision import Outcome
from baton.core.model.events import Labeled
from baton.core.model.record import Record
from baton.core.rules.authority import is_member
from baton.core.rules.context import Ctx, Draft, Scene, force, seen
from baton.core.rules.labels import is_trigger
from baton.core.text import messages


def on_label(ctx: Ctx, event: Labeled) -> Draft:
    """A label added to an issue in the workflow: a maintainer's relabel forces the state."""
    policy, wf = ctx.policy, ctx.workflow
    if ctx.record.has_processed(event.id):
        return Draft(Outcome.ignored, f"label event {event.label} was already handled")
    if not event.added:
        # The status label went and none came instead: the drift repair below restores it.
        return Draft(
            Outcome.ignored,
            f"{event.label} was removed by {event.actor.login}; status labels mirror the "
            "record (relabel to move the issue)",
        )
    if is_trigger(event.label, policy.trigger_label):
        if wf.is_terminal(ctx.state) and is_member(event.actor, policy.maintainers, ctx.facts):
            return force(ctx, event.actor.login, wf.initial, why="restarted by the trigger label")
        return Draft(Outcome.ignored, f"already in the workflow at {ctx.state}; trigger consumed")
    target = wf.state_for_label(event.label, policy.label_prefix)
    if target is None:
        return unknown_label(ctx, event.label, record=seen(ctx))
    if not is_member(event.actor, policy.maintainers, ctx.facts):
        why = (
            f"only maintainers ({policy.maintainers.permission or 'listed users'} or above) "
            f"can move this issue; I removed {event.label} and kept {ctx.label(ctx.state)}"
        )
        return Draft(
            Outcome.refused,
            f"refused relabel by {event.actor.login}",
            record=seen(ctx),
            message=messages.refusal(event.actor.login, why),
            remove=(event.label,),
        )
    if target == ctx.state:
        # Remembered: the same webhook delivered again later must not force the issue back.
        return Draft(Outcome.noted, f"{event.label} is already the issue's state", record=seen(ctx))
    return force(ctx, event.actor.login, target, why="relabelled")


def unknown_label(scene: Scene, label: str, *, record: Record | None) -> Draft:
    """A status label of no state is removed, with a comment listing the valid ones; `record`
    remembers the event (None outside the workflow, where there is no record)."""
    valid = [scene.label(state) for state in scene.workflow.states]
    return Draft(
        Outcome.noted,
        f"unknown status label {label!r} removed",
        record=record,
        message=messages.unknown_label(label, valid),
        remove=(label,),
    )
