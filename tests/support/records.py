"""Records with known histories, for the dashboard's figures: each step a move at a minute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from baton.core.model.epic import Spend
from baton.core.model.record import HistoryEntry, Record
from baton.core.model.work import Work

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return START + timedelta(minutes=minutes)


Move = tuple[float, str, str, str]  # (minute, to state, actor, trigger)


def record(
    number: int,
    moves: list[Move],
    *,
    workflow: str = "issue-lifecycle",
    forced: tuple[int, ...] = (),
    reasons: dict[int, str] | None = None,
    **changes: Any,
) -> Record:
    """A record whose history is `moves` in order (the first from nowhere), in the last state."""
    history = []
    previous = None
    for i, (minute, to, actor, trigger) in enumerate(moves):
        history.append(
            HistoryEntry(
                at=at(minute),
                from_state=previous,
                to_state=to,
                reason=(reasons or {}).get(i, f"step {i}"),
                actor=actor,
                trigger=trigger,
                forced=i in forced,
                iteration=i,
            )
        )
        previous = to
    last = history[-1]
    return Record(
        workflow=workflow,
        issue=number,
        state=last.to_state,
        entered_at=last.at,
        iteration=len(history) - 1,
        history=history,
        **changes,
    )


def work(pull_request: int | None, closed: str | None = None, *, ready: bool = True) -> Work:
    return Work(
        branch="baton/issue-x", created=True, pull_request=pull_request, closed=closed, ready=ready
    )  # type: ignore[arg-type]


def spend(runs: int, tokens: int, money: float, minutes: float) -> Spend:
    return Spend(runs=runs, tokens=tokens, money=money, minutes=minutes)


def record_body(found: Record, when: datetime, secret: str | None = None) -> str:
    """The record comment Baton would write for `found` at `when`."""
    from baton.issue import record_comment

    return record_comment.render(found, agent=None, secret=secret, written_at=when)
