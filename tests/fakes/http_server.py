"""GitHub's API over the model (`baton.sim.api`) served on a real local socket, for the tests
that run Baton's CLI, PyGithub or the Docker image against it: a threading HTTP server whose
handler passes each request to the same `handle` the in-process connection calls.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from baton.sim.api.faults import TimedOut
from baton.sim.api.pipeline import Server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 stalls concurrent clients for ~1s

    def __init__(self, api: Server) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api

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
        try:
            status, out_headers, payload = self.server.api.handle(
                self.command, self.path, headers, raw
            )
        except TimedOut:  # no answer comes: hang up, as a connection the client gave up on
            self.close_connection = True
            return
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


class Serving(Server):
    """The socket's lifecycle: `start` (or `with`) serves the API at `url`, `stop` ends it."""

    _server: _Server | None = None
    _thread: threading.Thread | None = None

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError("FakeGitHub already started")
        self._stopping.clear()
        self._server = _Server(self)
        self.served_at = f"http://127.0.0.1:{self._server.server_address[1]}"
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
        self.served_at = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
