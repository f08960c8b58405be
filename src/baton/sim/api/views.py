"""What the tests inspect of the fake GitHub: copies of the model's issues, comments, labels,
events and pull requests as plain dicts, GitHub's timestamps as text.
"""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

from baton.sim.model import rules
from baton.sim.model.issues import Event, Label, Reaction, User


class UserRef(TypedDict):
    login: str
    type: str  # "User" | "Bot" | "Organization"


class CommentAuthor(UserRef):
    id: int


class LabelState(TypedDict):
    id: int
    name: str
    color: str
    description: str | None
    default: bool


class ReactionState(TypedDict):
    id: int
    content: str
    user: UserRef
    created_at: str


class EventState(TypedDict):
    """An issue event (labeled, unlabeled, closed, reopened, renamed)."""

    id: int
    event: str
    actor: UserRef
    created_at: str
    label: NotRequired[dict[str, str]]  # {"name", "color"} for (un)labeled
    rename: NotRequired[dict[str, str]]  # {"from", "to"} for renamed


class CommentState(TypedDict):
    id: int
    issue_number: int
    body: str
    user: CommentAuthor
    author_association: str
    created_at: str
    updated_at: str
    # GitHub keeps who last edited the body and when (GraphQL `lastEditedAt`, `editor`);
    # null until the first edit. Reactions move neither, nor `updated_at`.
    last_edited_at: str | None
    editor: UserRef | None
    reactions: list[ReactionState]


class IssueState(TypedDict):
    number: int
    id: int
    title: str
    body: str
    state: str  # "open" | "closed"
    state_reason: str | None
    user: UserRef
    author_association: str
    labels: list[str]  # canonical repo label names
    comments: list[CommentState]  # same objects as the fake's global comment index
    events: list[EventState]
    reactions: list[ReactionState]
    is_pull_request: bool
    created_at: str
    updated_at: str
    closed_at: str | None


class PullState(TypedDict):
    """A pull request's own fields; its title, body and open/closed state are its issue's."""

    number: int
    id: int  # the pull request's database id (not its issue's)
    head: str
    base: str
    user: UserRef
    draft: bool
    merged: bool
    merged_at: str | None
    merged_by: UserRef | None
    merge_commit_sha: str | None
    head_sha: str  # frozen when it closes; while open, the head branch's


def _stamp_of(moment: datetime | None) -> str | None:
    return rules.timestamp(moment) if moment is not None else None


def _user_ref(user: User) -> UserRef:
    return {"login": user.login, "type": user.type}


def _label_view(label: Label) -> LabelState:
    return {
        "id": label.id,
        "name": label.name,
        "color": label.color,
        "description": label.description,
        "default": label.default,
    }


def _reaction_view(reaction: Reaction) -> ReactionState:
    return {
        "id": reaction.id,
        "content": reaction.content,
        "user": _user_ref(reaction.user),
        "created_at": rules.timestamp(reaction.created_at),
    }


def _event_view(event: Event) -> EventState:
    view: EventState = {
        "id": event.id,
        "event": event.kind,
        "actor": _user_ref(event.actor),
        "created_at": rules.timestamp(event.created_at),
    }
    if event.label is not None:
        view["label"] = {"name": event.label[0], "color": event.label[1]}
    if event.rename is not None:
        view["rename"] = {"from": event.rename[0], "to": event.rename[1]}
    return view
