"""The `Tracker` calls of the dashboard (`tracker.Pages`): the closed issues of its window, and
its pinned issue, opened, edited and pinned as GitHub does (a body over GitHub's limit is
refused, and nothing changes)."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.issue_facts import IssueInfo
from baton.errors import TrackerError
from baton.github.tracker import OpenedIssue
from baton.sim.memory.base import PAGE_SIZE, MemoryBase, _refusing, info_of
from baton.sim.model.issues import User, check_body


class PageCalls(MemoryBase):
    """`tracker.Pages` in memory."""

    def closed_issues(self, since: datetime, page: int) -> tuple[list[IssueInfo], int | None]:
        self._call("closed_issues")
        epoch = datetime.min.replace(tzinfo=UTC)
        found = sorted(
            (i for i in self.issues.values() if i.state == "closed" and i.updated_at >= since),
            key=lambda i: (i.updated_at or epoch, i.number),
            reverse=True,
        )
        start = (page - 1) * PAGE_SIZE
        more = start + PAGE_SIZE < len(found)
        return [info_of(i) for i in found[start : start + PAGE_SIZE]], (page + 1 if more else None)

    def create_issue(self, title: str, body: str) -> OpenedIssue:
        self._call("create_issue")
        with _refusing("the issue's "):
            check_body("Issue", body)  # refused whole: nothing is opened
            issue = self.store.open(title, body, User(self.bot_login, "Bot"))
        self.log.append(f"#{issue.number} opened by {self.bot_login}: {title}")
        return OpenedIssue(number=issue.number, node_id=self.node_id_of(issue.number))

    def edit_issue(self, number: int, body: str) -> None:
        self._call("edit_issue")
        issue = self._issue(number)
        with _refusing("the issue's "):
            self.store.edit_body(issue, body)
        self.log.append(f"#{number} body edited ({len(body)} characters)")

    def pin_issue(self, node_id: str) -> None:
        self._call("pin_issue")
        found = next((i for i in self.issues.values() if f"I_mem{i.id}" == node_id), None)
        if found is None:
            raise TrackerError(f"GitHub refused pinning {node_id}: NOT_FOUND", status=404)
        with _refusing():
            self.store.pin(found)
        self.log.append(f"#{found.number} pinned")
