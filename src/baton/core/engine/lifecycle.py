"""The issue reopened or closed, an agent's run dispatched, and time passing (ticks)."""

from __future__ import annotations

from baton.core.authority import is_member
from baton.core.decision import Outcome
from baton.core.engine.context import BATON, Ctx, Draft, agent_due, force, move, retry
from baton.core.events import Dispatched, IssueChanged, Tick
from baton.workflow.model import StateKind


def on_issue(ctx: Ctx, event: IssueChanged) -> Draft:
    """Reopening resumes the agent or restarts a finished issue; closing only stops agents."""
    wf = ctx.workflow
    if event.action == "reopened":
        if wf.is_terminal(ctx.state):
            if wf.reopen and is_member(event.actor, ctx.policy.maintainers):
                return force(ctx, event.actor.login, wf.reopen, why="reopened", trigger="reopen")
            return Draft(Outcome.ignored, f"reopened, but {ctx.state} is terminal here")
        agent = agent_due(ctx, ctx.record)
        return Draft(Outcome.resume if agent else Outcome.ignored, "reopened", agent=agent)
    if event.action == "closed":
        return Draft(Outcome.ignored, f"closed in {ctx.state}; no agent runs while it is closed")
    return Draft(Outcome.ignored, f"issue {event.action}: nothing to act on")


def on_dispatch(ctx: Ctx, event: Dispatched) -> Draft:
    """A dispatched run starts the state's agent, unless none is due or it already reported."""
    run = event.id.removeprefix("dispatch:")
    if run and ctx.record.has_processed(f"report:{run}"):
        return Draft(Outcome.ignored, "this run's agent already reported; a re-run starts nothing")
    agent = agent_due(ctx, ctx.record)
    if agent is None:
        return Draft(Outcome.ignored, f"nothing to run: {ctx.state} has no agent due")
    return Draft(Outcome.resume, f"{ctx.state} is due: run the {agent}", agent=agent)


def on_tick(ctx: Ctx, event: Tick) -> Draft:
    """The sweep: an unanswered wait times out, and a silent agent climbs the retry ladder."""
    wf, record = ctx.workflow, ctx.record
    spec = wf.spec(ctx.state)
    waiting = spec.kind is StateKind.waiting and not record.held
    timeout = spec.timeout if waiting else None
    if timeout and timeout.to and ctx.now - record.entered_at >= timeout.after:
        target = timeout.to
        waited = ctx.now - record.entered_at
        moved = move(
            ctx,
            target,
            reason=f"no answer for {waited.days} days",
            actor=BATON,
            trigger="timeout",
        )
        return Draft(
            Outcome.transition,
            f"{ctx.state} → {target}: the wait timed out",
            record=moved,
            agent=agent_due(ctx, moved),
        )
    if spec.kind is StateKind.work and not record.held and record.dispatch:
        limit = spec.timeout.after if spec.timeout else ctx.policy.agent_timeout
        if limit is not None and ctx.now - record.dispatch.at >= limit:
            return retry(
                ctx,
                f"the {spec.agent} did not report within {limit}",
                list(record.feedback),
                actor=BATON,
            )
    return Draft(Outcome.ignored, f"nothing is due in {ctx.state}")
