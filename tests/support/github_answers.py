"""GitHub's answers as the tracker's tests register them with `responses`: the addresses,
two status labels, a comment node, an issue read (one GraphQL document), and what was sent."""

from __future__ import annotations

import json
from typing import Any

import responses

from baton.github.client import GitHubTracker
from baton.github.tracker import LabelSpec

API = "https://api.github.com:443"
GRAPHQL = f"{API}/graphql"
REPO = f"{API}/repos/octo/demo"
RECEIVED = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")
TRIAGE = LabelSpec("status:triage", "fbca04", "Baton: triage")
SPECS = {RECEIVED.name: RECEIVED, TRIAGE.name: TRIAGE}


def node(database_id: int, login: str = "alice", *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": f"IC_{database_id}",
        "fullDatabaseId": str(database_id),
        "body": f"comment {database_id}",
        "createdAt": "2026-01-05T09:00:00Z",
        "authorAssociation": "NONE" if bot else "MEMBER",
        "author": {"__typename": "Bot" if bot else "User", "login": login},
    }


def comment(number: int, login: str = "alice", bot: bool = False) -> dict[str, object]:
    return {
        "id": number,
        "body": f"comment {number}",
        "user": {"login": login, "type": "Bot" if bot else "User"},
        "author_association": "NONE",
        "created_at": "2026-01-05T09:00:00Z",
    }


def issue_answer(
    comments: list[dict[str, Any]],
    *,
    more: bool = False,
    typename: str = "Issue",
    triage: dict[str, Any] | None = None,
    labels: tuple[str, ...] = ("bug",),
) -> dict[str, Any]:
    return {
        "data": {
            "repository": {
                "issueOrPullRequest": {
                    "__typename": typename,
                    "id": "I_7",
                    "number": 7,
                    "title": "Add dark mode",
                    "body": "please",
                    "issueState": "OPEN",
                    "updatedAt": "2026-01-05T09:00:00Z",
                    "author": {"__typename": "User", "login": "alice"},
                    "labels": {"nodes": [{"id": f"LA_{x}", "name": x} for x in labels]},
                    "comments": {
                        "pageInfo": {"hasNextPage": more, "endCursor": "c1" if more else None},
                        "nodes": comments,
                    },
                },
                "l0": {
                    "id": "LA_status:received",
                    "name": "status:received",
                    "color": "1d76db",
                    "description": "Baton: Issue just arrived",
                },
                "l1": triage,
            }
        }
    }


def sent(call: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(call.request.body)
    return body


def read_issue(mocked: responses.RequestsMock, tracker: GitHubTracker, **kwargs: Any) -> None:
    """The run's read of issue 7 (three comments, the bot's record among them)."""
    record = node(5, "github-actions", bot=True)
    mocked.post(GRAPHQL, json=issue_answer([node(1), record, node(6)], **kwargs))
    tracker.read(7, with_issue=False)
