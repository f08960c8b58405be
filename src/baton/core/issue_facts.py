"""What Baton knows of an issue, its comments and the people acting on it, as plain values.

Read from webhook payloads and from GitHub by the trackers, and read by the rules; they sit in
the core so that neither side imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class Actor(BaseModel):
    """Who caused an event. `permission` is filled in by the run when a decision needs it."""

    model_config = ConfigDict(frozen=True)

    login: str
    is_bot: bool = False
    association: str = "NONE"
    permission: str | None = None  # the collaborator-permission API's answer
    teams: tuple[str, ...] = ()  # the policy's teams this actor is an active member of


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
