"""The `Tracker` calls on an issue and its record: reads, the batched write, comments,
labels, reactions, permissions, dispatches, the sweep's listings.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from baton.core.model.issue_facts import Comment, IssueInfo
from baton.errors import TrackerError
from baton.github.batch_write import FieldResult, Op, write_batched
from baton.github.permission import role_of
from baton.github.tracker import (
    DispatchTarget,
    LabelSpec,
    Snapshot,
    TreeAsk,
    Writes,
    Written,
)
from baton.sim.memory.base import PAGE_SIZE, _refusing, info_of
from baton.sim.memory.work import WorkCalls
from baton.sim.model import rules
from baton.sim.model.issues import check_body
from baton.sim.payloads import DispatchRequest


class IssueCalls(WorkCalls):
    """Issues, comments, labels, reactions, people and dispatches, as the `Tracker` asks; a
    read brings the branch's head and a write the pull request's fields, as one query does."""

    def read(
        self,
        number: int,
        *,
        with_issue: bool,
        branch: str | None = None,
        tree: TreeAsk | None = None,
    ) -> Snapshot:
        """Like GitHub's GraphQL query: one round trip, the branch's head and the base's tree
        included. Its parts still pass `on_call` and `fail_next` by their own names (`issue`,
        `comments`, `branch`, `read_tree`), so tests can fault or interleave at each."""
        batched = self._one_trip()
        try:
            issue = self.issue(number) if with_issue else None
            comments = self.comments(number)
            head = self.branch(branch) if branch is not None else None
            found = self.read_tree(tree) if tree is not None else None
            # As GitHubTracker's read of the issue itself: its sub-issues (and the branch)
            # ride along, for the next sub-issue call on it.
            self.sub_issues_read.pop(number, None)
            if issue is not None and not issue.is_pull_request:
                self.sub_issues_read[number] = branch or ""
            return Snapshot(issue=issue, comments=comments, branch=head, tree=found)
        finally:
            self._batched = batched

    def write(self, writes: Writes) -> Written:
        return write_batched(self, writes)

    def run_batch(self, ops: list[Op], specs: dict[str, LabelSpec]) -> dict[str, FieldResult]:
        """Like a GraphQL mutation document: one round trip whose fields run in order, each
        still passing `on_call` and `fail_next` under its operation's name. A field that fails
        with a 404, or any failure when `fields_fail_alone` is set, is GitHub's failed field:
        the others run and the run redoes it. Otherwise the request dies at that field, as with
        a 5xx or a timeout: nothing after it runs."""
        batched = self._one_trip()
        answers: dict[str, FieldResult] = {}
        try:
            for op in ops:
                try:
                    answers[op.alias] = self._run_op(op, specs)
                except TrackerError as exc:
                    # The pull request's fields come after the record's: GitHub reports their
                    # failure in the answer, and the write redoes them (or says why not).
                    alone = self.fields_fail_alone or op.kind in ("pr_body", "pr_ready")
                    if exc.status != 404 and not alone:
                        raise
                    kind = "NOT_FOUND" if exc.status == 404 else "FAILED"
                    answers[op.alias] = FieldResult(error=kind, message=str(exc))
            return answers
        finally:
            self._batched = batched

    def _run_op(self, op: Op, specs: dict[str, LabelSpec]) -> FieldResult:
        if op.kind == "comment":
            return FieldResult(created=self.create_comment(op.number, op.body))
        if op.kind == "edit" and op.comment_id is not None:
            self.edit_comment(op.comment_id, op.body)
        elif op.kind == "add_labels":
            self.set_labels(op.number, (), op.labels, specs)
        elif op.kind == "remove_labels":
            present = tuple(x for x in op.labels if x in self._issue(op.number).labels)
            self.set_labels(op.number, op.labels, (), specs)
            return FieldResult(labels=present)
        elif op.kind == "react" and op.comment_id is not None:
            self.react(op.comment_id, op.content)
        elif op.kind == "delete" and op.comment_id is not None:
            self.delete_comment(op.comment_id)
        elif op.kind == "pr_body":
            self._set_pull_request_body(op.node_id, "", op.body)
        elif op.kind == "pr_ready":
            self._mark_ready(op.node_id, "")
        return FieldResult()

    def issue(self, number: int) -> IssueInfo:
        self._call("issue")
        return info_of(self._issue(number))

    def comments(self, number: int) -> list[Comment]:
        self._call("comments")
        self._issue(number)
        return self.comments_of(number)

    def comment(self, comment_id: int) -> Comment | None:
        self._call("comment")
        stored = self.comment_store.get(comment_id)
        return self._public(stored) if stored else None

    def permission(self, login: str) -> str:
        self._call("permission")
        role = self.collaborators.role(login)
        if role is None:
            return "none"  # GitHub answers 404: no permission
        # Read through the same reader as the client, from the answer GitHub would give.
        return role_of(rules.permission_answer(role))

    def is_team_member(self, team: str, login: str) -> bool:
        self._call("is_team_member")
        return self.teams.is_active_member(team, login)

    def create_comment(self, number: int, body: str) -> int:
        self._call("create_comment")
        comment = self._add_comment(
            number, body, author=self.bot_login, bot=True, association="NONE"
        )
        self.log.append(f"#{number} comment {comment.id} by {self.bot_login}")
        return comment.id

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._call("edit_comment")
        if comment_id not in self.comment_store:
            raise TrackerError(f"comment {comment_id} does not exist (404)", status=404)
        with _refusing("the comment's "):
            check_body("IssueComment", body)
        stored = self.comment_store[comment_id]
        self.store.edit(stored, body, self.bot)
        self._touch(stored.issue)
        self.log.append(f"#{stored.issue} comment {comment_id} edited")

    def delete_comment(self, comment_id: int) -> None:
        self._call("delete_comment")
        stored = self.comment_store.pop(comment_id, None)
        if stored is None:
            raise TrackerError(f"comment {comment_id} does not exist (404)", status=404)
        self.log.append(f"#{stored.issue} comment {comment_id} deleted")

    def react(self, comment_id: int, content: str) -> None:
        self._call("react")
        stored = self.comment_store.get(comment_id)
        if stored is None:
            raise TrackerError(f"comment {comment_id} does not exist (404)", status=404)
        if content not in rules.REACTIONS:
            raise TrackerError(f"{content!r} is not a reaction GitHub knows (422)", status=422)
        if self.store.react(stored.reactions, content, self.bot)[1]:
            self.log.append(f"#{stored.issue} comment {comment_id} reaction {content}")

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None:
        self._call("set_labels")
        issue = self._issue(number)
        self._touch(number)
        for name in [x for x in current if x not in wanted]:
            removed = self.store.remove_label(issue, name, self.bot)
            if removed is not None:
                self.log.append(f"#{number} -label {removed}")
        for name in [x for x in wanted if x not in current]:
            spec = specs.get(name)
            if spec is not None and self.store.find_label(name) is None:
                with _refusing(f"label {name!r}: "):
                    self.store.create_label(name, spec.color, spec.description)
                self.log.append(f"label {name} created ({spec.color})")
            if rules.find_label(issue.labels, name) is None:
                with _refusing():
                    added = self.store.add_label(issue, name, self.bot)
                self.log.append(f"#{number} +label {added}")

    def dispatch(self, target: DispatchTarget, inputs: dict[str, str]) -> None:
        self._call("dispatch")
        self.dispatches.append(
            DispatchRequest(
                "workflow_dispatch",
                rules.timestamp(self.now),
                workflow=target.workflow,
                ref=target.ref,
                inputs=copy.deepcopy(inputs),
            )
        )
        self.log.append(f"dispatch {target.workflow}@{target.ref} {inputs}")

    def failing_issues(self, label: str, since: datetime, limit: int) -> int:
        self._call("failing_issues")
        wanted = label.casefold()
        found = [
            n
            for n, issue in self.issues.items()
            if issue.state == "open"
            and any(x.casefold() == wanted for x in issue.labels)
            and (issue.updated_at is None or issue.updated_at >= since)
        ]
        return min(len(found), max(1, min(limit, 100)))

    def open_issues(self, page: int) -> tuple[list[IssueInfo], int | None]:
        self._call("open_issues")
        epoch = datetime.min.replace(tzinfo=UTC)
        numbers = sorted(
            (n for n, i in self.issues.items() if i.state == "open"),
            key=lambda n: (self.issues[n].updated_at or epoch, n),
        )
        start = (page - 1) * PAGE_SIZE
        chunk = numbers[start : start + PAGE_SIZE]
        infos = [info_of(self.issues[n]) for n in chunk]
        more = start + PAGE_SIZE < len(numbers)
        return infos, (page + 1 if more else None)
