"""Catch-up: human comments whose own run never happened still count.

GitHub keeps one pending run per concurrency group and cancels older pending ones, so the run
for an "approved" can vanish. Comments are a durable log, and every run lists them anyway: a
run that finds an actionable human comment newer than the record's floor (`last_comment_id`)
handles that comment first. Only comments that can move a state Baton waits on are considered
(a reply or approval in a waiting state, a command when escalated); agent reports and labels are
never displaced.
"""

from __future__ import annotations

from baton.core.model.commands import ESCALATION_VERBS
from baton.core.model.events import AgentReported, Commented, Event, Labeled, commented
from baton.core.model.issue_facts import Actor, Comment
from baton.core.model.record import Record
from baton.workflow.config import Policy
from baton.workflow.model import StateKind, Workflow

TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


def _could_matter(
    comment: Commented, record: Record, workflow: Workflow, policy: Policy, author: str
) -> bool:
    command = comment.command
    escalated = record.held or (
        record.state == workflow.escalation.state and record.escalated_from is not None
    )
    if escalated:
        return command is not None and command.verb in ESCALATION_VERBS
    if workflow.spec(record.state).kind is not StateKind.waiting:
        return False
    # A cheap first filter; the decision itself checks permissions through the API.
    return (
        command is not None
        or comment.actor.login == author
        or comment.actor.association in TRUSTED_ASSOCIATIONS
        or policy.answerers == "anyone"
    )


def missed_comment(
    record: Record | None,
    event: Event,
    comments: tuple[Comment, ...],
    workflow: Workflow,
    policy: Policy,
) -> Commented | None:
    """The oldest human comment that should be handled before `event`, if any, made the event
    that takes its place (`as_event`)."""
    if record is None or isinstance(event, AgentReported | Labeled):
        return None
    if isinstance(event, Commented) and event.edited:
        return None
    before = event.comment_id if isinstance(event, Commented) else None
    for comment in sorted(comments, key=lambda c: c.id):
        if comment.id <= record.last_comment_id or record.has_processed(f"comment:{comment.id}"):
            continue
        if before is not None and comment.id >= before:
            break
        if comment.id <= record.entered_after_comment:
            continue  # written before the state it would answer was entered
        candidate = as_event(comment, event, policy.approval_words)
        if _could_matter(candidate, record, workflow, policy, event.issue.author):
            return candidate
    return None


def as_event(comment: Comment, event: Event, approval_words: tuple[str, ...]) -> Commented:
    """The comment read from the issue as the event its own run would have made."""
    return commented(
        id=f"comment:{comment.id}",
        issue=event.issue,
        actor=Actor(login=comment.author, is_bot=False, association=comment.association),
        at=event.at,
        comment_id=comment.id,
        body=comment.body,
        comments_upto=comment.id,
        comments_seen=event.comments_seen,
        run_id=event.run_id,
        approval_words=approval_words,
    )
