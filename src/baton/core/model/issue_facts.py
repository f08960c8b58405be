"""What Baton knows of an issue, its comments and the people acting on it, as plain values.

Read from webhook payloads and from GitHub by the trackers, and read by the rules; they sit in
the core so that neither side imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class Actor(BaseModel):
    """Who caused an event, as GitHub sent it. What the actor may do (their permission, their
    teams) is looked up apart, as facts (`core/model/facts.py`), and only when a decision
    needs it; nothing else may be set here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    login: str
    is_bot: bool = False
    association: str = "NONE"


class IssueInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    title: str = ""
    body: str = ""
    state: str = "open"
    labels: tuple[str, ...] = ()
    author: str = ""
    is_pull_request: bool = False
    partial: bool = Field(default=False, description="Only the number is known: fetch the rest.")
    updated_at: datetime | None = None


@dataclass(frozen=True)
class Comment:
    id: int
    author: str
    body: str
    created_at: datetime
    author_is_bot: bool = False
    association: str = "NONE"
    # GitHub's own times, which no client can set: `updated_at` (GraphQL `updatedAt`, REST
    # `updated_at`), and over GraphQL `edited_at` (`lastEditedAt`: a body edit, by anyone) and
    # `editor` (who made it; None when never edited or not known, as over REST).
    updated_at: datetime | None = None
    edited_at: datetime | None = None
    editor: str | None = None

    @property
    def body_set_at(self) -> datetime:
        """When GitHub last set this comment's body: its last edit over GraphQL (reactions do not
        move it), else `updated_at`, else its creation."""
        return self.edited_at or self.updated_at or self.created_at
