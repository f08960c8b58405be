"""What a pull request's event needs read before deciding, read only for the issue's own pull
request and only when the rules ask (`core/rules/pull_requests.py`, `approved_commit.py`): a
review's inline comments, the commits between Baton's last and the one an approval is of, the
failing checks' names and output. Facts on the event, so `decide` stays pure."""

from __future__ import annotations

from baton.core.model.events import ChecksCompleted, Event, Reviewed
from baton.core.model.record import Record
from baton.core.rules.approved_commit import needs_lineage
from baton.core.rules.pull_requests import needs_failing_checks, needs_review_notes
from baton.github.tracker import PullRequests
from baton.workflow.model import Workflow


def attach(event: Event, record: Record | None, tracker: PullRequests, workflow: Workflow) -> Event:
    """What the payload of a pull-request event leaves out, read only for the issue's own pull
    request and only when the decision needs it: a review's inline comments, the commits
    between Baton's last and the one an approval is of, the failing checks' names and output."""
    work = record.work if record is not None else None
    if work is None or (work.pull_request is None and not work.head):
        return event
    if isinstance(event, Reviewed):
        if needs_lineage(record, event, workflow):
            return event.model_copy(update={"lineage": tracker.lineage(work.head, event.commit)})
        if not needs_review_notes(record, event):
            return event
        return event.model_copy(
            update={"notes": tracker.review_notes(event.pull_request, event.review_id)}
        )
    if isinstance(event, ChecksCompleted):
        if not needs_failing_checks(record, event):
            return event
        failing = tracker.failing_checks(event.head)
        update = {"failing": failing} if failing else {}
        return event.model_copy(update={**update, "failed_runs": len(failing)})
    return event
