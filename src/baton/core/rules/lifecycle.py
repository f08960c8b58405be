"""The issue reopened or closed, an agent's run dispatched, and time passing (ticks)."""

from __future__ import annotations

from baton.core.model.decision import Outcome
from baton.core.model.events import Dispatched, IssueChanged, Tick
from baton.core.rules.authority import may_reopen
from baton.core.rules.context import (
    BATON,
    Ctx,
    Draft,
    agent_due,
    dispatch,
    force,
    move,
    retry,
    seen,
)
from baton.core.text import messages
from baton.workflow.model import StateKind


def on_issue(ctx: Ctx, event: IssueChanged) -> Draft:
    """Reopening starts an agent that is not running or restarts a finished issue, for whom the
    config's `reopeners` allows; closing only stops agents from starting."""
    if event.action == "reopened":
        return _on_reopen(ctx, event)
    if event.action == "closed":
        return Draft(Outcome.ignored, f"closed in {ctx.state}; no agent runs while it is closed")
    return Draft(Outcome.ignored, f"issue {event.action}: nothing to act on")


def _on_reopen(ctx: Ctx, event: IssueChanged) -> Draft:
    """Never a second run of an agent already due or running: closing and reopening would
    otherwise buy a duplicate paid run, and each failing duplicate would spend a retry."""
    wf, record = ctx.workflow, ctx.record
    if wf.is_terminal(ctx.state):
        if not wf.reopen:
            return Draft(Outcome.ignored, f"reopened, but {ctx.state} is terminal here")
        if not may_reopen(event.actor, event.issue.author, ctx.policy, ctx.facts):
            return _refuse_reopen(ctx, event, f"{ctx.state} stays finished")
        return force(ctx, event.actor.login, wf.reopen, why="reopened", trigger="reopen")
    agent = agent_due(ctx, record)
    if agent is None:
        why = "it is held for a human" if record.held else "no agent works in it"
        return Draft(Outcome.ignored, f"reopened in {ctx.state}: {why}")
    pending = record.dispatch
    if pending is not None and pending.state == ctx.state:
        return Draft(
            Outcome.ignored,
            f"reopened in {ctx.state}: the {pending.agent}'s run (attempt {pending.attempt}, "
            f"started {pending.at:%Y-%m-%d %H:%M} UTC) is already due or running; "
            "no second run",
        )
    if not may_reopen(event.actor, event.issue.author, ctx.policy, ctx.facts):
        return _refuse_reopen(ctx, event, f"the {agent} was not started again")
    resumed = seen(ctx).model_copy(
        update={"dispatch": dispatch(ctx, agent, ctx.state, record.attempt)}
    )
    return Draft(
        Outcome.resume,
        f"reopened in {ctx.state}: the {agent} had not started; it runs now",
        record=resumed,
        agent=agent,
    )


def _refuse_reopen(ctx: Ctx, event: IssueChanged, what: str) -> Draft:
    """The issue stays open, but its work does not restart; the message says who may."""
    who = {
        "author-or-maintainers": "the issue's author and maintainers",
        "anyone": "anyone but a bot",
    }.get(ctx.policy.reopeners, "only maintainers")
    why = (
        f"{who} can restart work by reopening this issue; {what}. A maintainer can "
        f"reopen it or relabel it to the state to work on."
    )
    return Draft(
        Outcome.refused,
        f"refused reopen by {event.actor.login}",
        record=seen(ctx),
        message=messages.refusal(event.actor.login, why),
    )


def on_dispatch(ctx: Ctx, event: Dispatched) -> Draft:
    """A dispatched run starts the state's agent, unless none is due or it already reported.
    On a closed issue it starts none, and the record forgets the run so a reopen starts it."""
    run = event.id.removeprefix("dispatch:")
    if run and ctx.record.has_processed(f"report:{run}"):
        return Draft(Outcome.ignored, "this run's agent already reported; a re-run starts nothing")
    pending = ctx.record.dispatch
    if event.nonce and (pending is None or pending.nonce != event.nonce):
        # A hand-over for an attempt Baton no longer waits on: a late run starts nothing.
        return Draft(Outcome.ignored, f"the hand-over {event.nonce} is for an earlier run")
    agent = agent_due(ctx, ctx.record)
    if agent is None:
        if event.issue.state == "closed" and pending is not None:
            return Draft(
                Outcome.noted,
                f"closed before the {pending.agent}'s run started; reopening starts it",
                record=seen(ctx).model_copy(update={"dispatch": None}),
            )
        return Draft(Outcome.ignored, f"nothing to run: {ctx.state} has no agent due")
    if event.nonce:
        # A hand-over is its own agent job's to run (or to refuse): deciding it here (a
        # refused hand-over, a dispatch another identity sent) starts no second run of it.
        return Draft(
            Outcome.ignored, f"the {agent}'s run {event.nonce} is its hand-over's to start"
        )
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
