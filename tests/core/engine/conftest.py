"""Builders for the direct tests of `decide`: plain Records, Events, Workflows and Policies.

No GitHub and no run loop: a test hands `decide` the values a run would and reads the Decision.
The issue (#1, by alice) shows the status label of the record's state unless a test says
otherwise, so no drift is repaired behind a test's back. Events happen at NOW; the record's
state was entered an hour before.

The cast, as the run would enrich them: ada (admin), maria (maintain), tess (triage), wendy
(write), alice (read, the issue's author), bob (read), rita (read, in the team
acme/reviewers) and a bot.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton.core import events
from baton.core.agent_result import AgentResult
from baton.core.decision import Decision
from baton.core.engine import decide
from baton.core.events import Commented, Dispatched, Event, IssueChanged, Labeled, Tick
from baton.core.issue_facts import Actor, IssueInfo
from baton.core.record import Dispatch, HistoryEntry, Record
from baton.workflow.config import Policy
from baton.workflow.model import Workflow, load_preset

ISSUE = 1
AUTHOR = "alice"
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
ENTERED = NOW - timedelta(hours=1)
RUN = "run-7"

PEOPLE = {
    "ada": Actor(login="ada", permission="admin"),
    "maria": Actor(login="maria", permission="maintain"),
    "tess": Actor(login="tess", permission="triage"),
    "wendy": Actor(login="wendy", permission="write"),
    "alice": Actor(login="alice", permission="read"),
    "bob": Actor(login="bob", permission="read"),
    "rita": Actor(login="rita", permission="read", teams=("acme/reviewers",)),
    "dependabot[bot]": Actor(login="dependabot[bot]", is_bot=True, permission="admin"),
}

_ids = itertools.count(1)


@dataclass(frozen=True)
class Build:
    """One workflow and policy, and the records and events of issue #1 under them."""

    workflow: Workflow
    policy: Policy = field(default_factory=Policy)

    def with_policy(self, **changes: Any) -> Build:
        return replace(self, policy=replace(self.policy, **changes))

    def with_workflow(self, **changes: Any) -> Build:
        return replace(self, workflow=self.workflow.model_copy(update=changes))

    def label(self, state: str) -> str:
        return self.workflow.label_for(state, self.policy.label_prefix)

    # --- the record ---------------------------------------------------------------------
    def record(self, state: str, *, came_from: str | None = None, **changes: Any) -> Record:
        """The record of an issue that entered `state` an hour ago, its agent (if any)
        dispatched then; `changes` overrides any field."""
        agent = self.workflow.agent_of(state)
        record = Record(
            workflow=self.workflow.name,
            issue=ISSUE,
            state=state,
            entered_at=ENTERED,
            iteration=1,
            visits={state: 1},
            history=[
                HistoryEntry(
                    at=ENTERED,
                    from_state=came_from,
                    to_state=state,
                    reason="set up by the test",
                    actor="maria",
                    trigger="relabel",
                    iteration=1,
                )
            ],
            dispatch=Dispatch(agent=agent, state=state, attempt=1, at=ENTERED) if agent else None,
            revision=3,
        )
        return record.model_copy(update=changes)

    # --- the issue and its events ---------------------------------------------------------
    def issue(self, state: str | None, *, labels: tuple[str, ...] | None = None) -> IssueInfo:
        shown = labels if labels is not None else (self.label(state),) if state else ()
        return IssueInfo(number=ISSUE, title="Export as CSV", labels=("bug", *shown), author=AUTHOR)

    def labeled(
        self, label: str, by: str, state: str | None, *, added: bool = True, **event: Any
    ) -> Labeled:
        """`by` adds (or removes) `label` on the issue in `state` (None: not in the workflow)."""
        shown = (self.label(state),) if state else ()
        labels = (*shown, label) if added else tuple(x for x in shown if x != label)
        return Labeled(
            id=f"label:{label}:{next(_ids)}",
            issue=self.issue(state, labels=labels),
            actor=PEOPLE[by],
            at=NOW,
            label=label,
            added=added,
            run_id=RUN,
            **event,
        )

    def commented(
        self, body: str, by: str, state: str | None, *, comment_id: int = 100, **event: Any
    ) -> Commented:
        fields: dict[str, Any] = {"comments_upto": comment_id, "comments_seen": comment_id}
        fields.update(event)
        return Commented(
            id=f"comment:{comment_id}",
            issue=self.issue(state),
            actor=PEOPLE[by],
            at=NOW,
            comment_id=comment_id,
            body=body,
            run_id=RUN,
            **fields,
        )

    def reported(
        self, state: str, outcome: AgentResult | None, *, agent: str | None = None, **event: Any
    ) -> Event:
        """The state's agent (or `agent`) hands back `outcome` (None: an unreadable result)."""
        report = events.report(
            ISSUE,
            agent=agent or self.workflow.agent_of(state),
            result=outcome,
            error=None if outcome else "the result is not JSON",
            now=NOW,
            run_id=f"report-{next(_ids)}",
            state=state,
        )
        return report.model_copy(update={"issue": self.issue(state), **event})

    def changed(self, action: str, by: str, state: str | None) -> IssueChanged:
        """`by` opens, reopens, closes or edits the issue (closing leaves it closed)."""
        info = self.issue(state).model_copy(
            update={"state": "closed" if action == "closed" else "open"}
        )
        return IssueChanged(
            id=f"issue:{action}:{next(_ids)}",
            issue=info,
            actor=PEOPLE[by],
            at=NOW,
            action=action,
            run_id=RUN,
        )

    def dispatched(self, state: str, *, run: str = "dispatch-run") -> Dispatched:
        return Dispatched(
            id=f"dispatch:{run}",
            issue=self.issue(state),
            actor=Actor(login="baton", is_bot=True),
            at=NOW,
            run_id=run,
        )

    def tick(self, state: str, *, after: timedelta) -> Tick:
        """The sweep, `after` the state was entered."""
        return events.tick(ISSUE, ENTERED + after).model_copy(update={"issue": self.issue(state)})

    def decide(self, record: Record | None, event: Event) -> Decision:
        return decide(record, event, self.workflow, self.policy)


@pytest.fixture(scope="session")
def lifecycle() -> Build:
    """Seed 000's issue lifecycle, the default: escalations go to requires_human_intervention."""
    return Build(load_preset("issue-lifecycle"))


@pytest.fixture(scope="session")
def gate() -> Build:
    """Seed 004's approval gate: no escalation state, so an escalation holds the issue."""
    return Build(load_preset("approval-gate"))


@pytest.fixture(scope="session")
def tasks() -> Build:
    """Seed 002's task review: escalations go to `failed`, a waiting state."""
    return Build(load_preset("task-review"))
