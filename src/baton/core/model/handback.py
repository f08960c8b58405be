"""What an agent's job hands back (its result, its changeset), validated the same way, each
failure one line saying what to fix. The job ran untrusted work, so nothing in it is believed
before its model accepts it. Reading the files is `action/handback.py`'s."""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from baton.errors import BatonError

M = TypeVar("M", bound=BaseModel)
SHOWN_ERRORS = 5


def describe(error: ValidationError, whole: str) -> str:
    """`where: what` for each problem (the first few), `whole` where the object itself is wrong."""
    parts = []
    for item in error.errors()[:SHOWN_ERRORS]:
        where = ".".join(str(p) for p in item["loc"]) or whole
        parts.append(f"{where}: {item['msg']}")
    more = error.error_count() - SHOWN_ERRORS
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def parse(text: str, model: type[M], what: str, error: type[BatonError]) -> M:
    """`text` as a JSON object of `model`; `what` names it in the message ("the changeset")."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{what} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from exc
    except RecursionError as exc:
        raise error(f"{what} is nested too deeply to be read") from exc
    if not isinstance(data, dict):
        raise error(f"{what} must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(f"{what} does not validate: {describe(exc, what.split()[-1])}") from exc
