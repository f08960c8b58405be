"""The conductor's pass: statuses from the sub-issues, the breaker fed once per outcome, blocks
down whole chains, and start orders only for ready tasks within the free slots; properties over
random plans and random task runs keep seed 002's invariants."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.epic import (
    ACTIVE,
    DONE,
    Breaker,
    Cost,
    EpicState,
    PlannedTask,
    Spend,
    TaskLink,
    TaskObservation,
    TaskStatus,
)
from baton.core.rules.epic.conductor import Conducted, conduct, ready, slots_used
from baton.workflow.config import EpicSettings

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
S = TaskStatus
TWO = EpicSettings(max_parallel=2, breaker_threshold=2)


def t(key: str, *deps: str, status: S = S.pending, n: int | None = 0, **kw: object) -> PlannedTask:
    """A task numbered after its key's position in the alphabet (`a` is #1) unless `n` says."""
    number = (ord(key[0]) - 96) if n == 0 else n
    return PlannedTask.model_validate(
        {"key": key, "title": key, "depends_on": list(deps), "status": status, "number": number}
        | kw
    )


def obs(number: int, status: S | None = None, **kw: object) -> TaskObservation:
    return TaskObservation.model_validate({"number": number, "status": status} | kw)


def link(key: str, **kw: int) -> TaskLink:
    return TaskLink(epic=99, key=key, **kw)


def run(
    tasks: list[PlannedTask],
    observations: list[TaskObservation] | None = None,
    *,
    breaker: Breaker | None = None,
    settings_: EpicSettings = TWO,
    may_start: bool = True,
    budget_stop: str | None = None,
) -> Conducted:
    epic = EpicState(tasks=tasks, breaker=breaker or Breaker())
    return conduct(
        epic,
        observations or [],
        settings_,
        now=NOW,
        may_start=may_start,
        budget_stop=budget_stop,
    )


# --- starts -----------------------------------------------------------------------------------
def test_ready_tasks_start_in_plan_order_up_to_max_parallel() -> None:
    done = run([t("a"), t("b"), t("c")])
    assert done.started == ("a", "b") and done.notify == (1, 2)
    assert [x.starts for x in done.epic.tasks] == [1, 1, 0]
    assert done.changed and slots_used(done.epic) == 2


def test_a_task_waits_for_its_dependencies() -> None:
    assert run([t("a", status=S.in_progress), t("b", "a")]).started == ()


def test_completed_or_skipped_dependencies_let_a_task_start() -> None:
    done = run([t("a", status=S.completed), t("s", status=S.skipped), t("b", "a", "s")])
    assert done.started == ("b",)


def test_an_ordered_start_not_yet_taken_holds_its_slot_and_is_not_ordered_again() -> None:
    first = run([t("a"), t("b"), t("c")], settings_=EpicSettings(max_parallel=1))
    assert first.started == ("a",)
    again = conduct(
        first.epic,
        [obs(1, S.pending, link=link("a", starts_taken=0))],
        EpicSettings(max_parallel=1),
        now=NOW,
        may_start=True,
    )
    assert again.started == () and not again.changed


def test_without_its_record_a_pending_task_with_a_start_order_is_in_flight() -> None:
    done = run(
        [t("a", starts=1), t("b")], [obs(1, S.pending)], settings_=EpicSettings(max_parallel=1)
    )
    assert done.started == ()


def test_a_task_pending_again_with_every_start_taken_may_start_again() -> None:
    done = run([t("a", starts=1)], [obs(1, S.pending, link=link("a", starts_taken=1))])
    assert done.started == ("a",) and done.epic.tasks[0].starts == 2


def test_a_taken_start_moves_the_slot_to_the_active_task() -> None:
    done = run(
        [t("a", starts=1), t("b"), t("c")],
        [obs(1, S.in_progress, link=link("a", starts_taken=1))],
    )
    assert done.started == ("b",)


def test_tasks_without_a_sub_issue_or_replaced_never_start() -> None:
    done = run([t("a", n=None), t("b#2", n=2, replaced_by="b", status=S.skipped), t("b", n=None)])
    assert done.started == ()


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        pytest.param({"may_start": False}, "the engine says no", id="may_start false"),
        pytest.param({"budget_stop": "spent"}, "a budget is spent", id="a budget stop"),
        pytest.param({"breaker": Breaker(state="open")}, "the breaker is open", id="open breaker"),
        pytest.param(
            {"breaker": Breaker(state="half_open", probe="b")},
            "a probe is out",
            id="half-open with its probe out",
        ),
    ],
)
def test_nothing_starts_when(kwargs: dict[str, object], why: str) -> None:
    done = run([t("a"), t("b")], **kwargs)  # type: ignore[arg-type]
    assert done.started == (), why


def test_a_half_open_breaker_lets_one_probe_through() -> None:
    done = run([t("a"), t("b")], breaker=Breaker(state="half_open", failures=3))
    assert done.started == ("a",) and done.epic.breaker.probe == "a"


def test_the_probes_success_closes_the_breaker_and_starts_resume() -> None:
    probing = Breaker(state="half_open", failures=3, probe="a")
    done = run(
        [t("a", starts=1, status=S.pending_review), t("b"), t("c")],
        [obs(1, S.completed, link=link("a", starts_taken=1, successes=1))],
        breaker=probing,
    )
    assert done.epic.breaker == Breaker()
    assert done.started == ("b", "c") and done.completed == ("a",)


def test_the_probes_failure_reopens_the_breaker() -> None:
    probing = Breaker(state="half_open", failures=3, probe="a")
    done = run(
        [t("a", starts=1, status=S.in_progress), t("b")],
        [obs(1, S.retry_queued, link=link("a", starts_taken=1, failures=1))],
        breaker=probing,
    )
    assert done.epic.breaker.state == "open" and done.breaker_opened
    assert done.started == ()


def test_a_probe_closed_by_a_human_lets_another_probe_through() -> None:
    probing = Breaker(state="half_open", failures=3, probe="a")
    done = run([t("a", starts=1), t("b")], [obs(1, S.pending, open=False)], breaker=probing)
    assert done.epic.tasks[0].status == S.skipped
    assert done.started == ("b",) and done.epic.breaker.probe == "b"


# --- observations and the breaker --------------------------------------------------------------
def test_an_observation_without_a_status_keeps_the_tasks_status() -> None:
    done = run([t("a", status=S.in_progress, starts=1)], [obs(1, None, attempt=2)])
    assert done.epic.tasks[0].status == S.in_progress and done.epic.tasks[0].attempts == 2


def test_a_human_closing_a_sub_issue_skips_its_task() -> None:
    done = run([t("a", status=S.failed), t("b", "a", block=True)], [obs(1, S.failed, open=False)])
    assert done.epic.tasks[0].status == S.skipped
    assert done.unblocked == ("b",) and done.started == ("b",)


def test_a_completed_task_closed_stays_completed() -> None:
    done = run([t("a", status=S.pending_review)], [obs(1, S.completed, open=False)])
    assert done.epic.tasks[0].status == S.completed and done.all_done


def test_spend_and_attempts_are_taken_from_the_observation() -> None:
    spend = Spend(runs=2, tokens=10)
    done = run([t("a", status=S.in_progress)], [obs(1, S.pending_review, spend=spend, attempt=3)])
    assert done.epic.tasks[0].spend == spend and done.epic.tasks[0].attempts == 3


def test_the_epic_keeps_a_tasks_spend_without_its_roles_so_its_record_stays_as_large() -> None:
    spend = Spend().add(Cost(tokens=10, money=0.5), role="developer").add(None, role="reviewer")
    done = run([t("a", status=S.in_progress)], [obs(1, S.pending_review, spend=spend)])
    kept = done.epic.tasks[0].spend
    assert kept == Spend(runs=2, tokens=10, money=0.5)
    assert "roles" not in kept.model_dump_json()


def test_new_failures_feed_the_breaker_once() -> None:
    tasks = [t("a", status=S.in_progress, starts=1), t("b")]
    seen = [obs(1, S.retry_queued, link=link("a", starts_taken=1, failures=1))]
    once = run(tasks, seen, settings_=EpicSettings(max_parallel=1, breaker_threshold=2))
    assert once.epic.breaker.failures == 1 and once.epic.tasks[0].failures_seen == 1
    twice = conduct(
        once.epic, seen, EpicSettings(max_parallel=1, breaker_threshold=2), now=NOW, may_start=True
    )
    assert twice.epic.breaker == once.epic.breaker and not twice.changed


def test_a_tasks_second_failure_is_numbered_after_its_first_in_the_reasons() -> None:
    tasks = [t("a", status=S.in_progress, starts=2, failures_seen=1)]
    breaker = Breaker(failures=1, reasons=["task a (#1): failure 1"])
    seen = [obs(1, S.retry_queued, link=link("a", starts_taken=2, failures=2))]
    done = run(tasks, seen, breaker=breaker)
    assert done.epic.breaker.reasons == ["task a (#1): failure 1", "task a (#1): failure 2"]


def test_failures_across_tasks_open_the_breaker_and_stop_starts() -> None:
    tasks = [t("a", status=S.in_progress, starts=1), t("b", status=S.in_progress, starts=1), t("c")]
    done = run(
        tasks,
        [
            obs(1, S.retry_queued, link=link("a", starts_taken=1, failures=1)),
            obs(2, S.failed, link=link("b", starts_taken=1, failures=1)),
        ],
        settings_=EpicSettings(max_parallel=3, breaker_threshold=2),
    )
    assert done.breaker_opened and done.started == () and done.failed == ("b",)
    assert done.epic.breaker.reasons == ["task a (#1): failure 1", "task b (#2): failure 1"]


def test_a_high_severity_rejection_opens_the_breaker_at_once() -> None:
    done = run(
        [t("a", status=S.pending_review, starts=1), t("b")],
        [obs(1, S.failed, link=link("a", starts_taken=1, failures=1, high=1))],
    )
    assert done.breaker_opened and done.started == ()


def test_a_link_below_what_was_seen_counts_nothing() -> None:
    done = run(
        [t("a", status=S.in_progress, starts=1, failures_seen=3)],
        [obs(1, None, link=link("a", starts_taken=1, failures=1))],
    )
    assert done.epic.breaker == Breaker() and done.epic.tasks[0].failures_seen == 1


# --- blocks -----------------------------------------------------------------------------------
def test_a_failed_dependency_blocks_the_whole_chain_below_it_in_one_pass() -> None:
    done = run(
        [t("d", "c"), t("c", "b"), t("b", "a"), t("a", status=S.in_progress, starts=1)],
        [obs(1, S.failed)],
    )
    assert done.blocked == ("d", "c", "b") and done.failed == ("a",)
    assert done.notify == (4, 3, 2)


def test_a_lifted_block_unblocks_the_whole_chain_in_one_pass() -> None:
    done = run(
        [
            t("a", status=S.failed),
            t("b", "a", status=S.blocked, block=True),
            t("c", "b", status=S.blocked, block=True),
        ],
        [obs(1, S.skipped)],
    )
    assert done.unblocked == ("b", "c") and done.started == ()
    assert done.notify == (2, 3)


def test_a_task_shown_blocked_without_an_order_still_holds_its_dependents() -> None:
    done = run([t("a", status=S.blocked), t("b", "a")])
    assert done.blocked == ("b",)


def test_a_task_with_a_start_in_flight_is_not_blocked() -> None:
    done = run([t("a", status=S.failed), t("b", starts=1)], [obs(1, S.failed)])
    assert done.blocked == ()


def test_notify_lists_each_moved_task_once_in_plan_order() -> None:
    done = run([t("z"), t("a", status=S.failed), t("b", "a"), t("y", block=True)])
    assert (done.started, done.blocked, done.unblocked) == (("z", "y"), ("b",), ("y",))
    assert done.notify == (26, 2, 25)


# --- completion, replacements ------------------------------------------------------------------
def test_all_done_counts_current_tasks_only() -> None:
    done = run(
        [
            t("a", status=S.completed),
            t("b#2", n=2, status=S.skipped, replaced_by="b"),
            t("b", n=5, status=S.pending_review, starts=1),
        ],
        [obs(5, S.completed)],
    )
    assert done.all_done and done.completed == ("b",)


def test_an_empty_plan_is_not_done() -> None:
    assert not run([]).all_done


def test_a_dependency_on_a_replaced_key_waits_for_its_new_entry() -> None:
    tasks = [
        t("a#1", n=1, status=S.skipped, replaced_by="a"),
        t("a", n=7),
        t("b", "a", n=8),
    ]
    assert run(tasks).started == ("a",)
    tasks[1] = t("a", n=7, status=S.completed)
    assert run(tasks).started == ("b",)


def test_a_dependency_on_a_dropped_key_counts_as_skipped() -> None:
    done = run([t("a", n=1, status=S.skipped, replaced_by=""), t("b", "a")])
    assert done.started == ("b",)


def test_an_observation_of_a_replaced_sub_issue_is_ignored() -> None:
    done = run([t("a#1", n=1, status=S.skipped, replaced_by="a")], [obs(1, S.in_progress)])
    assert done.epic.tasks[0].status == S.skipped and not done.changed


def test_nothing_new_changes_nothing() -> None:
    tasks = [t("a", status=S.in_progress, starts=1)]
    done = run(tasks, [obs(1, S.in_progress, link=link("a", starts_taken=1))])
    assert not done.changed and done.notify == ()


def test_ready_and_slots_used() -> None:
    epic = EpicState(
        tasks=[
            t("a", status=S.completed),
            t("b", "a"),
            t("c", "b"),
            t("d", starts=1),
            t("e", status=S.retry_queued),
            t("f", block=True),
        ]
    )
    assert ready(epic) == ["b"]
    assert slots_used(epic) == 2
    assert slots_used(epic, [obs(4, S.pending, link=link("d", starts_taken=1))]) == 1


# --- edges the mutation run found unpinned ------------------------------------------------------
@pytest.mark.parametrize(("attempt", "attempts"), [(0, 4), (1, 1)])
def test_an_observed_attempt_counts_from_one(attempt: int, attempts: int) -> None:
    done = run([t("a", status=S.in_progress, starts=1, attempts=4)], [obs(1, attempt=attempt)])
    assert done.epic.tasks[0].attempts == attempts


def test_a_task_without_a_record_does_not_stop_the_later_ones_feeding_the_breaker() -> None:
    done = run(
        [t("a", status=S.in_progress, starts=1), t("b", status=S.in_progress, starts=1)],
        [obs(1, S.in_progress), obs(2, S.failed, link=link("b", starts_taken=1, failures=1))],
    )
    assert done.epic.breaker.failures == 1 and done.epic.tasks[1].failures_seen == 1


def test_the_breaker_opens_at_the_passes_time() -> None:
    done = run(
        [t("a", status=S.pending_review, starts=1)],
        [obs(1, S.failed, link=link("a", starts_taken=1, failures=1, high=1))],
    )
    assert done.epic.breaker.opened_at == NOW


def test_only_new_high_rejections_and_successes_feed_the_breaker() -> None:
    counting = Breaker(failures=1, reasons=["task z: failed"])
    done = run(
        [
            t("a", status=S.retry_queued, starts=1, failures_seen=1, high_seen=1),
            t("b", status=S.completed, starts=1, successes_seen=1),
        ],
        [
            obs(1, S.retry_queued, link=link("a", starts_taken=1, failures=1, high=1)),
            obs(2, S.completed, link=link("b", starts_taken=1, successes=1)),
        ],
        breaker=counting,
        may_start=False,
    )
    assert done.epic.breaker == counting and not done.breaker_opened and not done.changed


def test_the_counts_seen_are_recorded() -> None:
    done = run(
        [t("a", status=S.pending_review, starts=1)],
        [obs(1, S.completed, link=link("a", starts_taken=1, failures=2, high=1, successes=1))],
        settings_=EpicSettings(breaker_threshold=9),
    )
    task = done.epic.tasks[0]
    assert (task.failures_seen, task.high_seen, task.successes_seen) == (2, 1, 1)


def test_breaker_opened_only_when_it_opens_in_this_pass() -> None:
    assert not run([t("a", status=S.in_progress, starts=1)]).breaker_opened
    already = Breaker(state="open", failures=2, opened_at=NOW)
    done = run(
        [t("a", status=S.in_progress, starts=1)],
        [obs(1, S.failed, link=link("a", starts_taken=1, failures=1))],
        breaker=already,
    )
    assert done.epic.breaker.state == "open" and not done.breaker_opened


def test_a_replaced_entry_first_in_the_plan_does_not_stop_the_blocks() -> None:
    done = run(
        [t("x#9", n=9, status=S.skipped, replaced_by="x"), t("a", status=S.failed), t("b", "a")]
    )
    assert done.blocked == ("b",)


def test_a_dependency_the_plan_does_not_know_neither_blocks_nor_starts() -> None:
    done = run([t("b", "zz")])
    assert done.blocked == () and done.started == ()


def test_a_self_dependency_never_holds_its_task_blocked() -> None:
    done = run([t("b", "b", status=S.blocked, block=True)])
    assert done.unblocked == ("b",)


def test_a_start_taken_by_a_waiting_task_lets_a_failed_dependency_block_it() -> None:
    done = run(
        [t("a", status=S.failed), t("b", "a", starts=1)],
        [obs(1, S.failed), obs(2, S.pending, link=link("b", starts_taken=1))],
    )
    assert done.blocked == ("b",)


def test_a_hundred_task_chain_is_conducted_fast() -> None:
    tasks = [t("k0", n=1000, status=S.failed)]
    tasks += [t(f"k{i}", f"k{i - 1}", n=1000 + i) for i in range(1, 100)]
    began = time.perf_counter()
    done = run(list(reversed(tasks)))
    assert len(done.blocked) == 99
    assert time.perf_counter() - began < 0.5


# --- properties: random plans, random task runs -------------------------------------------------
@dataclass
class Sub:
    """A sub-issue as it really is: what its own runs did."""

    status: S = S.pending
    open: bool = True
    starts_taken: int = 0
    failures: int = 0
    high: int = 0
    successes: int = 0
    took: list[int] = field(default_factory=list)


@st.composite
def plans(draw: st.DrawFn) -> list[PlannedTask]:
    n = draw(st.integers(1, 12))
    deps = [draw(st.sets(st.integers(0, i - 1), max_size=3)) if i else set() for i in range(n)]
    placed = draw(st.permutations(range(n)))
    return [
        PlannedTask(
            key=f"k{i}",
            title=f"k{i}",
            depends_on=[f"k{d}" for d in sorted(deps[i])],
            number=100 + i,
        )
        for i in placed
    ]


ACTIONS = st.one_of(
    st.tuples(st.just("conduct"), st.booleans(), st.lists(st.booleans(), min_size=12, max_size=12)),
    st.tuples(st.just("take"), st.integers(0, 11)),
    st.tuples(
        st.just("work"), st.integers(0, 11), st.sampled_from(["ok", "reject", "fail", "high"])
    ),
    st.tuples(st.just("close"), st.integers(0, 11)),
    st.tuples(st.just("resume")),
)


def _observe(
    tasks: list[PlannedTask], subs: dict[int, Sub], linked: list[bool]
) -> list[TaskObservation]:
    seen = []
    for i, task in enumerate(tasks):
        assert task.number is not None
        sub = subs[task.number]
        sub_link = link(
            task.key,
            starts_taken=sub.starts_taken,
            failures=sub.failures,
            high=sub.high,
            successes=sub.successes,
        )
        seen.append(
            obs(
                task.number,
                sub.status,
                open=sub.open,
                link=sub_link if linked[i % len(linked)] else None,
            )
        )
    return seen


def _work(sub: Sub, outcome: str) -> None:
    if sub.status in (S.in_progress,):
        sub.status = S.pending_review if outcome != "fail" else S.failed
        sub.failures += outcome == "fail"
    elif sub.status == S.pending_review:
        if outcome == "ok":
            sub.status, sub.successes = S.completed, sub.successes + 1
        else:
            sub.failures += 1
            sub.high += outcome == "high"
            sub.status = S.retry_queued if outcome == "reject" else S.failed
    elif sub.status == S.retry_queued:
        sub.status = S.in_progress


@settings(max_examples=250, deadline=None)
@given(plans(), st.integers(1, 4), st.integers(1, 3), st.lists(ACTIONS, max_size=60))
def test_the_conductor_keeps_seed_002s_invariants(
    tasks: list[PlannedTask], parallel: int, threshold: int, actions: list[tuple[object, ...]]
) -> None:
    config = EpicSettings(max_parallel=parallel, breaker_threshold=threshold)
    epic = EpicState(tasks=tasks)
    subs = {task.number: Sub() for task in tasks if task.number is not None}
    for action in actions:
        kind = action[0]
        if kind == "conduct":
            _, may_start, linked = action
            assert isinstance(linked, list)
            seen = _observe(epic.tasks, subs, linked)
            before = {x.key: x for x in epic.tasks}
            done = conduct(epic, seen, config, now=NOW, may_start=bool(may_start))
            epic = done.epic
            by_key = {x.key: x for x in epic.tasks}
            for key in done.started:
                task, old = by_key[key], before[key]
                assert task.number is not None
                sub = subs[task.number]
                assert task.starts == old.starts + 1
                assert old.starts == 0 or (  # started again only when every start was taken
                    linked[[x.key for x in epic.tasks].index(key) % 12]
                    and sub.starts_taken == old.starts
                    and sub.status == S.pending
                )
                assert all(by_key[d].status in DONE for d in task.depends_on)
                assert all(subs[by_key[d].number or 0].status in DONE for d in task.depends_on)
            assert slots_used(epic, seen) <= parallel
            if done.epic.breaker.state == "open":
                assert done.started == ()
        elif kind == "take":
            task = epic.tasks[int(action[1]) % len(epic.tasks)]  # type: ignore[call-overload]
            assert task.number is not None
            sub = subs[task.number]
            if sub.status == S.pending and task.starts > sub.starts_taken and sub.open:
                sub.status, sub.starts_taken = S.in_progress, sub.starts_taken + 1
            elif sub.status == S.pending and task.block:
                sub.status = S.blocked
            elif sub.status == S.blocked and not task.block:
                sub.status = S.pending
        elif kind == "work":
            task = epic.tasks[int(action[1]) % len(epic.tasks)]  # type: ignore[call-overload]
            assert task.number is not None
            _work(subs[task.number], str(action[2]))
        elif kind == "close":
            task = epic.tasks[int(action[1]) % len(epic.tasks)]  # type: ignore[call-overload]
            assert task.number is not None
            subs[task.number].open = False
            if subs[task.number].status not in DONE:
                subs[task.number].status = S.skipped
        elif kind == "resume" and epic.breaker.state == "open":
            epic = epic.model_copy(
                update={"breaker": epic.breaker.model_copy(update={"state": "half_open"})}
            )
        # the real world: never more than max_parallel active or ordered and not taken
        real = 0
        for task in epic.tasks:
            assert task.number is not None
            sub = subs[task.number]
            assert task.starts - sub.starts_taken <= 1  # never two outstanding starts
            real += sub.status in ACTIVE or (
                sub.status == S.pending and task.starts > sub.starts_taken
            )
        assert real <= parallel


@settings(max_examples=100, deadline=None)
@given(plans(), st.integers(1, 4))
def test_a_plan_whose_tasks_all_succeed_finishes(tasks: list[PlannedTask], parallel: int) -> None:
    config = EpicSettings(max_parallel=parallel)
    epic = EpicState(tasks=tasks)
    subs = {task.number: Sub() for task in tasks if task.number is not None}
    for _ in range(4 * len(tasks) + 2):
        done = conduct(epic, _observe(epic.tasks, subs, [True]), config, now=NOW, may_start=True)
        epic = done.epic
        if done.all_done:
            break
        for task in epic.tasks:
            sub = subs[task.number or 0]
            if sub.status == S.pending and task.starts > sub.starts_taken:
                sub.status, sub.starts_taken = S.in_progress, sub.starts_taken + 1
            elif sub.status in ACTIVE:
                sub.status, sub.successes = S.completed, sub.successes + 1
    assert done.all_done


def test_observed_spend_reads_current_tasks_and_keeps_replaced_ones_as_they_were() -> None:
    from baton.core.model.epic import Spend
    from baton.core.rules.epic.conductor import observed_spend

    kept = PlannedTask(key="a", title="A", number=2, spend=Spend(runs=1))
    old = PlannedTask(key="b#3", title="B", number=3, replaced_by="b", spend=Spend(runs=4))
    epic = EpicState(tasks=[kept, old])
    seen = [
        TaskObservation(number=2, spend=Spend(runs=5, money=1.5)),
        TaskObservation(number=3, spend=Spend(runs=9)),  # a replaced entry is not read again
    ]
    assert observed_spend(epic, seen) == Spend(runs=9, money=1.5)
    assert observed_spend(epic, []) == Spend(runs=5)
