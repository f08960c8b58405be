"""The working context of one decision, its draft, and the moves every rule shares.

Every rule module builds on these, so a move, a retry or an escalation means the same thing
whichever event caused it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from baton.core.model.decision import CheckPlan, CommitPlan, Outcome, PullRequestPlan, Reaction
from baton.core.model.epic import MergePlan, TaskCreationPlan
from baton.core.model.events import AgentReported, Commented, Event, Labeled
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import KEEP_FEEDBACK, Dispatch, HistoryEntry, Record, clip
from baton.core.rules.pm_rules import success_target
from baton.core.text import messages
from baton.workflow.config import Policy
from baton.workflow.model import Workflow

BATON = "baton"  # the actor of the moves Baton makes itself (timeouts, limits)
MAX_STALE_RUNS = 3  # stale re-runs in a row (a changeset, evidence) before a human is asked
STALE_NOTE = "Your changes were not committed: "


# --- the context and the draft --------------------------------------------------------------------
@dataclass(frozen=True)
class Scene:
    """What every decision reads besides the record: the event, the workflow and the policy,
    and the facts the run looked up or GitHub answered (`core.model.facts`)."""

    event: Event
    workflow: Workflow
    policy: Policy
    facts: Facts = field(default=NO_FACTS, kw_only=True)

    @property
    def now(self) -> datetime:
        return self.event.at

    def label(self, state: str) -> str:
        return self.workflow.label_for(state, self.policy.label_prefix)


@dataclass(frozen=True)
class Ctx(Scene):
    """A decision on an issue in the workflow: the scene and the record rebuilt for it."""

    record: Record

    @property
    def state(self) -> str:
        return self.record.state


@dataclass(frozen=True)
class Draft:
    """What a rule decided, before `conclude` adds the label projection, drift repairs and the
    record's revision: the draft of a `Decision`."""

    outcome: Outcome
    reason: str
    record: Record | None = None  # None: the record does not change
    message: str | None = None
    reaction: Reaction | None = None
    agent: str | None = None
    forced: bool = False
    remove: tuple[str, ...] = ()  # labels the decision itself removes (a refused relabel)
    # Work GitHub does first, whose answer the run hands to `decide` again (`Decision.work_first`)
    commit: CommitPlan | None = None
    open_pull_request: PullRequestPlan | None = None
    create_tasks: TaskCreationPlan | None = None
    merge: MergePlan | None = None
    notify: tuple[int, ...] = ()  # other issues to dispatch after the write (epics)
    count_failing: bool = False  # the repository breaker's count is read first
    check: CheckPlan | None = None  # a check run posted after the record is written

    @property
    def github_first(self) -> bool:
        """GitHub must make something before this draft is final (its record comes after)."""
        return bool(self.commit or self.open_pull_request or self.create_tasks or self.merge)


# --- moves ----------------------------------------------------------------------------------------
def agent_due(ctx: Ctx, record: Record) -> str | None:
    """The agent due after this decision: none while the issue is held or closed."""
    if record.held or ctx.event.issue.state == "closed":
        return None
    return ctx.workflow.agent_of(record.state)


def move(
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
    entry = HistoryEntry(
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
        "dispatch": dispatch(ctx, agent, target, 1),
        "processed": record.remember(ctx.event.id),
        "last_comment_id": _comment_floor(ctx, record),
        "entered_after_comment": max(ctx.event.comments_seen, record.entered_after_comment),
    }
    if human:
        update["budget_from"] = iteration
    update.update(changes)
    return record.model_copy(update=update)


def dispatch(scene: Scene, agent: str | None, state: str, attempt: int) -> Dispatch | None:
    """The agent run this decision starts, tied to the event and the run that decided it.

    None when it starts none: the state has no agent, or the issue is closed (no agent runs on
    a closed issue, so a reopen must find no run pending and start it then)."""
    event = scene.event
    if agent is None or event.issue.state == "closed":
        return None
    return Dispatch(
        agent=agent, state=state, attempt=attempt, at=scene.now, by=event.id, run=event.run_id
    )


def _comment_floor(ctx: Ctx, record: Record) -> int:
    """Every human comment up to this id has been considered (catch-up starts above it).

    A label or report run does not look at comments, so it never lifts the floor: an approval
    whose own run comes later must not be found "already handled". (A comment written before
    the current state was entered never counts as a reply to it: see `humans._predates`.)"""
    event = ctx.event
    own = event.comment_id if isinstance(event, Commented) else 0
    blind = isinstance(event, Labeled | AgentReported)
    return max(record.last_comment_id, 0 if blind else event.comments_upto, own)


def seen(ctx: Ctx, record: Record | None = None) -> Record:
    """The record remembering this event and the comments it considered, with no move."""
    base = record or ctx.record
    update: dict[str, Any] = {
        "processed": base.remember(ctx.event.id),
        "last_comment_id": _comment_floor(ctx, base),
    }
    return base.model_copy(update=update)


# --- limits, retries and escalation ---------------------------------------------------------------
def limit_breach(ctx: Ctx, target: str) -> str | None:
    """Why moving to `target` breaks the limits (iterations, loops) counted since a human."""
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


def escalation_message(ctx: Ctx, why: str, *, moved_to: str | None) -> str:
    """The message handing the issue to a human, with the commands that hand it back."""
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


def held_instead(draft: Draft, base: Record, why: str, message: str) -> Draft:
    """The draft that would start an agent holds the issue instead, saying why (a spent
    budget, an open breaker); a human's command hands it back."""
    held = base.model_copy(update={"held": True, "dispatch": None, "escalated_from": base.state})
    return replace(
        draft,
        outcome=Outcome.transition if draft.outcome is Outcome.transition else Outcome.noted,
        reason=f"{draft.reason}; held: {why}",
        record=held,
        agent=None,
        message="\n\n".join(m for m in (draft.message, message) if m),
    )


def escalate(ctx: Ctx, why: str, *, actor: str, extra: dict[str, Any] | None = None) -> Draft:
    """Hand the issue to a human: to the escalation state, or held in place if there is none."""
    origin = ctx.state
    target = ctx.workflow.escalation.state
    if target and target != origin:
        record = move(
            ctx, target, reason=why, actor=actor, trigger="escalation", **(extra or {})
        ).model_copy(update={"escalated_from": origin})
        message = escalation_message(ctx, why, moved_to=target)
        return Draft(Outcome.transition, f"escalated: {why}", record=record, message=message)
    record = seen(ctx).model_copy(
        update={"held": True, "escalated_from": origin, "dispatch": None, **(extra or {})}
    )
    message = escalation_message(ctx, why, moved_to=None)
    return Draft(Outcome.noted, f"held for a human: {why}", record=record, message=message)


def retry(ctx: Ctx, why: str, feedback: list[str], *, actor: str) -> Draft:
    """The retry ladder: same agent with feedback, then a fresh context, then a human."""
    record = ctx.record
    limits = ctx.workflow.limits
    kept = [clip(f, 500) for f in feedback if f][:KEEP_FEEDBACK]
    if record.attempt >= limits.max_attempts:
        return escalate(
            ctx,
            f"{why}; attempt {record.attempt} of {limits.max_attempts} failed",
            actor=actor,
            extra={"feedback": kept},
        )
    attempt = record.attempt + 1
    agent = ctx.workflow.agent_of(record.state)
    fresh = attempt >= limits.fresh_context_from_attempt
    updated = seen(ctx).model_copy(
        update={
            "attempt": attempt,
            "feedback": kept,
            "dispatch": dispatch(ctx, agent, record.state, attempt),
        }
    )
    how = "from a fresh context" if fresh else "with the feedback"
    return Draft(
        Outcome.retry,
        f"{why}; attempt {attempt} of {limits.max_attempts} runs {how}",
        record=updated,
        agent=agent,
    )


# --- a human's forced move, and a run's re-run ----------------------------------------------------
def force(ctx: Ctx, login: str, target: str, *, why: str, trigger: str = "relabel") -> Draft:
    """A human moves the issue, edge or not: recorded as forced, limits counted afresh."""
    moved = move(
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
        agent=agent_due(ctx, moved),
        forced=True,
    )


def rerun_agent(ctx: Ctx) -> str | None:
    """The agent an earlier attempt of this very run made due, if it is still due: that
    attempt may have died after writing the record and before the agent's job or dispatch."""
    pending = ctx.record.dispatch
    run = ctx.event.run_id
    if pending is None or not run or pending.run != run or pending.state != ctx.state:
        return None
    return agent_due(ctx, ctx.record)
