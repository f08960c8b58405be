"""What agents spent, in words, and whether a budget stops the next agent run.

A limit is reached when the spend equals it: the run that reaches it may finish, the next one
does not start. The sentence carries both figures so a maintainer sees how far over it went.
"""

from __future__ import annotations

from baton.core.model.epic import Cost, Spend
from baton.workflow.config import Budget


def _runs(n: int) -> str:
    return f"{n:,} agent run" + ("" if n == 1 else "s")


def _money(amount: float) -> str:
    return f"${amount:,.2f}"


def _minutes(amount: float) -> str:
    text = f"{amount:,.1f}"
    return text[:-2] if text.endswith(".0") else text


def spent(spend: Spend, budget: Budget, *, what: str = "this issue") -> str | None:
    """The first limit reached (runs, money, minutes, tokens), as a sentence; None if none is."""
    head = f"the budget of {what} is spent: "
    if budget.agent_runs is not None and spend.runs >= budget.agent_runs:
        return head + f"{spend.runs:,} of {_runs(budget.agent_runs)}"
    if budget.money is not None and spend.money >= budget.money:
        return head + f"{_money(spend.money)} of {_money(budget.money)}"
    if budget.minutes is not None and spend.minutes >= budget.minutes:
        return head + f"{_minutes(spend.minutes)} of {_minutes(budget.minutes)} minutes"
    if budget.tokens is not None and spend.tokens >= budget.tokens:
        return head + f"{spend.tokens:,} of {budget.tokens:,} tokens"
    return None


def describe(spend: Spend) -> str:
    """`3 agent runs, 12,400 tokens, $0.42, 7.5 min`: the runs always, other parts when not 0."""
    parts = [_runs(spend.runs)]
    if spend.tokens:
        parts.append(f"{spend.tokens:,} tokens")
    if spend.money:
        parts.append(_money(spend.money))
    if spend.minutes:
        parts.append(f"{_minutes(spend.minutes)} min")
    text = ", ".join(parts)
    if spend.claimed:
        text += f" ({_runs(spend.claimed)} as the agent claimed, no CLI reported it)"
    return text


def describe_cost(cost: Cost | None) -> str:
    """One run's cost and who counted it: `600 tokens, $0.0040 (reported by the CLI)`;
    `nothing reported` when neither the CLI nor the agent said."""
    if cost is None or (cost.tokens is None and cost.money is None and cost.minutes is None):
        return "nothing reported"
    parts = [f"{cost.tokens:,} tokens"] if cost.tokens is not None else []
    if cost.money is not None:
        parts.append(f"${cost.money:,.4f}")
    if cost.minutes is not None:
        parts.append(f"{_minutes(cost.minutes)} min")
    by = {"cli": " (reported by the CLI)", "agent": " (the agent's own claim)"}
    return ", ".join(parts) + by.get(cost.source or "", "")
