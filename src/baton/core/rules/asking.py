"""What `decide` asks the shell to look up before it can decide: the one place that knows when a
fact is needed. Each predicate is the rule's own (`needs`, `epic/asks`, `pull_requests`,
`approved_commit`, `repo_breaker`); here they meet, over the facts the run already holds, and
the answer is an `Asks` (None: nothing is missing)."""

from __future__ import annotations

from typing import Any

from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import ChecksCompleted, Event, Reviewed
from baton.core.model.facts import Asks, Facts, FailingAsk
from baton.core.model.record import Record
from baton.core.rules import needs
from baton.core.rules.approved_commit import by_a_writer, needs_lineage
from baton.core.rules.authority import is_member
from baton.core.rules.epic import asks as epic_asks
from baton.core.rules.pull_requests import needs_failing_checks, needs_review_notes
from baton.workflow.config import Policy
from baton.workflow.model import Workflow


def asks_of(
    record: Record | None, event: Event, workflow: Workflow, policy: Policy, facts: Facts
) -> Asks | None:
    """The facts this decision needs that `facts` lacks, or None."""
    wanted: dict[str, Any] = {}
    if needs.needs_permission(event, record, workflow, policy, facts):
        wanted["actor"] = event.actor
    wanted.update(_pull_request_asks(record, event, workflow, facts))
    if epic_asks.needs_tasks(record, event, workflow.role, facts):
        wanted["tasks"] = True
    elif epic_asks.needs_order(record, event, workflow, facts):
        wanted["order"] = True
    if not wanted:
        authors = _authors(event, policy, facts)
        if authors:
            wanted["authors"] = authors
    return Asks(**wanted) if wanted else None


def _pull_request_asks(
    record: Record | None, event: Event, workflow: Workflow, facts: Facts
) -> dict[str, Any]:
    """What a pull request's event needs read that its payload leaves out: only for the
    issue's own pull request (or branch head)."""
    work = record.work if record is not None else None
    if work is None or (work.pull_request is None and not work.head):
        return {}
    if isinstance(event, Reviewed):
        if needs_lineage(record, event, workflow, facts):
            return {"lineage": (work.head, event.commit)}
        if needs_review_notes(record, event, facts):
            return {"review_notes": (event.pull_request, event.review_id)}
    if isinstance(event, ChecksCompleted) and needs_failing_checks(record, event, facts):
        return {"failing_checks": event.head}
    return {}


def _authors(event: Event, policy: Policy, facts: Facts) -> tuple[str, ...]:
    """An approver's approval of a commit built on Baton's last: the permission of each author
    after Baton's last, asked in order up to the first commit that is not a write user's (the
    rule stops there, and so do the lookups)."""
    lineage = facts.lineage
    if not isinstance(event, Reviewed) or lineage is None or not lineage.complete:
        return ()
    if not is_member(event.actor, policy.approvers, facts):
        return ()
    for commit in lineage.commits:
        author = commit.author
        if author is None or author.is_bot:
            return ()
        if facts.permission_of(author.login) is None:
            return (author.login,)
        if not by_a_writer(commit, facts):
            return ()
    return ()


def failing_ask(event: Event, policy: Policy) -> Asks:
    """The repository breaker's count, over its window up to the event."""
    breaker = policy.breaker
    assert breaker is not None
    since = event.at - breaker.window
    return Asks(
        failing_issues=FailingAsk(label=breaker.label, since=since, threshold=breaker.threshold)
    )


def asking(event: Event, asks: Asks) -> Decision:
    """The decision that only asks: nothing to write until the facts are in."""
    return Decision(
        outcome=Outcome.ignored,
        issue=event.issue.number,
        reason=f"asks for {asks}",
        event=event.kind,
        event_id=event.id,
        asks=asks,
    )
