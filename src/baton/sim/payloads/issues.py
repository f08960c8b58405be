"""The `issues` and `issue_comment` payloads: an issue opened, labelled, closed, reopened or
edited, and a comment created or edited, as GitHub sends them just after the change."""

from __future__ import annotations

from baton.sim.model.rules import DEFAULT_LABEL_COLOR
from baton.sim.payloads.source import Json, Source, envelope, sender_json

# --- issues -------------------------------------------------------------------------------------
_EVENT_OF_ACTION = {
    "labeled": "labeled",
    "unlabeled": "unlabeled",
    "closed": "closed",
    "reopened": "reopened",
}


def issues(
    source: Source,
    number: int,
    action: str,
    *,
    sender: str | None = None,
    bot: bool | None = None,
    label: str | None = None,
    changes: Json | None = None,
) -> Json:
    """An `issues` event for issue `number` as it is now. `sender` defaults to whoever caused
    the latest matching event (labeled, unlabeled, closed, reopened), else the issue's author;
    `bot` types the sender (by default a `[bot]` login is a Bot)."""
    issue = source.issue_json(number)
    if sender is not None:
        who = sender_json(source, sender, bot)
    else:
        event = _EVENT_OF_ACTION.get(action)
        actor = source.last_actor(number, event, label) if event else None
        login, kind = actor or (issue["user"]["login"], issue["user"]["type"])
        who = source.user_json(login, kind)
    payload = envelope(source, who, action=action, issue=issue)
    if label is not None:
        payload["label"] = _label_or_gone(source, label)
    if changes is not None:
        payload["changes"] = changes
    return payload


def _label_or_gone(source: Source, name: str) -> Json:
    try:
        return source.label_json(name)
    except KeyError:  # deleted since; GitHub still sends the label it removed
        return {
            "id": 0,
            "node_id": "",
            "url": "",
            "name": name,
            "color": DEFAULT_LABEL_COLOR,
            "default": False,
            "description": None,
        }


def opened(source: Source, number: int, *, sender: str | None = None) -> Json:
    return issues(source, number, "opened", sender=sender)


def labeled(
    source: Source, number: int, label: str, *, sender: str | None = None, bot: bool | None = None
) -> Json:
    return issues(source, number, "labeled", sender=sender, bot=bot, label=label)


def unlabeled(
    source: Source, number: int, label: str, *, sender: str | None = None, bot: bool | None = None
) -> Json:
    return issues(source, number, "unlabeled", sender=sender, bot=bot, label=label)


def closed(source: Source, number: int, *, sender: str | None = None) -> Json:
    return issues(source, number, "closed", sender=sender)


def reopened(source: Source, number: int, *, sender: str | None = None) -> Json:
    return issues(source, number, "reopened", sender=sender)


def edited(
    source: Source,
    number: int,
    *,
    old_title: str | None = None,
    old_body: str | None = None,
    sender: str | None = None,
) -> Json:
    """`changes` holds the previous values, as GitHub sends them."""
    changes: Json = {}
    if old_title is not None:
        changes["title"] = {"from": old_title}
    if old_body is not None:
        changes["body"] = {"from": old_body}
    return issues(source, number, "edited", sender=sender, changes=changes)


# --- issue_comment ------------------------------------------------------------------------------
def issue_comment(
    source: Source,
    comment_id: int,
    action: str = "created",
    *,
    sender: str | None = None,
    changes: Json | None = None,
) -> Json:
    """An `issue_comment` event; `sender` defaults to the comment's author."""
    comment = source.comment_json(comment_id)
    author = comment["user"]
    who = (
        source.user_json(author["login"], author["type"])
        if sender is None
        else sender_json(source, sender, None)
    )
    payload = envelope(
        source,
        who,
        action=action,
        issue=source.issue_json(source.issue_of_comment(comment_id)),
        comment=comment,
    )
    if changes is not None:
        payload["changes"] = changes
    return payload


def comment_created(source: Source, comment_id: int, *, sender: str | None = None) -> Json:
    return issue_comment(source, comment_id, "created", sender=sender)


def comment_edited(
    source: Source, comment_id: int, old_body: str, *, sender: str | None = None
) -> Json:
    return issue_comment(
        source, comment_id, "edited", sender=sender, changes={"body": {"from": old_body}}
    )
