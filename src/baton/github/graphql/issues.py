"""The documents that read an issue and its comments, and how their answers are read.

One query returns the issue, its labels, its first 100 comments and the node ids of the status
labels (and the head of the issue's branch when asked), where REST needs two calls or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from baton.core.model.issue_facts import Comment, IssueInfo
from baton.github.graphql.git import REF, parse_ref

PAGE = 100

_WHERE = "$owner: String!, $name: String!, $number: Int!, $after: String"
# fullDatabaseId, not databaseId: comment ids passed 2**31 and databaseId is a 32-bit Int; the
# BigInt arrives as a JSON string.
# updatedAt, lastEditedAt and editor: GitHub's record of when and by whom the body was last set,
# which tells a record put back by hand (`issue.load`).
_COMMENT = (
    "id fullDatabaseId body createdAt updatedAt lastEditedAt authorAssociation "
    "author { __typename login } editor { __typename login }"
)

_COMMENTS = f"""comments(first: {PAGE}, after: $after) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ {_COMMENT} }}
      }}"""


def _issue(state_key: str) -> str:
    """The fields read of an issue or a pull request. Their `state` are different enums, so each
    fragment names its own key: strict validation refuses one key carrying two types."""
    return f"""id number title body {state_key}: state updatedAt
      author {{ __typename login }}
      labels(first: {PAGE}) {{ nodes {{ id name }} }}
      {_COMMENTS}"""


def read_document(
    label_count: int,
    *,
    branch: bool = False,
    issue_fields: str = "",
    tree: tuple[str, str] | None = None,
) -> str:
    """The issue (or pull request), its labels, its first comments, and `label_count` repository
    labels looked up by name (`$l0`, `$l1`...) so that adding one needs no lookup later; with
    `branch`, the head of the issue's branch (`$ref`, refs/heads/...) and the default branch;
    with `tree`, (declarations, selection) of `graphql.git.tree_selection`."""
    variables = "".join(f", $l{i}: String!" for i in range(label_count))
    lookups = "".join(
        f"\n    l{i}: label(name: $l{i}) {{ id name color description }}"
        for i in range(label_count)
    )
    if branch:
        variables += ", $ref: String!"
        lookups += "\n    defaultBranchRef { name target { oid } }"
        lookups += f"\n    ref(qualifiedName: $ref) {{ {REF} }}"
    if tree is not None:
        variables += tree[0]
        lookups += f"\n    {tree[1]}"
    return f"""query BatonRead({_WHERE}{variables}) {{
  repository(owner: $owner, name: $name) {{
    id
    issueOrPullRequest(number: $number) {{
      __typename
      ... on Issue {{ {_issue("issueState")}{issue_fields} }}
      ... on PullRequest {{ {_issue("pullRequestState")} }}
    }}{lookups}
  }}
}}"""


COMMENTS_PAGE = f"""query BatonComments({_WHERE}) {{
  repository(owner: $owner, name: $name) {{
    issueOrPullRequest(number: $number) {{
      __typename
      ... on Issue {{ {_COMMENTS} }}
      ... on PullRequest {{ {_COMMENTS} }}
    }}
  }}
}}"""

COMMENT_BODY = f"""query BatonRecordCheck($id: ID!) {{
  node(id: $id) {{ __typename ... on IssueComment {{ {_COMMENT} }} }}
}}"""


def read_many_document(numbers: Sequence[int]) -> str:
    """Several issues' first page of comments, each under the alias `i<number>`."""
    variables = "".join(f", $n{n}: Int!" for n in numbers)
    comments = (
        f"comments(first: {PAGE}) {{ pageInfo {{ hasNextPage endCursor }} nodes {{ {_COMMENT} }} }}"
    )
    fields = "".join(
        f"\n    i{n}: issue(number: $n{n}) {{ id number {comments} }}" for n in numbers
    )
    return f"""query BatonReadMany($owner: String!, $name: String!{variables}) {{
  repository(owner: $owner, name: $name) {{{fields}
  }}
}}"""


@dataclass(frozen=True)
class LabelFound:
    node_id: str
    color: str
    description: str


@dataclass
class ReadResult:
    """What one read answered, with the node ids the writes will need."""

    issue: IssueInfo
    issue_node: str
    comments: list[Comment]
    comment_nodes: dict[int, str]
    # Labels by casefolded name (GitHub's are case-insensitive): those on the issue and the
    # repository labels looked up.
    label_nodes: dict[str, str]
    styles: dict[str, LabelFound] = field(default_factory=dict)
    next_page: str | None = None
    branch: tuple[str, str, str] | None = None  # (name, oid, message) when asked and present
    default_branch: str | None = None
    repository_node: str | None = None
    default_head: str = ""
    raw: Any = None  # the issue as answered (for fields a caller added)


def _when(value: Any) -> datetime:
    return datetime.fromisoformat(str(value or "1970-01-01T00:00:00Z").replace("Z", "+00:00"))


def author_login(author: Any) -> tuple[str, bool]:
    """GraphQL names a bot without the `[bot]` REST and webhooks give it; put it back."""
    if not isinstance(author, dict):
        return "ghost", False  # a deleted account
    login = str(author.get("login") or "")
    is_bot = author.get("__typename") == "Bot"
    if is_bot and not login.endswith("[bot]"):
        login += "[bot]"
    return login, is_bot


def parse_comment(node: Any) -> Comment | None:
    if not isinstance(node, dict) or node.get("fullDatabaseId") is None:
        return None
    login, is_bot = author_login(node.get("author"))
    return Comment(
        id=int(node["fullDatabaseId"]),
        author=login,
        body=str(node.get("body") or ""),
        created_at=_when(node.get("createdAt")),
        author_is_bot=is_bot,
        association=str(node.get("authorAssociation") or "NONE"),
        updated_at=_when(node["updatedAt"]) if node.get("updatedAt") else None,
        # Never edited: GitHub set the body when it created the comment.
        edited_at=_when(node.get("lastEditedAt") or node.get("createdAt")),
        editor=author_login(node["editor"])[0] if node.get("editor") else None,
    )


def parse_comments(connection: dict[str, Any]) -> tuple[list[Comment], dict[int, str], str | None]:
    comments: list[Comment] = []
    nodes: dict[int, str] = {}
    for node in connection.get("nodes") or []:
        comment = parse_comment(node)
        if comment is None:
            continue
        comments.append(comment)
        nodes[comment.id] = str(node["id"])
    info = connection.get("pageInfo") or {}
    after = str(info["endCursor"]) if info.get("hasNextPage") and info.get("endCursor") else None
    return comments, nodes, after


def parse_read(data: dict[str, Any], looked_up: Sequence[str]) -> ReadResult | None:
    """The answer of `read_document`, or None when the issue does not exist."""
    repository = data.get("repository") or {}
    issue = repository.get("issueOrPullRequest")
    if not issue:
        return None
    author, _ = author_login(issue.get("author"))
    labels = [x for x in (issue.get("labels") or {}).get("nodes") or [] if x]
    state = str(issue.get("issueState") or issue.get("pullRequestState") or "OPEN").lower()
    info = IssueInfo(
        number=int(issue["number"]),
        title=str(issue.get("title") or ""),
        body=str(issue.get("body") or ""),
        state="open" if state == "open" else "closed",  # a merged pull request is closed
        labels=tuple(str(x["name"]) for x in labels),
        author=author,
        is_pull_request=issue.get("__typename") == "PullRequest",
        updated_at=_when(issue["updatedAt"]) if issue.get("updatedAt") else None,
    )
    comments, comment_nodes, after = parse_comments(issue.get("comments") or {})
    result = ReadResult(
        issue=info,
        issue_node=str(issue["id"]),
        comments=comments,
        comment_nodes=comment_nodes,
        label_nodes={str(x["name"]).casefold(): str(x["id"]) for x in labels},
        next_page=after,
        branch=parse_ref(repository.get("ref")),
        default_branch=((repository.get("defaultBranchRef") or {}).get("name") or None),
        repository_node=str(repository["id"]) if repository.get("id") else None,
        default_head=str(
            ((repository.get("defaultBranchRef") or {}).get("target") or {}).get("oid") or ""
        ),
        raw=issue,
    )
    for i, name in enumerate(looked_up):
        found = repository.get(f"l{i}")
        if not found:
            continue  # not in the repository yet: created on first use
        result.label_nodes[name.casefold()] = str(found["id"])
        result.styles[name.casefold()] = LabelFound(
            node_id=str(found["id"]),
            color=str(found.get("color") or ""),
            description=str(found.get("description") or ""),
        )
    return result
