"""Durations as written in workflows and configs: what is one, and what is refused in a line."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.workflow.durations import MAX_SECONDS, format_duration, parse_duration


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        pytest.param("30m", timedelta(minutes=30), id="minutes"),
        pytest.param("1d12h", timedelta(days=1, hours=12), id="days and hours"),
        pytest.param("2w", timedelta(weeks=2), id="weeks"),
        pytest.param(" 1h 30m ", timedelta(minutes=90), id="spaces between parts"),
        pytest.param(90, timedelta(seconds=90), id="a number of seconds"),
        pytest.param("3650d", timedelta(days=3650), id="ten years, the longest"),
        pytest.param(timedelta(hours=2), timedelta(hours=2), id="a timedelta as it is"),
    ],
)
def test_a_duration_is_read_as_meant(written: object, meant: timedelta) -> None:
    assert parse_duration(written) == meant


@pytest.mark.parametrize(
    "written",
    [
        pytest.param("9999999999999w", id="a week count past what a timedelta holds"),
        pytest.param("3651d", id="longer than ten years"),
        pytest.param(float("inf"), id="infinity"),
        pytest.param(float("nan"), id="not a number"),
        pytest.param(-5, id="a negative number"),
        pytest.param(0, id="zero"),
        pytest.param("0m", id="zero minutes"),
        pytest.param(timedelta(0), id="an empty timedelta"),
        pytest.param("7 days", id="words"),
        pytest.param(True, id="a boolean"),
        pytest.param("9" * 5000, id="five thousand digits"),
    ],
)
def test_anything_else_is_a_value_error_naming_the_form(written: object) -> None:
    with pytest.raises(ValueError, match=r"is not a duration; write e\.g\. 30m"):
        parse_duration(written)


def test_the_limit_is_ten_years() -> None:
    assert MAX_SECONDS == 3650 * 86400


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(timedelta(days=1, hours=12), "1d12h", id="days and hours"),
        pytest.param(timedelta(0), "0s", id="nothing"),
        pytest.param(timedelta(seconds=61), "1m1s", id="a minute and a second"),
    ],
)
def test_a_duration_is_written_back_compactly(value: timedelta, text: str) -> None:
    assert format_duration(value) == text


def test_a_config_with_a_timeout_past_what_time_holds_is_refused_with_its_line() -> None:
    from baton.errors import InvalidConfig
    from baton.workflow.config import parse_config

    text = "timeouts:\n  waiting_for_approval: 9999999999999w\n"
    with pytest.raises(InvalidConfig, match=r"baton\.yml:2: timeouts\.waiting_for_approval"):
        parse_config(text, source="baton.yml")
