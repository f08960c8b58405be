"""What agents spend: each accepted report adds its run and reported cost to the issue's
record, and an issue whose budget is spent starts no further agent (a human decides)."""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.decision import Outcome
from baton.core.model.events import AgentReported
from baton.core.rules import budget
from baton.core.rules.context import Ctx, Draft, held_instead
from baton.core.text import epic as texts


def with_spend(ctx: Ctx, draft: Draft) -> Draft:
    """The report's run and cost added, once (a stale or repeated report adds nothing), in
    all and to the reporting agent's role."""
    event = ctx.event
    if not isinstance(event, AgentReported) or draft.outcome is Outcome.refused:
        return draft
    if event.id and ctx.record.has_processed(event.id):
        return draft
    record = draft.record
    if record is None or draft.github_first:
        return draft  # GitHub's work first: the spend is added when the run decides again
    cost = event.result.cost if event.result is not None else None
    role = event.agent if event.agent in ctx.workflow.agents else None  # one of a handful
    spend = ctx.record.spend.add(cost, role=role)
    return replace(draft, record=record.model_copy(update={"spend": spend}))


def within_budget(ctx: Ctx, draft: Draft) -> Draft:
    """A draft that starts an agent on an issue whose budget is spent holds the issue instead."""
    record = draft.record
    if not draft.agent or record is None:
        return draft
    stop = budget.spent(record.spend, ctx.policy.budgets.issue, what="this issue")
    if stop is None:
        return draft
    message = texts.budget_stop(stop, budget.describe(record.spend))
    return held_instead(draft, record, stop, message)
