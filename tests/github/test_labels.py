"""Labels over REST: created with a status label's style, styled once when GitHub made them
grey, removed without minding one already gone, looked up again when their id went stale."""

from __future__ import annotations

import json
from typing import Any

import pytest
import responses

from baton.github.client import GitHubTracker
from baton.github.tracker import LabelChange, LabelSpec, Writes

API = "https://api.github.com:443"
REPO = f"{API}/repos/octo/demo"
SPEC = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")


@pytest.fixture
def tracker() -> GitHubTracker:
    return GitHubTracker("octo/demo", "t0ken", retry=0)


def test_adding_a_new_status_label_styles_it_once(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    added = mocked.post(
        f"{REPO}/issues/3/labels",
        json=[{"name": "bug", "color": "d73a4a"}, {"name": "status:received", "color": "ededed"}],
    )
    styled = mocked.patch(f"{REPO}/labels/status%3Areceived", json={})
    removed = mocked.delete(f"{REPO}/issues/3/labels/baton", json=[])
    tracker.set_labels(3, ("bug", "baton"), ("bug", "status:received"), {SPEC.name: SPEC})
    assert json.loads(added.calls[0].request.body) == {"labels": ["status:received"]}
    assert json.loads(styled.calls[0].request.body) == {
        "color": "1d76db",
        "description": "Baton: Issue just arrived",
    }
    assert removed.call_count == 1


def test_an_existing_styled_label_is_not_patched(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.post(
        f"{REPO}/issues/3/labels",
        json=[{"name": "status:received", "color": "1d76db", "description": "Baton: x"}],
    )
    tracker.set_labels(3, (), ("status:received",), {SPEC.name: SPEC})
    assert tracker.requests == 1


def test_removing_a_label_that_is_already_gone_is_fine(
    mocked: responses.RequestsMock, tracker: GitHubTracker
) -> None:
    mocked.delete(
        f"{REPO}/issues/3/labels/status%3Areceived",
        status=404,
        json={"message": "Label does not exist"},
    )
    tracker.set_labels(3, ("status:received",), (), {})


GRAPHQL = f"{API}/graphql"
RECEIVED = LabelSpec("status:received", "1d76db", "Baton: Issue just arrived")
TRIAGE = LabelSpec("status:triage", "fbca04", "Baton: triage")
SPECS = {RECEIVED.name: RECEIVED, TRIAGE.name: TRIAGE}


@pytest.fixture
def labelled() -> GitHubTracker:
    return GitHubTracker("octo/demo", "t0ken", retry=0, labels=(RECEIVED.name, TRIAGE.name))


def node(database_id: int, login: str = "alice", *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": f"IC_{database_id}",
        "fullDatabaseId": str(database_id),
        "body": f"comment {database_id}",
        "createdAt": "2026-01-05T09:00:00Z",
        "authorAssociation": "NONE" if bot else "MEMBER",
        "author": {"__typename": "Bot" if bot else "User", "login": login},
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


def _read(mocked: responses.RequestsMock, labelled: GitHubTracker, **kwargs: Any) -> None:
    record = node(5, "github-actions", bot=True)
    mocked.post(GRAPHQL, json=issue_answer([node(1), record, node(6)], **kwargs))
    labelled.read(7, with_issue=False)


def test_a_status_label_used_for_the_first_time_is_created_with_its_colour(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    _read(mocked, labelled)  # status:triage is not in the repository yet
    created = mocked.post(f"{REPO}/labels", json={"node_id": "LA_new"}, status=201)
    write = mocked.post(GRAPHQL, json={"data": {"labelsAdded": {"clientMutationId": None}}})
    labelled.write(Writes(number=7, labels=LabelChange(("bug",), ("bug", "status:triage"), SPECS)))
    assert sent(created.calls[0]) == {
        "name": "status:triage",
        "color": "fbca04",
        "description": "Baton: triage",
    }
    assert sent(write.calls[-1])["variables"]["labelsAddedIds"] == ["LA_new"]
    assert labelled.requests == 3


def test_a_label_id_github_no_longer_knows_is_looked_up_again(
    mocked: responses.RequestsMock, labelled: GitHubTracker
) -> None:
    """The label was deleted and made again since the read: its old id fails the document, the
    addition is redone by name over REST, and the next write creates no stale reference."""
    _read(mocked, labelled)
    mocked.post(
        GRAPHQL,
        json={
            "data": {"labelsAdded": None},
            "errors": [{"type": "NOT_FOUND", "path": ["labelsAdded"], "message": "no node"}],
        },
    )
    redone = mocked.post(f"{REPO}/issues/7/labels", json=[{"name": "status:received"}])
    change = LabelChange(("bug",), ("bug", "status:received"), SPECS)
    labelled.write(Writes(number=7, labels=change))
    assert sent(redone.calls[0]) == {"labels": ["status:received"]}
    created = mocked.post(f"{REPO}/labels", json={"node_id": "LA_again"}, status=201)
    write = mocked.post(GRAPHQL, json={"data": {"labelsAdded": {"clientMutationId": None}}})
    labelled.write(Writes(number=7, labels=change))
    assert len(created.calls) == 1
    assert sent(write.calls[-1])["variables"]["labelsAddedIds"] == ["LA_again"]
