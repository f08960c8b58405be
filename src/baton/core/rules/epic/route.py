"""An epic's own rules (the `feature-epic` preset's phases), entered here.

`rules.route` sends an epic's reports, comments, dispatches and ticks to `on_epic`; labels,
reopening and closing take the common rules. A report goes to the phase that waits on it
(`dialogue`, `planning`); a comment to `comments`; a dispatch or tick creates the plan's
sub-issues (`planning`) or runs the conductor's pass (`passes`) whenever it finds the epic in
`implementing`, `blocked` or `completing` with its sub-issues read (`Facts.tasks`).
"""

from __future__ import annotations

from baton.core.model.decision import Outcome
from baton.core.model.events import AgentReported, Commented, Dispatched, Event, Tick
from baton.core.rules.context import Ctx, Draft, retry, seen
from baton.core.rules.epic.comments import on_comment
from baton.core.rules.epic.dialogue import discovery_report
from baton.core.rules.epic.passes import conductor_pass
from baton.core.rules.epic.phases import CONDUCTING, DISCOVERY, IMPLEMENTING, PLANNING, epic_of
from baton.core.rules.epic.planning import create_plan, planning_report
from baton.core.rules.lifecycle import on_tick as common_tick


def on_epic(ctx: Ctx, event: Event) -> Draft | None:
    """The epic's rule for the event, or None to take the common rule."""
    if ctx.record.held and isinstance(event, Commented):
        return None  # held by the retry ladder: /retry, /skip as for any issue
    match event:
        case AgentReported():
            return _on_report(ctx, event)
        case Commented():
            return on_comment(ctx, event)
        case Dispatched() | Tick():
            return _on_wake(ctx, event)
    return None


def _stale(ctx: Ctx, event: AgentReported) -> str | None:
    record = ctx.record
    if event.state and event.state != ctx.state:
        return f"the report is for {event.state}, but the epic is in {ctx.state}"
    due = record.dispatch
    if due is None or due.state != ctx.state or record.held:
        return f"{ctx.state} is not waiting on an agent"
    if event.agent and event.agent != due.agent:
        return f"the report is from {event.agent}, but {ctx.state} waits on the {due.agent}"
    return None


def _on_report(ctx: Ctx, event: AgentReported) -> Draft:
    stale = _stale(ctx, event)
    if stale:
        return Draft(Outcome.refused, f"stale report: {stale}", record=seen(ctx))
    agent = ctx.record.dispatch.agent if ctx.record.dispatch else "agent"
    if event.result is None:
        why = event.error or "the agent returned no result"
        return retry(ctx, f"the {agent}'s result was invalid", [why], actor=agent)
    result = event.result
    if result.status.value == "failure":
        feedback = [*result.issues_found] or [result.summary or "it reported a failure"]
        return retry(ctx, f"the {agent} reported a failure", feedback, actor=agent)
    if ctx.state == DISCOVERY:
        return discovery_report(ctx, result, agent)
    return planning_report(ctx, event, result, agent)


def _on_wake(ctx: Ctx, event: Dispatched | Tick) -> Draft:
    record = ctx.record
    if epic_of(record).pending_plan and ctx.state in (PLANNING, IMPLEMENTING):
        return create_plan(ctx, event)
    if ctx.state in CONDUCTING and ctx.facts.tasks is not None:
        return conductor_pass(
            ctx,
            record,
            Outcome.noted,
            "the conductor's pass",
            observations=ctx.facts.tasks,
            was=ctx.state,
        )
    due = record.dispatch
    if isinstance(event, Dispatched):
        run = event.id.removeprefix("dispatch:")
        if run and record.has_processed(f"report:{run}"):
            return Draft(
                Outcome.ignored, "this run's agent already reported; a re-run starts nothing"
            )
        if (
            due is not None
            and due.state == ctx.state
            and not record.held
            and event.issue.state != "closed"
        ):
            return Draft(
                Outcome.resume, f"{ctx.state} is due: run the {due.agent}", agent=due.agent
            )
        return Draft(Outcome.ignored, f"nothing to run in {ctx.state}")
    return common_tick(ctx, event)
