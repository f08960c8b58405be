"""The in-memory GitHub's objects as GitHub's JSON, for `payloads` to build webhook payloads
from (the `payloads.Source` protocol), as from the HTTP fake.
"""

from __future__ import annotations

from typing import Any

from baton.sim import payloads
from baton.sim.memory.base import API, MemoryBase
from baton.sim.model import rules


class GitHubJson(MemoryBase):
    """Users, the repository, labels, issues and comments as GitHub renders them."""

    def user_json(self, login: str, user_type: str = "User") -> dict[str, Any]:
        return payloads.user_object(API, login, user_type, self._user_ids.of(login))

    def repo_json(self) -> dict[str, Any]:
        owner = self.user_json(self.repo.split("/", 1)[0], "Organization")
        open_issues = sum(1 for issue in self.issues.values() if issue.state == "open")
        return payloads.repository_object(
            API, self.repo, owner, open_issues=open_issues, now=rules.timestamp(self.now)
        )

    def label_json(self, name: str) -> dict[str, Any]:
        label = self.store.find_label(name)
        if label is None:
            raise KeyError(name)
        return payloads.label_object(
            API,
            self.repo,
            label_id=label.id,
            name=label.name,
            color=label.color,
            description=label.description,
        )

    def issue_json(self, number: int) -> dict[str, Any]:
        issue = self._issue(number)
        stamp = rules.timestamp
        created = issue.created_at or self.now
        return payloads.issue_object(
            API,
            self.repo,
            issue_id=issue.id,
            number=number,
            title=issue.title,
            body=issue.body,
            state=issue.state,
            state_reason=issue.state_reason,
            user=self.user_json(issue.author, rules.user_type(issue.author)),
            labels=[self.label_json(name) for name in issue.labels],
            comments=len(self.store.comments_of(number)),
            created_at=stamp(created),
            updated_at=stamp(issue.updated_at or created),
            closed_at=stamp(issue.closed_at) if issue.closed_at else None,
            author_association=issue.association,
            reactions=(),
            is_pull_request=issue.is_pull_request,
        )

    def comment_json(self, comment_id: int) -> dict[str, Any]:
        stored = self.comment_store[comment_id]
        kind = stored.author_type
        return payloads.comment_object(
            API,
            self.repo,
            comment_id=comment_id,
            number=stored.issue,
            user=self.user_json(stored.author, kind),
            body=stored.body,
            created_at=rules.timestamp(stored.created_at),
            updated_at=rules.timestamp(stored.updated_at or stored.created_at),
            author_association=stored.association,
            reactions=[reaction.content for reaction in stored.reactions],
            by_actions=kind == "Bot" and stored.author == self.bot_login,
        )

    def issue_of_comment(self, comment_id: int) -> int:
        return self.comment_store[comment_id].issue

    def last_actor(
        self, number: int, event: str, label: str | None = None
    ) -> tuple[str, str] | None:
        for item in reversed(self._issue(number).events):
            named = [item.label[0]] if item.label else []
            if item.kind == event and (label is None or rules.find_label(named, label)):
                return item.actor.login, item.actor.type
        return None
