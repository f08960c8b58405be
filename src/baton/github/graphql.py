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

from baton.core.epic import marker
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

BRANCH_AND_BASE = f"""query BatonBranchFrom(
  $owner: String!, $name: String!, $ref: String!, $base: String!
) {{
  repository(owner: $owner, name: $name) {{
    id
    defaultBranchRef {{ name target {{ oid }} }}
    ref(qualifiedName: $ref) {{ {_REF} }}
    base: ref(qualifiedName: $base) {{ {_REF} }}
  }}
}}"""

CREATE_COMMIT = """mutation BatonCommit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}"""


# --- epics: sub-issues, several issues' comments at once, creating tasks --------------------
SUB_ISSUE_LABELS = 20  # labels read per sub-issue: a task carries a handful
BLOCKERS = 50  # "blocked by" issues read per sub-issue
TASKS_PER_DOCUMENT = 20  # createIssue or addBlockedBy fields per mutation document
_SUB_ISSUE = (
    "id number state body author { __typename login } "
    f"labels(first: {SUB_ISSUE_LABELS}) {{ nodes {{ name }} }} "
    f"blockedBy(first: {BLOCKERS}) {{ nodes {{ number }} }}"
)


def sub_issues_document(label_count: int = 0, *, operation: str = "BatonSubIssues") -> str:
    """The repository's node id, the issue's node id and its sub-issues (GitHub holds at most
    100 per parent: one page) with their state, author, body, labels and blockers; and
    `label_count` repository labels looked up by name (`$l0`...) for creating tasks."""
    variables = "".join(f", $l{i}: String!" for i in range(label_count))
    lookups = "".join(f"\n    l{i}: label(name: $l{i}) {{ id name }}" for i in range(label_count))
    return f"""query {operation}($owner: String!, $name: String!, $number: Int!{variables}) {{
  repository(owner: $owner, name: $name) {{
    id
    issue(number: $number) {{
      id
      subIssues(first: {PAGE}) {{ nodes {{ {_SUB_ISSUE} }} }}
    }}{lookups}
  }}
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
                author=_login(node.get("author"))[0],
                body=str(node.get("body") or ""),
                blocked_by=tuple(int(x["number"]) for x in blockers if x),
            )
        )
    return found


def task_body(epic: int, key: str, body: str) -> str:
    """A task's body with its mark (`core.epic.marker`), whatever the planner's text says."""
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
    operation: str = "BatonWrite"

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

    def _shared(self, name: str, kind: str, value: Any) -> str:
        """A variable every field of the document may use (declared once)."""
        if name not in self.variables:
            self._var(name, kind, value)
        return f"${name}"

    def create_issue(
        self,
        alias: str,
        repository: str,
        title: str,
        body: str,
        labels: Sequence[str],
        parent: str | None,
    ) -> None:
        """`createIssue`: with `parentIssueId` the issue is created as a sub-issue in the same
        step, so no crash can leave it unlinked."""
        r = self._shared("repository", "ID!", repository)
        t = self._var(f"{alias}Title", "String!", title)
        b = self._var(f"{alias}Body", "String!", body)
        parts = [f"repositoryId: {r}", f"title: {t}", f"body: {b}"]
        if labels:
            parts.append(f"labelIds: {self._var(f'{alias}Labels', '[ID!]!', list(labels))}")
        if parent is not None:
            parts.append(f"parentIssueId: {self._shared('parent', 'ID!', parent)}")
        self._field(
            alias, f"createIssue(input: {{{', '.join(parts)}}}) {{ issue {{ id number }} }}"
        )

    def add_blocked_by(self, alias: str, issue: str, blocking: str) -> None:
        """`addBlockedBy`: `issue` is blocked by `blocking`."""
        i = self._var(f"{alias}Issue", "ID!", issue)
        b = self._var(f"{alias}Blocking", "ID!", blocking)
        self._field(
            alias,
            f"addBlockedBy(input: {{issueId: {i}, blockingIssueId: {b}}}) "
            "{ issue { number } blockingIssue { number } }",
        )

    def add_sub_issue(self, alias: str, parent: str, child: str) -> None:
        p = self._var(f"{alias}Parent", "ID!", parent)
        c = self._var(f"{alias}Child", "ID!", child)
        self._field(
            alias,
            f"addSubIssue(input: {{issueId: {p}, subIssueId: {c}}}) "
            "{ issue { number } subIssue { number } }",
        )

    def document(self) -> str:
        body = "\n  ".join(self.fields)
        declared = ", ".join(self.declarations)
        return f"mutation {self.operation}({declared}) {{\n  {body}\n}}"


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


def nested_errors(answer: dict[str, Any], root: str) -> dict[str, FieldError]:
    """The errors of the fields under the root field `root` (aliases of a query that asks for
    several issues of one repository), by their alias."""
    found: dict[str, FieldError] = {}
    for error in answer.get("errors") or []:
        path = error.get("path") or []
        if len(path) > 1 and path[0] == root:
            found.setdefault(
                str(path[1]),
                FieldError(
                    alias=str(path[1]),
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
