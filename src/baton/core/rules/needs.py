"""Whether a decision needs to know who the actor is. Asked of the record and the event as
GitHub sent them (`core/rules/asking.py`), so the lookup (a round trip per login) is made only
when the decision may turn on it."""

from __future__ import annotations

from baton.core.model.events import Commented, Event, IssueChanged, Labeled
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import Record
from baton.core.rules.authority import answers_whoever, needs_identity, reopens_whoever
from baton.workflow.config import Policy
from baton.workflow.model import Workflow


def needs_permission(
    event: Event, record: Record | None, workflow: Workflow, policy: Policy, facts: Facts = NO_FACTS
) -> bool:
    """Whether the decision may turn on who the actor is, so the shell looks them up: a label
    added, an approving or changes-requesting review, a reopen the config does not let anyone
    make, a command, an epic's command, a reply where replies are read (a dialogue, or a
    waiting state) from someone the config does not let answer anyway."""
    if event.actor.is_bot or facts.knows(event.actor.login):
        return False
    if isinstance(event, Labeled):
        return event.added
    if needs_identity(event, facts):  # a review steers the issue only from an approver
        return True
    if isinstance(event, IssueChanged):
        # Only a reopen turns on who did it, and not when the config lets this human anyway.
        return event.action == "reopened" and not reopens_whoever(
            event.actor.login, event.issue.author, policy
        )
    if not isinstance(event, Commented):
        return False
    if event.command:
        return True
    if workflow.role == "epic" and event.epic_command is not None:
        return True
    if record is None:
        return False
    if not workflow.converses(record.state) and not workflow.is_waiting(record.state):
        return False
    return not answers_whoever(event.actor.login, event.issue.author, policy)
