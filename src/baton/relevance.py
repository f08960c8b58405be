"""Which events can matter, decided from the payload alone — before any API call.

The payload carries the issue's labels, so an event on an issue outside the workflow, or a
plain comment while an agent holds the baton, is dropped here for free. Anything that might
matter goes on to the full decision, which reads the record.
"""

from __future__ import annotations

from baton.commands import parse_command
from baton.config import Policy
from baton.events import Commented, Event, IssueChanged
from baton.workflow import StateKind, Workflow


def _status_state(labels: tuple[str, ...], workflow: Workflow, policy: Policy) -> str | None:
    prefix = policy.label_prefix.casefold()
    states = [
        workflow.state_for_label(label, policy.label_prefix)
        for label in labels
        if label.casefold().startswith(prefix)
    ]
    known = [s for s in states if s]
    return known[0] if len(known) == 1 else ("?" if states else None)


def why_irrelevant(event: Event, workflow: Workflow, policy: Policy) -> str | None:
    """A reason to ignore the event without reading the issue, or None if it may matter."""
    if event.issue.partial:
        return None
    state = _status_state(event.issue.labels, workflow, policy)
    if isinstance(event, IssueChanged):
        if event.action == "opened":
            return None if policy.enter_on_open else "opened: entry is by label (config entry)"
        if event.action == "reopened":
            return None if state else "reopened, but the issue is not in the workflow"
        return f"issue {event.action}: nothing to act on"
    if isinstance(event, Commented):
        if state is None:
            return "a comment on an issue that is not in the workflow"
        if state == "?":
            return None  # two or unknown status labels: let the full run repair them
        spec = workflow.states[state]
        if spec.kind is StateKind.work and not parse_command(event.body, policy.approval_words):
            return f"a comment with no command while the {spec.agent} works on {state}"
        if event.edited and not policy.allow_edited_approvals:
            return "an edited comment does not count (config allow_edited_approvals)"
    return None
