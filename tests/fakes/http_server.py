"""The HTTP machinery of the fake GitHub: a real server on a local socket, the request pipeline
(authentication, both rate limits, queued faults, routing), the request log, pagination with
GitHub's ``Link`` header, and GitHub's error bodies. The resources' routes are in
``http_issues``, ``http_labels``, ``http_git``, ``http_pulls`` and ``http_repository``; the
state is ``baton.sim.github``'s.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
import traceback
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Self

from baton.sim.github import rules
from fakes.http_faults import Call, Faults
from fakes.http_wire import (
    API_VERSION,
    DEFAULT_PER_PAGE,
    GRAPHQL_PATH,
    ApiError,
    Route,
    _int_param,
    _invalid,
    _Item,
    _not_found,
    _refused,
    _Request,
    _Response,
)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 stalls concurrent clients for ~1s

    def __init__(self, fake: Server) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up before a delayed answer is expected.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in self.headers.items()}
        status, out_headers, payload = self.server.fake._handle(
            self.command, self.path, headers, raw
        )
        self.send_response(status)
        for key, value in out_headers.items():
            self.send_header(key, value)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload and status not in (204, 304):
            self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request stderr logging; the fake keeps its own log."""


class Server(Faults):
    """The HTTP side of the fake: its lifecycle, the request pipeline (authentication, rate
    limits, faults, routing), the request log, pagination and request bodies as GitHub reads
    them. Subclasses keep the state and set `routes`."""

    routes: ClassVar[tuple[Route, ...]] = ()
    owner: str
    repo: str
    token: str
    per_page_max: int
    rate_limit: int
    rate_used: int
    graphql_used: int
    graphql_limit: int
    internal_errors: list[str]
    _lock: threading.RLock
    _stopping: threading.Event
    _server: _Server | None
    _thread: threading.Thread | None

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError("FakeGitHub already started")
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},  # bounds shutdown() latency; default 0.5s
            name="FakeGitHub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes delayed handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeGitHub is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def rest_used(self) -> int:
        """Requests counted against REST's hourly budget (`rate_used` less GraphQL's)."""
        return self.rate_used - self.graphql_used

    def _handle(
        self, method: str, target: str, headers: Mapping[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Entry point from the HTTP handler thread: route, log, encode."""
        split = urllib.parse.urlsplit(target)
        path = urllib.parse.unquote(split.path)
        query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
        host = headers.get("host")
        base = f"http://{host}" if host else self.url
        body: Any = None
        bad_json = False
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                bad_json = True
        request = _Request(method, split.path, path, {}, query, body, base)
        operation = (
            self._graphql_operation(body) if (method, path) == ("POST", GRAPHQL_PATH) else None
        )
        try:
            response = self._respond(request, headers, bad_json, operation)
        except Exception:  # a bug in the fake: answer 500, keep serving, surface it
            details = traceback.format_exc()
            with self._lock:
                self.internal_errors.append(details)
            print(details, file=sys.stderr)
            response = _Response(500, {"message": "FakeGitHub internal error"})
        with self._lock:
            self._requests.append(Call(method, path, query, body, response.status, operation))
            return self._encode(response)

    @staticmethod
    def _graphql_operation(body: Any) -> str | None:
        try:
            from fakes.github_graphql import operation_name
        except ImportError:  # graphql-core missing: /graphql answers 500, REST still works
            return None
        return operation_name(body)

    def _respond(
        self,
        req: _Request,
        headers: Mapping[str, str],
        bad_json: bool,
        operation: str | None = None,
    ) -> _Response:
        with self._lock:
            denied = self._authenticate(headers.get("authorization", ""))
            if denied is not None:
                return denied
            metered = req.path != "/rate_limit"  # like GitHub, /rate_limit is free
            # REST and GraphQL have an hourly budget each, as on GitHub.
            spent = (
                self.graphql_used >= self.graphql_limit
                if req.path == GRAPHQL_PATH
                else self.rest_used >= self.rate_limit
            )
            if metered and spent:
                if req.path == GRAPHQL_PATH:
                    # GraphQL says so in a 200 answer with no data, as GitHub does.
                    message = "API rate limit exceeded for installation ID 1."
                    return _Response(
                        200, {"errors": [{"type": "RATE_LIMITED", "message": message}]}
                    )
                return ApiError(403, "API rate limit exceeded for installation ID 1.").response()
            if metered:
                self.rate_used += 1
            fault = next(
                (
                    f
                    for f in self._faults
                    if f.matches(req.method, req.path, operation) and f.take()
                ),
                None,
            )
        if fault is not None:
            if fault.delay > 0:
                self._stopping.wait(fault.delay)
            if fault.status is not None:
                return self._fault_response(fault)
        if bad_json:
            return ApiError(400, "Problems parsing JSON").response()
        route, allowed = self._match(req)
        if route is None:
            if allowed:
                return ApiError(405, "Method Not Allowed").response()
            return _not_found().response()
        with self._lock:
            try:
                owner, repo = req.params.get("owner"), req.params.get("repo")
                if owner is not None and (owner.casefold(), (repo or "").casefold()) != (
                    self.owner.casefold(),
                    self.repo.casefold(),
                ):
                    raise _not_found()
                return route.handler(self, req)
            except ApiError as error:
                return error.response()

    def _authenticate(self, header: str) -> _Response | None:
        scheme, _, credential = header.partition(" ")
        if not header:
            return ApiError(401, "Requires authentication").response()
        if scheme.lower() not in ("token", "bearer") or credential.strip() != self.token:
            return ApiError(401, "Bad credentials").response()
        return None

    def _match(self, req: _Request) -> tuple[Route | None, bool]:
        allowed = False
        for route in self.routes:
            match = route.pattern.match(req.raw_path)
            if match is None:
                continue
            if route.method != req.method:
                allowed = True
                continue
            req.params = {k: urllib.parse.unquote(v) for k, v in match.groupdict().items()}
            return route, True
        return None, allowed

    def _encode(self, response: _Response) -> tuple[int, dict[str, str], bytes]:
        headers = {
            "content-type": "application/json; charset=utf-8",
            "x-github-api-version-selected": API_VERSION,
            "x-github-request-id": f"FAKE:{len(self._requests)}",
            "x-ratelimit-limit": str(self.rate_limit),
            "x-ratelimit-remaining": str(max(self.rate_limit - self.rest_used, 0)),
            # wall clock, not the fake clock: clients compute waits against real time
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-used": str(self.rest_used),
            "x-ratelimit-resource": "core",
        }
        body = response.body
        if body is None:
            payload = b""
        elif isinstance(body, bytes | str):
            payload = body.encode() if isinstance(body, str) else body
            headers["content-type"] = "text/plain; charset=utf-8"
        else:
            payload = json.dumps(body, separators=(",", ":")).encode()
        headers.update(response.headers)
        return response.status, headers, payload

    @staticmethod
    def _object_body(req: _Request) -> dict[str, Any]:
        if req.body is None:
            return {}
        if not isinstance(req.body, dict):
            raise ApiError(400, "Problems parsing JSON")
        return req.body

    @staticmethod
    def _label_names(body: Any) -> list[str]:
        """Accept ``["a"]``, ``{"labels": ["a"]}`` and ``[{"name": "a"}]`` like GitHub."""
        items = body.get("labels") if isinstance(body, dict) else body
        if not isinstance(items, list):
            raise _invalid("Label", "labels", "invalid")
        names = []
        for item in items:
            name = item.get("name") if isinstance(item, dict) else item
            if not isinstance(name, str) or not name.strip():
                raise _invalid("Label", "name", "invalid")
            names.append(name)
        return names

    @staticmethod
    def _body_text(resource: str, text: Any, *, required: bool) -> str:
        """Validate a body like GitHub (required, max length); ``None`` -> ``""``."""
        if text is None and not required:
            return ""
        if not isinstance(text, str) or (required and not text.strip()):
            raise _invalid(resource, "body", "missing_field")
        refusal = rules.body_refusal(resource, text)
        if refusal is not None:
            raise _refused(refusal)
        return text

    def _paginate(
        self,
        req: _Request,
        items: Sequence[_Item],
        render: Callable[[_Item], Any],
        *,
        wrap: str | None = None,
    ) -> _Response:
        """A page of ``items`` with GitHub's ``Link`` header; ``wrap``: the page as GitHub
        gives some lists, ``{"total_count": n, wrap: [...]}`` (check runs)."""
        per_page = min(
            max(_int_param(req.query, "per_page", DEFAULT_PER_PAGE), 1), self.per_page_max
        )
        page = max(_int_param(req.query, "page", 1), 1)
        last = max(math.ceil(len(items) / per_page), 1)
        chunk = items[(page - 1) * per_page : page * per_page]

        def link(target: int, rel: str) -> str:
            query = urllib.parse.urlencode({**req.query, "page": str(target)})
            return f'<{req.base}{req.raw_path}?{query}>; rel="{rel}"'

        links = []
        if page > 1:
            links.append(link(min(page - 1, last), "prev"))
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links.append(link(1, "first"))
        headers = {"link": ", ".join(links)} if links else {}
        page_items = [render(item) for item in chunk]
        if wrap is not None:
            return _Response(200, {"total_count": len(items), wrap: page_items}, headers)
        return _Response(200, page_items, headers)
