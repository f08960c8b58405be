"""How GitHub's GraphQL answers say what failed: per-field errors, by alias."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldError:
    alias: str
    kind: str  # GitHub's error type: NOT_FOUND, FORBIDDEN, UNPROCESSABLE...
    message: str


def field_errors(answer: dict[str, Any], asked: Sequence[str] = ()) -> dict[str, FieldError]:
    """GraphQL answers 200 with an `errors` list; each names the field (alias) it belongs to.
    A field of `asked` answered with nothing and no error did not run: that is an error too."""
    found: dict[str, FieldError] = {}
    data = answer.get("data") or {}
    for alias in asked:
        if data.get(alias) is None and not any(
            (e.get("path") or [None])[0] == alias for e in answer.get("errors") or []
        ):
            found[alias] = FieldError(alias, "NOT_RUN", "GitHub answered nothing for it")
    for error in answer.get("errors") or []:
        path = error.get("path") or [""]
        alias = str(path[0])
        if alias in asked and len(path) > 1 and data.get(alias) is not None:
            continue  # an error inside a mutation's answer that came back: the field itself ran
        found.setdefault(
            alias,
            FieldError(
                alias=alias,
                kind=str(error.get("type") or "ERROR"),
                message=str(error.get("message") or "unknown error"),
            ),
        )
    return found


def nested_errors(answer: dict[str, Any], root: str) -> dict[str, FieldError]:
    """The errors of the fields under the root field `root` (aliases of a query that asks for
    several issues of one repository), by their alias."""
    found: dict[str, FieldError] = {}
    for error in answer.get("errors") or []:
        path = error.get("path") or []
        if len(path) > 1 and path[0] == root:
            found.setdefault(
                str(path[1]),
                FieldError(
                    alias=str(path[1]),
                    kind=str(error.get("type") or "ERROR"),
                    message=str(error.get("message") or "unknown error"),
                ),
            )
    return found


STATUS_OF = {
    "NOT_FOUND": 404,
    "FORBIDDEN": 403,
    "RATE_LIMITED": 429,
    "RATE_LIMIT": 429,
    "UNPROCESSABLE": 422,
}


def created_id(data: dict[str, Any], alias: str) -> tuple[int, str] | None:
    """The database and node id of a comment an `addComment` field created."""
    node = ((data.get(alias) or {}).get("commentEdge") or {}).get("node") or {}
    if node.get("fullDatabaseId") is None:
        return None
    return int(node["fullDatabaseId"]), str(node["id"])
