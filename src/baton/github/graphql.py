"""The GraphQL documents Baton sends to GitHub, and how their answers are read.

Why GraphQL: one query returns the issue, its labels, its first 100 comments and the node ids of
the status labels, where REST needs two calls or more; one mutation document carries every write
of a run (the record, both label changes, the message, the reaction), where REST needs one call
each. GitHub runs the fields of a mutation document one after another, in document order, so the
crash-safe order of `apply.py` holds inside the document.

Pure text and dict handling: no I/O here, so the documents and the parsing are tested alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from baton.core.issue_facts import Comment, IssueInfo

PAGE = 100

# REST reaction names -> GraphQL's ReactionContent.
REACTIONS = {
    "+1": "THUMBS_UP",
    "-1": "THUMBS_DOWN",
    "laugh": "LAUGH",
    "confused": "CONFUSED",
    "heart": "HEART",
    "hooray": "HOORAY",
    "rocket": "ROCKET",
    "eyes": "EYES",
}

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


_REF = "name target { oid ... on Commit { message } }"


def read_document(label_count: int, *, branch: bool = False) -> str:
    """The issue (or pull request), its labels, its first comments, and `label_count` repository
    labels looked up by name (`$l0`, `$l1`...) so that adding one needs no lookup later; with
    `branch`, the head of the issue's branch (`$ref`, refs/heads/...) and the default branch."""
    variables = "".join(f", $l{i}: String!" for i in range(label_count))
    lookups = "".join(
        f"\n    l{i}: label(name: $l{i}) {{ id name color description }}"
        for i in range(label_count)
    )
    if branch:
        variables += ", $ref: String!"
        lookups += f"\n    defaultBranchRef {{ name }}\n    ref(qualifiedName: $ref) {{ {_REF} }}"
    return f"""query BatonRead({_WHERE}{variables}) {{
  repository(owner: $owner, name: $name) {{
    issueOrPullRequest(number: $number) {{
      __typename
      ... on Issue {{ {_issue("issueState")} }}
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


BRANCH = f"""query BatonBranch($owner: String!, $name: String!, $ref: String!) {{
  repository(owner: $owner, name: $name) {{
    id
    defaultBranchRef {{ name target {{ oid }} }}
    ref(qualifiedName: $ref) {{ {_REF} }}
  }}
}}"""

CREATE_REF = f"""mutation BatonCreateBranch($repository: ID!, $ref: String!, $oid: GitObjectID!) {{
  createRef(input: {{repositoryId: $repository, name: $ref, oid: $oid}}) {{ ref {{ {_REF} }} }}
}}"""

CREATE_COMMIT = """mutation BatonCommit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}"""


def qualified(branch: str) -> str:
    return f"refs/heads/{branch}"


def parse_ref(node: Any) -> tuple[str, str, str] | None:
    """(name, oid, message) of a `Ref` answered with `_REF`, or None."""
    if not isinstance(node, dict):
        return None
    target = node.get("target") or {}
    oid = target.get("oid")
    if not isinstance(oid, str):
        return None
    return str(node.get("name") or ""), oid, str(target.get("message") or "")


def commit_input(
    repository: str,
    branch: str,
    expected_head: str,
    headline: str,
    body: str,
    additions: Sequence[tuple[str, str]],
    deletions: Sequence[str],
) -> dict[str, Any]:
    """`CreateCommitOnBranchInput`: one commit, applied only if the head is `expected_head`."""
    changes: dict[str, Any] = {}
    if additions:
        changes["additions"] = [{"path": p, "contents": c} for p, c in additions]
    if deletions:
        changes["deletions"] = [{"path": p} for p in deletions]
    return {
        "branch": {"repositoryNameWithOwner": repository, "branchName": branch},
        "expectedHeadOid": expected_head,
        "message": {"headline": headline, "body": body},
        "fileChanges": changes,
    }


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


def _when(value: Any) -> datetime:
    return datetime.fromisoformat(str(value or "1970-01-01T00:00:00Z").replace("Z", "+00:00"))


def _login(author: Any) -> tuple[str, bool]:
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
    login, is_bot = _login(node.get("author"))
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
        editor=_login(node["editor"])[0] if node.get("editor") else None,
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
    author, _ = _login(issue.get("author"))
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


@dataclass
class Mutation:
    """A mutation document built field by field, in the order the fields must run."""

    fields: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    declarations: list[str] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)

    def _field(self, alias: str, text: str) -> None:
        self.aliases.append(alias)
        self.fields.append(f"{alias}: {text}")

    def _var(self, name: str, kind: str, value: Any) -> str:
        self.declarations.append(f"${name}: {kind}")
        self.variables[name] = value
        return f"${name}"

    def add_comment(self, alias: str, subject: str, body: str) -> None:
        s = self._var(f"{alias}Subject", "ID!", subject)
        b = self._var(f"{alias}Body", "String!", body)
        self._field(
            alias,
            f"addComment(input: {{subjectId: {s}, body: {b}}}) "
            "{ commentEdge { node { id fullDatabaseId } } }",
        )

    def update_comment(self, alias: str, comment: str, body: str) -> None:
        c = self._var(f"{alias}Id", "ID!", comment)
        b = self._var(f"{alias}Body", "String!", body)
        self._field(
            alias,
            f"updateIssueComment(input: {{id: {c}, body: {b}}}) "
            "{ issueComment { id fullDatabaseId } }",
        )

    def add_labels(self, alias: str, labelable: str, labels: list[str]) -> None:
        self._labels(alias, "addLabelsToLabelable", labelable, labels)

    def remove_labels(self, alias: str, labelable: str, labels: list[str]) -> None:
        self._labels(alias, "removeLabelsFromLabelable", labelable, labels)

    def _labels(self, alias: str, mutation: str, labelable: str, labels: list[str]) -> None:
        s = self._var(f"{alias}Subject", "ID!", labelable)
        ids = self._var(f"{alias}Ids", "[ID!]!", labels)
        self._field(
            alias,
            f"{mutation}(input: {{labelableId: {s}, labelIds: {ids}}}) {{ clientMutationId }}",
        )

    def add_reaction(self, alias: str, subject: str, content: str) -> None:
        s = self._var(f"{alias}Subject", "ID!", subject)
        c = self._var(f"{alias}Content", "ReactionContent!", REACTIONS[content])
        self._field(
            alias, f"addReaction(input: {{subjectId: {s}, content: {c}}}) {{ clientMutationId }}"
        )

    def delete_comment(self, alias: str, comment: str) -> None:
        c = self._var(f"{alias}Id", "ID!", comment)
        self._field(alias, f"deleteIssueComment(input: {{id: {c}}}) {{ clientMutationId }}")

    def update_pull_request(self, alias: str, pull_request: str, body: str) -> None:
        p = self._var(f"{alias}Id", "ID!", pull_request)
        b = self._var(f"{alias}Body", "String!", body)
        self._field(
            alias,
            f"updatePullRequest(input: {{pullRequestId: {p}, body: {b}}}) "
            "{ pullRequest { number } }",
        )

    def mark_ready(self, alias: str, pull_request: str) -> None:
        p = self._var(f"{alias}Id", "ID!", pull_request)
        self._field(
            alias,
            f"markPullRequestReadyForReview(input: {{pullRequestId: {p}}}) "
            "{ pullRequest { isDraft } }",
        )

    def document(self) -> str:
        body = "\n  ".join(self.fields)
        return f"mutation BatonWrite({', '.join(self.declarations)}) {{\n  {body}\n}}"


@dataclass(frozen=True)
class FieldError:
    alias: str
    kind: str  # GitHub's error type: NOT_FOUND, FORBIDDEN, UNPROCESSABLE...
    message: str


def field_errors(answer: dict[str, Any], asked: Sequence[str] = ()) -> dict[str, FieldError]:
    """GraphQL answers 200 with an `errors` list; each names the field (alias) it belongs to.
    A field of `asked` answered with nothing and no error did not run: that is an error too."""
    found: dict[str, FieldError] = {}
    data = answer.get("data") or {}
    for alias in asked:
        if data.get(alias) is None and not any(
            (e.get("path") or [None])[0] == alias for e in answer.get("errors") or []
        ):
            found[alias] = FieldError(alias, "NOT_RUN", "GitHub answered nothing for it")
    for error in answer.get("errors") or []:
        path = error.get("path") or [""]
        alias = str(path[0])
        if alias in asked and len(path) > 1 and data.get(alias) is not None:
            continue  # an error inside a mutation's answer that came back: the field itself ran
        found.setdefault(
            alias,
            FieldError(
                alias=alias,
                kind=str(error.get("type") or "ERROR"),
                message=str(error.get("message") or "unknown error"),
            ),
        )
    return found


STATUS_OF = {
    "NOT_FOUND": 404,
    "FORBIDDEN": 403,
    "RATE_LIMITED": 429,
    "RATE_LIMIT": 429,
    "UNPROCESSABLE": 422,
}


def created_id(data: dict[str, Any], alias: str) -> tuple[int, str] | None:
    """The database and node id of a comment an `addComment` field created."""
    node = ((data.get(alias) or {}).get("commentEdge") or {}).get("node") or {}
    if node.get("fullDatabaseId") is None:
        return None
    return int(node["fullDatabaseId"]), str(node["id"])
