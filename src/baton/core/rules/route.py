"""`decide`: the one entry, which sends each event to the rule for its kind."""

from __future__ import annotations

from typing import assert_never

from baton.core.model.decision import Decision, Outcome, Reaction
from baton.core.model.events import (
    AgentReported,
    ChecksCompleted,
    Commented,
    Dispatched,
    Event,
    IssueChanged,
    Labeled,
    PullRequestClosed,
    Reviewed,
    Tick,
)
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import Record
from baton.core.rules.admission import admit
from baton.core.rules.asking import asking, asks_of
from baton.core.rules.conclude import conclude
from baton.core.rules.context import Ctx, Draft, Scene, rerun_agent
from baton.core.rules.epic import route as epics
from baton.core.rules.epic import tasks
from baton.core.rules.humans import on_comment
from baton.core.rules.lifecycle import on_dispatch, on_issue, on_tick
from baton.core.rules.pull_requests import on_checks, on_closed, on_review
from baton.core.rules.relabels import on_label
from baton.core.rules.repo_breaker import with_failing, within_repo_breaker
from baton.core.rules.reports import on_report
from baton.core.rules.spending import with_spend, within_budget
from baton.core.rules.work_product import settle
from baton.errors import StateNotInWorkflow
from baton.workflow.config import Policy
from baton.workflow.model import Workflow


def decide(
    record: Record | None,
    event: Event,
    workflow: Workflow,
    policy: Policy,
    facts: Facts = NO_FACTS,
) -> Decision:
    """Decide what one event does to one issue, given the `facts` the run looked up or GitHub
    answered. Pure: same inputs, same decision. A fact it needs and `facts` lacks is asked for
    (`Decision.asks`, nothing written): the run looks it up and decides again."""
    asks = asks_of(record, event, workflow, policy, facts)
    if asks is not None:
        return asking(event, asks)
    if record is None:
        scene = Scene(event=event, workflow=workflow, policy=policy, facts=facts)
        entered = tasks.enter_task(scene)
        if entered is not None and entered.record is not None:
            # A task's first run: its record starts here, and the epic's order applies at once.
            ctx = Ctx(
                event=event, workflow=workflow, policy=policy, record=entered.record, facts=facts
            )
            ordered = tasks.on_order(ctx)
            if ordered is not None:
                return conclude(ctx, within_repo_breaker(ctx, tasks.after(ctx, ordered)))
            return conclude(scene, entered)
        return conclude(scene, within_repo_breaker(scene, admit(scene)))
    if record.state not in workflow.states:
        raise StateNotInWorkflow(
            f"record state {record.state!r} is not in workflow {workflow.name!r}"
        )
    ctx = Ctx(event=event, workflow=workflow, policy=policy, record=record, facts=facts)
    if event.id and record.has_processed(event.id) and not isinstance(event, Dispatched):
        return conclude(ctx, _already_applied(ctx))
    draft = settle(ctx, _by_role(ctx))
    if workflow.role == "task":
        draft = tasks.after(ctx, draft)
    draft = within_budget(ctx, with_failing(ctx, with_spend(ctx, draft)))
    return conclude(ctx, within_repo_breaker(ctx, draft))


def _by_role(ctx: Ctx) -> Draft:
    """An epic's and a task's own rules first, where they have one; else the common rule."""
    role = ctx.workflow.role
    if role == "epic":
        draft = epics.on_epic(ctx, ctx.event)
        if draft is not None:
            return draft
    elif role == "task" and isinstance(ctx.event, Dispatched | Tick):
        ordered = tasks.on_order(ctx)
        if ordered is not None:
            return ordered
    elif role == "task" and isinstance(ctx.event, Commented):
        skipped = tasks.on_blocked_skip(ctx)
        if skipped is not None:
            return skipped
    return _rule(ctx)


def _rule(ctx: Ctx) -> Draft:
    """The rule for the event's kind; a kind with no case here is a type error (mypy)."""
    event = ctx.event
    match event:
        case AgentReported():
            return on_report(ctx, event)
        case Commented():
            return on_comment(ctx, event)
        case Labeled():
            return on_label(ctx, event)
        case IssueChanged():
            return on_issue(ctx, event)
        case Dispatched():
            return on_dispatch(ctx, event)
        case Tick():
            return on_tick(ctx, event)
        case Reviewed():
            return on_review(ctx, event)
        case PullRequestClosed():
            return on_closed(ctx, event)
        case ChecksCompleted():
            return on_checks(ctx, event)
        case _:
            assert_never(event)


def _already_applied(ctx: Ctx) -> Draft:
    """A re-delivered event changes nothing. A re-run of the very run that made the agent due
    (same GITHUB_RUN_ID) names it again: the first attempt may have died after writing the
    record and before the agent's job or dispatch. A new run for the same webhook does not."""
    agent = rerun_agent(ctx)
    if agent:
        event = ctx.event
        reaction = Reaction(comment_id=event.comment_id) if isinstance(event, Commented) else None
        return Draft(
            Outcome.resume,
            f"event {ctx.event.id} was already applied; {agent} is still due",
            agent=agent,
            reaction=reaction,  # the first attempt may have died before it (it is idempotent)
        )
    return Draft(Outcome.ignored, f"event {ctx.event.id} was already applied")
