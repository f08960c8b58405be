"""`Tracker.write` as one document, then every failed field redone step by step.

GitHub runs the fields of a GraphQL mutation document one after another and, unlike a run of
REST calls, goes on after a field fails. So the answer is read field by field, in the crash-safe
order of `apply.py`, and a field that failed is redone at once with a single-step call: the rest
of the document has landed, and the run completes what it started instead of leaving the
record behind its labels or a message without its record. Only a step that fails twice fails the
run, and the next run repairs what it left (as after a crash at that step).

Three exceptions keep that order sound:
- a lost message is re-posted alone, before the document: the record written with it forgets
  it, so it must be on the issue first;
- a status label the document took off after its failed addition is put back, so the issue
  keeps a status label (without one it would look as if it had left the workflow);
- a record that fails twice undoes the document's label changes: the record is the memory, and
  a label naming a state it never took would steer the next runs wrong until the sweep.

A transport that cannot send a document answers every field "not run" and this becomes the
plain step-by-step write; the in-memory GitHub runs the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from baton.core.model.decision import PullRequestPlan
from baton.errors import TrackerError
from baton.github.tracker import LabelSpec, Writes, Written

NOT_RUN = "NOT_RUN"  # the transport did not run the field (it cannot address it, or no document)
NOT_FOUND = "NOT_FOUND"


@dataclass(frozen=True)
class Op:
    """One field of the document."""

    alias: str  # record, labelsAdded, labelsRemoved, message, reaction, duplicate0, pr...
    kind: str  # edit, comment, add_labels, remove_labels, react, delete, pr_body, pr_ready
    number: int
    body: str = ""
    comment_id: int | None = None
    labels: tuple[str, ...] = ()
    content: str = ""
    node_id: str = ""  # a pull request's, for pr_body and pr_ready


@dataclass(frozen=True)
class FieldResult:
    """GitHub's answer for one field of the document (not the run's decision: that is an
    `Outcome`)."""

    error: str | None = None  # GitHub's error type for the field, or NOT_RUN
    message: str = ""
    created: int | None = None  # the comment a `comment` field created
    labels: tuple[str, ...] = ()  # the labels a `remove_labels` field took off

    @property
    def ok(self) -> bool:
        return self.error is None


class BatchTracker(Protocol):
    def run_batch(self, ops: list[Op], specs: dict[str, LabelSpec]) -> dict[str, FieldResult]:
        """Run every op as one document; an op missing from the answer did not run. Raises
        `TrackerError` when the request as a whole failed."""
        ...

    def create_comment(self, number: int, body: str) -> int: ...

    def edit_comment(self, comment_id: int, body: str) -> None: ...

    def delete_comment(self, comment_id: int) -> None: ...

    def react(self, comment_id: int, content: str) -> None: ...

    def update_pull_request(self, plan: PullRequestPlan) -> None:
        """The pull request's body (and its draft flag) in one step of its own."""
        ...

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None: ...


def ops_of(writes: Writes) -> list[Op]:
    number = writes.number
    ops: list[Op] = []
    if writes.record is not None:
        kind = "edit" if writes.record_comment is not None else "comment"
        ops.append(Op("record", kind, number, writes.record, writes.record_comment))
    if writes.labels is not None:
        if writes.labels.add:
            ops.append(Op("labelsAdded", "add_labels", number, labels=tuple(writes.labels.add)))
        if writes.labels.remove:
            removed = tuple(writes.labels.remove)
            ops.append(Op("labelsRemoved", "remove_labels", number, labels=removed))
    if writes.message is not None:
        ops.append(Op("message", "comment", number, writes.message))
    if writes.reaction is not None:
        comment, content = writes.reaction
        ops.append(Op("reaction", "react", number, comment_id=comment, content=content))
    for i, duplicate in enumerate(writes.delete):
        ops.append(Op(f"duplicate{i}", "delete", number, comment_id=duplicate))
    plan = writes.pull_request
    if plan is not None and plan.node_id:
        ops.append(Op("pullRequestBody", "pr_body", number, plan.body, node_id=plan.node_id))
        if plan.ready:
            ops.append(Op("pullRequestReady", "pr_ready", number, node_id=plan.node_id))
    return ops


def _failed(op: Op, outcome: FieldResult, exc: TrackerError) -> TrackerError:
    first = "" if outcome.error == NOT_RUN else f"{outcome.error} {outcome.message}; then "
    return TrackerError(
        f"writing {op.alias} on #{op.number} failed: {first}{exc}", status=exc.status
    )


def write_batched(tracker: BatchTracker, writes: Writes) -> Written:
    done = Written()
    if writes.repost is not None:
        tracker.create_comment(writes.number, writes.repost)
        done.reposted = True
    ops = ops_of(writes)
    specs = writes.labels.specs if writes.labels is not None else {}
    answers = tracker.run_batch(ops, specs) if ops else {}
    by_alias = {op.alias: op for op in ops}

    def outcome(alias: str) -> FieldResult:
        return answers.get(alias) or FieldResult(error=NOT_RUN)

    if "record" in by_alias:
        try:
            _record(tracker, by_alias["record"], outcome("record"), done)
        except TrackerError:
            # The record stays as it was, so the labels must too: what the document's label
            # fields changed is undone, or the label would name a state the record never took.
            _undo_labels(tracker, by_alias, outcome, specs)
            raise
    if writes.labels is not None:
        _labels(tracker, by_alias, outcome, specs)
        done.labels = True
    if "message" in by_alias:
        op, result = by_alias["message"], outcome("message")
        if result.ok:
            done.message_comment = result.created
        else:
            try:
                done.message_comment = tracker.create_comment(op.number, op.body)
            except TrackerError as exc:
                raise _failed(op, result, exc) from None
    if "reaction" in by_alias:
        op, result = by_alias["reaction"], outcome("reaction")
        if result.ok:
            done.reacted = True
        else:
            # A courtesy: a comment deleted meanwhile must not fail a run whose work is written.
            try:
                assert op.comment_id is not None
                tracker.react(op.comment_id, op.content)
                done.reacted = True
            except TrackerError as exc:
                done.reaction_problem = str(exc)
    for op in ops:
        if op.kind != "delete":
            continue
        result = outcome(op.alias)
        if not result.ok and result.error != NOT_FOUND:
            try:
                assert op.comment_id is not None
                tracker.delete_comment(op.comment_id)
            except TrackerError as exc:
                if exc.status != 404:
                    raise _failed(op, result, exc) from None
        assert op.comment_id is not None
        done.deleted.append(op.comment_id)
    if writes.pull_request is not None and "pullRequestBody" in by_alias:
        _pull_request(tracker, writes.pull_request, outcome, done)
    return done


def _pull_request(
    tracker: BatchTracker,
    plan: PullRequestPlan,
    outcome: Callable[[str], FieldResult],
    done: Written,
) -> None:
    """The pull request's body and draft flag: redone in one step if the document's fields
    failed; a failure is reported, never raised (the record is written, and the next commit's
    run updates the pull request again)."""
    failed = not outcome("pullRequestBody").ok or (
        plan.ready and not outcome("pullRequestReady").ok
    )
    if not failed:
        done.pull_request_updated = True
        return
    try:
        tracker.update_pull_request(plan)
        done.pull_request_updated = True
    except TrackerError as exc:
        done.pull_request_problem = str(exc)


def _record(tracker: BatchTracker, op: Op, result: FieldResult, done: Written) -> None:
    if result.ok:
        done.record_comment = op.comment_id if op.kind == "edit" else result.created
        if done.record_comment is not None:
            return
    if op.kind == "edit" and op.comment_id is not None:
        if result.error != NOT_FOUND:
            try:
                tracker.edit_comment(op.comment_id, op.body)
                done.record_comment = op.comment_id
                return
            except TrackerError as exc:
                if exc.status != 404:
                    raise _failed(op, result, exc) from None
        # Deleted under us, or a lagging 404: either way a new record comment is written, and
        # its newer revision makes it the one the next run keeps.
        done.record_gone = op.comment_id
    try:
        done.record_comment = tracker.create_comment(op.number, op.body)
    except TrackerError as exc:
        raise _failed(op, result, exc) from None


def _put_back(
    tracker: BatchTracker,
    ops: dict[str, Op],
    outcome: Callable[[str], FieldResult],
    specs: dict[str, LabelSpec],
) -> None:
    """The document took labels off after the new status label failed to go on: put every one
    back (the old status label, and the trigger label an entry consumed), so the issue keeps
    the label the next run repairs or enters from, never none."""
    added, removed = ops.get("labelsAdded"), ops.get("labelsRemoved")
    if added is None or removed is None or outcome("labelsAdded").ok:
        return
    back = outcome("labelsRemoved").labels
    if back and outcome("labelsRemoved").ok:
        try:
            tracker.set_labels(removed.number, (), back, specs)
        except TrackerError as exc:
            raise TrackerError(
                f"putting back {', '.join(back)}: {exc}", status=exc.status
            ) from None


def _undo_labels(
    tracker: BatchTracker,
    ops: dict[str, Op],
    outcome: Callable[[str], FieldResult],
    specs: dict[str, LabelSpec],
) -> None:
    """The record failed for good: take off the status labels the document put on and put
    back every label it took off, so the issue shows the state its record still holds. The
    trigger label an entry consumed is put back too: an entry whose record failed leaves the
    issue as it found it, with the label its re-run enters by (never with no label at all)."""
    added, removed = ops.get("labelsAdded"), ops.get("labelsRemoved")
    on = added.labels if added is not None and outcome("labelsAdded").ok else ()
    back = (
        outcome("labelsRemoved").labels
        if removed is not None and outcome("labelsRemoved").ok
        else ()
    )
    if not on and not back:
        return
    op = added or removed
    assert op is not None  # something was changed, so one of the label fields ran
    try:
        tracker.set_labels(op.number, on, back, specs)
    except TrackerError as exc:
        undone = ", ".join([*(f"-{x}" for x in on), *(f"+{x}" for x in back)])
        raise TrackerError(f"undoing the labels ({undone}): {exc}", status=exc.status) from None


def _labels(
    tracker: BatchTracker,
    ops: dict[str, Op],
    outcome: Callable[[str], FieldResult],
    specs: dict[str, LabelSpec],
) -> None:
    added, removed = ops.get("labelsAdded"), ops.get("labelsRemoved")
    if added is not None and not (result := outcome("labelsAdded")).ok:
        try:
            tracker.set_labels(added.number, (), added.labels, specs)
        except TrackerError as exc:
            try:
                _put_back(tracker, ops, outcome, specs)
            except TrackerError as again:
                raise _failed(added, result, TrackerError(f"{exc}; {again}")) from None
            raise _failed(added, result, exc) from None
    if removed is not None and not (result := outcome("labelsRemoved")).ok:
        try:
            tracker.set_labels(removed.number, removed.labels, (), specs)
        except TrackerError as exc:
            raise _failed(removed, result, exc) from None
