"""Builders for the direct tests of `decide`: plain Records, Events, Workflows and Policies.

No GitHub and no run loop: a test hands `decide` the values a run would and reads the Decision.
The issue (#1, by alice) shows the status label of the record's state unless a test says
otherwise, so no drift is repaired behind a test's back. Events happen at NOW; the record's
state was entered an hour before.

The cast, with what a run would look up of them (`CAST`, handed to `decide` as facts): ada
(admin), maria (maintain), tess (triage), wendy (write), alice (read, the issue's author), bob
(read), rita (read, in the team acme/reviewers) and a bot.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from baton.core.model import events
from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision
from baton.core.model.events import (
    CheckNote,
    ChecksCompleted,
    Commented,
    Dispatched,
    Event,
    IssueChanged,
    Labeled,
    Lineage,
    PullRequestClosed,
    Reviewed,
    Tick,
    commented,
)
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import Dispatch, HistoryEntry, Record
from baton.core.model.work import ChangesetFacts, CommitMark, PullRequestFacts, Work
from baton.core.rules.route import decide
from baton.workflow.config import Policy
from baton.workflow.model import Workflow, load_preset

ISSUE = 1
AUTHOR = "alice"
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
ENTERED = NOW - timedelta(hours=1)
RUN = "run-7"

ROLES = {
    "ada": "admin",
    "maria": "maintain",
    "tess": "triage",
    "wendy": "write",
    "alice": "read",
    "bob": "read",
    "rita": "read",
    "dependabot[bot]": "admin",
}
PEOPLE = {login: Actor(login=login, is_bot=login.endswith("[bot]")) for login in ROLES}
CAST = Facts(
    permissions=ROLES,
    teams={login: ("acme/reviewers",) if login == "rita" else () for login in ROLES},
)
"""What a run would have looked up of the cast: their permission and their teams."""


def with_cast(facts: Facts) -> Facts:
    """`facts` with the cast looked up too (what `facts` says of a login wins)."""
    update = {
        "permissions": {**CAST.permissions, **facts.permissions},
        "teams": {**CAST.teams, **facts.teams},
    }
    return facts.model_copy(update=update)


_ids = itertools.count(1)


def found(event: Event, role: str = "issue") -> Facts:
    """What a run would read of GitHub for an event in these tests: a review with no inline
    notes, of a commit that holds nothing on top of Baton's last (`HEAD`); the failing check
    runs the event names; an epic's tasks, none of which says anything new."""
    if role == "epic":
        return Facts(tasks=[])
    if isinstance(event, Reviewed):
        return Facts(review_notes=[], lineage=Lineage(base=HEAD, behind=1))
    if isinstance(event, ChecksCompleted):
        return Facts(failing_checks=list(event.failing))
    return NO_FACTS


BRANCH = "baton/issue-1"
PR = 7
PR_NODE = "PR_kwDOfake7"
BASE = "a" * 40  # the branch head the agent started from
HEAD = "c" * 40  # Baton's last commit on the branch
DIGEST = "sha256:" + "d" * 64


def mark(
    oid: str = HEAD, *, digest: str = DIGEST, summary: str = "Add the CSV export"
) -> CommitMark:
    """A commit Baton made from the developer's changeset in implementing."""
    return CommitMark(
        digest=digest,
        oid=oid,
        agent="developer",
        state="implementing",
        attempt=1,
        files=2,
        at=ENTERED,
        summary=summary,
    )


def work(*, pull_request: int | None = PR, **changes: Any) -> Work:
    """The issue's work: its branch, one commit, and (by default) its open draft pull request."""
    base = Work(
        branch=BRANCH,
        created=True,
        head=HEAD,
        commits=[mark()],
        pull_request=pull_request,
        pull_request_id=PR_NODE if pull_request else "",
    )
    return base.model_copy(update=changes)


def changeset(status: str, **fields: Any) -> ChangesetFacts:
    """The changeset beside a report as the run found it: two files on top of BASE."""
    defaults: dict[str, Any] = {"digest": DIGEST, "base": BASE, "files": 2, "bytes": 120}
    if status == "committed":
        defaults["oid"] = "e" * 40
    return ChangesetFacts(status=status, **{**defaults, **fields})


def opened(number: int | None = PR, problem: str | None = None) -> PullRequestFacts:
    return PullRequestFacts(number=number, node_id=PR_NODE if number else "", problem=problem)


@dataclass(frozen=True)
class Build:
    """One workflow and policy, and the records and events of issue #1 under them."""

    workflow: Workflow
    policy: Policy = field(default_factory=Policy)

    # The work product's builders, for the tests that cannot import this module.
    mark = staticmethod(mark)
    work = staticmethod(work)
    changeset = staticmethod(changeset)
    opened = staticmethod(opened)

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
        """A comment as `webhooks.parse` makes it: its command read with the policy's words."""
        made = commented(
            id=f"comment:{comment_id}",
            issue=self.issue(state),
            actor=PEOPLE[by],
            at=NOW,
            comment_id=comment_id,
            body=body,
            approval_words=self.policy.approval_words,
            comments_upto=comment_id,
            comments_seen=comment_id,
            run_id=RUN,
        )
        return made.model_copy(update=event) if event else made

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

    def reviewed(
        self,
        verdict: str,
        by: str,
        state: str,
        *,
        body: str = "",
        pull_request: int = PR,
        review_id: int = 500,
        closed: bool = False,
        commit: str = HEAD,
    ) -> Reviewed:
        """`by` submits a review on pull request `pull_request` (the issue's own by default) of
        `commit` (Baton's last by default)."""
        info = self.issue(state)
        if closed:
            info = info.model_copy(update={"state": "closed"})
        return Reviewed(
            id=f"review:{review_id}",
            issue=info,
            actor=PEOPLE[by],
            at=NOW,
            pull_request=pull_request,
            review_id=review_id,
            verdict=verdict,
            body=body,
            commit=commit,
            run_id=RUN,
        )

    def pr_closed(
        self, by: str, state: str, *, merged: bool, pull_request: int = PR, closed: bool = False
    ) -> PullRequestClosed:
        """`by` merges (or closes unmerged) pull request `pull_request`."""
        info = self.issue(state)
        if closed:
            info = info.model_copy(update={"state": "closed"})
        return PullRequestClosed(
            id=f"pr-closed:{pull_request}:{'true' if merged else 'false'}",
            issue=info,
            actor=PEOPLE[by],
            at=NOW,
            pull_request=pull_request,
            merged=merged,
            run_id=RUN,
        )

    def checks(
        self,
        state: str,
        conclusion: str,
        *,
        head: str = HEAD,
        failing: tuple[CheckNote, ...] = (CheckNote(name="tests"),),
        branch: str = BRANCH,
        pull_request: int | None = PR,
        closed: bool = False,
    ) -> ChecksCompleted:
        """CI finished on `head` of `branch` with `conclusion`; `failing`: the check runs that
        failed on it, as the run reads them (`found`)."""
        info = self.issue(state)
        if closed:
            info = info.model_copy(update={"state": "closed"})
        return ChecksCompleted(
            id=f"checks:{head}:{next(_ids)}",
            issue=info,
            actor=Actor(login="github-actions[bot]", is_bot=True),
            at=NOW,
            branch=branch,
            head=head,
            conclusion=conclusion,
            pull_request=pull_request,
            failing=list(failing),
            run_id=RUN,
        )

    def decide(self, record: Record | None, event: Event, facts: Facts | None = None) -> Decision:
        """`decide` on `event` with the `facts` a run would have looked up for it; by default
        what GitHub shows these tests: a review with no inline notes, and as the failing check
        runs of a head the ones the event names (`checks(failing=...)`)."""
        looked = facts if facts is not None else found(event, self.workflow.role)
        return decide(record, event, self.workflow, self.policy, with_cast(looked))


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
