"""The repository-wide circuit breaker (config `breaker`), for the day an agent's API key runs
out: every issue whose last agent attempt failed carries the breaker's label, and while too many
open issues carrying it were updated within the window, no agent starts anywhere. The count is a
fact the run reads from GitHub (`Decision.asks`, then `Facts.failing_issues`)."""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.commands import Verb
from baton.core.model.decision import Outcome
from baton.core.model.events import AgentReported, Commented
from baton.core.rules.context import Ctx, Draft, Scene, held_instead
from baton.core.text import epic as texts
from baton.workflow.model import AgentStatus


def with_failing(ctx: Ctx, draft: Draft) -> Draft:
    """A failed attempt marks the issue failing (since its first failure); a success clears it."""
    event = ctx.event
    record = draft.record
    if not isinstance(event, AgentReported) or draft.outcome is Outcome.refused or record is None:
        return draft
    if draft.github_first:
        return draft
    changes = ctx.facts.changeset
    refused = changes is not None and changes.status == "refused"
    result = event.result
    if result is None or result.status is AgentStatus.failure or refused:
        since = ctx.record.failing_since or ctx.now
    elif result.status is AgentStatus.success:
        since = None
    else:
        return draft
    if since == record.failing_since:
        return draft
    return replace(draft, record=record.model_copy(update={"failing_since": since}))


def _probe(ctx: Scene) -> bool:
    """A human's /retry lets this one agent through, as a half-open probe; and an issue whose
    agent just succeeded goes on (its agents evidently work again)."""
    event = ctx.event
    if isinstance(event, AgentReported):
        return event.result is not None and event.result.status is AgentStatus.success
    if not isinstance(event, Commented) or event.actor.is_bot:
        return False
    command = event.command
    return command is not None and command.verb is Verb.retry


def within_repo_breaker(ctx: Scene, draft: Draft) -> Draft:
    """A draft that starts an agent asks for the count first; over the threshold, the issue is
    held instead, and says why."""
    breaker = ctx.policy.breaker
    record = draft.record
    if breaker is None or not draft.agent or _probe(ctx):
        return draft
    count = ctx.facts.failing_issues
    if count is None:
        return replace(draft, count_failing=True)
    if count < breaker.threshold:
        return draft
    base = record if record is not None else (ctx.record if isinstance(ctx, Ctx) else None)
    if base is None:
        return draft
    message = texts.repo_breaker(count, breaker.threshold, breaker.label, breaker.window)
    why = f"the repository-wide breaker is open ({count} failing)"
    return held_instead(draft, base, why, message)
