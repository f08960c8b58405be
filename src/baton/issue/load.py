"""Rebuild an issue's record from its comments and labels.

The record comment written by the bot identity is the memory; anyone else's marker is never
trusted. With no readable record, the state comes from the single status label and the history
says the record was rebuilt (`decide` then writes it back and reports the repair).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from baton.core.issue_facts import Comment
from baton.core.record import HistoryEntry, Record
from baton.errors import RecordCorrupt
from baton.issue import record_comment
from baton.issue.record_comment import AnyComment, Authored
from baton.workflow.config import Policy
from baton.workflow.model import Workflow


@dataclass(frozen=True)
class Loaded:
    record: Record | None
    comment_id: int | None = None  # the record comment to edit in place
    record_body: str | None = None  # its body as read, to detect a concurrent write
    duplicates: tuple[int, ...] = ()  # extra record comments left by racing runs: delete them
    problem: str | None = None
    human_comments: tuple[Comment, ...] = field(default=())
    lost_message: str | None = None  # the record's outbox, never seen posted
    # The messages the bot posted with a mark, as (revision, event, words): a run whose record
    # write failed after its message went out does not post it again when re-run.
    posted: frozenset[tuple[int, str | None, str]] = frozenset()

    def has_posted(self, mark: str, words: str) -> bool:
        """Whether a message with this mark is on the issue already: the same revision and
        event, or for a mark naming no event (a sweep's tick, a message from before marks named
        events), the same revision and words."""
        marked = record_comment.mark_of(mark)
        if marked is None:
            return False
        revision, event = marked
        return any(
            seen == revision and ((event is not None and by == event) or said == words)
            for seen, by, said in self.posted
        )


def _status_states(labels: Sequence[str], workflow: Workflow, policy: Policy) -> list[str]:
    named = {workflow.state_for_label(label, policy.label_prefix) for label in labels}
    return [state for state in workflow.states if state in named]


def _rebuild(
    number: int,
    labels: Sequence[str],
    workflow: Workflow,
    policy: Policy,
    now: datetime,
    why: str,
) -> Record | None:
    states = _status_states(labels, workflow, policy)
    if not states:
        return None
    state = states[0]
    extra = f" (it also had {', '.join(states[1:])})" if len(states) > 1 else ""
    label = workflow.label_for(state, policy.label_prefix)
    entry = HistoryEntry(
        at=now,
        from_state=None,
        to_state=state,
        reason=f"{why}; rebuilt from the label {label}{extra}",
        actor="baton",
        trigger="rebuild",
        iteration=0,
    )
    return Record(
        workflow=workflow.name,
        issue=number,
        state=state,
        entered_at=now,
        visits={state: 1},
        history=[entry],
        revision=0,
    )


def trusted(records: Sequence[AnyComment], secret: str | None = None) -> AnyComment:
    """Of the bot's record comments (`record_comment.find_records`), the one a run trusts: the
    highest revision, the oldest on a tie (two runs that created the record at once). A record
    written anew because GitHub answered 404 for one that was still there carries the newer
    revision, so it wins."""
    if len(records) == 1:
        return records[0]

    def revision(found: AnyComment) -> int:
        try:
            return record_comment.parse(found.body, secret).revision
        except RecordCorrupt:
            return -1

    best = max(revision(found) for found in records)
    return next(found for found in records if revision(found) == best)


def read_record(
    comments: Iterable[Authored], bot_login: str, secret: str | None = None
) -> Record | None:
    """The record a run trusts among an issue's comments (`find_records`, then `trusted`, as
    `load` finds it), or None when the bot wrote none; RecordCorrupt when it cannot be read.
    `baton simulate` and the tests read the state through it, so they see what a run sees."""
    records = record_comment.find_records(comments, bot_login)
    return record_comment.parse(trusted(records, secret).body, secret) if records else None


def load(
    number: int,
    labels: Sequence[str],
    comments: Sequence[Comment],
    workflow: Workflow,
    policy: Policy,
    *,
    now: datetime,
    secret: str | None = None,
) -> Loaded:
    records = record_comment.find_records(comments, policy.bot_login)
    bot = policy.bot_login.casefold()
    humans = tuple(c for c in comments if not c.author_is_bot and c.author.casefold() != bot)
    if not records:
        why = "there was no record"
        return Loaded(
            record=_rebuild(number, labels, workflow, policy, now, why),
            problem=None,
            human_comments=humans,
        )
    keeper = trusted(records, secret)
    duplicates = tuple(c.id for c in records if c.id != keeper.id)
    problem = None
    record: Record | None
    try:
        record = record_comment.parse(keeper.body, secret)
        if record.workflow != workflow.name or record.state not in workflow.states:
            raise RecordCorrupt(
                f"the record belongs to workflow {record.workflow!r} (state {record.state!r}), "
                f"not {workflow.name!r}"
            )
        if record.issue != number:
            raise RecordCorrupt(f"the record is for issue #{record.issue}, not #{number}")
    except RecordCorrupt as exc:
        problem = str(exc)
        record = _rebuild(
            number, labels, workflow, policy, now, f"the record could not be read: {exc}"
        )
    posted = frozenset(
        (mark[0], mark[1], c.body.split("\n", 1)[1] if "\n" in c.body else "")
        for c in comments
        if c.author.casefold() == bot and (mark := record_comment.mark_of(c.body)) is not None
    )
    lost = None
    if record is not None and record.outbox is not None:
        revision = record.outbox.revision
        if not any(seen == revision for seen, _, _ in posted):
            lost = record.outbox.text
    return Loaded(
        record=record,
        lost_message=lost,
        comment_id=keeper.id,
        record_body=keeper.body,
        duplicates=duplicates,
        problem=problem,
        human_comments=humans,
        posted=posted,
    )
