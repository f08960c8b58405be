"""The dashboard's GitHub calls (`tracker.Pages`): the closed issues of its window, and its own
pinned issue, opened and edited over REST and pinned with GraphQL's `pinIssue` (REST has no
way to pin)."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.core.model.issue_facts import IssueInfo
from baton.github.graphql.answers import field_errors
from baton.github.issues import info_of
from baton.github.tracker import OpenedIssue
from baton.github.transport import PER_PAGE, Role

PIN_ISSUE = """mutation BatonPinIssue($id: ID!) {
  pinIssue(input: {issueId: $id}) { issue { id } }
}"""


class GitHubPages(Role):
    """`tracker.Pages` over the transport."""

    def closed_issues(self, since: datetime, page: int) -> tuple[list[IssueInfo], int | None]:
        headers, data = self.transport.call(
            "GET",
            f"{self.transport.base}/issues",
            "listing the issues closed in the dashboard's window",
            parameters={
                "state": "closed",
                "since": since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "sort": "updated",
                "direction": "desc",
                "per_page": PER_PAGE,
                "page": page,
            },
        )
        issues = [info_of(item) for item in data or []]
        more = 'rel="next"' in str(headers.get("link", ""))
        return issues, (page + 1 if more else None)

    def create_issue(self, title: str, body: str) -> OpenedIssue:
        _, data = self.transport.call(
            "POST",
            f"{self.transport.base}/issues",
            "opening the dashboard's issue",
            once=True,  # a 5xx may come after GitHub opened it: never open a second
            input={"title": title, "body": body},
        )
        return OpenedIssue(number=int(data["number"]), node_id=str(data.get("node_id") or ""))

    def edit_issue(self, number: int, body: str) -> None:
        self.transport.call(
            "PATCH",
            f"{self.transport.base}/issues/{number}",
            f"updating the dashboard in #{number}",
            input={"body": body},
        )

    def pin_issue(self, node_id: str) -> None:
        what = "pinning the dashboard's issue"
        answer = self.transport.query(PIN_ISSUE, {"id": node_id}, what, mutation=True)
        errors = field_errors(answer)
        if errors:
            raise self.transport.refused(what, next(iter(errors.values())))
