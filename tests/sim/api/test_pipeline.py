"""The fake GitHub's server, driven through real PyGithub and raw requests: routing, laziness,
authentication, headers, pagination's `Link` header, concurrent clients."""

from __future__ import annotations

import threading

import pytest
import requests

import github
from fakes.http_github import FakeGitHub
from fakes.http_probe import raw
from github import GithubException
from support.http import make_client


def test_get_repo_and_foreign_repo(gh: github.Github, fake: FakeGitHub) -> None:
    repository = gh.get_repo("octo/demo")
    assert repository.full_name == "octo/demo"
    assert repository.default_branch == "main"
    assert repository.url == f"{fake.url}/repos/octo/demo"
    with pytest.raises(github.UnknownObjectException):
        gh.get_repo("octo/other")
    with pytest.raises(github.UnknownObjectException):
        gh.get_repo("octo/demo").get_issue(99)


def test_lazy_objects_make_no_request_until_needed(fake: FakeGitHub) -> None:
    number = fake.add_issue("Lazy")
    lazy = make_client(fake, lazy=True)
    issue = lazy.get_repo("octo/demo").get_issue(number)
    assert fake.requests == []
    assert issue.title == "Lazy"
    assert [(c.method, c.path) for c in fake.requests] == [("GET", "/repos/octo/demo/issues/1")]

    fake.reset_requests()
    lazy.get_repo("octo/demo").get_issue(number).create_comment("one call")
    assert [(c.method, c.path) for c in fake.requests] == [
        ("POST", "/repos/octo/demo/issues/1/comments")
    ]

    fake.reset_requests()
    with pytest.warns(DeprecationWarning):
        repository = make_client(fake).get_repo("octo/demo", lazy=True)
    issue = repository.get_issue(number)
    assert fake.requests == []  # objects derived from a lazy repo are lazy too
    assert issue.title == "Lazy"
    assert [c.path for c in fake.requests] == ["/repos/octo/demo/issues/1"]


def test_authentication_is_required(fake: FakeGitHub) -> None:
    with pytest.raises(github.BadCredentialsException):
        make_client(fake, auth=github.Auth.Token("wrong")).get_repo("octo/demo")
    with pytest.raises(GithubException) as missing:
        make_client(fake, auth=None).get_repo("octo/demo")
    assert missing.value.status == 401
    assert [c.status for c in fake.requests] == [401, 401]
    assert raw(fake, "GET", "/repos/octo/demo").status_code == 200  # Bearer works too


def test_unknown_routes_methods_and_user(fake: FakeGitHub) -> None:
    fake.add_issue("x")
    missing = raw(fake, "GET", "/repos/octo/demo/nope")
    assert missing.status_code == 404
    assert missing.json()["message"] == "Not Found"
    assert "documentation_url" in missing.json()
    assert raw(fake, "PUT", "/repos/octo/demo/issues/1").status_code == 405
    assert raw(fake, "POST", "/graphql", json={"query": "{ nope }"}).json()["errors"]
    assert raw(fake, "GET", "/user").status_code == 403  # GITHUB_TOKEN has no user
    bad = raw(fake, "POST", "/repos/octo/demo/issues/1/comments", data=b"{not json")
    assert bad.status_code == 400


def test_response_headers(fake: FakeGitHub) -> None:
    response = raw(fake, "GET", "/repos/octo/demo")
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    for name in ("limit", "remaining", "reset", "used", "resource"):
        assert f"x-ratelimit-{name}" in response.headers
    assert "link" not in response.headers


def test_link_header_and_per_page_cap(fake: FakeGitHub) -> None:
    for index in range(105):
        fake.add_issue(f"issue {index}")
    response = raw(fake, "GET", "/repos/octo/demo/issues?per_page=10&page=2&state=all")
    assert len(response.json()) == 10
    links = requests.utils.parse_header_links(response.headers["link"])
    by_rel = {link["rel"]: link["url"] for link in links}
    assert set(by_rel) == {"prev", "next", "last", "first"}
    assert by_rel["next"] == f"{fake.url}/repos/octo/demo/issues?per_page=10&page=3&state=all"
    assert by_rel["last"].endswith("page=11&state=all")

    capped = raw(fake, "GET", "/repos/octo/demo/issues?per_page=500")
    assert len(capped.json()) == 100
    assert raw(fake, "GET", "/repos/octo/demo/issues?page=5").json() == []  # past the end

    client = make_client(fake, per_page=100)
    assert client.get_repo("octo/demo").get_issues().totalCount == 105


def test_concurrent_clients(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")

    def post_comments(worker: int) -> None:
        issue = make_client(fake, lazy=True).get_repo("octo/demo").get_issue(number)
        for index in range(5):
            issue.create_comment(f"{worker}-{index}")

    threads = [threading.Thread(target=post_comments, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = [c["id"] for c in fake.comments(number)]
    assert len(ids) == len(set(ids)) == 40
    assert fake.internal_errors == []
