"""A mutation document built field by field: every write of a run in one request.

GitHub runs the fields of a mutation document one after another, in document order, so the
crash-safe order of `apply.py` holds inside the document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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

    def create_ref(self, alias: str, repository: str, ref: str, oid: str) -> None:
        """`createRef`: a branch (`refs/heads/...`) at a commit."""
        r = self._shared("repository", "ID!", repository)
        n = self._var(f"{alias}Name", "String!", ref)
        o = self._var(f"{alias}Oid", "GitObjectID!", oid)
        self._field(
            alias,
            f"createRef(input: {{repositoryId: {r}, name: {n}, oid: {o}}}) {{ ref {{ name }} }}",
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
