"""`Tracker.write` one call per step: the in-memory GitHub and the REST transport share it.

The order and the error policy are those of `apply.py`: a repost, the record, the labels, the
message, the reaction, the duplicates. The GraphQL transport sends the same steps as one
mutation document and keeps the same policy (`github_tracker.py`).
"""

from __future__ import annotations

from typing import Protocol

from baton.errors import TrackerError
from baton.tracker import LabelSpec, Writes, Written


class StepTracker(Protocol):
    def create_comment(self, number: int, body: str) -> int: ...

    def edit_comment(self, comment_id: int, body: str) -> None: ...

    def delete_comment(self, comment_id: int) -> None: ...

    def react(self, comment_id: int, content: str) -> None: ...

    def set_labels(
        self,
        number: int,
        current: tuple[str, ...],
        wanted: tuple[str, ...],
        specs: dict[str, LabelSpec],
    ) -> None: ...


def write_in_steps(tracker: StepTracker, writes: Writes) -> Written:
    done = Written()
    if writes.repost is not None:
        tracker.create_comment(writes.number, writes.repost)
        done.reposted = True
    if writes.record is not None:
        if writes.record_comment is not None:
            try:
                tracker.edit_comment(writes.record_comment, writes.record)
                done.record_comment = writes.record_comment
            except TrackerError as exc:
                # Deleted under us, or a lagging 404: either way a new record comment is
                # written, and its newer revision makes it the one the next run keeps.
                if exc.status != 404:
                    raise
                done.record_gone = writes.record_comment
        if done.record_comment is None:
            done.record_comment = tracker.create_comment(writes.number, writes.record)
    if writes.labels is not None:
        change = writes.labels
        tracker.set_labels(writes.number, change.current, change.wanted, change.specs)
        done.labels = True
    if writes.message is not None:
        done.message_comment = tracker.create_comment(writes.number, writes.message)
    if writes.reaction is not None:
        # A courtesy: a comment deleted meanwhile must not fail a run whose work is written.
        try:
            tracker.react(*writes.reaction)
            done.reacted = True
        except TrackerError as exc:
            done.reaction_problem = str(exc)
    for duplicate in writes.delete:
        try:
            tracker.delete_comment(duplicate)
        except TrackerError as exc:
            if exc.status != 404:
                raise
        done.deleted.append(duplicate)
    return done
