"""`decide`: every rule of the workflow, as one pure function of plain data.

No I/O and no clock (the time is the event's `at`). The result is a `Decision` that `apply`
carries out. Rules, in the order a reader meets them:

* entry: a trigger label or a status label from a maintainer, or an opened issue when the
  config enters every issue;
* agent reports: a proposed next state applies only if the table allows it, otherwise the PM
  rules pick; failures climb the retry ladder (the same agent with feedback, then a fresh
  context, then a human);
* humans: replies and approvals in waiting states, escalation commands, forced relabels;
* limits: seed 000's loop detection and max iterations escalate to a human;
* time: waiting states that outlive their timeout move on, silent agents are dispatched again;
* drift: labels that disagree with the record are repaired, and the repair is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, assert_never

from baton.core import messages
from baton.core.agent_result import AgentResult
from baton.core.authority import is_member, may_answer
from baton.core.comment_commands import ESCALATION_VERBS, Command, Verb, parse_command
from baton.core.decision import Decision, Outcome, Reaction
from baton.core.events import (
    AgentReported,
    Commented,
    Dispatched,
    Event,
    IssueChanged,
    Labeled,
    Tick,
)
from baton.core.issue_facts import Actor
from baton.core.pm_rules import facts_for, pick, success_target
from baton.core.record import (
    EXCERPT,
    KEEP_FEEDBACK,
    OUTBOX_LIMIT,
    Approval,
    Dispatch,
    Entry,
    HumanInput,
    LastReport,
    Outbox,
    Record,
    clip,
)
from baton.workflow.config import Policy
from baton.workflow.model import ESCALATE, RETRY, StateKind, Workflow

BATON = "baton"


# --- the working context of one decision ------------------------------------------------------
@dataclass(frozen=True)
class Ctx:
    record: Record
    event: Event
    workflow: Workflow
    policy: Policy

    @property
    def now(self) -> datetime:
        return self.event.at

    @property
    def state(self) -> str:
        return self.record.state

    def label(self, state: str) -> str:
        return self.workflow.label_for(state, self.policy.label_prefix)


@dataclass(frozen=True)
class Draft:
    """What a rule decided, before `_finish` adds the label projection, drift repairs and the
    record's revision: the draft of a `Decision`."""

    outcome: Outcome
    reason: str
    record: Record | None = None  # None: the record does not change
    message: str | None = None
    reaction: Reaction | None = None
    agent: str | None = None
    forced: bool = False
    remove: tuple[str, ...] = ()  # labels the decision itself removes (a refused relabel)


def _agent_due(ctx: Ctx, record: Record) -> str | None:
    if record.held or ctx.event.issue.state == "closed":
        return None
    return ctx.workflow.agent_of(record.state)


def _move(
    ctx: Ctx,
    target: str,
    *,
    reason: str,
    actor: str,
    trigger: str,
    forced: bool = False,
    human: bool = False,
    **changes: Any,
) -> Record:
    """The record after moving to `target`: history, counters and the dispatch it implies."""
    record = ctx.record
    iteration = record.iteration + 1
    visits = {} if human else dict(record.visits)
    visits[target] = visits.get(target, 0) + 1
    entry = Entry(
        at=ctx.now,
        from_state=record.state,
        to_state=target,
        reason=clip(reason, 400),
        actor=actor,
        trigger=trigger,
        forced=forced,
        iteration=iteration,
    )
    agent = ctx.workflow.agent_of(target)
    update: dict[str, Any] = {
        "state": target,
        "entered_at": ctx.now,
        "iteration": iteration,
        "attempt": 1,
        "visits": visits,
        "history": [*record.history, entry],
        "held": False,
        "escalated_from": None,
        "dispatch": _dispatch(ctx, agent, target, 1) if agent else None,
        "processed": record.remember(ctx.event.id),
        "last_comment_id": _comment_floor(ctx, record),
        "entered_after_comment": max(ctx.event.comments_seen, record.entered_after_comment),
    }
    if human:
        update["budget_from"] = iteration
    update.update(changes)
    return record.model_copy(update=update)


def _dispatch(ctx: Ctx, agent: str, state: str, attempt: int) -> Dispatch:
    event = ctx.event
    return Dispatch(
        agent=agent, state=state, attempt=attempt, at=ctx.now, by=event.id, run=event.run_id
    )


def _comment_floor(ctx: Ctx, record: Record) -> int:
    """Every human comment up to this id has been considered (catch-up starts above it).

    A label or report run does not look at comments, so it never lifts the floor: an approval
    whose own run comes later must not be found "already handled". (A comment written before
    the current state was entered never counts as a reply to it: see `_predates`.)"""
    event = ctx.event
    own = event.comment_id if isinstance(event, Commented) else 0
    blind = isinstance(event, Labeled | AgentReported)
    return max(record.last_comment_id, 0 if blind else event.comments_upto, own)


def _predates(ctx: Ctx, event: Commented) -> bool:
    """A comment written before the issue entered its state answers an older question.
    Comment ids only grow, so the newest id the moving run saw marks the entry; no clocks."""
    return not event.edited and event.comment_id <= ctx.record.entered_after_comment


def _seen(ctx: Ctx, record: Record | None = None) -> Record:
    base = record or ctx.record
    update: dict[str, Any] = {
        "processed": base.remember(ctx.event.id),
        "last_comment_id": _comment_floor(ctx, base),
    }
    return base.model_copy(update=update)


# --- limits, retries and escalation ---------------------------------------------------------
def _limit_breach(ctx: Ctx, target: str) -> str | None:
    limits = ctx.workflow.limits
    record = ctx.record
    used = record.iteration + 1 - record.budget_from
    if used > limits.max_iterations:
        return (
            f"the issue reached the limit of {limits.max_iterations} transitions "
            "since a human last stepped in"
        )
    since_human = [e.to_state for e in record.history if e.iteration > record.budget_from] + [
        target
    ]
    window = since_human[-limits.loop_window :]
    if len(window) >= limits.loop_window and len(set(window)) <= limits.loop_distinct:
        cycle = " ↔ ".join(dict.fromkeys(window))
        return f"a loop was detected: the last {limits.loop_window} states cycle through {cycle}"
    return None


def _escalation_message(ctx: Ctx, why: str, *, moved_to: str | None) -> str:
    wf, origin = ctx.workflow, ctx.state
    return messages.escalation(
        origin,
        why,
        retry_to=wf.escalation.retry or origin,
        skip_to=wf.escalation.skip or success_target(wf, ctx.record, origin),
        replan_to=wf.escalation.replan,
        policy=ctx.policy,
        moved_to=moved_to,
    )


def _escalate(ctx: Ctx, why: str, *, actor: str, extra: dict[str, Any] | None = None) -> Draft:
    origin = ctx.state
    target = ctx.workflow.escalation.state
    if target and target != origin:
        record = _move(
            ctx, target, reason=why, actor=actor, trigger="escalation", **(extra or {})
        ).model_copy(update={"escalated_from": origin})
        message = _escalation_message(ctx, why, moved_to=target)
        return Draft(Outcome.transition, f"escalated: {why}", record=record, message=message)
    record = _seen(ctx).model_copy(
        update={"held": True, "escalated_from": origin, "dispatch": None, **(extra or {})}
    )
    message = _escalation_message(ctx, why, moved_to=None)
    return Draft(Outcome.noted, f"held for a human: {why}", record=record, message=message)


def _retry(ctx: Ctx, why: str, feedback: list[str], *, actor: str) -> Draft:
    """The retry ladder: same agent with feedback, then a fresh context, then a human."""
    record = ctx.record
    limits = ctx.workflow.limits
    kept = [clip(f, 500) for f in feedback if f][:KEEP_FEEDBACK]
    if record.attempt >= limits.max_attempts:
        return _escalate(
            ctx,
            f"{why}; attempt {record.attempt} of {limits.max_attempts} failed",
            actor=actor,
            extra={"feedback": kept},
        )
    attempt = record.attempt + 1
    agent = ctx.workflow.agent_of(record.state)
    fresh = attempt >= limits.fresh_context_from_attempt
    updated = _seen(ctx).model_copy(
        update={
            "attempt": attempt,
            "feedback": kept,
            "dispatch": _dispatch(ctx, agent, record.state, attempt) if agent else None,
        }
    )
    how = "from a fresh context" if fresh else "with the feedback"
    return Draft(
        Outcome.retry,
        f"{why}; attempt {attempt} of {limits.max_attempts} runs {how}",
        record=updated,
        agent=agent,
    )


# --- agent reports ------------------------------------------------------------------------------
def _on_report(ctx: Ctx, event: AgentReported) -> Draft:
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
        return Draft(Outcome.refused, f"stale report: {stale}", record=_seen(ctx))
    agent = spec.agent or "agent"
    if event.result is None:
        why = event.error or "the agent returned no result"
        return _retry(ctx, f"the {agent}'s result was invalid", [why], actor=agent)
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
        return _retry(ctx, why, [f"{why} (allowed: {allowed})", *feedback], actor=agent)
    rule = pick(wf.rules.get(ctx.state, []), facts_for(ctx.record, result))
    if rule is None:
        why = f"no PM rule of {ctx.state} matches a {result.status.value} result"
        return _retry(ctx, why, [f"{why}; propose next_state", *feedback], actor=agent)
    why = rule.why or f"rule to {rule.to}"
    if rule.to == RETRY:
        return _retry(ctx, why, feedback, actor=agent)
    if rule.to == ESCALATE:
        return _escalate(ctx, why, actor=agent)
    return _advance(ctx, rule.to, why, result, agent)


def _advance(ctx: Ctx, target: str, why: str, result: AgentResult, agent: str) -> Draft:
    wf = ctx.workflow
    if wf.spec(target).requires_approval and not facts_for(ctx.record, result).approved:
        gates = [s for s, spec in wf.states.items() if spec.approval and wf.allows(ctx.state, s)]
        ask = f"; propose {', '.join(gates)} to ask for it" if gates else ""
        why = f"{target} needs a human approval first, and none was given"
        return _retry(ctx, why, [why + ask], actor=agent)
    breach = _limit_breach(ctx, target)
    if breach:
        return _escalate(ctx, breach, actor=BATON)
    record = ctx.record
    questions = list(result.questions) or list(record.open_questions)
    spec = wf.spec(target)
    # A relay state (a PM routing the work) hands on what it was given; any other agent has
    # consumed the feedback and the human input meant for it.
    relay = wf.spec(ctx.state).relay
    feedback = [clip(f, 500) for f in result.issues_found][:KEEP_FEEDBACK]
    if relay and not feedback:
        feedback = list(record.feedback)
    moved = _move(
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
        message = _escalation_message(ctx, why, moved_to=target)
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
        agent=_agent_due(ctx, moved),
    )


# --- humans: comments ----------------------------------------------------------------------
def _refuse(ctx: Ctx, actor: Actor, why: str, comment_id: int | None) -> Draft:
    return Draft(
        Outcome.refused,
        f"refused {actor.login}: {why}",
        record=_seen(ctx),
        message=messages.refusal(actor.login, why),
        reaction=Reaction(comment_id=comment_id, content="confused") if comment_id else None,
    )


def _on_comment(ctx: Ctx, event: Commented) -> Draft:
    if ctx.record.has_processed(event.id) or (
        not event.edited and event.comment_id <= ctx.record.last_comment_id
    ):
        return Draft(Outcome.ignored, f"comment {event.comment_id} was already handled")
    if event.edited and not ctx.policy.allow_edited_approvals:
        return Draft(Outcome.ignored, "an edited comment does not count (allow_edited_approvals)")
    command = parse_command(event.body, ctx.policy.approval_words)
    spec = ctx.workflow.spec(ctx.state)
    escalated = ctx.record.held or (
        ctx.state == ctx.workflow.escalation.state and ctx.record.escalated_from is not None
    )
    if command and command.verb in ESCALATION_VERBS:
        if not escalated and ctx.state != ctx.workflow.escalation.state:
            return _refuse(
                ctx,
                event.actor,
                f"/{command.verb} works only when the issue waits for a human decision; "
                f"it is in {ctx.state}",
                event.comment_id,
            )
        return _on_escalation_command(ctx, event, command)
    if spec.kind is StateKind.waiting and _predates(ctx, event):
        return Draft(
            Outcome.ignored,
            f"comment {event.comment_id} was written before the issue entered {ctx.state}",
        )
    if command and command.verb is Verb.approve:
        if spec.kind is not StateKind.waiting or spec.approval is None or ctx.record.held:
            return _refuse(
                ctx,
                event.actor,
                f"there is nothing to approve: the issue is in {ctx.state}",
                event.comment_id,
            )
        if not is_member(event.actor, ctx.policy.approvers):
            return _refuse(
                ctx,
                event.actor,
                "only approvers can approve here "
                f"(needs {ctx.policy.approvers.permission or 'a listed user or team'}); "
                "nothing changed",
                event.comment_id,
            )
        return _human_move(ctx, event, spec.approval, approved=True)
    if spec.kind is StateKind.waiting and not ctx.record.held:
        if not may_answer(event.actor, event.issue.author, ctx.policy):
            return Draft(
                Outcome.ignored,
                f"{event.actor.login} may not answer here "
                f"(config: answerers={ctx.policy.answerers})",
            )
        if spec.reply is None:
            kept = _keep_input(ctx, event)
            return Draft(
                Outcome.noted,
                f"a reply in {ctx.state} is kept for the next agent; only an approval moves on",
                record=kept,
                reaction=Reaction(comment_id=event.comment_id),
            )
        return _human_move(ctx, event, spec.reply, approved=False)
    return Draft(Outcome.ignored, f"a comment with no command while the issue is in {ctx.state}")


def _human_input(ctx: Ctx, event: Commented) -> HumanInput:
    return HumanInput(
        author=event.actor.login,
        excerpt=clip(event.body, EXCERPT),
        comment_id=event.comment_id,
        state=ctx.state,
        at=ctx.now,
    )


def _keep_input(ctx: Ctx, event: Commented) -> Record:
    pending = [*ctx.record.pending_input, _human_input(ctx, event)][-KEEP_FEEDBACK:]
    return _seen(ctx).model_copy(update={"pending_input": pending})


def _human_move(ctx: Ctx, event: Commented, target: str, *, approved: bool) -> Draft:
    record = ctx.record
    approval = (
        Approval(
            by=event.actor.login,
            state=ctx.state,
            iteration=record.iteration,
            comment_id=event.comment_id,
            at=ctx.now,
        )
        if approved
        else None
    )
    what = "approved" if approved else "replied"
    moved = _move(
        ctx,
        target,
        reason=f"{event.actor.login} {what}",
        actor=event.actor.login,
        trigger="approval" if approved else "reply",
        pending_input=[*record.pending_input, _human_input(ctx, event)][-KEEP_FEEDBACK:],
        open_questions=[],
        approval=approval,
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: {event.actor.login} {what}",
        record=moved,
        reaction=Reaction(comment_id=event.comment_id),
        agent=_agent_due(ctx, moved),
    )


def _on_escalation_command(ctx: Ctx, event: Commented, command: Command) -> Draft:
    actor = event.actor
    if not is_member(actor, ctx.policy.approvers):
        return _refuse(
            ctx, actor, f"only approvers can use /{command.verb}; nothing changed", event.comment_id
        )
    wf, record = ctx.workflow, ctx.record
    origin = record.escalated_from or (ctx.state if record.held else None)
    if command.verb is Verb.retry:
        target = wf.escalation.retry or origin
    elif command.verb is Verb.skip:
        target = wf.escalation.skip or (success_target(wf, record, origin) if origin else None)
    else:
        target = wf.escalation.replan
    if target is None:
        return _refuse(
            ctx,
            actor,
            f"/{command.verb} has nowhere to go here; relabel the issue to the state you want",
            event.comment_id,
        )
    guidance = [clip(command.argument, 500)] if command.argument else []
    reason = f"{actor.login}: /{command.verb}" + (f" {command.argument}" if guidance else "")
    if target == ctx.state:  # a held issue retried in place
        agent = wf.agent_of(target)
        updated = _seen(ctx).model_copy(
            update={
                "held": False,
                "escalated_from": None,
                "attempt": 1,
                "budget_from": record.iteration,
                "feedback": guidance or list(record.feedback),
                "dispatch": _dispatch(ctx, agent, target, 1) if agent else None,
            }
        )
        return Draft(
            Outcome.retry,
            reason,
            record=updated,
            reaction=Reaction(comment_id=event.comment_id),
            agent=_agent_due(ctx, updated),
            forced=True,
        )
    moved = _move(
        ctx,
        target,
        reason=reason,
        actor=actor.login,
        trigger="command",
        forced=True,
        human=True,
        feedback=guidance or list(record.feedback),
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: {reason}",
        record=moved,
        reaction=Reaction(comment_id=event.comment_id),
        agent=_agent_due(ctx, moved),
        forced=True,
    )


# --- humans: labels -------------------------------------------------------------------------
def _on_label(ctx: Ctx, event: Labeled) -> Draft:
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
    if policy.trigger_label and event.label.casefold() == policy.trigger_label.casefold():
        if wf.is_terminal(ctx.state) and is_member(event.actor, policy.maintainers):
            return _force(ctx, event.actor.login, wf.initial, why="restarted by the trigger label")
        return Draft(Outcome.ignored, f"already in the workflow at {ctx.state}; trigger consumed")
    target = wf.state_for_label(event.label, policy.label_prefix)
    if target is None:
        return Draft(
            Outcome.noted,
            f"unknown status label {event.label!r} removed",
            record=_seen(ctx),
            message=messages.unknown_label(event.label, _valid_labels(ctx)),
            remove=(event.label,),
        )
    if not is_member(event.actor, policy.maintainers):
        why = (
            f"only maintainers ({policy.maintainers.permission or 'listed users'} or above) "
            f"can move this issue; I removed {event.label} and kept {ctx.label(ctx.state)}"
        )
        return Draft(
            Outcome.refused,
            f"refused relabel by {event.actor.login}",
            record=_seen(ctx),
            message=messages.refusal(event.actor.login, why),
            remove=(event.label,),
        )
    if target == ctx.state:
        # Remembered: the same webhook delivered again later must not force the issue back.
        return Draft(
            Outcome.noted, f"{event.label} is already the issue's state", record=_seen(ctx)
        )
    return _force(ctx, event.actor.login, target, why="relabelled")


def _force(ctx: Ctx, login: str, target: str, *, why: str, trigger: str = "relabel") -> Draft:
    """A human moves the issue, edge or not: recorded as forced, limits counted afresh."""
    moved = _move(
        ctx,
        target,
        reason=f"forced by {login}: {why}",
        actor=login,
        trigger=trigger,
        forced=True,
        human=True,
        approval=None,
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: forced by {login} ({why})",
        record=moved,
        agent=_agent_due(ctx, moved),
        forced=True,
    )


def _valid_labels(ctx: Ctx) -> list[str]:
    return [ctx.label(s) for s in ctx.workflow.states]


# --- issue lifecycle, dispatches, time ------------------------------------------------------
def _on_issue(ctx: Ctx, event: IssueChanged) -> Draft:
    wf = ctx.workflow
    if event.action == "reopened":
        if wf.is_terminal(ctx.state):
            if wf.reopen and is_member(event.actor, ctx.policy.maintainers):
                return _force(ctx, event.actor.login, wf.reopen, why="reopened", trigger="reopen")
            return Draft(Outcome.ignored, f"reopened, but {ctx.state} is terminal here")
        agent = _agent_due(ctx, ctx.record)
        return Draft(Outcome.resume if agent else Outcome.ignored, "reopened", agent=agent)
    if event.action == "closed":
        return Draft(Outcome.ignored, f"closed in {ctx.state}; no agent runs while it is closed")
    return Draft(Outcome.ignored, f"issue {event.action}: nothing to act on")


def _on_dispatch(ctx: Ctx, event: Dispatched) -> Draft:
    run = event.id.removeprefix("dispatch:")
    if run and ctx.record.has_processed(f"report:{run}"):
        return Draft(Outcome.ignored, "this run's agent already reported; a re-run starts nothing")
    agent = _agent_due(ctx, ctx.record)
    if agent is None:
        return Draft(Outcome.ignored, f"nothing to run: {ctx.state} has no agent due")
    return Draft(Outcome.resume, f"{ctx.state} is due: run the {agent}", agent=agent)


def _on_tick(ctx: Ctx, event: Tick) -> Draft:
    wf, record = ctx.workflow, ctx.record
    spec = wf.spec(ctx.state)
    waiting = spec.kind is StateKind.waiting and not record.held
    timeout = spec.timeout if waiting else None
    if timeout and timeout.to and ctx.now - record.entered_at >= timeout.after:
        target = timeout.to
        waited = ctx.now - record.entered_at
        moved = _move(
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
            agent=_agent_due(ctx, moved),
        )
    if spec.kind is StateKind.work and not record.held and record.dispatch:
        limit = spec.timeout.after if spec.timeout else ctx.policy.agent_timeout
        if limit is not None and ctx.now - record.dispatch.at >= limit:
            return _retry(
                ctx,
                f"the {spec.agent} did not report within {limit}",
                list(record.feedback),
                actor=BATON,
            )
    return Draft(Outcome.ignored, f"nothing is due in {ctx.state}")


# --- entry --------------------------------------------------------------------------------
def _enter(event: Event, workflow: Workflow, policy: Policy) -> Decision:
    issue = event.issue
    ignored = Decision(
        outcome=Outcome.ignored,
        issue=issue.number,
        reason="the issue is not in the workflow"
        + (f" (add the {policy.trigger_label!r} label to start)" if policy.trigger_label else ""),
        event=event.kind,
    )
    target: str | None = None
    why = ""
    if isinstance(event, Labeled) and event.added:
        if policy.trigger_label and event.label.casefold() == policy.trigger_label.casefold():
            target, why = workflow.initial, "trigger label"
        else:
            state = workflow.state_for_label(event.label, policy.label_prefix)
            if state is None:
                return _decision_unknown_label(event, workflow, policy)
            if not policy.enter_on_status_label:
                return ignored
            target, why = state, f"status label {event.label}"
        if not is_member(event.actor, policy.maintainers):
            reason = f"only maintainers can start Baton on an issue; I removed {event.label}"
            return Decision(
                outcome=Outcome.refused,
                issue=issue.number,
                reason=f"refused entry by {event.actor.login}",
                labels=tuple(x for x in issue.labels if x != event.label),
                message=messages.refusal(event.actor.login, reason),
                event=event.kind,
            )
    elif isinstance(event, IssueChanged) and event.action == "opened" and policy.enter_on_open:
        target, why = workflow.initial, "opened (the config enters every issue)"
    if target is None:
        return ignored
    forced = target != workflow.initial
    record = Record(
        workflow=workflow.name,
        issue=issue.number,
        state=target,
        entered_at=event.at,
        iteration=0,
        visits={target: 1},
        history=[
            Entry(
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
        processed=[event.id] if event.id else [],
        last_comment_id=event.comments_upto,
        entered_after_comment=event.comments_seen,
        revision=1,
    )
    agent = workflow.agent_of(target)
    if agent:
        record = record.model_copy(
            update={
                "dispatch": Dispatch(
                    agent=agent, state=target, attempt=1, at=event.at, by=event.id, run=event.run_id
                )
            }
        )
    labels = _project(issue.labels, workflow.label_for(target, policy.label_prefix), policy)
    return Decision(
        outcome=Outcome.transition,
        issue=issue.number,
        reason=f"entered at {target}: {why} by {event.actor.login}",
        previous_state=None,
        state=target,
        forced=forced,
        record=record,
        labels=labels,
        agent=agent if issue.state != "closed" else None,
        event=event.kind,
    )


def _decision_unknown_label(event: Labeled, workflow: Workflow, policy: Policy) -> Decision:
    valid = [workflow.label_for(s, policy.label_prefix) for s in workflow.states]
    return Decision(
        outcome=Outcome.noted,
        issue=event.issue.number,
        reason=f"unknown status label {event.label!r} removed",
        labels=tuple(x for x in event.issue.labels if x != event.label),
        message=messages.unknown_label(event.label, valid),
        event=event.kind,
    )


# --- labels as a projection of the record --------------------------------------------------
def _is_ours(label: str, policy: Policy) -> bool:
    folded = label.casefold()
    trigger = policy.trigger_label.casefold() if policy.trigger_label else None
    return folded.startswith(policy.label_prefix.casefold()) or folded == trigger


def _project(current: tuple[str, ...], status: str | None, policy: Policy) -> tuple[str, ...]:
    """The issue's labels with exactly Baton's status label and no trigger label."""
    kept = [label for label in current if not _is_ours(label, policy)]
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
    prefix = policy.label_prefix.casefold()
    status = [label for label in current if label.casefold().startswith(prefix)]
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


def _finish(ctx: Ctx, draft: Draft) -> Decision:
    """Add the label projection, drift repairs and the record's revision to a draft."""
    record = draft.record
    state = record.state if record else ctx.state
    wanted = ctx.label(state)
    current = tuple(label for label in ctx.event.issue.labels if label not in draft.remove)
    repairs: list[str] = []
    # A move always writes its labels: the payload's snapshot may already be out of date.
    moved = record is not None and record.state != ctx.state
    if not (
        isinstance(ctx.event, Labeled) and ctx.event.added and draft.outcome is Outcome.transition
    ):
        # Compare with the state the issue was in before this decision: a transition's own
        # label swap is not drift.
        ahead = wanted if moved else None
        repairs = _drift(current, ctx.label(ctx.state), ctx.policy, ctx.workflow, ahead)
    labels = _project(current, wanted, ctx.policy)
    labels_change = moved or set(labels) != set(ctx.event.issue.labels)
    rebuilt = ctx.record.revision == 0
    if rebuilt and ctx.record.history and ctx.record.history[-1].trigger == "rebuild":
        repairs.insert(0, ctx.record.history[-1].reason)
    if rebuilt and record is None:
        record = ctx.record
    message = messages.join(draft.message, messages.notes(repairs)) if repairs else draft.message
    if repairs and record is None:
        record = _seen(ctx)  # so the note rides in the outbox: a failed post is posted again
    agent = draft.agent or (
        _rerun_agent(ctx) if record is None or record.state == ctx.state else None
    )
    if record is not None:
        revision = ctx.record.revision + 1
        outbox = Outbox(revision=revision, text=clip(message, OUTBOX_LIMIT)) if message else None
        update: dict[str, Any] = {"revision": revision, "outbox": outbox}
        pending = record.dispatch
        if agent and pending and pending.state == record.state and ctx.event.run_id:
            # This run names the agent and writes the record: a re-run of it may name it again.
            update["dispatch"] = pending.model_copy(
                update={"run": ctx.event.run_id, "by": ctx.event.id}
            )
        record = record.model_copy(update=update)
    outcome = draft.outcome
    reason = draft.reason
    if outcome is Outcome.ignored and (repairs or labels_change):
        outcome = Outcome.noted
        reason = f"{reason}; repaired: {'; '.join(repairs) or 'labels'}"
    return Decision(
        outcome=outcome,
        issue=ctx.event.issue.number,
        reason=reason,
        previous_state=ctx.state,
        state=state,
        forced=draft.forced,
        record=record,
        labels=labels if labels_change else None,
        message=message,
        reaction=draft.reaction,
        agent=agent if ctx.event.issue.state != "closed" else None,  # closed: no agent runs
        repairs=tuple(repairs),
        event=ctx.event.kind,
        event_id=ctx.event.id,
    )


def _already_applied(ctx: Ctx) -> Draft:
    """A re-delivered event changes nothing. A re-run of the very run that made the agent due
    (same GITHUB_RUN_ID) names it again: the first attempt may have died after writing the
    record and before the agent's job or dispatch. A new run for the same webhook does not."""
    agent = _rerun_agent(ctx)
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


def _rerun_agent(ctx: Ctx) -> str | None:
    """The agent an earlier attempt of this very run made due, if it is still due: that
    attempt may have died after writing the record and before the agent's job or dispatch."""
    pending = ctx.record.dispatch
    run = ctx.event.run_id
    if pending is None or not run or pending.run != run or pending.state != ctx.state:
        return None
    return _agent_due(ctx, ctx.record)


def decide(record: Record | None, event: Event, workflow: Workflow, policy: Policy) -> Decision:
    """Decide what one event does to one issue. Pure: same inputs, same decision."""
    if record is None:
        return _enter(event, workflow, policy)
    if record.state not in workflow.states:
        raise ValueError(f"record state {record.state!r} is not in workflow {workflow.name!r}")
    ctx = Ctx(record=record, event=event, workflow=workflow, policy=policy)
    if event.id and record.has_processed(event.id) and not isinstance(event, Dispatched):
        draft = _already_applied(ctx)
    else:
        draft = _rule(ctx)
    return _finish(ctx, draft)


def _rule(ctx: Ctx) -> Draft:
    """The rule for the event's kind; a kind with no case here is a type error (mypy)."""
    event = ctx.event
    match event:
        case AgentReported():
            return _on_report(ctx, event)
        case Commented():
            return _on_comment(ctx, event)
        case Labeled():
            return _on_label(ctx, event)
        case IssueChanged():
            return _on_issue(ctx, event)
        case Dispatched():
            return _on_dispatch(ctx, event)
        case Tick():
            return _on_tick(ctx, event)
        case _:
            assert_never(event)
