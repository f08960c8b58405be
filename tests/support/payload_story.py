"""The same story told to both fake GitHubs, for the payload builders' tests: whatever a
payload says must be what either fake would send."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from baton.sim.sim_github import SimGitHub
from fakes.http_github import FakeGitHub

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
Json = dict[str, Any]


def shape(value: Any) -> Any:
    """The keys and value types of a JSON document, without the values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


class Both:
    """The same story told to both fakes: alice opens an issue, maria labels it, bob
    comments, maria closes it."""

    def __init__(self) -> None:
        self.sim = SimGitHub(now=NOW)
        self.http = FakeGitHub()  # never started: payloads are built offline
        self.http.now = NOW
        self.sim.open_issue("Export as CSV", "Please.", author="alice")
        self.http.add_issue("Export as CSV", "Please.", user="alice")

    def label(self, name: str, by: str) -> None:
        self.sim.human_label(1, name, by=by)
        self.http.label_by(1, name, by)

    def unlabel(self, name: str, by: str) -> None:
        self.sim.human_label(1, name, add=False, by=by)
        self.http.unlabel_by(1, name, by)

    def comment(self, body: str, by: str) -> tuple[int, int]:
        posted = self.sim.human_comment(1, body, author=by, association="MEMBER")
        stored = self.http.add_comment(1, body, user=by, association="MEMBER")
        return posted.id, stored["id"]

    def close(self, by: str) -> None:
        self.sim.human_close(1, by=by)
        self.http.update_issue(1, state="closed", actor=by)
