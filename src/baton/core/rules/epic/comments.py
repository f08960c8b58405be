"""Comments on an epic: who may give the epic's commands, and what they do in each phase
(the dialogue's are `dialogue`'s): `/resume` or `/retry` when blocked, `/replan`, approval and
`/continue` when completing, anyone else's reply kept for the next agent."""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.commands import EpicVerb, Verb
from baton.core.model.decision import Outcome
from baton.core.model.events import Commented
from baton.core.model.record import clip
from baton.core.rules import budget
from baton.core.rules.authority import is_member, may_answer
from baton.core.rules.context import Ctx, Draft, dispatch, move, seen
from baton.core.rules.epic.breaker import half_open
from baton.core.rules.epic.dialogue import discovery_comment
from baton.core.rules.epic.passes import conductor_pass
from baton.core.rules.epic.phases import (
    BLOCKED,
    COMPLETING,
    DISCOVERY,
    DONE,
    IMPLEMENTING,
    PLANNING,
    epic_of,
    epic_spend,
    input_of,
    refused,
    with_epic,
)
from baton.core.rules.humans import on_comment as common_comment
from baton.core.text import epic as texts


def on_comment(ctx: Ctx, event: Commented) -> Draft | None:
    record = ctx.record
    if record.has_processed(event.id) or (
        not event.edited and event.comment_id <= record.last_comment_id
    ):
        return Draft(Outcome.ignored, f"comment {event.comment_id} was already handled")
    if event.edited and not ctx.policy.allow_edited_approvals:
        return Draft(Outcome.ignored, "an edited comment does not count (allow_edited_approvals)")
    if event.comment_id and event.comment_id <= record.entered_after_comment:
        return Draft(Outcome.ignored, f"comment {event.comment_id} predates {ctx.state}")
    common = event.command
    ours = event.epic_command
    approver = is_member(event.actor, ctx.policy.approvers, ctx.facts)
    if (
        (common is not None or ours is not None)
        and not approver
        and not (
            ours is not None
            and ours.verb in (EpicVerb.generate, EpicVerb.continue_)
            and ctx.state == DISCOVERY
            and may_answer(event.actor, event.issue.author, ctx.policy, ctx.facts)
        )
    ):
        return (
            common_comment(ctx, event)
            if common is not None
            else refused(ctx, event, "only approvers give the epic's commands")
        )
    if ctx.state == DISCOVERY:
        return discovery_comment(ctx, event, common, ours)
    if ctx.state == BLOCKED and ctx.record.escalated_from in (DISCOVERY, PLANNING):
        return common_comment(ctx, event)  # the retry ladder escalated it: /retry, /replan
    if ctx.state == BLOCKED:
        if (ours is not None and ours.verb is EpicVerb.resume) or (
            common is not None and common.verb is Verb.retry
        ):
            return _resume(ctx, event)
        if common is not None and common.verb is Verb.replan:
            return _replan(ctx, event, common.argument)
    if ctx.state == COMPLETING:
        if common is not None and common.verb is Verb.approve:
            moved = move(
                ctx,
                DONE,
                reason=f"approved by {event.actor.login}",
                actor=event.actor.login,
                trigger="approval",
                human=True,
            )
            return Draft(
                Outcome.transition,
                f"{COMPLETING} → {DONE}: approved by {event.actor.login}",
                record=moved,
            )
        if ours is not None and ours.verb is EpicVerb.continue_:
            return _continue(ctx, event, ours.argument)
    if common is not None or ours is not None:
        what = ours.verb.value if ours else common.verb.value if common else ""
        return refused(ctx, event, f"`{what}` does nothing while the epic is in {ctx.state}")
    if may_answer(event.actor, event.issue.author, ctx.policy, ctx.facts):
        kept = [*record.pending_input, input_of(ctx, event)][-5:]
        return Draft(
            Outcome.noted,
            f"kept the reply of {event.actor.login} for the next agent",
            record=seen(ctx).model_copy(update={"pending_input": kept}),
        )
    return Draft(Outcome.ignored, f"{event.actor.login} is not one whose replies are taken")


def _resume(ctx: Ctx, event: Commented) -> Draft:
    record = ctx.record
    epic = epic_of(record)
    stop = budget.spent(epic_spend(record), ctx.policy.budgets.epic, what="this epic")
    if stop:
        return refused(ctx, event, f"{stop}; raise `budgets.epic` in the config first")
    breaker = half_open(epic.breaker)
    epic = epic.model_copy(update={"breaker": breaker, "budget_stop": None})
    who = event.actor.login
    moved = with_epic(
        move(
            ctx, IMPLEMENTING, reason=f"resumed by {who}", actor=who, trigger="command", human=True
        ),
        epic,
    )
    probe = breaker.state == "half_open"
    return conductor_pass(
        replace(ctx, record=moved),
        moved,
        Outcome.transition,
        f"{BLOCKED} → {IMPLEMENTING}: resumed by {who}",
        observations=ctx.facts.tasks,
        extra_message=texts.resumed(probe),
        was=BLOCKED,
    )


def _replan(ctx: Ctx, event: Commented, why: str) -> Draft:
    who = event.actor.login
    moved = move(
        ctx, PLANNING, reason=f"replan asked by {who}", actor=who, trigger="command", human=True
    )
    moved = moved.model_copy(update={"pending_input": [input_of(ctx, event)]})
    return Draft(
        Outcome.transition,
        f"{BLOCKED} → {PLANNING}: replan asked by {who}",
        record=moved,
        agent=moved.dispatch.agent if moved.dispatch else None,
    )


def _continue(ctx: Ctx, event: Commented, request: str) -> Draft:
    who = event.actor.login
    if not request.strip():
        return refused(ctx, event, "say what to add: `/continue <what else>`")
    epic = epic_of(ctx.record).model_copy(update={"extension": clip(request, 2_000)})
    planner = ctx.workflow.agent_of(PLANNING) or "planner"
    moved = move(
        ctx, IMPLEMENTING, reason=f"continued by {who}", actor=who, trigger="command", human=True
    )
    moved = with_epic(
        moved,
        epic,
        dispatch=dispatch(ctx, planner, IMPLEMENTING, 1),
        pending_input=[input_of(ctx, event)],
    )
    return Draft(
        Outcome.transition,
        f"{COMPLETING} → {IMPLEMENTING}: continued by {who}; the {planner} plans more tasks",
        record=moved,
        agent=planner,
    )
