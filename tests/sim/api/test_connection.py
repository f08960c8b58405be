"""The in-process seam: PyGithub's requester, given the connection, reaches GitHub's API over the
model with the whole request (method, path and query, token, body) and reads its answer as an
HTTP answer; no other requester of the process is touched."""

from __future__ import annotations

import json

import pytest

from baton.errors import TrackerError
from baton.github.transport import Transport
from baton.sim.api.connection import InProcess, connection_to
from baton.sim.api.face import GitHubApi


def test_a_request_travels_whole_and_its_answer_comes_back_as_githubs() -> None:
    api = GitHubApi(token="t0")
    number = api.add_issue("Export", "CSV please")
    connection = InProcess(api, "api.github.com")
    connection.request(
        "POST",
        f"/repos/octo/demo/issues/{number}/comments?x=1",
        json.dumps({"body": "On it."}),
        {"Authorization": "token t0", "Content-Type": "application/json"},
    )
    answer = connection.getresponse()

    assert answer.status == 201
    assert json.loads(answer.read())["body"] == "On it."
    assert dict(answer.getheaders())["x-ratelimit-resource"] == "core"
    (call,) = api.calls("POST")
    assert (call.path, call.query, call.body) == (
        f"/repos/octo/demo/issues/{number}/comments",
        {"x": "1"},
        {"body": "On it."},
    )


def test_the_token_is_checked_as_github_checks_it() -> None:
    connection = InProcess(GitHubApi(token="t0"), "api.github.com")
    connection.request("GET", "/repos/octo/demo", None, {"Authorization": "token wrong"})
    answer = connection.getresponse()
    assert (answer.status, json.loads(answer.read())["message"]) == (401, "Bad credentials")


def test_a_transport_given_the_connection_calls_the_api_and_others_stay_on_http() -> None:
    api = GitHubApi(token="t0")
    inside = Transport("octo/demo", "t0", connection=connection_to(api), retry=0)
    _, data = inside.call("GET", "/repos/octo/demo", "the repository")
    assert data["full_name"] == "octo/demo" and inside.requests == 1
    assert [c.path for c in api.calls()] == ["/repos/octo/demo"]

    outside = Transport("octo/demo", "t0", api_url="http://127.0.0.1:9", retry=0, timeout=1)
    assert type(outside._requester).__name__ == "Requester"  # PyGithub's own, on HTTP
    assert type(inside._requester).__name__ == "ConnectedRequester"


def test_a_request_that_times_out_reaches_the_client_as_a_timeout() -> None:
    api = GitHubApi("octo", "demo", token="t0")
    number = api.add_issue("x")
    api.fail("POST", r"/comments$", None, timeout=True, applied=True)
    transport = Transport("octo/demo", "t0", connection=connection_to(api), retry=0)
    path = f"/repos/octo/demo/issues/{number}/comments"

    with pytest.raises(TrackerError, match="unreachable") as failed:
        transport.call("POST", path, "a comment", input={"body": "x"})

    assert failed.value.status is None
    assert [c["body"] for c in api.comments(number)] == ["x"]  # GitHub applied it
