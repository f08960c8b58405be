"""The conductor's pass as a rule: the pure pass (`conductor`) applied to the record, the
breaker or the budget moving the epic to blocked, every task done moving it to completing,
and the epic's pull request opened on completion."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baton.core.model.decision import Outcome, PullRequestPlan
from baton.core.model.epic import EpicState
from baton.core.model.record import Record
from baton.core.model.work import Work, branch_name
from baton.core.rules import budget
from baton.core.rules.context import BATON, Ctx, Draft, move
from baton.core.rules.epic import conductor
from baton.core.rules.epic.phases import (
    BLOCKED,
    COMPLETING,
    IMPLEMENTING,
    epic_of,
    epic_spend,
    with_epic,
)
from baton.core.text import epic as texts
from baton.core.text import epic_plan as render
from baton.core.text.work import pull_request_title


def conductor_pass(
    ctx: Ctx,
    record: Record,
    outcome: Outcome,
    why: str,
    *,
    observations: list[Any] | None = None,
    plan_message: bool = False,
    extra_message: str | None = None,
    was: str,
) -> Draft:
    """One conductor pass over `record` (already moved, if the rule moved it)."""
    epic = epic_of(record)
    settings = ctx.policy.epics
    state = record.state
    # The budget as the tasks stand now: their spend is read by this very pass.
    spend_now = record.spend.plus(conductor.observed_spend(epic, observations or []))
    stop = budget.spent(spend_now, ctx.policy.budgets.epic, what="this epic")
    done = conductor.conduct(
        epic,
        observations or [],
        settings,
        now=ctx.now,
        may_start=state == IMPLEMENTING and not record.held,
        budget_stop=stop,
    )
    epic = done.epic
    record = with_epic(record, epic)
    if record.state == IMPLEMENTING:
        record = record.model_copy(update={"dispatch": record.dispatch if epic.extension else None})
    messages_: list[str] = []
    if extra_message:
        messages_.append(extra_message)
    table = render.task_table(epic)
    if plan_message:
        messages_.append(
            texts.plan_created(
                len([t for t in epic.tasks if t.replaced_by is None]), table, done.started
            )
        )
    notify = list(done.notify)
    moved_to: str | None = None
    if state == IMPLEMENTING:
        moved_to, record, message, because = _stop_or_complete(record, done, stop, table)
        messages_.extend([message] if message else [])
        why = f"{why}; {because}" if because else why
        epic = epic_of(record)
    draft_open: PullRequestPlan | None = None
    if moved_to is not None:
        moving_ctx = replace(ctx, record=record)
        record = with_epic(
            move(moving_ctx, moved_to, reason=why, actor=BATON, trigger="conductor"), epic
        )
        outcome = Outcome.transition
        if moved_to == COMPLETING:
            draft_open, record, message = _completion(ctx, record, epic)
            if message:
                messages_.append(message)
    if was != ctx.record.state or record.state != ctx.record.state:
        outcome = Outcome.transition
    if notify and outcome is Outcome.noted:
        why = f"{why}: started {', '.join(done.started) or 'none'}"
    changed = done.changed or moved_to is not None or record != ctx.record
    if outcome is Outcome.noted and not changed and not notify:
        return Draft(Outcome.ignored, f"{why}: nothing changed")
    agent = (
        record.dispatch.agent if record.dispatch and record.dispatch.state == record.state else None
    )
    return Draft(
        outcome,
        why,
        record=record,
        message="\n\n".join(messages_) or None,
        agent=agent,
        notify=tuple(notify),
        open_pull_request=draft_open,
    )


def _stop_or_complete(
    record: Record, done: conductor.Conducted, stop: str | None, table: str
) -> tuple[str | None, Record, str | None, str | None]:
    """Where an implementing epic goes after the pass (the state, the record, the message,
    why): blocked when the breaker opened or the budget ran out, completing when every task
    is done, nowhere otherwise."""
    epic = epic_of(record)
    if done.breaker_opened:
        refs = [t.number for t in epic.tasks if t.status.value == "failed" and t.number]
        message = texts.breaker_open(epic.breaker.reasons, table, refs)
        return BLOCKED, record, message, "the circuit breaker opened"
    if stop and epic.budget_stop is None and not done.all_done:
        record = with_epic(record, epic.model_copy(update={"budget_stop": stop}))
        message = texts.budget_stop(stop, budget.describe(epic_spend(record)))
        return BLOCKED, record, message, stop
    if done.all_done and not epic.extension:
        return COMPLETING, record, None, "every task is done"
    return None, record, None, None


def _completion(
    ctx: Ctx, record: Record, epic: EpicState
) -> tuple[PullRequestPlan | None, Record, str | None]:
    """Completing: the epic's pull request (opened first, then decided again with its number)."""
    event = ctx.event
    count = len([t for t in epic.tasks if t.replaced_by is None])
    work = record.work or Work(
        branch=epic.branch or branch_name(ctx.policy.work.branch_prefix, record.issue)
    )
    if work.pull_request is not None or not ctx.policy.work.pull_request:
        return None, record, texts.completed(count, work.pull_request, None)
    opened = ctx.facts.opened
    if opened is None:
        plan = PullRequestPlan(
            branch=work.branch,
            title=pull_request_title(record.issue, event.issue.title),
            body=f"Closes #{record.issue}.\n\n{render.summary(epic, budget=30_000)}",
            ready=True,
        )
        return plan, record, None
    if opened.number is None:
        return None, record, texts.completed(count, None, opened.problem)
    work = work.model_copy(
        update={"pull_request": opened.number, "pull_request_id": opened.node_id}
    )
    return (
        None,
        record.model_copy(update={"work": work}),
        texts.completed(count, opened.number, None),
    )
