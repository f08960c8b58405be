"""Tests of the fake GitHub itself, driven through real PyGithub over HTTP.

If these pass, a Baton test failing against the fake points at Baton, not at
a fake that answers differently from what PyGithub expects.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
import requests

import github
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from github import GithubException, GithubRetry
from support.http import make_client


def raw(fake: FakeGitHub, method: str, path: str, **kwargs: Any) -> requests.Response:
    """Bypass PyGithub to check wire details (status codes, headers, bodies)."""
    headers = {"Authorization": f"Bearer {fake.token}"}
    return requests.request(method, fake.url + path, headers=headers, timeout=5, **kwargs)


def statuses(fake: FakeGitHub, method: str, path_contains: str) -> list[int]:
    return [call.status for call in fake.calls(method, path_contains)]


@pytest.fixture
def repo(gh: github.Github, fake: FakeGitHub) -> Any:
    repository = gh.get_repo(fake.repo_full_name)
    fake.reset_requests()
    return repository


# --------------------------------------------------------------------------- basics


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


# --------------------------------------------------------------------------- issues


def test_issue_fields_and_pull_requests(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue(
        "Bug", "details", user="carol", association="CONTRIBUTOR", labels=["bug"]
    )
    pr = fake.add_issue("PR", is_pull_request=True)
    issue = repo.get_issue(number)
    assert (issue.title, issue.body, issue.state) == ("Bug", "details", "open")
    assert issue.user.login == "carol"
    assert issue.user.type == "User"
    assert issue.raw_data["author_association"] == "CONTRIBUTOR"
    assert [label.name for label in issue.labels] == ["bug"]
    assert issue.pull_request is None
    assert "pull_request" not in issue.raw_data
    assert issue.created_at.isoformat() == "2024-01-01T12:00:00+00:00"
    assert repo.get_issue(pr).pull_request is not None


def test_list_issues_paginates_filters_and_sorts(repo: Any, fake: FakeGitHub) -> None:
    for index in range(65):
        fake.add_issue(f"issue {index}", labels=["bug"] if index % 2 else [])
    fake.add_issue("a PR", labels=["bug"], is_pull_request=True)
    fake.update_issue(1, state="closed")

    everything = list(repo.get_issues(state="all"))
    assert len(everything) == 66
    assert [i.number for i in everything[:3]] == [66, 65, 64]  # created desc by default
    assert statuses(fake, "GET", "/issues") == [200, 200, 200]  # 30 + 30 + 6

    open_issues = list(repo.get_issues())
    assert 1 not in {i.number for i in open_issues}
    assert len(open_issues) == 65

    fake.add_label("status:x")
    fake.label_by(3, "status:x", "dave")  # issue 3 has no "bug"
    fake.label_by(4, "status:x", "dave")
    both = list(repo.get_issues(labels=["BUG", "status:x"], direction="asc"))
    assert [i.number for i in both] == [4]
    assert [i.number for i in repo.get_issues(state="closed")] == [1]
    prs = [i for i in repo.get_issues(labels=["bug"]) if i.pull_request is not None]
    assert [i.number for i in prs] == [66]


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


def test_edit_issue_state_title_body_labels(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("Old", labels=["a"])
    issue = repo.get_issue(number)
    fake.advance(60)
    issue.edit(title="New", body="b", state="closed", state_reason="not_planned", labels=["c"])
    assert (issue.title, issue.state, issue.state_reason) == ("New", "closed", "not_planned")
    assert issue.closed_at is not None
    stored = fake.issue(number)
    assert (stored["title"], stored["body"], stored["labels"]) == ("New", "b", ["c"])
    assert stored["updated_at"] == "2024-01-01T12:01:00Z"
    kinds = [(e["event"], e["actor"]["login"]) for e in fake.events(number)]
    assert kinds[1:] == [
        ("renamed", "github-actions[bot]"),
        ("closed", "github-actions[bot]"),
        ("unlabeled", "github-actions[bot]"),
        ("labeled", "github-actions[bot]"),
    ]
    issue.edit(state="open")
    assert (issue.state, issue.state_reason, issue.closed_at) == ("open", "reopened", None)

    invalid = raw(fake, "PATCH", "/repos/octo/demo/issues/1", json={"state": "merged"})
    assert invalid.status_code == 422
    assert invalid.json()["errors"][0]["field"] == "state"


def test_helpers_return_copies(fake: FakeGitHub) -> None:
    number = fake.add_issue("x", labels=["a"])
    fake.add_comment(number, "hello")
    snapshot = fake.issue(number)
    snapshot["labels"].append("mutated")
    snapshot["comments"][0]["body"] = "mutated"
    assert fake.labels_of(number) == ["a"]
    assert fake.comments(number)[0]["body"] == "hello"


# --------------------------------------------------------------------------- comments


def test_comments_create_list_since_and_pagination(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    for index in range(44):
        fake.add_comment(number, f"human {index}", user="erin", association="MEMBER")
    issue = repo.get_issue(number)
    fake.advance(3600)
    created = issue.create_comment("from baton")
    assert created.user.login == "github-actions[bot]"
    assert created.user.type == "Bot"
    assert created.raw_data["author_association"] == "NONE"
    assert statuses(fake, "POST", "/comments") == [201]

    listed = list(issue.get_comments())
    assert len(listed) == 45
    assert listed[0].body == "human 0"  # oldest first
    assert listed[-1].id == created.id
    assert len(statuses(fake, "GET", "/comments")) == 2

    recent = list(issue.get_comments(since=fake.now - timedelta(minutes=1)))
    assert [c.body for c in recent] == ["from baton"]
    assert issue.comments == 44  # the count loaded before our comment


def test_comment_get_edit_delete_and_validation(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    stored = fake.add_comment(number, "hi", user="frank")
    comment = repo.get_issue(number).get_comment(stored["id"])
    assert comment.body == "hi"
    assert comment.user.login == "frank"
    fake.advance(5)
    comment.edit("edited")
    assert fake.comment(stored["id"])["body"] == "edited"
    assert fake.comment(stored["id"])["updated_at"] == "2024-01-01T12:00:05Z"
    comment.delete()
    assert fake.comments(number) == []
    with pytest.raises(github.UnknownObjectException):
        repo.get_issue(number).get_comment(stored["id"]).body  # noqa: B018

    empty = raw(fake, "POST", f"/repos/octo/demo/issues/{number}/comments", json={"body": ""})
    assert empty.status_code == 422
    too_long = raw(
        fake, "POST", f"/repos/octo/demo/issues/{number}/comments", json={"body": "x" * 65537}
    )
    assert too_long.status_code == 422
    assert "too long" in too_long.json()["errors"][0]["message"]


def test_reactions(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    stored = fake.add_comment(number, "please")
    comment = repo.get_issue(number).get_comment(stored["id"])
    first = comment.create_reaction("eyes")
    again = comment.create_reaction("eyes")
    assert (first.content, first.user.login) == ("eyes", "github-actions[bot]")
    assert again.id == first.id
    assert statuses(fake, "POST", "/reactions") == [201, 200]
    assert [r.content for r in comment.get_reactions()] == ["eyes"]
    assert fake.comment(stored["id"])["reactions"][0]["content"] == "eyes"
    with pytest.raises(GithubException) as invalid:
        comment.create_reaction("thumbsup")
    assert invalid.value.status == 422

    assert repo.get_issue(number).create_reaction("rocket").content == "rocket"
    assert repo.get_issue(number).raw_data["reactions"]["rocket"] == 1


# --------------------------------------------------------------------------- labels


def test_issue_labels_add_remove_replace_clear(repo: Any, fake: FakeGitHub) -> None:
    fake.add_label("bug", "d73a4a", "Something is broken")
    number = fake.add_issue("x", labels=["bug"])
    issue = repo.get_issue(number)

    issue.add_to_labels("status:received", "BUG")
    assert fake.labels_of(number) == ["bug", "status:received"]
    assert fake.labels()["status:received"]["color"] == "ededed"  # auto-created
    assert fake.labels()["bug"]["description"] == "Something is broken"

    issue.remove_from_labels("status:received")
    assert fake.calls("DELETE", "/labels/status:received")[0].status == 200
    assert fake.labels_of(number) == ["bug"]
    with pytest.raises(GithubException) as absent:
        issue.remove_from_labels("status:received")
    assert absent.value.status == 404
    assert absent.value.data["message"] == "Label does not exist"

    body_form = raw(fake, "POST", "/repos/octo/demo/issues/1/labels", json={"labels": ["p1"]})
    assert [label["name"] for label in body_form.json()] == ["bug", "p1"]

    issue.set_labels("x", "y")
    assert fake.labels_of(number) == ["x", "y"]
    assert [label.name for label in issue.get_labels()] == ["x", "y"]
    issue.delete_labels()
    assert fake.labels_of(number) == []
    assert statuses(fake, "DELETE", "/labels") == [200, 404, 204]


def test_repo_labels_crud_validation_and_pagination(repo: Any, fake: FakeGitHub) -> None:
    label = repo.create_label("status:received", "0e8a16", "Baton received the issue")
    assert (label.name, label.color, label.description) == (
        "status:received",
        "0e8a16",
        "Baton received the issue",
    )
    assert statuses(fake, "POST", "/labels") == [201]

    with pytest.raises(GithubException) as duplicate:
        repo.create_label("STATUS:received", "000000")
    assert duplicate.value.status == 422
    assert duplicate.value.data["errors"][0]["code"] == "already_exists"
    for name, color, description in [
        ("n" * 51, "000000", "ok"),
        ("ok", "000000", "d" * 101),
        ("ok", "#000000", "ok"),
    ]:
        with pytest.raises(GithubException) as invalid:
            repo.create_label(name, color, description)
        assert invalid.value.status == 422

    number = fake.add_issue("x", labels=["status:received"])
    fetched = repo.get_label("Status:Received")
    fetched.edit("status:accepted", "fbca04", "renamed")
    assert fake.labels_of(number) == ["status:accepted"]
    repo.get_label("status:accepted").delete()
    assert fake.labels_of(number) == []
    with pytest.raises(github.UnknownObjectException):
        repo.get_label("status:accepted")

    for index in range(35):
        fake.add_label(f"label-{index:02}")
    fake.reset_requests()
    assert len(list(repo.get_labels())) == 35
    assert statuses(fake, "GET", "/repos/octo/demo/labels") == [200, 200]


# --------------------------------------------------------------------------- people


def test_collaborator_permissions(repo: Any, fake: FakeGitHub) -> None:
    for login, role in [
        ("ann", "admin"),
        ("max", "maintain"),
        ("wes", "write"),
        ("tri", "triage"),
        ("rea", "read"),
    ]:
        fake.set_permission(login, role)
    fake.mark_nonexistent("ghost")
    legacy = {
        login: repo.get_collaborator_permission(login)
        for login in ["ann", "max", "wes", "tri", "rea", "stranger"]
    }
    assert legacy == {
        "ann": "admin",
        "max": "write",
        "wes": "write",
        "tri": "read",
        "rea": "read",
        "stranger": "read",
    }
    assert repo.get_collaborator_role_name("max") == "maintain"
    body = raw(fake, "GET", "/repos/octo/demo/collaborators/MAX/permission").json()
    assert body["user"]["permissions"] == {
        "admin": False,
        "maintain": True,
        "push": True,
        "triage": True,
        "pull": True,
    }
    with pytest.raises(github.UnknownObjectException):
        repo.get_collaborator_permission("ghost")
    with pytest.raises(ValueError):
        fake.set_permission("x", "owner")


def test_team_membership_lazy_and_eager(fake: FakeGitHub, gh: github.Github) -> None:
    fake.add_team_member("octo", "maintainers", "bob")
    lazy = make_client(fake, lazy=True)
    team = lazy.get_organization("octo").get_team_by_slug("maintainers")
    membership = team.get_team_membership("bob")
    assert (membership.state, membership.role) == ("active", "member")
    assert [c.path for c in fake.requests] == ["/orgs/octo/teams/maintainers/memberships/bob"]
    with pytest.raises(github.UnknownObjectException):
        team.get_team_membership("mallory")

    eager = gh.get_organization("octo").get_team_by_slug("maintainers")
    assert eager.get_team_membership("bob").state == "active"
    with pytest.raises(github.UnknownObjectException):
        gh.get_organization("octo").get_team_by_slug("nobody")


# --------------------------------------------------------------------------- dispatches


def test_workflow_dispatch_lazy_and_by_numeric_id(fake: FakeGitHub, repo: Any) -> None:
    lazy = make_client(fake, lazy=True).get_repo("octo/demo")
    assert lazy.get_workflow("baton.yml").create_dispatch("main", {"issue": "7"}) is True
    assert [(c.method, c.status) for c in fake.requests] == [("POST", 204)]

    workflow = repo.get_workflow("baton.yml")  # GET, then dispatch via its numeric id
    assert workflow.path == ".github/workflows/baton.yml"
    assert workflow.create_dispatch("main", {"issue": "8"}) is True
    assert (
        fake.calls("POST")[-1].path
        == f"/repos/octo/demo/actions/workflows/{workflow.id}/dispatches"
    )
    assert [(d.kind, d.workflow, d.ref, d.inputs) for d in fake.dispatches] == [
        ("workflow_dispatch", "baton.yml", "main", {"issue": "7"}),
        ("workflow_dispatch", "baton.yml", "main", {"issue": "8"}),
    ]

    run = lazy.get_workflow("baton.yml").create_dispatch("main", return_run_details=True)
    assert run.id > 0
    missing_ref = raw(
        fake, "POST", "/repos/octo/demo/actions/workflows/baton.yml/dispatches", json={"inputs": {}}
    )
    assert missing_ref.status_code == 422


def test_declared_workflows_are_enforced(fake: FakeGitHub, repo: Any) -> None:
    fake.add_workflow("baton.yml", inputs=["issue"])
    workflow = repo.get_workflow("baton.yml")
    assert workflow.create_dispatch("main", {"issue": "1", "extra": "x"}) is False
    with pytest.raises(GithubException) as unexpected:
        workflow.create_dispatch("main", {"extra": "x"}, throw=True)
    assert unexpected.value.status == 422
    assert "Unexpected inputs" in unexpected.value.data["message"]
    with pytest.raises(github.UnknownObjectException):
        repo.get_workflow("other.yml")
    assert fake.dispatches == []


def test_repository_dispatch(repo: Any, fake: FakeGitHub) -> None:
    assert repo.create_repository_dispatch("baton-step", {"issue": 3, "step": "plan"}) is True
    (dispatch,) = fake.dispatches
    assert (dispatch.kind, dispatch.event_type, dispatch.client_payload) == (
        "repository_dispatch",
        "baton-step",
        {"issue": 3, "step": "plan"},
    )
    too_many = {f"k{index}": index for index in range(11)}
    assert repo.create_repository_dispatch("baton-step", too_many) is False
    assert statuses(fake, "POST", "/dispatches") == [204, 422]


# --------------------------------------------------------------------------- history


def test_events_and_timeline_record_actors(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x", user="alice", labels=["type:bug"])
    fake.label_by(number, "approved", "maintainer")
    issue = repo.get_issue(number)
    issue.add_to_labels("status:working")
    fake.add_comment(number, "looks good", user="maintainer")
    fake.unlabel_by(number, "approved", "maintainer")

    events = [(e.event, e.actor.login, e.label.name) for e in issue.get_events()]
    assert events == [
        ("labeled", "alice", "type:bug"),
        ("labeled", "maintainer", "approved"),
        ("labeled", "github-actions[bot]", "status:working"),
        ("unlabeled", "maintainer", "approved"),
    ]
    timeline = [(t.event, t.actor.login) for t in issue.get_timeline()]
    assert timeline == [
        ("labeled", "alice"),
        ("labeled", "maintainer"),
        ("labeled", "github-actions[bot]"),
        ("commented", "maintainer"),
        ("unlabeled", "maintainer"),
    ]


# --------------------------------------------------------------------------- rate limits


def test_rate_limit_endpoint_headers_and_exhaustion(gh: github.Github, fake: FakeGitHub) -> None:
    gh.get_repo("octo/demo")
    assert gh.rate_limiting == (4999, 5000)
    assert gh.get_rate_limit().resources.core.remaining == 4999  # /rate_limit is free

    fake.rate_used = fake.rate_limit
    with pytest.raises(github.RateLimitExceededException):
        gh.get_repo("octo/demo")
    assert gh.get_rate_limit().resources.core.remaining == 0


# --------------------------------------------------------------------------- faults


def test_fault_server_errors_then_recovery(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    issue = repo.get_issue(number)
    fake.fail("POST", r"/issues/\d+/comments$", 500)
    fake.fail("POST", r"/issues/\d+/comments$", 502, times=2)
    for expected in (500, 502, 502):
        with pytest.raises(GithubException) as error:
            issue.create_comment("x")
        assert error.value.status == expected
    issue.create_comment("finally")
    assert statuses(fake, "POST", "/comments") == [500, 502, 502, 201]
    assert [c["body"] for c in fake.comments(number)] == ["finally"]


def test_fault_secondary_rate_limit(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fake.fail("*", r"/labels$", 403)
    with pytest.raises(github.RateLimitExceededException) as error:
        repo.get_issue(number).add_to_labels("a")
    assert error.value.status == 403
    assert (error.value.headers or {})["retry-after"] == "1"
    assert "secondary rate limit" in error.value.data["message"]


def test_fault_not_found_and_persistent_faults(repo: Any, fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fault = fake.fail("GET", rf"/issues/{number}$", 404, times=None)
    for _ in range(3):
        with pytest.raises(github.UnknownObjectException):
            repo.get_issue(number)
    assert fault.hits == 3
    fake.clear_faults()
    assert repo.get_issue(number).title == "x"
    with pytest.raises(ValueError):
        fake.fail("GET", "x", None)


def test_faults_are_retried_by_github_retry(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    retrying = make_client(fake, retry=GithubRetry(total=3, backoff_factor=0))
    fake.fail("POST", "/comments$", 502)
    fake.fail("POST", "/comments$", 403, headers={"Retry-After": "0"})  # keep the test fast
    retrying.get_repo("octo/demo").get_issue(number).create_comment("eventually")
    assert statuses(fake, "POST", "/comments") == [502, 403, 201]
    assert len(fake.comments(number)) == 1


def test_fault_delay_trips_client_timeout(fake: FakeGitHub) -> None:
    fake.add_issue("x")
    fake.fail("GET", r"/issues/1$", 502, delay=10)  # stop() cuts the sleep short
    with pytest.raises(requests.exceptions.Timeout):
        make_client(fake, timeout=1).get_repo("octo/demo").get_issue(1)


def test_delayed_write_is_applied_after_client_gave_up(fake: FakeGitHub) -> None:
    number = fake.add_issue("x")
    fake.fail("POST", "/comments$", None, delay=0.3)
    with pytest.raises(requests.exceptions.Timeout):
        requests.post(
            f"{fake.url}/repos/octo/demo/issues/{number}/comments",
            json={"body": "late"},
            headers={"Authorization": f"token {fake.token}"},
            timeout=0.1,
        )
    deadline = time.monotonic() + 5
    while not fake.comments(number) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [c["body"] for c in fake.comments(number)] == ["late"]
    assert statuses(fake, "POST", "/comments") == [201]


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


# --------------------------------------------------------------------------- payloads


def test_issue_payloads_match_fake_state(fake: FakeGitHub, repo: Any) -> None:
    number = fake.add_issue("Add login", "please", user="alice", association="NONE")
    opened = payloads.opened(fake, number)
    assert opened["action"] == "opened"
    assert opened["sender"]["login"] == "alice"
    assert opened["issue"]["labels"] == []
    assert "pull_request" not in opened["issue"]
    assert opened["repository"]["full_name"] == "octo/demo"
    assert opened["repository"]["owner"]["login"] == "octo"

    fake.label_by(number, "baton:go", "maintainer")
    labeled = payloads.labeled(fake, number, "baton:go")
    assert labeled["sender"] == fake.user_json("maintainer")
    assert labeled["label"]["name"] == "baton:go"
    assert set(labeled["label"]) >= {"id", "name", "color", "description"}
    assert [label["name"] for label in labeled["issue"]["labels"]] == fake.labels_of(number)
    assert labeled["issue"] == repo.get_issue(number).raw_data  # same object as the API

    fake.unlabel_by(number, "baton:go", "maintainer")
    unlabeled = payloads.unlabeled(fake, number, "baton:go")
    assert unlabeled["issue"]["labels"] == []
    assert unlabeled["label"]["name"] == "baton:go"

    fake.update_issue(number, state="closed", actor="maintainer")
    closed = payloads.closed(fake, number)
    assert (closed["issue"]["state"], closed["sender"]["login"]) == ("closed", "maintainer")
    fake.update_issue(number, state="open", actor="alice")
    assert payloads.reopened(fake, number)["sender"]["login"] == "alice"

    fake.update_issue(number, title="Add SSO login")
    edited = payloads.edited(fake, number, old_title="Add login")
    assert edited["changes"] == {"title": {"from": "Add login"}}
    assert edited["issue"]["title"] == "Add SSO login"

    pr = fake.add_issue("A PR", is_pull_request=True)
    assert "pull_request" in payloads.opened(fake, pr)["issue"]


def test_comment_payloads(fake: FakeGitHub) -> None:
    number = fake.add_issue("x", labels=["status:waiting"])
    stored = fake.add_comment(number, "/baton go", user="bob", association="MEMBER")
    created = payloads.comment_created(fake, stored["id"])
    assert created["action"] == "created"
    comment = created["comment"]
    assert (comment["id"], comment["body"]) == (stored["id"], "/baton go")
    assert comment["user"]["login"] == "bob"
    assert comment["user"]["type"] == "User"
    assert comment["user"]["id"] == stored["user"]["id"]
    assert comment["author_association"] == "MEMBER"
    assert comment["created_at"] == comment["updated_at"] == "2024-01-01T12:00:00Z"
    assert created["issue"]["number"] == number
    assert [label["name"] for label in created["issue"]["labels"]] == ["status:waiting"]
    assert created["sender"]["login"] == "bob"

    fake.advance(30)
    fake.edit_comment(stored["id"], "/baton stop")
    edited = payloads.comment_edited(fake, stored["id"], "/baton go")
    assert edited["changes"] == {"body": {"from": "/baton go"}}
    assert edited["comment"]["body"] == "/baton stop"
    assert edited["comment"]["updated_at"] == "2024-01-01T12:00:30Z"


def test_dispatch_and_schedule_payloads(fake: FakeGitHub, repo: Any) -> None:
    manual = payloads.workflow_dispatch(fake, {"issue": 5, "dry_run": True}, sender="alice")
    assert manual["inputs"] == {"issue": "5", "dry_run": "true"}
    assert manual["ref"] == "refs/heads/main"
    assert manual["workflow"] == ".github/workflows/baton.yml"
    assert manual["sender"]["login"] == "alice"

    repo.get_workflow("baton.yml").create_dispatch("main", {"issue": "5"})
    repo.create_repository_dispatch("baton-step", {"issue": 5})
    name, replay = payloads.from_dispatch(fake, fake.dispatches[0])
    assert name == "workflow_dispatch"
    assert (replay["inputs"], replay["ref"]) == ({"issue": "5"}, "refs/heads/main")
    assert replay["sender"]["login"] == "github-actions[bot]"
    assert replay["sender"]["type"] == "Bot"
    name, replay = payloads.from_dispatch(fake, fake.dispatches[1])
    assert name == "repository_dispatch"
    assert (replay["action"], replay["client_payload"]) == ("baton-step", {"issue": 5})
    assert replay["branch"] == "main"

    assert payloads.schedule("*/15 * * * *") == {
        "schedule": "*/15 * * * *",
        "workflow": ".github/workflows/baton.yml",
    }


def test_payloads_without_a_running_server() -> None:
    offline = FakeGitHub(owner="acme", repo="app")
    number = offline.add_issue("x")
    payload = payloads.opened(offline, number)
    assert payload["issue"]["url"] == "https://api.github.com/repos/acme/app/issues/1"
    assert payload["repository"]["full_name"] == "acme/app"


# --------------------------------------------------------------------------- the repository

BRANCH = "baton/issue-1"


def test_the_repository_starts_with_main_at_a_readme(repo: Any, fake: FakeGitHub) -> None:
    head = fake.branch_head("main")
    assert head is not None and len(head) == 40
    assert fake.file_at("main", "README.md") == "# demo\n"

    ref = raw(fake, "GET", "/repos/octo/demo/git/ref/heads/main").json()
    assert ref["ref"] == "refs/heads/main"
    assert ref["object"] == {
        "sha": head,
        "type": "commit",
        "url": f"{fake.url}/repos/octo/demo/git/commits/{head}",
    }
    assert raw(fake, "GET", f"/repos/octo/demo/git/ref/heads/{BRANCH}").status_code == 404

    branch = repo.get_branch("main")
    assert branch.commit.sha == head
    assert branch.commit.commit.message == "Initial commit"
    missing = raw(fake, "GET", "/repos/octo/demo/branches/nope")
    assert (missing.status_code, missing.json()["message"]) == (404, "Branch not found")


def test_a_push_moves_the_branch_and_reads_back_through_pygithub(
    repo: Any, fake: FakeGitHub
) -> None:
    first = fake.push(BRANCH, {"a.txt": "a", "dir/b.txt": "b"}, "Add a and b", by="maria")
    second = fake.push(BRANCH, {"a.txt": None}, "Drop a")

    assert fake.branch_head(BRANCH) == second
    assert fake.file_at(BRANCH, "a.txt") is None and fake.file_at(first, "a.txt") == "a"
    assert fake.file_at(BRANCH, "dir/b.txt") == "b"
    commit = repo.get_commit(BRANCH)
    assert commit.sha == second
    assert [p.sha for p in commit.parents] == [first]
    assert commit.commit.message == "Drop a"
    assert repo.get_git_ref(f"heads/{BRANCH}").object.sha == second


def test_a_pull_request_is_opened_as_a_draft_with_the_next_issue_number(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.add_issue("Export as CSV")
    head = fake.push(BRANCH, {"a.txt": "a"})

    pull = repo.create_pull(
        base="main", head=f"octo:{BRANCH}", title="CSV", body="Fixes #1", draft=True
    )

    assert pull.number == 2
    assert pull.node_id == f"PR_fake{pull.id}"
    assert (pull.draft, pull.state, pull.merged) == (True, "open", False)
    assert (pull.head.ref, pull.head.sha, pull.base.ref) == (BRANCH, head, "main")
    assert pull.user.login == "github-actions[bot]"
    assert pull.html_url == "https://github.com/octo/demo/pull/2"
    assert fake.calls("POST", "/pulls")[-1].status == 201
    assert repo.get_pull(2).body == "Fixes #1"
    assert repo.get_issue(2).pull_request is not None  # a pull request is an issue too
    with pytest.raises(github.UnknownObjectException):
        repo.get_pull(1)  # an issue is no pull request


def test_a_second_pull_request_from_the_branch_and_one_with_no_commits_are_refused(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True)

    again = raw(
        fake, "POST", "/repos/octo/demo/pulls", json={"title": "t", "head": BRANCH, "base": "main"}
    )
    assert again.status_code == 422
    assert again.json()["errors"] == [
        {
            "resource": "PullRequest",
            "code": "custom",
            "message": f"A pull request already exists for octo:{BRANCH}.",
        }
    ]

    fake.push("same-as-main", {"b.txt": "b"}, "B")
    fake.merge(fake.open_pull_request("same-as-main", "B"))  # now main has its commit
    none = raw(
        fake,
        "POST",
        "/repos/octo/demo/pulls",
        json={"title": "t", "head": "same-as-main", "base": "main"},
    )
    assert none.status_code == 422
    assert none.json()["errors"][0]["message"] == "No commits between main and same-as-main"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"head": BRANCH, "base": "main"}, "title"),
        ({"title": "t", "base": "main"}, "head"),
        ({"title": "t", "head": "no-such-branch", "base": "main"}, "head"),
        ({"title": "t", "head": f"someone:{BRANCH}", "base": "main"}, "head"),
        ({"title": "t", "head": BRANCH, "base": "no-such-base"}, "base"),
    ],
)
def test_a_pull_request_with_a_missing_or_unknown_field_is_refused(
    fake: FakeGitHub, body: dict[str, str], field: str
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})

    refused = raw(fake, "POST", "/repos/octo/demo/pulls", json=body)

    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == field


def test_when_actions_may_not_open_pull_requests_github_answers_403(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    fake.actions_may_open_pull_requests = False

    with pytest.raises(GithubException) as refused:
        repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True)

    assert refused.value.status == 403
    assert refused.value.data["message"] == (
        "GitHub Actions is not permitted to create or approve pull requests."
    )
    assert "create-a-pull-request" in refused.value.data["documentation_url"]


def test_pull_requests_are_listed_by_head_and_state(repo: Any, fake: FakeGitHub) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    fake.push("other", {"b.txt": "b"})
    first = fake.open_pull_request(BRANCH, "mine", by="bob")
    fake.close_pull_request(first)
    second = repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True).number
    fake.open_pull_request("other", "theirs")

    def numbers(**query: str) -> list[int]:
        return [p.number for p in repo.get_pulls(**query)]

    assert numbers(state="open", head=f"octo:{BRANCH}") == [second]
    assert numbers(state="all", head=f"octo:{BRANCH}") == [second, first]
    assert numbers(state="closed") == [first]
    assert numbers(state="open", head=f"stranger:{BRANCH}") == []
    assert len(numbers()) == 2


def test_a_reviews_inline_comments_are_listed(repo: Any, fake: FakeGitHub) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    number = fake.open_pull_request(BRANCH, "CSV")
    review = fake.review(
        number,
        "maria",
        "changes_requested",
        "Almost",
        notes=[("a.txt", 1, "Say b"), ("b", None, "Add b")],
    )

    comments = list(repo.get_pull(number).get_single_review_comments(review))

    assert [(c.path, c.line, c.body) for c in comments] == [
        ("a.txt", 1, "Say b"),
        ("b", None, "Add b"),
    ]
    assert comments[0].commit_id == head
    assert comments[0].pull_request_review_id == review
    assert comments[0].user.login == "maria"
    wrong = raw(fake, "GET", f"/repos/octo/demo/pulls/{number}/reviews/{review + 99}/comments")
    assert wrong.status_code == 404


def test_check_runs_are_the_latest_per_name_unless_all_and_paginated(
    repo: Any, fake: FakeGitHub
) -> None:
    head = fake.push(BRANCH, {"a.txt": "a"})
    fake.add_check_run(head, "lint", "failure", "E501")
    fake.add_check_run(head, "lint", "success")
    fake.add_check_run(head, "tests", "failure", "2 failed", title="pytest", text="details")
    for index in range(3):
        fake.add_check_run(head, f"matrix-{index}", "success")

    latest = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs").json()
    assert latest["total_count"] == 5
    tests = next(run for run in latest["check_runs"] if run["name"] == "tests")
    assert tests["output"]["title"] == "pytest" and tests["output"]["summary"] == "2 failed"
    assert (tests["status"], tests["conclusion"], tests["head_sha"]) == (
        "completed",
        "failure",
        head,
    )
    everything = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs?filter=all")
    assert everything.json()["total_count"] == 6

    runs = list(repo.get_commit(head).get_check_runs(filter="latest"))
    assert sorted(run.name for run in runs if run.conclusion == "failure") == ["tests"]
    paged = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs?per_page=2")
    assert len(paged.json()["check_runs"]) == 2
    assert 'rel="next"' in paged.headers["link"]
    failed = raw(fake, "GET", f"/repos/octo/demo/commits/{head}/check-runs?status=in_progress")
    assert failed.json() == {"total_count": 0, "check_runs": []}


def test_a_merge_brings_the_branch_to_main_and_marks_the_pull_request(
    repo: Any, fake: FakeGitHub
) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    number = fake.open_pull_request(BRANCH, "CSV")
    fake.push("main", {"other.txt": "o"}, "Meanwhile")

    merge = fake.merge(number, by="maria")

    pull = repo.get_pull(number)
    assert (pull.state, pull.merged, pull.merge_commit_sha) == ("closed", True, merge)
    assert pull.merged_by.login == "maria"
    assert fake.file_at("main", "a.txt") == "a" and fake.file_at("main", "other.txt") == "o"
    assert len(repo.get_commit("main").parents) == 2


def test_faults_reach_the_new_routes(repo: Any, fake: FakeGitHub) -> None:
    fake.push(BRANCH, {"a.txt": "a"})
    fake.fail("POST", r"/pulls$", 502)

    with pytest.raises(GithubException) as failed:
        repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True)

    assert failed.value.status == 502
    assert repo.create_pull(base="main", head=BRANCH, title="CSV", draft=True).number == 1


def test_a_commit_reads_through_pygithub_with_its_files_signature_and_pages(
    repo: Any, fake: FakeGitHub
) -> None:
    """GET /commits/{sha}: a push is unsigned and its author's; its files 300 a page, the
    `Link` header naming the next while there is one (PyGithub follows it)."""
    files = {f"f{i:03d}.txt": str(i) for i in range(301)}
    oid = fake.push("baton/issue-1", files, "Many", by="bob")

    commit = repo.get_commit(oid)

    assert commit.author.login == "bob"
    assert commit.raw_data["commit"]["verification"]["verified"] is False
    assert commit.parents[0].sha == fake.branch_head("main")
    listed = list(commit.files)
    assert len(listed) == 301
    assert {f.status for f in listed} == {"added"}
    first = raw(fake, "GET", f"/repos/octo/demo/commits/{oid}")
    assert len(first.json()["files"]) == 300
    assert 'rel="next"' in first.headers["link"]
    second = raw(fake, "GET", f"/repos/octo/demo/commits/{oid}?page=2")
    assert [f["filename"] for f in second.json()["files"]] == ["f300.txt"]
    assert "link" not in second.headers


def test_compare_counts_commits_ahead_and_behind_by_ids_or_names(
    repo: Any, fake: FakeGitHub
) -> None:
    main = fake.branch_head("main")
    theirs = fake.push("baton/issue-1", {"a.txt": "a"}, by="bob")
    later = fake.push("main", {"b.txt": "b"}, by="maria")

    comparison = repo.compare(main, theirs)
    diverged = raw(fake, "GET", f"/repos/octo/demo/compare/{later}...{theirs}").json()
    behind = raw(fake, "GET", f"/repos/octo/demo/compare/main...{main}").json()

    assert (comparison.status, comparison.ahead_by, comparison.behind_by) == ("ahead", 1, 0)
    assert [c.sha for c in comparison.commits] == [theirs]
    assert (diverged["status"], diverged["ahead_by"], diverged["behind_by"]) == ("diverged", 1, 1)
    assert diverged["merge_base_commit"]["sha"] == main
    assert (behind["status"], behind["ahead_by"], behind["behind_by"]) == ("behind", 0, 1)
    assert raw(fake, "GET", f"/repos/octo/demo/compare/{main}..{theirs}").status_code == 404
