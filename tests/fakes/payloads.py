"""Webhook event payloads shaped like GitHub's, built from a FakeGitHub's state.

Why: Baton reads the triggering event from ``GITHUB_EVENT_PATH``. A test that
hand-writes that JSON can describe a world the API then contradicts (a label in
the payload that the issue does not carry, a comment id that does not exist).
Building the payload from the fake keeps event and API in agreement, exactly as
on GitHub, where the payload is a snapshot taken just after the change.

Shapes follow GitHub's webhook docs: ``issues`` and ``issue_comment`` carry the
same ``issue``/``comment`` objects as the REST API (``pull_request`` key only
for PRs), plus ``action``, ``sender`` and ``repository``. Build the payload
*after* changing the fake (e.g. ``fake.label_by`` then ``issues_labeled``).
The API URLs inside point at the fake when it is running.
"""

from __future__ import annotations

from typing import Any

from fakes.http_github import Dispatch, FakeGitHub, IssueState, UserRef

__all__ = [
    "comment_created",
    "comment_edited",
    "from_dispatch",
    "issue_closed",
    "issue_comment_event",
    "issue_edited",
    "issue_opened",
    "issue_reopened",
    "issues_event",
    "issues_labeled",
    "issues_unlabeled",
    "repository_dispatch",
    "schedule",
    "workflow_dispatch",
]

DEFAULT_WORKFLOW = ".github/workflows/baton.yml"


def _user_ref(login: str, fallback: UserRef | None = None) -> UserRef:
    if fallback is not None and fallback["login"] == login:
        return fallback
    return {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}


def _sender(fake: FakeGitHub, sender: str | None, default: UserRef) -> dict[str, Any]:
    user = default if sender is None else _user_ref(sender, default)
    return fake.user_json(user["login"], user["type"])


def _last_actor(issue: IssueState, event: str, label: str | None = None) -> UserRef:
    """Who caused the latest matching event; the author if nobody did (yet)."""
    for item in reversed(issue["events"]):
        if item["event"] == event and (label is None or item.get("label", {}).get("name") == label):
            return item["actor"]
    return issue["user"]


def _envelope(fake: FakeGitHub, sender: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**fields, "repository": fake.repo_json(), "sender": sender}


# --------------------------------------------------------------------------- issues


def issues_event(
    fake: FakeGitHub,
    action: str,
    number: int,
    *,
    sender: str | None = None,
    label: str | None = None,
    changes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``issues`` event for ``number`` as it is now in the fake.

    ``sender`` defaults to whoever caused the latest matching event (labeled,
    unlabeled, closed, reopened), else the issue author.
    """
    issue = fake.issue(number)
    event_for_action = {
        "labeled": "labeled",
        "unlabeled": "unlabeled",
        "closed": "closed",
        "reopened": "reopened",
    }
    default = (
        _last_actor(issue, event_for_action[action], label)
        if action in event_for_action
        else issue["user"]
    )
    payload = _envelope(
        fake, _sender(fake, sender, default), action=action, issue=fake.issue_json(number)
    )
    if label is not None:
        payload["label"] = _label_json(fake, label)
    if changes is not None:
        payload["changes"] = changes
    return payload


def _label_json(fake: FakeGitHub, name: str) -> dict[str, Any]:
    try:
        return fake.label_json(name)
    except KeyError:  # deleted since; GitHub still sends the label it removed
        return {
            "id": 0,
            "node_id": "",
            "url": "",
            "name": name,
            "color": "ededed",
            "default": False,
            "description": None,
        }


def issue_opened(fake: FakeGitHub, number: int, *, sender: str | None = None) -> dict[str, Any]:
    return issues_event(fake, "opened", number, sender=sender)


def issues_labeled(
    fake: FakeGitHub, number: int, label: str, *, sender: str | None = None
) -> dict[str, Any]:
    return issues_event(fake, "labeled", number, sender=sender, label=label)


def issues_unlabeled(
    fake: FakeGitHub, number: int, label: str, *, sender: str | None = None
) -> dict[str, Any]:
    return issues_event(fake, "unlabeled", number, sender=sender, label=label)


def issue_closed(fake: FakeGitHub, number: int, *, sender: str | None = None) -> dict[str, Any]:
    return issues_event(fake, "closed", number, sender=sender)


def issue_reopened(fake: FakeGitHub, number: int, *, sender: str | None = None) -> dict[str, Any]:
    return issues_event(fake, "reopened", number, sender=sender)


def issue_edited(
    fake: FakeGitHub,
    number: int,
    *,
    old_title: str | None = None,
    old_body: str | None = None,
    sender: str | None = None,
) -> dict[str, Any]:
    """``changes`` holds the previous values, as GitHub sends them."""
    changes: dict[str, Any] = {}
    if old_title is not None:
        changes["title"] = {"from": old_title}
    if old_body is not None:
        changes["body"] = {"from": old_body}
    return issues_event(fake, "edited", number, sender=sender, changes=changes)


# --------------------------------------------------------------------------- issue_comment


def issue_comment_event(
    fake: FakeGitHub,
    action: str,
    comment_id: int,
    *,
    sender: str | None = None,
    changes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``issue_comment`` event; ``sender`` defaults to the comment author."""
    comment = fake.comment(comment_id)
    author: UserRef = {"login": comment["user"]["login"], "type": comment["user"]["type"]}
    payload = _envelope(
        fake,
        _sender(fake, sender, author),
        action=action,
        issue=fake.issue_json(comment["issue_number"]),
        comment=fake.comment_json(comment_id),
    )
    if changes is not None:
        payload["changes"] = changes
    return payload


def comment_created(
    fake: FakeGitHub, comment_id: int, *, sender: str | None = None
) -> dict[str, Any]:
    return issue_comment_event(fake, "created", comment_id, sender=sender)


def comment_edited(
    fake: FakeGitHub, comment_id: int, old_body: str, *, sender: str | None = None
) -> dict[str, Any]:
    return issue_comment_event(
        fake, "edited", comment_id, sender=sender, changes={"body": {"from": old_body}}
    )


# --------------------------------------------------------------------------- dispatch / schedule


def _input_string(value: Any) -> str:
    """``github.event.inputs`` holds strings (booleans as "true"/"false")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def workflow_dispatch(
    fake: FakeGitHub,
    inputs: dict[str, Any] | None = None,
    *,
    ref: str = "refs/heads/main",
    workflow: str = DEFAULT_WORKFLOW,
    sender: str = "alice",
) -> dict[str, Any]:
    return _envelope(
        fake,
        _sender(fake, sender, _user_ref(sender)),
        inputs={key: _input_string(value) for key, value in (inputs or {}).items()},
        ref=ref,
        workflow=workflow,
    )


def repository_dispatch(
    fake: FakeGitHub,
    event_type: str,
    client_payload: dict[str, Any] | None = None,
    *,
    branch: str = "main",
    sender: str = "alice",
) -> dict[str, Any]:
    """``action`` is the ``event_type``; ``client_payload`` keeps its JSON types."""
    return _envelope(
        fake,
        _sender(fake, sender, _user_ref(sender)),
        action=event_type,
        branch=branch,
        client_payload=dict(client_payload or {}),
        installation={"id": 1, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ=="},
    )


def from_dispatch(fake: FakeGitHub, dispatch: Dispatch) -> tuple[str, dict[str, Any]]:
    """The ``(event_name, payload)`` a recorded dispatch would trigger.

    Lets a test chain runs: Baton dispatches, the test replays the dispatch as
    the next run's event. The sender is the token's identity (the bot).
    """
    sender = fake.bot_login
    if dispatch.kind == "workflow_dispatch":
        ref = dispatch.ref or "main"
        payload = workflow_dispatch(
            fake,
            dispatch.inputs,
            ref=ref if ref.startswith("refs/") else f"refs/heads/{ref}",
            workflow=f".github/workflows/{dispatch.workflow}",
            sender=sender,
        )
        return "workflow_dispatch", payload
    payload = repository_dispatch(
        fake, dispatch.event_type or "", dispatch.client_payload, sender=sender
    )
    return "repository_dispatch", payload


def schedule(cron: str, *, workflow: str = DEFAULT_WORKFLOW) -> dict[str, Any]:
    """A ``schedule`` run's event: GitHub sends no webhook payload, only the cron
    string (``github.event.schedule``) and the workflow path; no repository/sender."""
    return {"schedule": cron, "workflow": workflow}
