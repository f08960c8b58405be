"""A planning agent's tasks checked as a dependency graph, ordered, and merged into an epic.

The agent's output is untrusted: keys may repeat, point nowhere or loop. `validate_plan` names
the first problem a maintainer can act on; a cycle is named as the tasks on it, each followed by
the one it depends on (`a → b` reads "a depends on b"). Every walk here is iterative and linear
in tasks plus dependencies, so a plan of a hundred tasks in one chain cannot blow the stack.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from baton.core.model.epic import ACTIVE, DONE, EpicState, PlannedTask, TaskSpec, TaskStatus

ProblemKind = Literal["empty", "too_many", "duplicate", "unknown", "cycle", "clash"]
ReviseMode = Literal["new", "extend", "replan"]
KEPT_ON_REPLAN = DONE | ACTIVE  # what a replan cannot take back: finished or under way


@dataclass(frozen=True)
class PlanProblem:
    """Why a plan is refused, in words for the maintainer and the planning agent."""

    kind: ProblemKind
    message: str


def validate_plan(
    specs: Sequence[TaskSpec], *, max_tasks: int, known: Collection[str] = ()
) -> PlanProblem | None:
    """The first problem of the plan, or None. `known` are the epic's keys the plan may depend
    on but not reuse: the existing tasks when extending; when replanning, only the tasks a
    replan keeps (completed, skipped or active: `kept_keys`), since the others may be replaced.
    """
    if not specs:
        return PlanProblem("empty", "the plan has no tasks")
    if len(specs) > max_tasks:
        return PlanProblem(
            "too_many", f"the plan has {len(specs)} tasks; at most {max_tasks} (epics.max_tasks)"
        )
    keys: set[str] = set()
    for spec in specs:
        if spec.key in keys:
            return PlanProblem("duplicate", f"task key {spec.key!r} is used twice")
        keys.add(spec.key)
    known_keys = set(known)
    for spec in specs:
        if spec.key in known_keys:
            return PlanProblem("clash", f"task key {spec.key!r} is already a task of this epic")
    for spec in specs:
        for dep in spec.depends_on:
            if dep not in keys and dep not in known_keys:
                return PlanProblem(
                    "unknown", f"task {spec.key!r} depends on {dep!r}, which is not in the plan"
                )
    cycle = find_cycle([s.key for s in specs], [s.depends_on for s in specs])
    if cycle:
        return PlanProblem("cycle", "DAG cycle detected: " + " → ".join(cycle))
    return None


def kept_keys(epic: EpicState) -> list[str]:
    """The keys a replan keeps as they are: pass them as `known` to `validate_plan`."""
    return [t.key for t in epic.tasks if t.replaced_by is None and t.status in KEPT_ON_REPLAN]


def find_cycle(keys: Sequence[str], deps: Sequence[Sequence[str]]) -> list[str]:
    """One cycle as keys in dependency order, the first key repeated at the end; [] if none.
    Dependencies on keys outside `keys` are ignored. An iterative depth-first search."""
    index = {key: i for i, key in enumerate(keys)}
    edges = [[index[d] for d in ds if d in index] for ds in deps]
    white, grey, black = 0, 1, 2
    colour = [white] * len(keys)
    for root in range(len(keys)):
        if colour[root] != white:
            continue
        path = [root]  # the grey nodes, in order
        cursors = [0]
        colour[root] = grey
        while path:
            node = path[-1]
            if cursors[-1] < len(edges[node]):
                nxt = edges[node][cursors[-1]]
                cursors[-1] += 1
                if colour[nxt] == grey:
                    start = path.index(nxt)
                    return [keys[i] for i in path[start:]] + [keys[nxt]]
                if colour[nxt] == white:
                    colour[nxt] = grey
                    path.append(nxt)
                    cursors.append(0)
            else:
                colour[node] = black
                path.pop()
                cursors.pop()
    return []


def topological(keys: Sequence[str], deps: Sequence[Sequence[str]]) -> list[int]:
    """Indices with each one after the ones it depends on, the earliest in plan order first
    among the ready ones; a repeated key resolves to its first entry, unknown keys are ignored,
    and whatever sits on a cycle follows in plan order."""
    index: dict[str, int] = {}
    for i, key in enumerate(keys):
        index.setdefault(key, i)
    waiting = [0] * len(keys)
    dependents: list[list[int]] = [[] for _ in keys]
    for i, ds in enumerate(deps):
        for d in set(ds):
            j = index.get(d)
            if j is not None and j != i:
                waiting[i] += 1
                dependents[j].append(i)
            elif j == i:
                waiting[i] += 1  # a self-dependency: never ready, left for the residue
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    out: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        out.append(i)
        for k in dependents[i]:
            waiting[k] -= 1
            if waiting[k] == 0:
                heapq.heappush(ready, k)
    if len(out) < len(keys):
        placed = set(out)
        out.extend(i for i in range(len(keys)) if i not in placed)
    return out


def order(specs: Sequence[TaskSpec]) -> list[TaskSpec]:
    """The specs with every task after its dependencies; a plan already in order is unchanged."""
    return [specs[i] for i in topological([s.key for s in specs], [s.depends_on for s in specs])]


def _planned(spec: TaskSpec, *, replaces: int | None = None) -> PlannedTask:
    return PlannedTask(
        key=spec.key,
        title=spec.title,
        depends_on=list(spec.depends_on),
        agent=spec.agent,
        replaces=replaces,
    )


def revise(
    epic: EpicState, specs: Sequence[TaskSpec], *, mode: ReviseMode
) -> tuple[list[PlannedTask], list[TaskSpec]]:
    """(the epic's new task list, the specs whose sub-issues must be created), for a validated
    plan. `new` starts the list; `extend` appends; `replan` keeps what is finished or under way,
    replaces a pending, failed or blocked task by the new plan's task of the same key (the old
    entry stays, renamed `key#number` and skipped, for the record) and drops (skips, key kept)
    the ones the new plan leaves out; a dropped key the new plan reuses is retired the same way,
    so keys stay unique. New entries follow the kept ones, in plan order."""
    if mode == "new":
        return [_planned(s) for s in specs], list(specs)
    if mode == "extend":
        return [*epic.tasks, *(_planned(s) for s in specs)], list(specs)
    wanted = {s.key for s in specs}
    used = {t.key for t in epic.tasks}
    kept: list[PlannedTask] = []
    replaced: dict[str, int | None] = {}
    for task in epic.tasks:
        dropped = task.replaced_by == ""  # an earlier replan's: its key is free again
        if (
            task.key in wanted
            and task.key not in replaced
            and (dropped or (task.replaced_by is None and task.status not in KEPT_ON_REPLAN))
        ):
            new_key = _retired_key(task, used)
            used.add(new_key)
            replaced[task.key] = task.number
            retired = {"key": new_key, "status": TaskStatus.skipped, "replaced_by": task.key}
            kept.append(task.model_copy(update=retired))
        elif task.replaced_by is not None or task.status in KEPT_ON_REPLAN:
            kept.append(task)
        else:
            kept.append(task.model_copy(update={"status": TaskStatus.skipped, "replaced_by": ""}))
    staying = {t.key for t in kept if t.replaced_by is None}
    create = [s for s in specs if s.key not in staying]
    added = [_planned(s, replaces=replaced.get(s.key)) for s in create]
    return [*kept, *added], create


def _retired_key(task: PlannedTask, used: set[str]) -> str:
    """`key#12` for a replaced task's old entry: unique, so `EpicState.task(key)` finds the new
    one. Without a sub-issue `key#old` (then `key#old2` …, should one key be replaced twice)."""
    if task.number is not None:
        return f"{task.key}#{task.number}"
    candidate, n = f"{task.key}#old", 1
    while candidate in used:
        n += 1
        candidate = f"{task.key}#old{n}"
    return candidate
