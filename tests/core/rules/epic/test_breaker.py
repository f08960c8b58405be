"""Seed 002's circuit breaker: closed counts failures in a row, opens at the threshold or on a
high-severity rejection; `/resume` half-opens it; the next outcome closes or reopens it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.core.model.epic import KEEP_BREAKER_REASONS, Breaker
from baton.core.rules.epic.breaker import count, half_open, is_open

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
EARLIER = datetime(2025, 5, 1, 11, 0, tzinfo=UTC)


def fed(
    breaker: Breaker, failures: int = 0, high: int = 0, successes: int = 0, seen: int = 0
) -> Breaker:
    return count(
        breaker,
        key="api",
        failures=failures,
        high=high,
        successes=successes,
        threshold=3,
        now=NOW,
        title="#12",
        seen=seen,
    )


def test_a_failure_below_the_threshold_is_counted_with_its_reason() -> None:
    assert fed(Breaker(), failures=1) == Breaker(failures=1, reasons=["task api (#12): failure 1"])


def test_the_threshold_opens_it() -> None:
    assert fed(Breaker(failures=2, reasons=["x", "y"]), failures=1) == Breaker(
        state="open", failures=3, opened_at=NOW, reasons=["x", "y", "task api (#12): failure 1"]
    )


def test_a_high_severity_rejection_opens_it_at_once() -> None:
    assert fed(Breaker(), failures=1, high=1) == Breaker(
        state="open",
        failures=1,
        opened_at=NOW,
        reasons=["task api (#12): failure 1, a high-severity rejection"],
    )


def test_a_success_in_closed_resets_the_count() -> None:
    assert fed(Breaker(failures=2, reasons=["x", "y"]), successes=1) == Breaker()


def test_failures_come_before_the_success_of_the_same_task() -> None:
    assert fed(Breaker(failures=1), failures=1, successes=1) == Breaker()
    assert is_open(fed(Breaker(failures=2), failures=1, successes=1))


def test_nothing_new_changes_nothing() -> None:
    breaker = Breaker(state="half_open", failures=3, probe="api")
    assert fed(breaker) is breaker
    assert fed(breaker, failures=-2, successes=-1) is breaker


def test_open_still_counts_failures_but_keeps_its_opening_time() -> None:
    opened = Breaker(state="open", failures=3, opened_at=EARLIER)
    assert fed(opened, failures=1) == Breaker(
        state="open", failures=4, opened_at=EARLIER, reasons=["task api (#12): failure 1"]
    )
    assert fed(opened, successes=2) == opened


def test_resume_half_opens_only_an_open_breaker() -> None:
    opened = Breaker(state="open", failures=3, opened_at=EARLIER, reasons=["r"])
    assert half_open(opened) == Breaker(
        state="half_open", failures=3, opened_at=EARLIER, reasons=["r"]
    )
    assert half_open(Breaker()) == Breaker()
    probing = Breaker(state="half_open", probe="a")
    assert half_open(probing) == probing


def test_resume_always_waits_for_a_new_probe() -> None:
    stale = Breaker(state="open", failures=3, probe="a")
    assert half_open(stale).probe is None


def test_half_open_closes_on_a_success() -> None:
    assert fed(Breaker(state="half_open", failures=3, probe="api"), successes=1) == Breaker()


def test_half_open_reopens_on_one_failure() -> None:
    reopened = fed(Breaker(state="half_open", failures=3, opened_at=EARLIER, probe="api"), 1)
    assert reopened == Breaker(
        state="open", failures=4, opened_at=NOW, reasons=["task api (#12): failure 1"]
    )


def test_reasons_keep_only_the_newest() -> None:
    breaker = count(
        Breaker(state="open"),
        key="k",
        failures=10**9,
        high=1,
        successes=0,
        threshold=3,
        now=NOW,
    )
    assert breaker.failures == 10**9
    first = 10**9 - KEEP_BREAKER_REASONS + 1
    assert breaker.reasons == [f"task k: failure {n}" for n in range(first, 10**9)] + [
        f"task k: failure {10**9}, a high-severity rejection"
    ]


def test_each_reason_numbers_the_tasks_failure_so_two_of_one_task_read_as_two() -> None:
    """The epic demo's breaker listed `task api (#3): failed` twice: its first and second
    rejected reviews, which read as one rejection said twice."""
    once = fed(Breaker(), failures=1)
    other = count(once, key="ui", failures=1, high=0, successes=0, threshold=3, now=NOW)
    again = fed(other, failures=1, seen=1)
    assert again.reasons == [
        "task api (#12): failure 1",
        "task ui: failure 1",
        "task api (#12): failure 2",
    ]
    assert fed(Breaker(), failures=2, high=1, seen=3).reasons == [
        "task api (#12): failure 4",
        "task api (#12): failure 5, a high-severity rejection",
    ]


def test_more_high_than_failures_counts_the_high_ones() -> None:
    assert fed(Breaker(), failures=0, high=2).failures == 2


@pytest.mark.parametrize("state", ["closed", "half_open", "open"])
def test_is_open_only_when_open(state: str) -> None:
    assert is_open(Breaker.model_validate({"state": state})) == (state == "open")


# --- properties -------------------------------------------------------------------------------
outcomes = st.lists(
    st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 2)), min_size=1, max_size=20
)


@settings(max_examples=300, deadline=None)
@given(outcomes, st.integers(1, 6))
def test_closed_opens_exactly_at_the_threshold_or_on_a_high(
    steps: list[tuple[int, bool, int]], threshold: int
) -> None:
    breaker = Breaker()
    in_a_row = 0
    for failures, high, successes in steps:
        was_closed = breaker.state == "closed"
        breaker = count(
            breaker,
            key="t",
            failures=failures,
            high=int(high and failures > 0),
            successes=successes,
            threshold=threshold,
            now=NOW,
        )
        if not was_closed:
            assert breaker.state == "open"  # nothing here closes an open breaker
            continue
        in_a_row += failures
        if (high and failures) or in_a_row >= threshold:
            assert breaker.state == "open" and breaker.opened_at == NOW
            assert breaker.failures == in_a_row
        else:
            assert breaker.state == "closed"
            if successes:
                assert breaker == Breaker()  # a success in closed resets
                in_a_row = 0
            else:
                assert breaker.failures == in_a_row
        assert len(breaker.reasons) <= KEEP_BREAKER_REASONS


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5))
def test_half_open_is_decided_by_the_first_outcome(failures: int, successes: int) -> None:
    breaker = half_open(Breaker(state="open", failures=3, opened_at=EARLIER))
    after = count(
        breaker, key="p", failures=failures, high=0, successes=successes, threshold=3, now=NOW
    )
    if failures:
        assert after.state == "open" and after.opened_at == NOW
    elif successes:
        assert after == Breaker()
    else:
        assert after == breaker
