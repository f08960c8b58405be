"""GraphQL's connections as GitHub pages them: ``first`` required and at most 100, opaque
cursors that stay good when their own item goes, ``pageInfo`` and ``totalCount``; and a field's
failure as GitHub reports it (`GitHubError`: an error ``type`` and a message)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

Node = dict[str, Any]
PAGE_LIMIT = 100  # GitHub's most for `first` on any connection
CURSOR_PREFIX = "cursor:v2:"

_Item = TypeVar("_Item")


class GitHubError(Exception):
    """A field's failure as GitHub reports it: an error ``type`` and a message."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _cursor(key: int) -> str:
    return base64.b64encode(f"{CURSOR_PREFIX}{key}".encode()).decode()


def _after_key(after: str) -> int:
    try:
        text = base64.b64decode(after, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        text = ""
    number = text.removeprefix(CURSOR_PREFIX)
    if not text.startswith(CURSOR_PREFIX) or not number.isdigit():
        raise GitHubError(
            "INVALID_CURSOR_ARGUMENTS", f"`{after}` does not appear to be a valid cursor."
        )
    return int(number)


def _connection(
    name: str,
    items: Sequence[_Item],
    first: int | None,
    after: str | None,
    key: Callable[[_Item], int],
    render: Callable[[_Item], Node],
) -> Node:
    """A page of ``items`` (ordered by ``key``) as GitHub's connection types shape it."""
    if first is None:
        raise GitHubError(
            "MISSING_PAGINATION_BOUNDARIES",
            f"You must provide a `first` or `last` value to properly paginate the `{name}` "
            "connection.",
        )
    if first > PAGE_LIMIT:
        raise GitHubError(
            "EXCESSIVE_PAGINATION",
            f"Requesting {first} records on the `{name}` connection exceeds the `first` limit "
            f"of {PAGE_LIMIT} records.",
        )
    if first < 0:
        raise GitHubError(
            "INVALID_ARGUMENTS", f"`first` on the `{name}` connection cannot be less than zero."
        )
    start = 0
    if after is not None:
        after_key = _after_key(after)  # a cursor stays good when its own item is deleted
        start = next((i for i, item in enumerate(items) if key(item) > after_key), len(items))
    page = items[start : start + first]
    edges = [{"cursor": _cursor(key(item)), "node": render(item)} for item in page]
    return {
        "edges": edges,
        "nodes": [edge["node"] for edge in edges],
        "pageInfo": {
            "hasNextPage": start + len(page) < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
        },
        "totalCount": len(items),
    }
