"""The fake GitHub's request log, its faults and its hook between requests: a request or a
GraphQL field made to fail (5xx, the secondary rate limit, 404, a slow answer, an answer that
never comes, a request GitHub applied whose answer was lost, a document that dies at one of its
fields), queued by the tests; `on_request` runs before a request is served, where a concurrent
run's writes land on GitHub.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from graphql import DocumentNode, OperationDefinitionNode, OperationType

from baton.sim.api.graphql_documents import parsed
from baton.sim.api.wire import DOCS_URL, GRAPHQL_PATH, _Response

SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
    "again. If you reach out to GitHub Support for help, please include the request ID FAKE."
)


@dataclass(frozen=True)
class Call:
    """One logged request, recorded after it was answered (faults included)."""

    method: str
    path: str  # percent-decoded, without query string
    query: dict[str, str]
    body: Any  # parsed JSON, or None
    status: int
    operation: str | None = None  # POST /graphql: the document's operation name, e.g. BatonRead

    @property
    def changes(self) -> bool:
        """Whether the request changes something: REST's other than GET, a GraphQL mutation."""
        if self.path != GRAPHQL_PATH:
            return self.method != "GET"
        query = self.body.get("query") if isinstance(self.body, dict) else None
        document = parsed(query) if isinstance(query, str) else None
        return isinstance(document, DocumentNode) and any(
            isinstance(d, OperationDefinitionNode) and d.operation == OperationType.MUTATION
            for d in document.definitions
        )


class TimedOut(TimeoutError):
    """No answer came: the client's read timed out (raised out of `handle`, as a socket's
    timeout reaches `http.client`; the socket server hangs up without answering)."""


@dataclass
class Fault:
    """A queued failure; ``status=None`` with a ``delay`` answers normally, late. ``applied``:
    GitHub serves the request, then the client gets the error (the answer was lost on its way
    back). ``timeout``: no answer comes at all (`TimedOut`), served first if ``applied``."""

    method: str
    pattern: re.Pattern[str]
    status: int | None
    times: int | None  # None: every matching request until clear_faults()
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hits: int = 0
    operation: str | None = None  # only GraphQL requests running this operation
    after: int = 0  # matching requests still let through before it strikes
    applied: bool = False  # served first: the error is what the client gets back
    timeout: bool = False  # no answer at all

    def matches(self, method: str, path: str, operation: str | None = None) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.operation is not None and self.operation != operation:
            return False
        return self.method in ("*", method) and self.pattern.search(path) is not None

    def take(self) -> bool:
        """A matching request: let through while `after` lasts, else hit."""
        if self.after > 0:
            self.after -= 1
            return False
        self.hits += 1
        return True


@dataclass
class FieldFault:
    """A queued GraphQL field failure: the root field answered as ``alias`` or named ``alias``
    in GitHub's schema (``updateIssueComment``, whatever alias the client gave it) fails
    GitHub-style, ``null`` in ``data`` and an error of type ``kind``, without running; the
    document's other fields still run. With a ``status`` the request dies there instead: the
    fields before it ran, none after, and the answer is that HTTP status (a 502 mid-document)."""

    alias: str
    kind: str  # GitHub's error type: NOT_FOUND, FORBIDDEN, UNPROCESSABLE...
    message: str | None
    times: int | None  # None: every time until clear_faults()
    operation: str | None = None  # only in documents running this operation
    hits: int = 0
    after: int = 0  # matching fields still let run before it strikes
    status: int | None = None  # the request dies at this field with this HTTP status

    def matches(self, alias: str, name: str, operation: str | None) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.operation is not None and self.operation != operation:
            return False
        return self.alias in (alias, name)

    def take(self) -> bool:
        if self.after > 0:
            self.after -= 1
            return False
        self.hits += 1
        return True


class Faults:
    """The request log and the faults queued for requests and GraphQL fields."""

    _lock: threading.RLock
    _faults: list[Fault]
    _field_faults: list[FieldFault]
    _requests: list[Call]
    # Called before each request is served with what was sent (`status` 0: not answered yet);
    # requests the hook itself makes pass it by. Tests land a concurrent run's writes here.
    on_request: Callable[[Call], None] | None = None
    _in_request_hook: bool = False

    @property
    def requests(self) -> list[Call]:
        with self._lock:
            return list(self._requests)

    def reset_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def calls(
        self,
        method: str | None = None,
        path_contains: str | None = None,
        *,
        operation: str | None = None,
    ) -> list[Call]:
        """Logged requests, filtered; ``path_contains`` matches the decoded path, ``operation``
        the operation name of a GraphQL document (``BatonRead``, ``BatonWrite``...)."""
        with self._lock:
            return [
                call
                for call in self._requests
                if (method is None or call.method == method.upper())
                and (path_contains is None or path_contains in call.path)
                and (operation is None or call.operation == operation)
            ]

    def fail(
        self,
        method: str,
        path_regex: str,
        status: int | None,
        *,
        times: int | None = 1,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
        operation: str | None = None,
        after: int = 0,
        applied: bool = False,
        timeout: bool = False,
    ) -> Fault:
        """Queue a failure for requests matching ``method`` and ``path_regex``
        (``re.search`` on the percent-decoded path, query excluded).

        ``method`` may be ``"*"``. Default bodies: 403/429 -> secondary rate limit
        (with ``retry-after: 1``), 404 -> Not Found, 5xx -> Server Error. ``delay``
        sleeps before answering (to trip client timeouts); with ``status=None`` the
        request is then served normally, as when GitHub applies a write the client
        gave up on. ``operation`` narrows it to GraphQL documents running that
        operation: ``fail("POST", "/graphql", 502, operation="BatonWrite")``. ``after``
        lets that many matching requests through first (the third document fails:
        ``after=2``). ``applied``: GitHub serves the request (the comment is posted, the
        commit made), then answers ``status``: the answer was lost on its way back.
        ``timeout``: no answer comes, the client's read times out (with ``applied``, after
        GitHub served it); ``status`` is then None.
        """
        if timeout and status is not None:
            raise ValueError("a request that times out gets no status")
        if status is None and delay <= 0 and not timeout:
            raise ValueError("a fault needs a status, a delay, a timeout, or two of them")
        if applied and status is None and not timeout:
            raise ValueError("a request GitHub applied fails with a status or a timeout")
        if times is not None and times < 1:
            raise ValueError("times must be >= 1, or None for every matching request")
        fault = Fault(
            method=method.upper(),
            pattern=re.compile(path_regex),
            status=status,
            times=times,
            body=body,
            headers={key.lower(): value for key, value in (headers or {}).items()},
            delay=delay,
            operation=operation,
            after=after,
            applied=applied,
            timeout=timeout,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def fail_graphql_field(
        self,
        alias: str,
        kind: str = "NOT_FOUND",
        *,
        times: int | None = 1,
        message: str | None = None,
        operation: str | None = None,
        after: int = 0,
        status: int | None = None,
    ) -> FieldFault:
        """Make the GraphQL root field answered as ``alias``, or named so in GitHub's schema,
        fail GitHub-style: it does not run, ``data[alias]`` is null and an error
        ``{"type": kind, "path": [alias], ...}`` is added, while the document's other fields
        run as usual (a partial failure). ``fail_graphql_field("record", "NOT_FOUND")`` fails
        the next ``record:`` mutation field, ``fail_graphql_field("updateIssueComment")`` the
        next comment edit under any alias; ``operation`` narrows it to documents running that
        operation; ``after`` lets that many matching fields run first (the third edit fails:
        ``after=2``). ``status`` (a 5xx) makes the request die at the field instead: the
        fields before it have landed, nothing after runs, and the answer is that status."""
        if times is not None and times < 1:
            raise ValueError("times must be >= 1, or None for every matching field")
        if status is not None and status < 400:
            raise ValueError("a request that dies answers an error status (>= 400)")
        fault = FieldFault(alias, kind, message, times, operation, after=after, status=status)
        with self._lock:
            self._field_faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._field_faults.clear()

    def _take_field_fault(self, alias: str, name: str, operation: str | None) -> FieldFault | None:
        """The queued field fault for a GraphQL root field about to run, counted as hit."""
        return next(
            (f for f in self._field_faults if f.matches(alias, name, operation) and f.take()),
            None,
        )

    def _before_request(self, call: Call) -> None:
        """Run `on_request` for a request about to be served, unless the hook sent it."""
        hook = self.on_request
        if hook is None or self._in_request_hook:
            return
        self._in_request_hook = True
        try:
            hook(call)
        finally:
            self._in_request_hook = False

    def _fault_response(self, fault: Fault) -> _Response:
        if fault.timeout:
            return _Response(0)  # `handle` logs it unanswered and raises `TimedOut`
        assert fault.status is not None
        response = error_response(fault.status, fault.body)
        response.headers.update(fault.headers)
        return response


def error_response(status: int, body: Any = None) -> _Response:
    """GitHub's answer for a failed request: 403/429 -> the secondary rate limit (with
    ``retry-after: 1``), 404 -> Not Found, 5xx -> Server Error, unless ``body`` is given."""
    headers: dict[str, str] = {}
    if body is None:
        if status in (403, 429):
            body = {
                "message": SECONDARY_RATE_LIMIT_MESSAGE,
                "documentation_url": DOCS_URL + "/overview/rate-limits-for-the-rest-api",
            }
            headers["retry-after"] = "1"
        elif status == 404:
            body = {"message": "Not Found", "documentation_url": DOCS_URL}
        elif status >= 500:
            body = {"message": "Server Error"}
        else:
            body = {"message": HTTPStatus(status).phrase}
    return _Response(status, body, headers)
