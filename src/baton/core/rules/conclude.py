"""Labels as a projection of the record, drift repair, and the step that makes a Decision."""

from __future__ import annotations

from typing import Any

from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import Event, Labeled
from baton.core.model.record import OUTBOX_LIMIT, Outbox, Record, clip
from baton.core.rules import pull_requests, work_product
from baton.core.rules.asking import asking, failing_ask
from baton.core.rules.context import Ctx, Draft, Scene, rerun_agent, seen
from baton.core.rules.labels import is_ours, status_labels
from baton.core.text import messages
from baton.workflow.config import Policy
from baton.workflow.model import Workflow


def project(
    current: tuple[str, ...], status: str | None, policy: Policy, *, failing: bool = False
) -> tuple[str, ...]:
    """The issue's labels with exactly Baton's status label and no trigger label; with the
    repository-wide breaker on, its label while the issue's agents are failing."""
    breaker = policy.breaker.label.casefold() if policy.breaker else None
    kept = [
        x
        for x in current
        if not is_ours(x, policy.label_prefix, policy.trigger_label) and x.casefold() != breaker
    ]
    if failing and policy.breaker is not None:
        kept.append(policy.breaker.label)
    return (*kept, status) if status else tuple(kept)


def _drift(
    current: tuple[str, ...],
    wanted: str,
    policy: Policy,
    workflow: Workflow,
    ahead: str | None = None,
) -> list[str]:
    """`ahead`: the label of the state this decision moves to. Labels already showing it (an
    earlier attempt of the run wrote its labels, then failed to write the record) are the
    transition itself arriving early, not drift to report."""
    status = status_labels(current, policy.label_prefix)
    early = ahead is not None and ahead in status
    if early:
        status = [label for label in status if label != ahead]
        if not status:
            return []
    notes = []
    unknown = [s for s in status if workflow.state_for_label(s, policy.label_prefix) is None]
    others = [s for s in status if s not in unknown and s != wanted]
    if unknown:
        notes.append(f"removed unknown status label(s) {', '.join(unknown)}")
    if others:
        notes.append(
            f"the labels said {', '.join(others)} but the record says {wanted}; "
            f"{wanted} restored (a maintainer can relabel to force a state)"
        )
    elif wanted not in status and not early:
        notes.append(f"the status label was missing; {wanted} restored")
    return notes


def conclude(scene: Scene, draft: Draft) -> Decision:
    """Make a rule's draft the Decision: labels projected from the record, drift repaired and
    reported, the record's revision and outbox. An entry (no record before) takes it too."""
    if draft.count_failing:  # the repository breaker's count first, then decided again
        return asking(scene.event, failing_ask(scene.event, scene.policy))
    draft = work_product.refuse_foreign(scene, draft)
    ctx = scene if isinstance(scene, Ctx) else None  # None: the issue had no record
    event, policy = scene.event, scene.policy
    was = ctx.state if ctx else None
    record = draft.record
    state = record.state if record else was
    current = tuple(label for label in event.issue.labels if label not in draft.remove)
    # A move (an entry too) always writes its labels: the payload's snapshot may already be out
    # of date.
    moved = record is not None and record.state != was
    latest = record or (ctx.record if ctx else None)
    failing = latest is not None and latest.failing_since is not None
    labels = project(current, scene.label(state), policy, failing=failing) if state else current
    labels_change = moved or set(labels) != set(event.issue.labels)
    repairs: list[str] = []
    agent = draft.agent
    if ctx is not None:
        repairs = _repairs(ctx, draft, current, moved)
        if ctx.record.revision == 0 and record is None:
            record = ctx.record  # rebuilt: write it
        if repairs and record is None:
            record = seen(ctx)  # so the note rides in the outbox: a failed post is posted again
        # A rule that drops the pending dispatch (a report leaving the issue waiting on a
        # human) ends the agent's turn: no run is named for it to find nothing to do.
        rerun = record is None or (record.state == ctx.state and record.dispatch is not None)
        agent = draft.agent or (rerun_agent(ctx) if rerun else None)
    message = messages.join(draft.message, messages.notes(repairs)) if repairs else draft.message
    create_branch = None
    update_pull_request = None
    if record is not None:
        # The work product follows the record whatever the rule: the branch, the ready mark,
        # the pull request's description.
        record, create_branch = work_product.with_branch(scene, record)
        record = work_product.with_ready(scene, record)
        if not draft.github_first:
            before = ctx.record.work if ctx else None
            tests = ctx.record.tests if ctx else None
            update_pull_request = work_product.update(scene, before, record, tests=tests)
            notice = pull_requests.ci_notice(scene, before, record)
            message = messages.join(message, notice) if notice else message
    if record is not None:
        record = _stamped(record, ctx, event, message=message, agent=agent)
    outcome = draft.outcome
    reason = draft.reason
    if outcome is Outcome.ignored and (repairs or labels_change):
        outcome = Outcome.noted
        reason = f"{reason}; repaired: {'; '.join(repairs) or 'labels'}"
    return Decision(
        outcome=outcome,
        issue=event.issue.number,
        reason=reason,
        previous_state=was,
        state=state,
        forced=draft.forced,
        record=record,
        labels=labels if labels_change else None,
        message=message,
        reaction=draft.reaction,
        agent=agent if event.issue.state != "closed" else None,  # closed: no agent runs
        repairs=tuple(repairs),
        event=event.kind,
        event_id=event.id,
        create_branch=create_branch,
        commit=draft.commit,
        open_pull_request=draft.open_pull_request,
        update_pull_request=update_pull_request,
        create_tasks=draft.create_tasks,
        merge=draft.merge,
        check=draft.check if record is not None else None,
        notify=draft.notify if event.issue.state != "closed" else (),
    )


def _stamped(
    record: Record, ctx: Ctx | None, event: Event, *, message: str | None, agent: str | None
) -> Record:
    """The record as this run writes it: the next revision, the message in its outbox, and the
    pending dispatch marked as this run's when it names the agent."""
    revision = (ctx.record.revision if ctx else 0) + 1
    outbox = Outbox(revision=revision, text=clip(message, OUTBOX_LIMIT)) if message else None
    update: dict[str, Any] = {"revision": revision, "outbox": outbox}
    pending = record.dispatch
    if agent and pending and pending.state == record.state and event.run_id:
        # This run names the agent and writes the record: a re-run of it may name it again.
        update["dispatch"] = pending.model_copy(update={"run": event.run_id, "by": event.id})
    return record.model_copy(update=update)


def _repairs(ctx: Ctx, draft: Draft, current: tuple[str, ...], moved: bool) -> list[str]:
    """What the labels and the record disagreed on, as notes for the humans."""
    repairs: list[str] = []
    event = ctx.event
    if not (isinstance(event, Labeled) and event.added and draft.outcome is Outcome.transition):
        # Compare with the state the issue was in before this decision: a transition's own
        # label swap is not drift.
        ahead = ctx.label(draft.record.state) if moved and draft.record else None
        repairs = _drift(current, ctx.label(ctx.state), ctx.policy, ctx.workflow, ahead)
    history = ctx.record.history
    if ctx.record.revision == 0 and history and history[-1].trigger == "rebuild":
        repairs.insert(0, history[-1].reason)
    return repairs
