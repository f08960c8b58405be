"""The issue's writes: the batched write's one document, and each step alone over REST.

`batch_write.write_batched` carries `Tracker.write` out: `run_batch` sends what it can as one
mutation document, by the node ids the read learned (record, labels, message, reaction, in that
order, and the pull request's body); the single steps here redo over REST what did not land.
"""

from __future__ import annotations

from baton.errors import GraphQLUnusable
from baton.github.batch_write import FieldResult, Op
from baton.github.graphql.answers import created_id, field_errors
from baton.github.graphql.mutation import Mutation
from baton.github.labels import label_node, set_labels
from baton.github.tracker import LabelSpec
from baton.github.transport import Role


class GitHubIssueWrites(Role):
    """The parts of `Tracker.write` (`batch_write.BatchTracker`) over the transport."""

    def run_batch(self, ops: list[Op], specs: dict[str, LabelSpec]) -> dict[str, FieldResult]:
        """The ops as one mutation document, by node ids from the read. An op it cannot address
        (a comment or a label the read did not see) is left out, and `write_batched` does it
        over REST; so is everything when GraphQL is off or will not take the document."""
        answers: dict[str, FieldResult] = {}
        number = ops[0].number
        issue = self.known.issue_nodes.get(number)
        if not self.transport.graphql or issue is None:
            return answers
        doc = Mutation()
        removing: dict[str, tuple[str, ...]] = {}  # a removal's alias -> the labels it sends
        for op in ops:
            self._add_op(doc, op, issue, specs, answers, removing)
        if not doc.fields:
            return answers
        try:
            answer = self.transport.query(
                doc.document(), doc.variables, f"writing to #{number}", mutation=True
            )
        except GraphQLUnusable as why:
            self.transport.fall_back(why)  # nothing ran: every op goes over REST
            return answers
        data, errors = answer["data"], field_errors(answer, doc.aliases)
        for alias in doc.aliases:
            error = errors.get(alias)
            if error is not None:
                answers[alias] = FieldResult(error=error.kind, message=error.message)
                continue
            created = created_id(data, alias)
            if created is not None:
                self.known.comment_nodes[created[0]] = created[1]
            answers[alias] = FieldResult(
                created=created[0] if created else None, labels=removing.get(alias, ())
            )
        for op in ops:
            if op.kind in ("add_labels", "remove_labels") and not answers[op.alias].ok:
                for label in op.labels:  # a stale id: look the label up again next time
                    self.known.label_nodes.pop(label.casefold(), None)
        return answers

    def _add_op(
        self,
        doc: Mutation,
        op: Op,
        issue: str,
        specs: dict[str, LabelSpec],
        answers: dict[str, FieldResult],
        removing: dict[str, tuple[str, ...]],
    ) -> None:
        comment = self.known.comment_nodes.get(op.comment_id) if op.comment_id is not None else None
        if op.kind == "comment":
            doc.add_comment(op.alias, issue, op.body)
        elif op.kind == "edit" and comment is not None:
            doc.update_comment(op.alias, comment, op.body)
        elif op.kind == "react" and comment is not None:
            doc.add_reaction(op.alias, comment, op.content)
        elif op.kind == "delete" and comment is not None:
            doc.delete_comment(op.alias, comment)
        elif op.kind == "pr_body" and op.node_id:
            doc.update_pull_request(op.alias, op.node_id, op.body)
        elif op.kind == "pr_ready" and op.node_id:
            doc.mark_ready(op.alias, op.node_id)
        elif op.kind == "add_labels":
            doc.add_labels(
                op.alias,
                issue,
                [label_node(self.transport, self.known, x, specs.get(x)) for x in op.labels],
            )
        elif op.kind == "remove_labels":
            # Only labels the read saw on the issue: GitHub may refuse to remove an absent one.
            on_issue = self.known.issue_labels.get(op.number, set())
            sent = tuple(
                x
                for x in op.labels
                if x.casefold() in on_issue and x.casefold() in self.known.label_nodes
            )
            if sent:
                doc.remove_labels(
                    op.alias, issue, [self.known.label_nodes[x.casefold()] for x in sent]
                )
                removing[op.alias] = sent
            elif all(x.casefold() not in on_issue for x in op.labels):
                answers[op.alias] = FieldResult()  # none of them is on the issue: nothing to do

    def create_comment(self, number: int, body: str) -> int:
        _, data = self.transport.call(
            "POST",
            f"{self.transport.base}/issues/{number}/comments",
            f"commenting on #{number}",
            once=True,
            input={"body": body},
        )
        return int(data["id"])

    def edit_comment(self, comment_id: int, body: str) -> None:
        self.transport.call(
            "PATCH",
            f"{self.transport.base}/issues/comments/{comment_id}",
            f"updating comment {comment_id}",
            input={"body": body},
        )

    def delete_comment(self, comment_id: int) -> None:
        self.transport.call(
            "DELETE",
            f"{self.transport.base}/issues/comments/{comment_id}",
            f"deleting comment {comment_id}",
        )

    def react(self, comment_id: int, content: str) -> None:
        self.transport.call(
            "POST",
            f"{self.transport.base}/issues/comments/{comment_id}/reactions",
            f"reacting to comment {comment_id}",
            input={"content": content},
        )

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None:
        set_labels(self.transport, number, current, wanted, specs)
