"""Rebuild an issue's record from its comments and labels.

The record comment written by the bot identity is the memory; anyone else's marker is never
trusted. With no readable record, the state comes from the single status label and the history
says the record was rebuilt (`decide` then writes it back and reports the repair).

Who wrote a record, and when, is checked against what GitHub itself stamps on the comment:
- a record comment last edited by anyone but the bot (GraphQL `editor`) was edited by hand;
- a record whose comment GitHub last set (`lastEditedAt`, else `updatedAt`, else its creation)
  more than `PUT_BACK_TOLERANCE` after the record says it was written (`written_at`) was put
  back: an older record re-posted or pasted over the current one;
- with `record-secret`, an unsigned or wrongly signed record, or one without `written_at`
  (which the signature would not bind), is refused, and never wins over a signed one.
A refused record is treated as one that cannot be read: rebuilt from the single status label,
with the reason in the history. Without a secret, a workflow posting as the same bot can forge
a record that reads as Baton's; only the signature tells them apart (docs/reliability.md).

A rebuild needs evidence that Baton was on the issue (a record comment of the bot's, even one
it cannot read, or a message it marked): a status label alone, which anyone with triage or any
bot may add, does not put an issue in the workflow; a maintainer's relabel enters it through
the entry rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from baton.core.model.issue_facts import Comment
from baton.core.model.record import HistoryEntry, Record
from baton.errors import RecordCorrupt
from baton.issue import record_comment
from baton.issue.record_comment import AnyComment, Authored
from baton.workflow.config import Policy
from baton.workflow.model import Workflow

# How much later than its `written_at` GitHub may stamp a record comment Baton wrote: the record
# is rendered just before the write, which PyGithub may hold back on a rate limit (three retries
# of at most `MAX_RATE_LIMIT_WAIT`, 2 minutes, in `github/transport.py`: 6 minutes at worst), plus
# request timeouts and the skew of a runner's clock (GitHub-hosted runners keep theirs synced
# to seconds). A record put back later than this is refused; one put back sooner is the window
# no timestamp can close (docs/reliability.md).
PUT_BACK_TOLERANCE = timedelta(minutes=10)


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


def verified(found: Authored, bot_login: str, secret: str | None = None) -> Record:
    """The record in a bot's record comment, if it holds up against what GitHub stamped on the
    comment (see the module's docstring); RecordCorrupt says why not. A comment known only by
    id, author and body (no stamps) is judged on its body."""
    record = record_comment.parse(found.body, secret)
    if not isinstance(found, Comment):
        return record
    if found.editor is not None and found.editor.casefold() != bot_login.casefold():
        raise RecordCorrupt(f"the record comment was last edited by {found.editor}, not by Baton")
    if record.written_at is None:
        if secret:
            # A record of schema version 1 (before Baton stamped its records) is rebuilt from
            # its label once, after an upgrade: accepting it would accept any old one put back.
            raise RecordCorrupt(
                f"the signed record carries no time of writing (schema version "
                f"{record.schema_version}, written before Baton stamped its records, or put "
                "back from then), so with record-secret it cannot be told from an old one put "
                "back; the new record carries one"
            )
        return record
    late = found.body_set_at - record.written_at
    if late > PUT_BACK_TOLERANCE:
        minutes = int(late.total_seconds() // 60)
        raise RecordCorrupt(
            f"the record comment was set {minutes} minutes after the record was written "
            f"({record.written_at:%Y-%m-%d %H:%M} UTC): an older record put back"
        )
    return record


def trusted(
    records: Sequence[AnyComment], secret: str | None = None, bot_login: str | None = None
) -> AnyComment:
    """Of the bot's record comments (`record_comment.find_records`), the one a run trusts: one
    that holds up (`verified`) before one that does not, then the highest revision, the oldest
    on a tie (two runs that created the record at once). A record written anew because GitHub
    answered 404 for one that was still there carries the newer revision, so it wins. With a
    secret, a forged record (unsigned, wrongly signed, put back) never wins over a signed one,
    whatever revision it claims, so the real one is kept and the forgery is the duplicate."""
    if len(records) == 1:
        return records[0]

    def rank(found: AnyComment) -> tuple[int, int]:
        try:
            if bot_login is None:
                return 1, record_comment.parse(found.body, secret).revision
            return 1, verified(found, bot_login, secret).revision
        except RecordCorrupt:
            return 0, -1

    best = max(rank(found) for found in records)
    return next(found for found in records if rank(found) == best)


def read_record(
    comments: Iterable[Authored], bot_login: str, secret: str | None = None
) -> Record | None:
    """The record a run trusts among an issue's comments (`find_records`, then `trusted` and
    `verified`, as `load` finds it), or None when the bot wrote none; RecordCorrupt when it
    cannot be read. `baton simulate` and the tests read the state through it, so they see what a
    run sees."""
    records = record_comment.find_records(comments, bot_login)
    if not records:
        return None
    return verified(trusted(records, secret, bot_login), bot_login, secret)


def baton_was_here(comments: Iterable[Authored], bot_login: str) -> bool:
    """Whether the bot left Baton's own trace on the issue: a record comment (readable or not)
    or a message carrying Baton's mark. Only then is a lost record rebuilt from the label."""
    bot = bot_login.casefold()
    return any(
        c.author.casefold() == bot
        and (record_comment.has_marker(c.body) or record_comment.mark_of(c.body) is not None)
        for c in comments
    )


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
        if not baton_was_here(comments, policy.bot_login):
            # A status label with no trace of Baton was not put there by Baton's run: the issue
            # is not in the workflow (a maintainer's relabel enters it by the entry rule).
            return Loaded(record=None, human_comments=humans)
        why = "there was no record"
        return Loaded(
            record=_rebuild(number, labels, workflow, policy, now, why),
            problem=None,
            human_comments=humans,
        )
    keeper = trusted(records, secret, policy.bot_login)
    duplicates = tuple(c.id for c in records if c.id != keeper.id)
    problem = None
    record: Record | None
    try:
        record = verified(keeper, policy.bot_login, secret)
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
