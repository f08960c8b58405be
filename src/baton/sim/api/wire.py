"""What travels between a client and the fake GitHub: a request as a route sees it, an
answer, GitHub's error bodies (404, 422 Validation Failed with its errors), and the routing
table's rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from baton.sim.model import rules
from baton.sim.model.issues import Refused

DOCS_URL = "https://docs.github.com/rest"
API_VERSION = "2022-11-28"
DEFAULT_PER_PAGE = 30
GRAPHQL_PATH = "/graphql"


@dataclass
class _Request:
    method: str
    raw_path: str  # as sent (percent-encoded); used to build Link headers
    path: str
    params: dict[str, str]  # decoded path parameters from the route
    query: dict[str, str]
    body: Any
    base: str  # scheme://host:port the client used


@dataclass
class _Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class ApiError(Exception):
    """Raised by handlers; becomes a GitHub-style error body."""

    def __init__(
        self, status: int, message: str, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors

    def response(self) -> _Response:
        body: dict[str, Any] = {"message": self.message, "documentation_url": DOCS_URL}
        if self.errors is not None:
            body["errors"] = self.errors
        body["status"] = str(self.status)
        return _Response(self.status, body)


def _not_found() -> ApiError:
    return ApiError(404, "Not Found")


def _invalid(resource: str, field_name: str, code: str, message: str | None = None) -> ApiError:
    error: dict[str, Any] = {"resource": resource, "code": code, "field": field_name}
    if message is not None:
        error["message"] = message
    return ApiError(422, "Validation Failed", [error])


def _invalid_custom(resource: str, message: str) -> ApiError:
    """GitHub's 422 for a rule with no field: ``{"resource", "code": "custom", "message"}``."""
    return ApiError(
        422, "Validation Failed", [{"resource": resource, "code": "custom", "message": message}]
    )


def _refused(refusal: rules.Refusal) -> ApiError:
    return _invalid(refusal.resource, refusal.field, refusal.code, refusal.message)


@contextmanager
def _refusing() -> Iterator[None]:
    """GitHub's refusal of a change in the model, as its 422 answer over REST."""
    try:
        yield
    except Refused as refused:
        raise _refused(refused.refusal) from None


def _parse_iso(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ApiError(422, f"Invalid time: {value!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _int_param(query: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(query.get(name, default))
    except ValueError:
        return default


_Item = TypeVar("_Item")


@dataclass(frozen=True)
class Route:
    """One row of the routing table: method, anchored path regex, handler."""

    method: str
    pattern: re.Pattern[str]
    handler: Callable[[Any, _Request], _Response]


def handled_by(name: str) -> Callable[[Any, _Request], _Response]:
    """A route's handler: the API's method `name`, looked up on the API that answers."""

    def handler(api: Any, req: _Request) -> _Response:
        answer: _Response = getattr(api, name)(req)
        return answer

    return handler


def _compile(template: str) -> re.Pattern[str]:
    """``/repos/{owner}/{n:int}/labels/{name:rest}`` -> anchored regex with named groups."""
    kinds = {"": "[^/]+", "int": "[0-9]+", "rest": ".+"}

    def group(match: re.Match[str]) -> str:
        name, _, kind = match.group(1).partition(":")
        return f"(?P<{name}>{kinds[kind]})"

    return re.compile("^" + re.sub(r"\{([^}]+)\}", group, template) + "$")
