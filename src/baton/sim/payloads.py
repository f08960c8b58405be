"""Webhook payloads shaped like GitHub's, built from the in-memory GitHub.

`baton demo` and `baton simulate` feed these through `webhooks.parse`, so a simulated event
takes exactly the path a real one does.
"""

from __future__ import annotations

from typing import Any

from baton.sim.memory_github import MemoryGitHub


def _user(login: str, bot: bool = False) -> dict[str, Any]:
    return {"login": login, "type": "Bot" if bot else "User"}


def _issue(gh: MemoryGitHub, number: int, association: str = "NONE") -> dict[str, Any]:
    issue = gh.issues[number]
    stamp = gh.now.isoformat().replace("+00:00", "Z")
    payload: dict[str, Any] = {
        "number": number,
        "title": issue.title,
        "body": issue.body,
        "state": issue.state,
        "labels": [{"name": name} for name in issue.labels],
        "user": _user(issue.author),
        "author_association": association,
        "updated_at": stamp,
    }
    if issue.is_pull_request:
        payload["pull_request"] = {"url": f"https://example.invalid/pulls/{number}"}
    return payload


def _repository(gh: MemoryGitHub) -> dict[str, Any]:
    owner, name = gh.repo.split("/", 1)
    return {"full_name": gh.repo, "name": name, "owner": {"login": owner}}


def issues(
    gh: MemoryGitHub, number: int, action: str, *, sender: str, bot: bool = False
) -> dict[str, Any]:
    return {
        "action": action,
        "issue": _issue(gh, number),
        "sender": _user(sender, bot),
        "repository": _repository(gh),
    }


def labeled(
    gh: MemoryGitHub, number: int, label: str, *, sender: str, bot: bool = False
) -> dict[str, Any]:
    payload = issues(gh, number, "labeled", sender=sender, bot=bot)
    payload["label"] = {"name": label}
    return payload


def comment(
    gh: MemoryGitHub,
    number: int,
    comment_id: int,
    *,
    action: str = "created",
) -> dict[str, Any]:
    stored = gh.comment_store[comment_id]
    stamp = stored.created_at.isoformat().replace("+00:00", "Z")
    return {
        "action": action,
        "issue": _issue(gh, number),
        "comment": {
            "id": comment_id,
            "body": stored.body,
            "user": _user(stored.author, stored.author_is_bot),
            "author_association": stored.association,
            "created_at": stamp,
            "updated_at": gh.now.isoformat().replace("+00:00", "Z"),
        },
        "sender": _user(stored.author, stored.author_is_bot),
        "repository": _repository(gh),
    }


def workflow_dispatch(gh: MemoryGitHub, number: int, *, sender: str) -> dict[str, Any]:
    return {
        "inputs": {"issue": str(number)},
        "ref": "refs/heads/main",
        "workflow": ".github/workflows/baton.yml",
        "sender": _user(sender, sender.endswith("[bot]")),
        "repository": _repository(gh),
    }
