"""A task sub-issue's rules tied to its epic (the `epic-task` preset's task machine, and
`epic-task-test-first`'s: each state read as the task status it counts as, `status_of`).

The common rules run the task (developer, reviewer, retry ladder, escalation); these add what
the epic needs: the task's first record from its mark, the epic's order applied (`pending →
in_progress` once per start, `pending → blocked` when a dependency failed, back when lifted),
the counts the conductor reads, the epic notified of every move, and the task's branch made
from the epic's and merged back into it at completion.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baton.core.model.commands import Verb
from baton.core.model.decision import Outcome
from baton.core.model.epic import MergePlan, TaskLink, TaskStatus, status_of
from baton.core.model.events import AgentReported, Commented
from baton.core.model.record import HistoryEntry, Record
from baton.core.model.work import Work, branch_name
from baton.core.rules.authority import is_member
from baton.core.rules.context import Ctx, Draft, Scene, dispatch, move
from baton.core.text import epic as texts
from baton.core.text import messages

# The states the epic's own moves name (a start falls back to IN_PROGRESS: `start_state`).
PENDING, IN_PROGRESS, BLOCKED, FAILED, SKIPPED = (
    "pending",
    "in_progress",
    "blocked",
    "failed",
    "skipped",
)
S = TaskStatus
# A move out of an attempt under way into these is a failure the breaker counts.
ATTEMPT = frozenset({S.in_progress, S.pending_review})
FAILING = frozenset({S.retry_queued, S.failed})


def enter_task(scene: Scene) -> Draft | None:
    """A sub-issue the epic created, on its first run: its record starts in `pending`, tied to
    its epic by the mark the run read from the bot's issue body (`Facts.order`)."""
    event, workflow = scene.event, scene.workflow
    order = scene.facts.order
    if workflow.role != "task" or order is None or not order.key:
        return None
    record = Record(
        workflow=workflow.name,
        issue=event.issue.number,
        state=workflow.initial,
        entered_at=event.at,
        visits={workflow.initial: 1},
        history=[
            HistoryEntry(
                at=event.at,
                from_state=None,
                to_state=workflow.initial,
                reason=f"task {order.key} of epic #{order.epic}",
                actor="baton",
                trigger="entry",
                iteration=0,
            )
        ],
        processed=[event.id] if event.id else [],
        last_comment_id=event.comments_upto,
        entered_after_comment=event.comments_seen,
        task=TaskLink(epic=order.epic, key=order.key),
    )
    return Draft(
        Outcome.transition,
        f"entered at {workflow.initial}: task {order.key} of epic #{order.epic}",
        record=record,
    )


def on_order(ctx: Ctx) -> Draft | None:
    """The epic's order for this task, on any run that found the task waiting for one."""
    order = ctx.facts.order
    link = ctx.record.task
    if order is None or link is None or ctx.record.held:
        return None
    if not order.known:
        return None
    status = status_of(ctx.workflow, ctx.state)
    if status is S.pending:
        if order.block:
            moved = move(ctx, BLOCKED, reason="a dependency failed", actor="baton", trigger="epic")
            return Draft(
                Outcome.transition, f"{PENDING} → {BLOCKED}: a dependency failed", record=moved
            )
        if order.epic_state == "implementing" and order.starts > link.starts_taken:
            return _start(ctx, order.starts, order.base_branch)
    if status is S.blocked and not order.block:
        moved = move(ctx, PENDING, reason="the blocker is resolved", actor="baton", trigger="epic")
        return Draft(
            Outcome.transition, f"{BLOCKED} → {PENDING}: the blocker is resolved", record=moved
        )
    return None


def on_blocked_skip(ctx: Ctx) -> Draft | None:
    """`/skip` on a task blocked by a failed dependency (blocked → skipped: the user
    skips it), from an approver; its dependents may then go on."""
    event = ctx.event
    if ctx.state != BLOCKED or not isinstance(event, Commented):
        return None
    command = event.command
    if command is None or command.verb is not Verb.skip:
        return None
    if not is_member(event.actor, ctx.policy.approvers, ctx.facts):
        return None  # the common rule refuses it, saying who may
    who = event.actor.login
    moved = move(ctx, SKIPPED, reason=f"skipped by {who}", actor=who, trigger="command", human=True)
    return Draft(Outcome.transition, f"{BLOCKED} → {SKIPPED}: skipped by {who}", record=moved)


def start_state(ctx: Ctx) -> str:
    """Where the conductor's start moves a waiting task: the first state it leads to that
    counts as in progress; once its tests are signed off (a task restarted after it failed),
    the first that is no red proof's: the frozen tests are not written again."""
    workflow = ctx.workflow
    starts = [t for t in workflow.targets(ctx.state) if status_of(workflow, t) is S.in_progress]
    tests = ctx.record.tests
    if tests is not None and tests.signed is not None:
        starts = [t for t in starts if workflow.spec(t).proof != "red"] or starts
    return starts[0] if starts else IN_PROGRESS


def _start(ctx: Ctx, starts: int, base: str) -> Draft:
    record = ctx.record
    assert record.task is not None
    link = record.task.model_copy(update={"starts_taken": starts})
    work = record.work
    if work is None:
        work = Work(branch=branch_name(ctx.policy.work.branch_prefix, record.issue), base=base)
    state = start_state(ctx)
    moved = move(
        ctx,
        state,
        reason=f"selected by the conductor of epic #{link.epic} (start {starts})",
        actor="baton",
        trigger="epic",
        task=link,
        work=work,
    )
    agent = ctx.workflow.agent_of(state)
    moved = moved.model_copy(update={"dispatch": dispatch(ctx, agent, state, 1)})
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {state}: selected by the epic's conductor",
        record=moved,
        agent=agent,
    )


def after(ctx: Ctx, draft: Draft) -> Draft:
    """The counts the conductor reads, the merge at completion, and the epic notified."""
    link = ctx.record.task
    record = draft.record
    if link is None or record is None:
        return draft
    before, after_state = ctx.state, record.state
    was, now = status_of(ctx.workflow, before), status_of(ctx.workflow, after_state)
    counts: dict[str, Any] = {}
    if after_state != before:
        if now in FAILING and was in ATTEMPT:
            counts["failures"] = link.failures + 1
            if now is S.failed and _high(ctx):
                counts["high"] = link.high + 1
        if now is S.completed:
            counts["successes"] = link.successes + 1
    if now is S.completed and after_state != before:
        merged = _merge(ctx, draft, record)
        if merged is not None:
            return merged
    if counts:
        record = record.model_copy(update={"task": (record.task or link).model_copy(update=counts)})
    notify = draft.notify
    if after_state != before and link.epic not in notify:
        notify = (*notify, link.epic)
    return replace(draft, record=record, notify=notify)


def _high(ctx: Ctx) -> bool:
    event = ctx.event
    if not isinstance(event, AgentReported) or event.result is None:
        return False
    result = event.result
    reviewed = status_of(ctx.workflow, ctx.state) is S.pending_review
    return result.severity == "high" or (reviewed and result.status.value == "blocked")


def _merge(ctx: Ctx, draft: Draft, record: Record) -> Draft | None:
    """At completion the task's branch merges into its epic's, GitHub first; a conflict fails
    the task instead, saying so."""
    work = record.work
    if work is None or not work.commits or not work.base:
        return None
    facts = ctx.facts.merge
    if facts is None:
        key = record.task.key if record.task else ""
        message = texts.merge_message(record.issue, key, work.base)
        plan = MergePlan(base=work.base, head=work.branch, message=message)
        return replace(draft, merge=plan)
    if facts.status in ("merged", "up_to_date"):
        return None
    why = (
        f"the task's branch {work.branch} could not be merged into the epic's branch "
        f"{work.base}: {facts.status}{' (' + facts.detail + ')' if facts.detail else ''}"
    )
    failed = move(ctx, FAILED, reason=why, actor="baton", trigger="merge")
    link = record.task
    if link is not None:
        failed = failed.model_copy(
            update={"task": link.model_copy(update={"failures": link.failures + 1})}
        )
    message = messages.escalation(
        ctx.state,
        why + "; resolve it on the task's branch, then /retry",
        retry_to=ctx.workflow.escalation.retry or PENDING,
        skip_to=ctx.workflow.escalation.skip or "skipped",
        replan_to=None,
        policy=ctx.policy,
        moved_to=FAILED,
    )
    epic = link.epic if link else None
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {FAILED}: {why}",
        record=failed,
        message=message,
        notify=(epic,) if epic else (),
    )
