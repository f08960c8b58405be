"""The documents of an epic's sub-issues: one query for them, their marks and blockers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from baton.core.text import task_marker as marker
from baton.github.graphql.issues import PAGE, author_login

SUB_ISSUE_LABELS = 20  # labels read per sub-issue: a task carries a handful
BLOCKERS = 50  # "blocked by" issues read per sub-issue
TASKS_PER_DOCUMENT = 20  # createIssue fields per mutation document
# addBlockedBy fields per document: a plan at the default limit (20 tasks) with up to 100 edges
# is linked in one.
EDGES_PER_DOCUMENT = 100
_SUB_ISSUE = (
    "id number state body author { __typename login } "
    f"labels(first: {SUB_ISSUE_LABELS}) {{ nodes {{ name }} }} "
    f"blockedBy(first: {BLOCKERS}) {{ nodes {{ number }} }}"
)


def sub_issues_document(
    label_count: int = 0, *, operation: str = "BatonSubIssues", branch: bool = False
) -> str:
    """The repository's node id, the issue's node id and its sub-issues (GitHub holds at most
    100 per parent: one page) with their state, author, body, labels and blockers; and
    `label_count` repository labels looked up by name (`$l0`...) for creating tasks; with
    `branch`, the default branch's head and the branch `$ref` (the epic's, made with them)."""
    variables = "".join(f", $l{i}: String!" for i in range(label_count))
    lookups = "".join(f"\n    l{i}: label(name: $l{i}) {{ id name }}" for i in range(label_count))
    if branch:
        variables += ", $ref: String!"
        lookups += (
            "\n    defaultBranchRef { target { oid } }\n    ref(qualifiedName: $ref) { name }"
        )
    return f"""query {operation}($owner: String!, $name: String!, $number: Int!{variables}) {{
  repository(owner: $owner, name: $name) {{
    id
    issue(number: $number) {{
      id
      {SUB_ISSUES}
    }}{lookups}
  }}
}}"""


SUB_ISSUES = f"subIssues(first: {PAGE}) {{ nodes {{ {_SUB_ISSUE} }} }}"


@dataclass(frozen=True)
class SubIssueFound:
    """A sub-issue as `sub_issues_document` answers it, with its body (for its mark)."""

    number: int
    node_id: str
    open: bool
    labels: tuple[str, ...]
    author: str
    body: str
    blocked_by: tuple[int, ...]


def parse_sub_issues(issue: Any) -> list[SubIssueFound]:
    found = []
    for node in ((issue or {}).get("subIssues") or {}).get("nodes") or []:
        if not isinstance(node, dict):
            continue
        labels = ((node.get("labels") or {}).get("nodes")) or []
        blockers = ((node.get("blockedBy") or {}).get("nodes")) or []
        found.append(
            SubIssueFound(
                number=int(node["number"]),
                node_id=str(node["id"]),
                open=str(node.get("state") or "OPEN").upper() == "OPEN",
                labels=tuple(str(x["name"]) for x in labels if x),
                author=author_login(node.get("author"))[0],
                body=str(node.get("body") or ""),
                blocked_by=tuple(int(x["number"]) for x in blockers if x),
            )
        )
    return found


def task_body(epic: int, key: str, body: str) -> str:
    """A task's body with its mark (`core.text.task_marker`), whatever the planner's text says."""
    if marker.read(body) == (epic, key):
        return body
    mark = marker.render(epic, key)
    return f"{body.rstrip()}\n\n{mark}" if body.strip() else mark


def created_issue(data: dict[str, Any], alias: str) -> tuple[int, str] | None:
    """The number and node id of the issue a `createIssue` field created."""
    issue = (data.get(alias) or {}).get("issue") or {}
    if issue.get("number") is None:
        return None
    return int(issue["number"]), str(issue["id"])


@dataclass(frozen=True)
class SubIssuesRead:
    """What a run's read of an issue brought of its sub-issues (the fields create_tasks' query
    asks), used once by the next sub-issue call on it instead of a query of its own."""

    repository: str
    issue: str
    found: list[SubIssueFound]
    looked_up: frozenset[str]  # casefolded names of the labels whose node ids the read sought
    branch: str  # the branch the read looked at ("" none)
    branch_found: bool
    default_head: str
