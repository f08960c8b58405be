"""Human durations ("90m", "7d", "1d12h") as used in workflow and config files."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from baton.errors import InvalidDuration

_PART = re.compile(r"(\d+)\s*([wdhms])")
_WHOLE = re.compile(r"^\s*(?:\d+\s*[wdhms]\s*)+$")
_UNIT_SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
# Past this a timeout means "never" and timedelta would overflow; an InvalidDuration, not a crash.
MAX_SECONDS = 3650 * 86400


def parse_duration(value: object) -> timedelta:
    seconds: float | None = None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and _WHOLE.match(value):
        seconds = sum(int(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(value))
    if seconds is not None and 0 < seconds <= MAX_SECONDS:  # NaN fails both comparisons
        return timedelta(seconds=seconds)
    shown = value if not isinstance(value, str) or len(value) <= 40 else value[:40] + "…"
    raise InvalidDuration(
        f"{shown!r} is not a duration; write e.g. 30m, 12h, 7d or 1d12h (at most 3650d)"
    )


def format_duration(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    parts = []
    for unit in "dhms":
        size = _UNIT_SECONDS[unit]
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(parts) or "0s"


Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\s*(?:\d+\s*[wdhms]\s*)+$",
            "description": "A duration such as 30m, 12h, 7d or 1d12h.",
        }
    ),
]
