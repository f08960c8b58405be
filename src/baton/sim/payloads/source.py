"""What every payload builder shares: the fake GitHub it reads (`Source`), a recorded
dispatch, and the envelope (`repository`, `sender`) every webhook payload carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from baton.sim.model.rules import user_type

DEFAULT_WORKFLOW = ".github/workflows/baton.yml"
REPOSITORY_ID = 1296269
Json = dict[str, Any]


class Source(Protocol):
    """What building a payload needs of a fake GitHub: its objects as the REST API renders
    them, and who caused an issue's latest event."""

    @property
    def bot_login(self) -> str: ...

    def issue_json(self, number: int) -> Json: ...

    def comment_json(self, comment_id: int) -> Json: ...

    def issue_of_comment(self, comment_id: int) -> int: ...

    def label_json(self, name: str) -> Json:
        """The repository's label; KeyError when there is none of that name (any case)."""
        ...

    def repo_json(self) -> Json: ...

    def user_json(self, login: str, user_type: str = "User") -> Json: ...

    def last_actor(
        self, number: int, event: str, label: str | None = None
    ) -> tuple[str, str] | None:
        """The login and user type of whoever caused the issue's latest `event` (labeled,
        unlabeled, closed, reopened), for `label` if given; None when nobody did."""
        ...


@dataclass(frozen=True)
class DispatchRequest:
    """A workflow_dispatch or repository_dispatch request a fake received."""

    kind: Literal["workflow_dispatch", "repository_dispatch"]
    created_at: str
    workflow: str | None = None  # the workflow's file name when known, e.g. "baton.yml"
    ref: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    event_type: str | None = None
    client_payload: dict[str, Any] = field(default_factory=dict)


# --- who sent it --------------------------------------------------------------------------------
def sender_json(source: Source, login: str, bot: bool | None) -> Json:
    kind = user_type(login) if bot is None else ("Bot" if bot else "User")
    return source.user_json(login, kind)


def envelope(source: Source, sender: Json, **fields: Any) -> Json:
    return {**fields, "repository": source.repo_json(), "sender": sender}
