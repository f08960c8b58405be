"""A planning agent's plan: refused with the first problem a maintainer can act on, ordered by
its dependencies, and merged into an epic (new, extended, replanned)."""

from __future__ import annotations

import time
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.epic import EpicState, PlannedTask, TaskSpec, TaskStatus
from baton.core.rules.epic.task_graph import (
    PlanProblem,
    find_cycle,
    kept_keys,
    order,
    revise,
    topological,
    validate_plan,
)


def spec(key: str, *deps: str) -> TaskSpec:
    return TaskSpec(key=key, title=f"Do {key}", depends_on=list(deps))


def plan(text: str) -> list[TaskSpec]:
    """`"a b:a c:a,b"`: a, then b depending on a, then c depending on a and b."""
    specs = []
    for word in text.split():
        key, _, deps = word.partition(":")
        specs.append(spec(key, *(d for d in deps.split(",") if d)))
    return specs


@pytest.mark.parametrize(
    ("text", "known", "expected"),
    [
        pytest.param("a b:a c:a,b", (), None, id="a valid plan has no problem"),
        pytest.param("", (), PlanProblem("empty", "the plan has no tasks"), id="an empty plan"),
        pytest.param(
            "a a",
            (),
            PlanProblem("duplicate", "task key 'a' is used twice"),
            id="a key used twice",
        ),
        pytest.param(
            "a b",
            ("b",),
            PlanProblem("clash", "task key 'b' is already a task of this epic"),
            id="a key the epic already has",
        ),
        pytest.param(
            "a b:x",
            (),
            PlanProblem("unknown", "task 'b' depends on 'x', which is not in the plan"),
            id="a dependency on a key nowhere",
        ),
        pytest.param("a b:old", ("old",), None, id="a dependency on a known task is fine"),
        pytest.param(
            "a:a",
            (),
            PlanProblem("cycle", "DAG cycle detected: a → a"),
            id="a self-dependency is a cycle of one",
        ),
        pytest.param(
            "a:b b:a",
            (),
            PlanProblem("cycle", "DAG cycle detected: a → b → a"),
            id="two tasks depending on each other",
        ),
        pytest.param(
            "x a:b b:c c:a d:x",
            (),
            PlanProblem("cycle", "DAG cycle detected: a → b → c → a"),
            id="a cycle is named in dependency order",
        ),
        pytest.param(
            "a:b b:c c:d d:b",
            (),
            PlanProblem("cycle", "DAG cycle detected: b → c → d → b"),
            id="a cycle reached through a tail names only the cycle",
        ),
        pytest.param(
            "a a:x",
            (),
            PlanProblem("duplicate", "task key 'a' is used twice"),
            id="a duplicate is reported before an unknown dependency",
        ),
        pytest.param(
            "a:b b:a c:zz",
            (),
            PlanProblem("unknown", "task 'c' depends on 'zz', which is not in the plan"),
            id="an unknown dependency is reported before a cycle",
        ),
    ],
)
def test_validate_plan_names_the_first_problem(
    text: str, known: tuple[str, ...], expected: PlanProblem | None
) -> None:
    assert validate_plan(plan(text), max_tasks=20, known=known) == expected


def test_too_many_tasks_names_the_setting() -> None:
    specs = [spec(f"t{i}") for i in range(25)]
    assert validate_plan(specs, max_tasks=20) == PlanProblem(
        "too_many", "the plan has 25 tasks; at most 20 (epics.max_tasks)"
    )


def test_exactly_max_tasks_is_fine() -> None:
    assert validate_plan([spec(f"t{i}") for i in range(20)], max_tasks=20) is None


def test_a_hundred_task_chain_validates_and_orders_fast() -> None:
    chain = [spec("t0"), *(spec(f"t{i}", f"t{i - 1}") for i in range(1, 100))]
    loop = [spec("t0", "t99"), *chain[1:]]
    began = time.perf_counter()
    assert validate_plan(chain, max_tasks=100) is None
    problem = validate_plan(loop, max_tasks=100)
    assert [s.key for s in order(list(reversed(chain)))] == [s.key for s in chain]
    assert time.perf_counter() - began < 0.5
    assert problem is not None and problem.kind == "cycle"
    assert problem.message.startswith("DAG cycle detected: t0 → t99 → t98")
    assert problem.message.endswith("t1 → t0")


def test_ten_thousand_deep_chain_needs_no_recursion() -> None:
    keys = [f"t{i}" for i in range(10_000)]
    deps = [[keys[i + 1]] if i + 1 < len(keys) else [keys[0]] for i in range(len(keys))]
    cycle = find_cycle(keys, deps)
    assert len(cycle) == 10_001 and cycle[0] == cycle[-1] == "t0"


def test_order_keeps_a_plan_already_in_order() -> None:
    specs = plan("a b c:a d:b,c")
    assert order(specs) == specs


def test_order_puts_dependencies_first_earliest_ready_first() -> None:
    assert [s.key for s in order(plan("c:a,b a b d"))] == ["a", "b", "c", "d"]


def test_order_of_repeated_dependencies_counts_each_once() -> None:
    assert [s.key for s in order(plan("b:a,a a"))] == ["a", "b"]


@pytest.mark.parametrize(
    ("keys", "deps", "expected"),
    [
        pytest.param("ba", [["zz"], []], [0, 1], id="an unknown dependency is ignored"),
        pytest.param("ab", [["a"], []], [1, 0], id="a self-dependency follows the rest"),
        pytest.param("bac", [["b", "a"], [], []], [1, 2, 0], id="a self-dependency never frees"),
        pytest.param("abc", [["b"], ["a"], []], [2, 0, 1], id="a cycle follows in plan order"),
    ],
)
def test_topological_leaves_what_cannot_be_ordered_for_last(
    keys: str, deps: list[list[str]], expected: list[int]
) -> None:
    assert topological(list(keys), deps) == expected


# --- properties -------------------------------------------------------------------------------
KEYS = [f"k{i}" for i in range(10)]


@st.composite
def graphs(draw: st.DrawFn) -> list[TaskSpec]:
    n = draw(st.integers(1, 10))
    keys = KEYS[:n]
    return [
        TaskSpec(key=k, title=k, depends_on=draw(st.lists(st.sampled_from(keys), max_size=3)))
        for k in keys
    ]


def _has_cycle(specs: list[TaskSpec]) -> bool:
    """Reference: repeatedly remove tasks with no remaining dependencies."""
    left = {s.key: set(s.depends_on) for s in specs}
    while True:
        free = [k for k, ds in left.items() if not ds & left.keys()]
        if not free:
            return bool(left)
        for k in free:
            del left[k]


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_a_cycle_is_found_exactly_when_there_is_one_and_is_real(specs: list[TaskSpec]) -> None:
    problem = validate_plan(specs, max_tasks=20)
    deps = {s.key: s.depends_on for s in specs}
    if not _has_cycle(specs):
        assert problem is None
        position = {s.key: i for i, s in enumerate(order(specs))}
        assert all(position[d] < position[s.key] for s in specs for d in s.depends_on)
        return
    assert problem is not None and problem.kind == "cycle"
    cycle = problem.message.removeprefix("DAG cycle detected: ").split(" → ")
    assert cycle[0] == cycle[-1] and len(set(cycle[:-1])) == len(cycle) - 1
    assert all(b in deps[a] for a, b in pairwise(cycle))


# --- revise -----------------------------------------------------------------------------------
def task(key: str, status: TaskStatus, number: int | None, *deps: str) -> PlannedTask:
    return PlannedTask(key=key, title=f"Do {key}", status=status, number=number, depends_on=[*deps])


def test_a_new_plan_becomes_pending_tasks_all_to_create() -> None:
    specs = plan("a b:a")
    tasks, create = revise(EpicState(), specs, mode="new")
    assert create == specs
    assert [(t.key, t.status, t.number, t.depends_on) for t in tasks] == [
        ("a", TaskStatus.pending, None, []),
        ("b", TaskStatus.pending, None, ["a"]),
    ]


def test_a_new_plan_keeps_each_tasks_agent_and_replaces_the_whole_list() -> None:
    specs = [TaskSpec(key="a", title="Do a", agent="docs")]
    epic = EpicState(tasks=[task("old", TaskStatus.pending, 1)])
    tasks, create = revise(epic, specs, mode="new")
    assert [(t.key, t.agent) for t in tasks] == [("a", "docs")] and create == specs


def test_an_extension_leaves_pending_tasks_alone() -> None:
    old = task("a", TaskStatus.pending, 5)
    tasks, _ = revise(EpicState(tasks=[old]), plan("b"), mode="extend")
    assert tasks[0] == old and [t.key for t in tasks] == ["a", "b"]


def test_an_extension_keeps_the_tasks_and_appends_the_new_ones() -> None:
    old = task("a", TaskStatus.completed, 5)
    tasks, create = revise(EpicState(tasks=[old]), plan("b:a"), mode="extend")
    assert tasks[0] == old and [t.key for t in tasks] == ["a", "b"]
    assert [s.key for s in create] == ["b"]


def test_a_replan_keeps_finished_and_active_tasks_and_replaces_the_rest() -> None:
    epic = EpicState(
        tasks=[
            task("done", TaskStatus.completed, 1),
            task("busy", TaskStatus.in_progress, 2, "done"),
            task("broken", TaskStatus.failed, 3, "done"),
            task("stuck", TaskStatus.blocked, 4, "broken"),
            task("later", TaskStatus.pending, None),
            task("gone", TaskStatus.pending, 6),
        ]
    )
    assert kept_keys(epic) == ["done", "busy"]
    specs = plan("done busy:done broken:done stuck:broken later new:broken")
    assert validate_plan(specs[2:], max_tasks=20, known=kept_keys(epic)) is None
    tasks, create = revise(epic, specs[2:], mode="replan")
    assert [(t.key, t.status, t.number, t.replaced_by, t.replaces) for t in tasks] == [
        ("done", TaskStatus.completed, 1, None, None),
        ("busy", TaskStatus.in_progress, 2, None, None),
        ("broken#3", TaskStatus.skipped, 3, "broken", None),
        ("stuck#4", TaskStatus.skipped, 4, "stuck", None),
        ("later#old", TaskStatus.skipped, None, "later", None),
        ("gone", TaskStatus.skipped, 6, "", None),
        ("broken", TaskStatus.pending, None, None, 3),
        ("stuck", TaskStatus.pending, None, None, 4),
        ("later", TaskStatus.pending, None, None, None),
        ("new", TaskStatus.pending, None, None, None),
    ]
    assert [s.key for s in create] == ["broken", "stuck", "later", "new"]


def test_a_replan_ignores_a_spec_for_a_kept_task() -> None:
    epic = EpicState(tasks=[task("a", TaskStatus.completed, 1)])
    tasks, create = revise(epic, plan("a b"), mode="replan")
    assert [t.key for t in tasks] == ["a", "b"] and [s.key for s in create] == ["b"]
    assert tasks[0] == epic.tasks[0]


def test_replanning_twice_keeps_keys_unique() -> None:
    epic = EpicState(tasks=[task("a", TaskStatus.pending, None), task("b", TaskStatus.failed, 9)])
    first, _ = revise(epic, plan("a"), mode="replan")  # a replaced, b dropped
    second, create = revise(EpicState(tasks=first), plan("a b"), mode="replan")
    keys = [t.key for t in second]
    assert len(keys) == len(set(keys))
    assert keys == ["a#old", "b#9", "a#old2", "a", "b"]
    assert [s.key for s in create] == ["a", "b"]
    assert EpicState(tasks=second).task("b") == PlannedTask(key="b", title="Do b", replaces=9)
