"""Human comments: replies and approvals in waiting states, and escalation commands."""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.commands import ESCALATION_VERBS, CommentCommand, Verb
from baton.core.model.decision import Outcome, Reaction
from baton.core.model.events import Commented
from baton.core.model.issue_facts import Actor
from baton.core.model.record import EXCERPT, KEEP_FEEDBACK, Approval, HumanInput, Record, clip
from baton.core.rules import proof
from baton.core.rules.authority import is_member, may_answer
from baton.core.rules.context import Ctx, Draft, agent_due, dispatch, move, seen
from baton.core.rules.pm_rules import success_target
from baton.core.text import messages
from baton.workflow.model import StateKind


def refuse(ctx: Ctx, actor: Actor, why: str, comment_id: int | None) -> Draft:
    """Say why a human's command changed nothing, and mark the comment confused."""
    return _refused(ctx, actor.login, why, comment_id)


def _refused(ctx: Ctx, login: str, why: str, comment_id: int | None) -> Draft:
    return Draft(
        Outcome.refused,
        f"refused {login}: {why}",
        record=seen(ctx),
        message=messages.refusal(login, why),
        reaction=Reaction(comment_id=comment_id, content="confused") if comment_id else None,
    )


def on_comment(ctx: Ctx, event: Commented) -> Draft:
    """A comment: an escalation command, an approval at a gate, or a reply to a question."""
    if ctx.record.has_processed(event.id) or (
        not event.edited and event.comment_id <= ctx.record.last_comment_id
    ):
        return Draft(Outcome.ignored, f"comment {event.comment_id} was already handled")
    if event.edited and not ctx.policy.allow_edited_approvals:
        return Draft(Outcome.ignored, "an edited comment does not count (allow_edited_approvals)")
    command = event.command
    spec = ctx.workflow.spec(ctx.state)
    escalated = ctx.record.held or (
        ctx.state == ctx.workflow.escalation.state and ctx.record.escalated_from is not None
    )
    if command and command.verb in ESCALATION_VERBS:
        if not escalated and ctx.state != ctx.workflow.escalation.state:
            return refuse(
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
            return refuse(
                ctx,
                event.actor,
                f"there is nothing to approve: the issue is in {ctx.state}",
                event.comment_id,
            )
        if not is_member(event.actor, ctx.policy.approvers, ctx.facts):
            return refuse(
                ctx,
                event.actor,
                "only approvers can approve here "
                f"(needs {ctx.policy.approvers.permission or 'a listed user or team'}); "
                "nothing changed",
                event.comment_id,
            )
        return _human_move(ctx, event, spec.approval, approved=True)
    if spec.kind is StateKind.waiting and not ctx.record.held:
        if not may_answer(event.actor, event.issue.author, ctx.policy, ctx.facts):
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


def _predates(ctx: Ctx, event: Commented) -> bool:
    """A comment written before the issue entered its state answers an older question.
    Comment ids only grow, so the newest id the moving run saw marks the entry; no clocks."""
    return not event.edited and event.comment_id <= ctx.record.entered_after_comment


def _human_input(ctx: Ctx, event: Commented) -> HumanInput:
    """The reply as the next agent reads it: an excerpt, and where the whole comment is."""
    return human_input(ctx, event.actor.login, event.body, event.comment_id)


def human_input(ctx: Ctx, login: str, text: str, comment_id: int | None) -> HumanInput:
    """A human's words as the next agent reads them (a reply, a review): an excerpt, and the
    comment holding the whole text when there is one."""
    return HumanInput(
        author=login,
        excerpt=clip(text, EXCERPT),
        comment_id=comment_id,
        state=ctx.state,
        at=ctx.now,
    )


def _keep_input(ctx: Ctx, event: Commented) -> Record:
    """A reply where only an approval moves on: kept for the next agent."""
    pending = [*ctx.record.pending_input, _human_input(ctx, event)][-KEEP_FEEDBACK:]
    return seen(ctx).model_copy(update={"pending_input": pending})


def _human_move(ctx: Ctx, event: Commented, target: str, *, approved: bool) -> Draft:
    """A reply or an approval moves the issue along its waiting state's edge."""
    return human_move(
        ctx,
        event.actor.login,
        target,
        approved=approved,
        said=_human_input(ctx, event),
        comment_id=event.comment_id,
    )


def human_move(
    ctx: Ctx,
    login: str,
    target: str,
    *,
    approved: bool,
    said: HumanInput,
    comment_id: int | None,
    what: str | None = None,
    trigger: str | None = None,
) -> Draft:
    """A human's reply or approval (in a comment, or a pull request's review) moves the issue
    along its waiting state's edge; an approval is bound to the state and iteration it was
    given in, so it counts only on the way out of this gate."""
    record = ctx.record
    approval = (
        Approval(
            by=login,
            state=ctx.state,
            iteration=record.iteration,
            comment_id=comment_id,
            at=ctx.now,
        )
        if approved
        else None
    )
    what = what or ("approved" if approved else "replied")
    signing = approved and proof.signs_off(ctx.workflow, ctx.policy, ctx.state)
    if signing:
        # The approval signs off the red proof: the tests it names are frozen from now on.
        signed = proof.signed_off(record, login, ctx.now)
        if signed is None:
            return _refused(ctx, login, proof.NOTHING_TO_SIGN, comment_id)
        record = signed
        ctx = replace(ctx, record=signed)
        what = f"{what}, signing off the tests"
    moved = move(
        ctx,
        target,
        reason=f"{login} {what}",
        actor=login,
        trigger=trigger or ("approval" if approved else "reply"),
        pending_input=[*record.pending_input, said][-KEEP_FEEDBACK:],
        open_questions=[],
        approval=approval,
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: {login} {what}",
        record=moved,
        reaction=Reaction(comment_id=comment_id) if comment_id else None,
        agent=agent_due(ctx, moved),
    )


def _on_escalation_command(ctx: Ctx, event: Commented, command: CommentCommand) -> Draft:
    """/retry, /skip or /replan from an approver, while the issue waits for a decision."""
    actor = event.actor
    if not is_member(actor, ctx.policy.approvers, ctx.facts):
        return refuse(
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
        return refuse(
            ctx,
            actor,
            f"/{command.verb} has nowhere to go here; relabel the issue to the state you want",
            event.comment_id,
        )
    guidance = [clip(command.argument, 500)] if command.argument else []
    reason = f"{actor.login}: /{command.verb}" + (f" {command.argument}" if guidance else "")
    if target == ctx.state:  # a held issue retried in place
        agent = wf.agent_of(target)
        updated = seen(ctx).model_copy(
            update={
                "held": False,
                "escalated_from": None,
                "attempt": 1,
                "budget_from": record.iteration,
                "feedback": guidance or list(record.feedback),
                "dispatch": dispatch(ctx, agent, target, 1),
            }
        )
        return Draft(
            Outcome.retry,
            reason,
            record=updated,
            reaction=Reaction(comment_id=event.comment_id),
            agent=agent_due(ctx, updated),
            forced=True,
        )
    moved = move(
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
        agent=agent_due(ctx, moved),
        forced=True,
    )
