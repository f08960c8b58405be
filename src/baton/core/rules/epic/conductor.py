"""The conductor as one pure pass: what the sub-issues say, what the breaker makes of it,
which tasks wait blocked, and which start in the free slots.

The epic never moves a task: it writes orders in its own record (`PlannedTask.starts`, `.block`)
and dispatches the tasks it ordered; each task's run reads its order and moves itself. So a
start ordered but not yet taken ("in flight") holds a slot, and is never ordered twice: a task
is started again only once its record shows every earlier start taken. Without its record in
this pass, a pending task with a start order is taken to be in flight: the safe side, which
only costs a slot until the engine reads that task's record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from baton.core.model.epic import (
    ACTIVE,
    DONE,
    Breaker,
    EpicState,
    PlannedTask,
    Spend,
    TaskLink,
    TaskObservation,
    TaskStatus,
)
from baton.core.rules.epic import breaker as breakers
from baton.core.rules.epic.task_graph import topological
from baton.workflow.config import EpicSettings

_BAD = frozenset({TaskStatus.failed, TaskStatus.blocked})


@dataclass(frozen=True)
class Conducted:
    """One pass's result: the epic to write, and what changed, for the reports and dispatches."""

    epic: EpicState
    started: tuple[str, ...]  # keys ordered to start in this pass (PlannedTask.starts + 1)
    blocked: tuple[str, ...]  # keys newly ordered blocked
    unblocked: tuple[str, ...]  # keys whose block was lifted
    notify: tuple[int, ...]  # sub-issues to dispatch: started, blocked, unblocked; plan order
    breaker_opened: bool
    failed: tuple[str, ...]  # keys newly seen failed
    completed: tuple[str, ...]  # keys newly seen completed
    all_done: bool  # every current task completed or skipped, and there is one
    changed: bool  # `epic` differs from the one given


def _live(task: PlannedTask) -> bool:
    """A current entry of the plan: not an old entry a replan replaced or dropped."""
    return task.replaced_by is None


def _in_flight(task: PlannedTask, link: TaskLink | None) -> bool:
    taken = link.starts_taken if link is not None else 0
    return task.status == TaskStatus.pending and task.starts > taken


def _observe(
    epic: EpicState, observations: Sequence[TaskObservation]
) -> tuple[list[PlannedTask], list[TaskLink | None]]:
    """Each current task as its sub-issue shows it (breaker counts not applied), with its link."""
    seen = {o.number: o for o in observations}
    tasks: list[PlannedTask] = []
    links: list[TaskLink | None] = []
    for task in epic.tasks:
        obs = seen.get(task.number) if task.number is not None and _live(task) else None
        if obs is None:
            tasks.append(task)
            links.append(None)
            continue
        status = obs.status if obs.status is not None else task.status
        if not obs.open and status not in DONE:
            status = TaskStatus.skipped  # a human closed it
        update: dict[str, object] = {"status": status}
        if obs.attempt > 0:
            update["attempts"] = obs.attempt
        if obs.spend is not None:  # its totals: the roles stay in the task's own record
            update["spend"] = obs.spend.model_copy(update={"roles": {}})
        tasks.append(task.model_copy(update=update))
        links.append(obs.link)
    return tasks, links


def observed_spend(epic: EpicState, observations: Sequence[TaskObservation]) -> Spend:
    """What the tasks have spent as their sub-issues show it now: the spend a budget reads
    before this pass orders any start."""
    tasks, _ = _observe(epic, observations)
    total = Spend()
    for task in tasks:
        total = total.plus(task.spend)
    return total


def _resolver(tasks: Sequence[PlannedTask]) -> dict[str, int]:
    """Key -> index: the current entry with that key, else a dropped one (skipped)."""
    where: dict[str, int] = {}
    for i, task in enumerate(tasks):
        if task.replaced_by == "":
            where.setdefault(task.key, i)
    for i, task in enumerate(tasks):
        if _live(task):
            where[task.key] = i
    return where


def _deps_done(task: PlannedTask, tasks: Sequence[PlannedTask], where: dict[str, int]) -> bool:
    """Every dependency completed or skipped; one the plan no longer knows never is."""
    for dep in task.depends_on:
        i = where.get(dep)
        if i is None or tasks[i].status not in DONE:
            return False
    return True


def _used(tasks: Sequence[PlannedTask], links: Sequence[TaskLink | None]) -> int:
    return sum(
        1
        for task, link in zip(tasks, links, strict=True)
        if _live(task) and (task.status in ACTIVE or _in_flight(task, link))
    )


def slots_used(epic: EpicState, observations: Sequence[TaskObservation] = ()) -> int:
    """Tasks in progress, in review or queued for a retry, plus starts ordered and not taken."""
    return _used(*_observe(epic, observations))


def ready(epic: EpicState) -> list[str]:
    """Keys that could start now as far as the plan goes (slots, breaker and budget aside)."""
    where = _resolver(epic.tasks)
    return [
        t.key
        for t in epic.tasks
        if _live(t)
        and t.number is not None
        and t.status == TaskStatus.pending
        and not t.block
        and not _in_flight(t, None)
        and _deps_done(t, epic.tasks, where)
    ]


def _all_done(tasks: Sequence[PlannedTask]) -> bool:
    current = [t for t in tasks if _live(t)]
    return bool(current) and all(t.status in DONE for t in current)


def conduct(
    epic: EpicState,
    observations: Sequence[TaskObservation],
    settings: EpicSettings,
    *,
    now: datetime,
    may_start: bool,
    budget_stop: str | None = None,
) -> Conducted:
    """One conductor pass over the epic and what its sub-issues show now."""
    tasks, links = _observe(epic, observations)
    before = {t.key: t.status for t in epic.tasks if _live(t)}
    newly_failed = tuple(
        t.key
        for t in tasks
        if _live(t) and t.status == TaskStatus.failed and before[t.key] != TaskStatus.failed
    )
    newly_completed = tuple(
        t.key
        for t in tasks
        if _live(t) and t.status == TaskStatus.completed and before[t.key] != TaskStatus.completed
    )

    breaker = epic.breaker
    for i, (task, link) in enumerate(zip(tasks, links, strict=True)):
        if link is None:
            continue
        breaker = breakers.count(
            breaker,
            key=task.key,
            failures=link.failures - task.failures_seen,
            high=link.high - task.high_seen,
            successes=link.successes - task.successes_seen,
            threshold=settings.breaker_threshold,
            now=now,
            title=f"#{task.number}",
            seen=task.failures_seen,
        )
        tasks[i] = task.model_copy(
            update={
                "failures_seen": link.failures,
                "high_seen": link.high,
                "successes_seen": link.successes,
            }
        )

    where = _resolver(tasks)
    blocked, unblocked = _blocks(tasks, links, where)
    if breaker.state == "half_open" and breaker.probe is not None:
        probe = where.get(breaker.probe)
        if probe is None or tasks[probe].status == TaskStatus.skipped:
            breaker = breaker.model_copy(update={"probe": None})  # no outcome will come: next

    started: list[str] = []
    all_done = _all_done(tasks)
    if may_start and budget_stop is None and not all_done:
        breaker = _start(tasks, links, where, breaker, settings.max_parallel, started)

    conducted = epic.model_copy(update={"tasks": tasks, "breaker": breaker})
    moved = set(started) | set(blocked) | set(unblocked)
    notify: dict[int, None] = {}  # ordered, without duplicates
    for task in tasks:
        if task.key in moved and _live(task) and task.number is not None:
            notify[task.number] = None
    return Conducted(
        epic=conducted,
        started=tuple(started),
        blocked=blocked,
        unblocked=unblocked,
        notify=tuple(notify),
        breaker_opened=breaker.state == "open" and epic.breaker.state != "open",
        failed=newly_failed,
        completed=newly_completed,
        all_done=all_done,
        changed=conducted != epic,
    )


def _blocks(
    tasks: list[PlannedTask], links: Sequence[TaskLink | None], where: dict[str, int]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Block orders set and lifted, in place. Walked in dependency order, so a block or a lift
    reaches the end of a chain in one pass: a dependency is bad when it failed, is ordered
    blocked, or shows blocked without its block lifted in this pass."""
    lifted: set[int] = set()
    newly_blocked: set[int] = set()
    order = topological([t.key for t in tasks], [t.depends_on for t in tasks])
    for i in order:
        task = tasks[i]
        if not _live(task):
            continue
        bad = any(_holds_back(tasks, where.get(dep), i, lifted) for dep in task.depends_on)
        waiting = task.status in (TaskStatus.pending, TaskStatus.blocked)
        if bad and not task.block and waiting and not _in_flight(task, links[i]):
            tasks[i] = task.model_copy(update={"block": True})
            newly_blocked.add(i)
        elif not bad and task.block:
            tasks[i] = task.model_copy(update={"block": False})
            lifted.add(i)
    return (
        tuple(tasks[i].key for i in sorted(newly_blocked)),
        tuple(tasks[i].key for i in sorted(lifted)),
    )


def _holds_back(tasks: Sequence[PlannedTask], j: int | None, i: int, lifted: set[int]) -> bool:
    """Whether dependency `j` of task `i` keeps it blocked: failed, ordered blocked, or showing
    blocked with its block not lifted in this pass."""
    if j is None or j == i:
        return False
    dep = tasks[j]
    if dep.status == TaskStatus.failed or dep.block:
        return True
    return dep.status == TaskStatus.blocked and j not in lifted


def _start(
    tasks: list[PlannedTask],
    links: Sequence[TaskLink | None],
    where: dict[str, int],
    breaker: Breaker,
    max_parallel: int,
    started: list[str],
) -> Breaker:
    """Start orders for ready tasks in plan order, in place, within the free slots; half-open,
    only the one probe task. Returns the breaker (its probe set when one starts)."""
    if breaker.state == "open" or (breaker.state == "half_open" and breaker.probe is not None):
        return breaker
    free = max_parallel - _used(tasks, links)
    for i, task in enumerate(tasks):
        if free <= 0:
            break
        if (
            not _live(task)
            or task.number is None
            or task.status != TaskStatus.pending
            or task.block
            or _in_flight(task, links[i])
            or not _deps_done(task, tasks, where)
        ):
            continue
        tasks[i] = task.model_copy(update={"starts": task.starts + 1})
        started.append(task.key)
        free -= 1
        if breaker.state == "half_open":
            return breaker.model_copy(update={"probe": task.key})
    return breaker
