"""The request pipeline of GitHub's API over the model: authentication, both rate limits,
queued faults, routing, the request log, pagination with GitHub's ``Link`` header, and GitHub's
error bodies. One request in (method, target, headers, body), one answer out (status, headers,
body): the in-process connection (`sim.api.connection`) and the tests' socket server
(tests/fakes/http_server.py) both call `handle`. The resources' routes are in ``rest_issues``,
``rest_labels``, ``rest_git``, ``rest_pulls``, ``rest_repository`` and ``rest_settings``; the
state is ``baton.sim.model``'s.
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
from typing import Any, ClassVar

from baton.sim.api.faults import Call, Faults, TimedOut
from baton.sim.api.graphql_documents import operation_name
from baton.sim.api.wire import (
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
from baton.sim.model import rules


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
    served_at: str | None  # the socket server's base URL while one serves this API

    @property
    def url(self) -> str:
        """Where clients reach this API: the socket server's address, else GitHub's."""
        return self.served_at or "https://api.github.com"

    @property
    def rest_used(self) -> int:
        """Requests counted against REST's hourly budget (`rate_used` less GraphQL's)."""
        return self.rate_used - self.graphql_used

    def handle(
        self, method: str, target: str, headers: Mapping[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """One request, as it travels: route, log, encode. `headers` by lowercase name."""
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
        self._before_request(Call(method, path, query, body, 0, operation))
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
            if response.status == 0:
                raise TimedOut(f"no answer to {method} {path}")
            return self._encode(response)

    @staticmethod
    def _graphql_operation(body: Any) -> str | None:
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
            failed = fault.status is not None or fault.timeout
            if failed and not fault.applied:
                return self._fault_response(fault)
            if failed:  # GitHub serves it; the answer is lost on its way back
                self._route(req, bad_json)
                return self._fault_response(fault)
        return self._route(req, bad_json)

    def _route(self, req: _Request, bad_json: bool) -> _Response:
        """The answer of the route the request names, or GitHub's error."""
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
