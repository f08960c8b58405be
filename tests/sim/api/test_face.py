"""The fake GitHub's own helpers: what tests seed and inspect (copies), and the objects it renders
for webhook payloads, which agree with its API's answers."""

from __future__ import annotations

from typing import Any

from baton.sim import payloads
from fakes.http_github import FakeGitHub


def test_helpers_return_copies(fake: FakeGitHub) -> None:
    number = fake.add_issue("x", labels=["a"])
    fake.add_comment(number, "hello")
    snapshot = fake.issue(number)
    snapshot["labels"].append("mutated")
    snapshot["comments"][0]["body"] = "mutated"
    assert fake.labels_of(number) == ["a"]
    assert fake.comments(number)[0]["body"] == "hello"


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
