"""The circuit breaker over an epic's task outcomes.

Closed, it counts failures in a row and opens at the threshold (a high-severity rejection opens
it at once); open, the conductor starts nothing; a maintainer's `/resume` half-opens it, and the
next outcome decides: a success closes it, a failure opens it again. The conductor feeds it each
task's new outcomes, as counted in the task's own record, in plan order.
"""

from __future__ import annotations

from datetime import datetime

from baton.core.model.epic import KEEP_BREAKER_REASONS, Breaker


def count(
    breaker: Breaker,
    *,
    key: str,
    failures: int,
    high: int,
    successes: int,
    threshold: int,
    now: datetime,
    title: str = "",
    seen: int = 0,
) -> Breaker:
    """The breaker after one task's new outcomes. Failures come first, then successes: a task
    succeeds only after its failures. `high` rejections are among the `failures` (a record that
    says more high than failures counts the high ones). `title` goes in brackets after the key in
    the reasons (the conductor passes the sub-issue, `#12`); `seen` is the task's failures
    counted before, so each reason numbers its failure and two of one task read as two."""
    failures, high, successes = max(failures, 0), max(high, 0), max(successes, 0)
    failures = max(failures, high)
    if not failures and not successes:
        return breaker
    who = f"task {key}" + (f" ({title})" if title else "")
    state, counted, opened_at = breaker.state, breaker.failures, breaker.opened_at
    reasons = list(breaker.reasons)
    plain = failures - high
    # Only the newest reasons are kept, so only as many are written (a huge count stays cheap).
    written = min(failures, KEEP_BREAKER_REASONS)
    for i in range(failures - written, failures):
        severe = ", a high-severity rejection" if i >= plain else ""
        reasons.append(f"{who}: failure {max(seen, 0) + i + 1}{severe}")
    counted += failures
    if failures and (state != "closed" or counted >= threshold or high):
        if state != "open":
            opened_at = now
        state = "open"
    elif successes and state != "open":
        return Breaker()  # closed again (or still), the count of failures in a row reset
    return Breaker(
        state=state,
        failures=counted,
        opened_at=opened_at,
        reasons=reasons[-KEEP_BREAKER_REASONS:],
        probe=None if state == "open" else breaker.probe,
    )


def half_open(breaker: Breaker) -> Breaker:
    """`/resume`: an open breaker lets one probe task through; any other state is unchanged."""
    if breaker.state != "open":
        return breaker
    return breaker.model_copy(update={"state": "half_open", "probe": None})


def is_open(breaker: Breaker) -> bool:
    return breaker.state == "open"
