"""The in-process seam: a connection PyGithub's requester opens that hands each request to
GitHub's API over the model (`face.GitHubApi.handle`) instead of a socket.

PyGithub's `Requester` talks to an `http.client`-like connection class (`request`, then
`getresponse` with `status`, `getheaders()` and `read()`); `github.transport.Transport` takes
one as `connection` and scopes it to its own requesters, so no other tracker in the process is
touched. The request travels whole — method, path with its query, headers (the token's
`Authorization` included), the JSON body as sent — and the answer comes back as GitHub's
(status, headers, body), so `GitHubTracker` runs exactly the code it runs against github.com:
its REST paths, its GraphQL documents, its paging by `Link` headers, its error handling. Like
httpx's `MockTransport`, nothing is retried here: a fault a test queues is the answer.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView
from functools import partial
from io import IOBase
from typing import Any, Protocol


class Handles(Protocol):
    """What answers the requests: GitHub's API over the model (`GitHubApi`)."""

    def handle(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]: ...


class Answer:
    """An answer as PyGithub reads one (`http.client.HTTPResponse`'s three members it uses)."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self._body = body

    def getheaders(self) -> ItemsView[str, str]:
        return self.headers.items()

    def read(self) -> str:
        return self._body.decode("utf-8")


class InProcess:
    """One connection of a requester: PyGithub calls `request`, then `getresponse`."""

    def __init__(self, api: Handles, host: str, port: int | None = None, **_: Any) -> None:
        self.api = api
        self.host = host  # PyGithub compares it to reuse the connection
        self.port = port
        self._sent: tuple[str, str, dict[str, str], bytes] | None = None

    def request(
        self, verb: str, url: str, input: Any, headers: dict[str, str], stream: bool = False
    ) -> None:
        if isinstance(input, IOBase):  # an upload PyGithub streams; Baton sends none
            input = input.read()
        raw = input.encode("utf-8") if isinstance(input, str) else bytes(input or b"")
        lowered = {key.lower(): value for key, value in headers.items()}
        self._sent = (verb, url, lowered, raw)

    def getresponse(self) -> Answer:
        if self._sent is None:
            raise RuntimeError("getresponse before request")
        verb, url, headers, raw = self._sent
        self._sent = None
        return Answer(*self.api.handle(verb, url, headers, raw))

    def close(self) -> None:
        self._sent = None


def connection_to(api: Handles) -> Callable[..., InProcess]:
    """The connection class `Transport(connection=...)` gives its requesters: each connection
    PyGithub opens reaches `api`."""
    return partial(InProcess, api)
