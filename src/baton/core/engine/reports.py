"""Agent reports: a proposal the table allows, else the PM rules, else the retry ladder."""

from __future__ import annotations

from dataclasses import replace

from baton.core import messages
from baton.core.agent_result import AgentResult
from baton.core.decision import Outcome
from baton.core.engine.context import (
    BATON,
    Ctx,
    Draft,
    agent_due,
    escalate,
    escalation_message,
    limit_breach,
    move,
    retry,
    seen,
)
from baton.core.events import AgentReported
from baton.core.pm_rules import facts_for, pick
from baton.core.record import KEEP_FEEDBACK, LastReport, clip
from baton.workflow.model import ESCALATE, RETRY, StateKind


def on_report(ctx: Ctx, event: AgentReported) -> Draft:
    """An agent's report: a stale one is refused, a fresh one moves, retries or escalates."""
    wf, record = ctx.workflow, ctx.record
    spec = wf.spec(ctx.state)
    stale = None
    if event.state and event.state != ctx.state:
        stale = f"the report is for {event.state}, but the issue is in {ctx.state}"
    elif spec.kind is not StateKind.work or record.held:
        stale = f"{ctx.state} is not waiting on an agent"
    elif event.agent and event.agent != spec.agent:
        stale = f"the report is from {event.agent}, but {ctx.state} belongs to {spec.agent}"
    if stale:
        # Remembered, so the same report delivered again later can never apply to a new state.
        return Draft(Outcome.refused, f"stale report: {stale}", record=seen(ctx))
    agent = spec.agent or "agent"
    if event.result is None:
        why = event.error or "the agent returned no result"
        return retry(ctx, f"the {agent}'s result was invalid", [why], actor=agent)
    result = event.result
    feedback = [*result.issues_found] or ([result.summary] if result.summary else [])
    report = LastReport(
        agent=agent,
        state=ctx.state,
        status=result.status.value,
        confidence=result.confidence,
        summary=clip(result.summary, 1500),
        at=ctx.now,
    )
    ctx = replace(ctx, record=record.model_copy(update={"last_report": report}))

    if result.next_state is not None:
        proposed = result.next_state
        if wf.allows(ctx.state, proposed):
            return _advance(ctx, proposed, f"proposed by the {agent}", result, agent)
        allowed = ", ".join(wf.targets(ctx.state)) or "none"
        why = f"the {agent} proposed {proposed}, which {ctx.state} cannot move to"
        return retry(ctx, why, [f"{why} (allowed: {allowed})", *feedback], actor=agent)
    rule = pick(wf.rules.get(ctx.state, []), facts_for(ctx.record, result))
    if rule is None:
        why = f"no PM rule of {ctx.state} matches a {result.status.value} result"
        return retry(ctx, why, [f"{why}; propose next_state", *feedback], actor=agent)
    why = rule.why or f"rule to {rule.to}"
    if rule.to == RETRY:
        return retry(ctx, why, feedback, actor=agent)
    if rule.to == ESCALATE:
        return escalate(ctx, why, actor=agent)
    return _advance(ctx, rule.to, why, result, agent)


def _advance(ctx: Ctx, target: str, why: str, result: AgentResult, agent: str) -> Draft:
    """Move where the report leads if the gate and the limits allow, with the message to post."""
    wf = ctx.workflow
    if wf.spec(target).requires_approval and not facts_for(ctx.record, result).approved:
        gates = [s for s, spec in wf.states.items() if spec.approval and wf.allows(ctx.state, s)]
        ask = f"; propose {', '.join(gates)} to ask for it" if gates else ""
        why = f"{target} needs a human approval first, and none was given"
        return retry(ctx, why, [why + ask], actor=agent)
    breach = limit_breach(ctx, target)
    if breach:
        return escalate(ctx, breach, actor=BATON)
    record = ctx.record
    questions = list(result.questions) or list(record.open_questions)
    spec = wf.spec(target)
    # A relay state (a PM routing the work) hands on what it was given; any other agent has
    # consumed the feedback and the human input meant for it.
    relay = wf.spec(ctx.state).relay
    feedback = [clip(f, 500) for f in result.issues_found][:KEEP_FEEDBACK]
    if relay and not feedback:
        feedback = list(record.feedback)
    moved = move(
        ctx,
        target,
        reason=f"{why} ({result.status.value}, confidence {result.confidence:.2f})",
        actor=agent,
        trigger="report",
        feedback=feedback,
        open_questions=[clip(q, 500) for q in questions][:KEEP_FEEDBACK],
        pending_input=list(record.pending_input) if relay else [],
        approval=None,  # an approval never carries over past the agent that acted on it
    )
    message = None
    if target == wf.escalation.state:
        moved = moved.model_copy(update={"escalated_from": ctx.state})
        message = escalation_message(ctx, why, moved_to=target)
    elif spec.kind is StateKind.waiting:
        if spec.reply and not spec.approval:
            message = messages.questions(target, agent, result.summary, questions)
        else:
            message = messages.approval_request(
                target, result.summary, ctx.policy, replies_allowed=spec.reply is not None
            )
    elif spec.kind is StateKind.terminal:
        message = messages.finished(target, result.summary)
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: {why}",
        record=moved,
        message=message,
        agent=agent_due(ctx, moved),
    )
