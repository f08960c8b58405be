"""How an issue with no record enters the workflow, or why it does not."""

from __future__ import annotations

from baton.core.model.decision import Outcome
from baton.core.model.events import IssueChanged, Labeled
from baton.core.model.record import HistoryEntry, Record
from baton.core.rules.authority import is_member
from baton.core.rules.context import Draft, Scene, dispatch
from baton.core.rules.labels import is_trigger
from baton.core.rules.relabels import unknown_label
from baton.core.text import messages


def admit(scene: Scene) -> Draft:
    """A maintainer's trigger or status label enters the issue, or its opening does when the
    config enters every issue; the record starts here, and `conclude` projects its label."""
    event, workflow, policy = scene.event, scene.workflow, scene.policy
    target: str | None = None
    why = ""
    if isinstance(event, Labeled) and event.added:
        if is_trigger(event.label, policy.trigger_label):
            target, why = workflow.initial, "trigger label"
        elif workflow.role == "epic" and is_trigger(event.label, policy.epics.label):
            target, why = workflow.initial, "epic label"  # it stays: it marks the epic
        else:
            state = workflow.state_for_label(event.label, policy.label_prefix)
            if state is None:
                return unknown_label(scene, event.label, record=None)
            if not policy.enter_on_status_label:
                return _outside(scene)
            target, why = state, f"status label {event.label}"
        if not is_member(event.actor, policy.maintainers, scene.facts):
            reason = f"only maintainers can start Baton on an issue; I removed {event.label}"
            return Draft(
                Outcome.refused,
                f"refused entry by {event.actor.login}",
                message=messages.refusal(event.actor.login, reason),
                remove=(event.label,),
            )
    elif isinstance(event, IssueChanged) and event.action == "opened" and policy.enter_on_open:
        target, why = workflow.initial, "opened (the config enters every issue)"
    if target is None:
        return _outside(scene)
    forced = target != workflow.initial
    agent = workflow.agent_of(target)
    record = Record(
        workflow=workflow.name,
        issue=event.issue.number,
        state=target,
        entered_at=event.at,
        iteration=0,
        visits={target: 1},
        history=[
            HistoryEntry(
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
        dispatch=dispatch(scene, agent, target, 1),
        processed=[event.id] if event.id else [],
        last_comment_id=event.comments_upto,
        entered_after_comment=event.comments_seen,
    )
    return Draft(
        Outcome.transition,
        f"entered at {target}: {why} by {event.actor.login}",
        record=record,
        agent=agent,
        forced=forced,
    )


def _outside(scene: Scene) -> Draft:
    trigger = scene.policy.trigger_label
    hint = f" (add the {trigger!r} label to start)" if trigger else ""
    status = _status_labels(scene)
    if status:
        # A status label with no trace of Baton (`issue.load`): a record comment deleted on an
        # issue Baton never posted a marked message on, or a label someone else added. Neither
        # is rebuilt, so say it where a maintainer looks (the job log and summary).
        ways = []
        if scene.policy.enter_on_status_label:
            ways.append(f"removes {status[0]} and adds it again")
        if trigger:
            ways.append(f"adds the {trigger!r} label")
        how = " or ".join(ways) or "enters it"
        return Draft(
            Outcome.ignored,
            f"the issue is not in the workflow: it has the status label {', '.join(status)} "
            "but no Baton record (a record comment deleted, or a label added outside Baton), "
            f"and a status label alone is not trusted; a maintainer relabels it to enter "
            f"({how})",
        )
    return Draft(Outcome.ignored, f"the issue is not in the workflow{hint}")


def _status_labels(scene: Scene) -> list[str]:
    """The issue's labels that name a state of the workflow, in the order they are on it; the
    one the event itself adds is the event, answered by the entry rule."""
    event, workflow, prefix = scene.event, scene.workflow, scene.policy.label_prefix
    added = event.label if isinstance(event, Labeled) and event.added else None
    return [
        label
        for label in event.issue.labels
        if label != added and workflow.state_for_label(label, prefix) is not None
    ]
