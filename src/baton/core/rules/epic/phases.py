"""An epic's phases and its memory in the record, shared by the epic's rules: the record's
`EpicState`, the spend of its agents and its tasks, and how a refused command or a kept reply
is written."""

from __future__ import annotations

from typing import Any

from baton.core.model.epic import EpicState, Spend
from baton.core.model.events import Commented
from baton.core.model.record import EXCERPT, HumanInput, Record, clip
from baton.core.rules.context import Ctx, Draft
from baton.core.rules.humans import refuse

DISCOVERY, PLANNING, IMPLEMENTING, BLOCKED, COMPLETING, DONE = (
    "discovery",
    "planning",
    "implementing",
    "blocked",
    "completing",
    "done",
)
CONDUCTING = frozenset({IMPLEMENTING, BLOCKED, COMPLETING})
AGENT_PHASES = frozenset({"asking", "generating", "editing"})
TABLE_BUDGET = 20_000  # characters of the task table in a message
SUB_ISSUE_LIMIT = 100  # sub-issues GitHub links to one parent


def epic_of(record: Record) -> EpicState:
    return record.epic or EpicState()


def with_epic(record: Record, epic: EpicState, **changes: Any) -> Record:
    return record.model_copy(update={"epic": epic, **changes})


def tasks_spend(epic: EpicState) -> Spend:
    total = Spend()
    for task in epic.tasks:
        total = total.plus(task.spend)
    return total


def epic_spend(record: Record) -> Spend:
    """The epic's own agents' spend and its tasks' (as the conductor last read them)."""
    return record.spend.plus(tasks_spend(epic_of(record)))


def refused(ctx: Ctx, event: Commented, why: str) -> Draft:
    return refuse(ctx, event.actor, why, event.comment_id)


def input_of(ctx: Ctx, event: Commented) -> HumanInput:
    return HumanInput(
        author=event.actor.login,
        excerpt=clip(event.body, EXCERPT),
        comment_id=event.comment_id,
        state=ctx.state,
        at=ctx.now,
    )
