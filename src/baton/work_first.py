"""The GitHub work a decision asks for before it is final (`Decision.work_first`): a count
of failing issues, an epic's sub-issues, a task's merge, a commit, a pull request, the branch.

Each answer goes back on the event as facts, and `run.handle` decides again on them, so `decide`
stays pure while the run does what only GitHub can.
"""

from __future__ import annotations

from baton.core.model.changeset import Changeset
from baton.core.model.decision import CommitPlan, Decision, PullRequestPlan
from baton.core.model.events import AgentReported, Event
from baton.core.model.work import BranchFacts, PullRequestFacts
from baton.errors import CommitRefused, PullRequestRefused, StaleHead
from baton.github.tracker import BranchHead, CommitRequest, FirstCommit, Git, Tracker
from baton.workflow.config import RepoBreaker


def do_work(
    decision: Decision,
    event: Event,
    changeset: Changeset | None,
    tracker: Tracker,
    notes: list[str],
    settings_breaker: RepoBreaker | None = None,
) -> Event:
    """Carry out what the decision needs GitHub to do before it is final (a commit, a new pull
    request, an epic's sub-issues, a task's merge) and hand the answer back as facts on the
    event, for `decide` to read again."""
    if decision.count_failing:
        breaker = settings_breaker
        assert breaker is not None
        since = event.at - breaker.window
        count = tracker.failing_issues(breaker.label, since, breaker.threshold)
        notes.append(f"the repository breaker counts {count} failing issue(s) since {since:%H:%M}")
        return event.model_copy(update={"failing_issues": count})
    if decision.create_tasks is not None:
        plan = decision.create_tasks
        facts = tracker.create_tasks(plan)
        notes.append(
            f"sub-issues of #{plan.epic}: {len(facts.created)} for {len(plan.tasks)} tasks"
        )
        return event.model_copy(update={"created": facts})
    if decision.merge is not None:
        merging = tracker.merge(decision.merge)
        notes.append(f"merged {decision.merge.head} into {decision.merge.base}: {merging.status}")
        return event.model_copy(update={"merge": merging})
    if decision.commit is not None:
        assert isinstance(event, AgentReported)
        opening = decision.open_pull_request
        return _commit(decision.commit, opening, event, changeset, tracker, notes)
    opening = decision.open_pull_request
    assert opening is not None
    try:
        opened = tracker.open_pull_request(opening)
    except PullRequestRefused as exc:
        notes.append(f"the pull request could not be opened: {exc}")
        facts_refused = PullRequestFacts(problem=str(exc))
        return _with_opened(event, facts_refused)
    notes.append(f"opened draft pull request #{opened.number} from {opening.branch}")
    opened_facts = PullRequestFacts(number=opened.number, node_id=opened.node_id)
    return _with_opened(event, opened_facts)


def _with_opened(event: Event, facts: PullRequestFacts) -> Event:
    if isinstance(event, AgentReported):
        return event.model_copy(update={"pull_request": facts})
    return event.model_copy(update={"opened": facts})


def _commit(
    plan: CommitPlan,
    opening: PullRequestPlan | None,
    event: AgentReported,
    changeset: Changeset | None,
    tracker: Tracker,
    notes: list[str],
) -> Event:
    """The changeset's commit; at the branch's first, its draft pull request in the same
    request (`PullRequests.commit_opening`)."""
    assert changeset is not None and event.changeset is not None
    request = CommitRequest(
        branch=plan.branch,
        expected_head=plan.expected_head,
        headline=plan.headline,
        body=plan.body,
        additions=tuple((f.path, f.contents) for f in changeset.files if f.contents is not None),
        deletions=tuple(f.path for f in changeset.files if f.contents is None),
    )
    opened: PullRequestFacts | None = None  # the pull request opened with the commit
    try:
        if not event.changeset.head:  # no branch yet: it starts where the agent started
            made = tracker.create_branch(plan.branch)
            if made.ahead:
                return with_foreign_branch(event, made, notes)
            notes.append(f"branch {made.name} {_made_or_found(made)} at {made.oid[:7]}")
            if made.oid != plan.expected_head:
                raise StaleHead(f"{plan.branch} is at {made.oid[:7]}", head=made.oid)
        if opening is None:
            oid = tracker.commit(request)
        else:
            first = tracker.commit_opening(request, opening)
            opened = _opened(first, opening, notes)
            if first.failed is not None:
                raise first.failed
            oid = first.oid
    except StaleHead as exc:
        head = exc.head
        if head is None:
            found = tracker.branch(plan.branch)
            head = found.oid if found is not None else ""
        notes.append(f"the branch moved before the commit: {exc}")
        facts = event.changeset.model_copy(update={"status": "stale", "head": head})
        return event.model_copy(update={"changeset": facts, "pull_request": _kept(opened)})
    except CommitRefused as exc:
        # The same commit would be refused at every run: a refused changeset (a failed attempt,
        # said on the issue with GitHub's answer), never a run that fails forever.
        notes.append(f"GitHub refused the commit: {exc}")
        facts = event.changeset.model_copy(update={"status": "refused", "problems": [str(exc)]})
        return event.model_copy(update={"changeset": facts, "pull_request": _kept(opened)})
    notes.append(f"committed {len(changeset.files)} file(s) to {plan.branch} as {oid[:7]}")
    facts = event.changeset.model_copy(update={"status": "committed", "oid": oid})
    return event.model_copy(update={"changeset": facts, "pull_request": opened})


def _kept(opened: PullRequestFacts | None) -> PullRequestFacts | None:
    """After a failed commit, only a pull request GitHub opened all the same (on a branch
    someone pushed to), for the record to know; why one was not opened is moot then."""
    return opened if opened is not None and opened.number is not None else None


def _opened(first: FirstCommit, opening: PullRequestPlan, notes: list[str]) -> PullRequestFacts:
    if first.opened is None:
        if first.failed is None:
            notes.append(f"the pull request could not be opened: {first.problem}")
        return PullRequestFacts(problem=first.problem)
    notes.append(f"opened draft pull request #{first.opened.number} from {opening.branch}")
    return PullRequestFacts(number=first.opened.number, node_id=first.opened.node_id)


def create_branch(decision: Decision, tracker: Git, notes: list[str]) -> BranchHead:
    """The branch the decision makes, from its base (an epic's branch for a task)."""
    assert decision.create_branch is not None
    planned = decision.record.work if decision.record else None
    base = planned.base if planned is not None and planned.base else None
    head = tracker.create_branch(decision.create_branch, base)
    if not head.ahead:
        notes.append(f"branch {head.name} {_made_or_found(head)} at {head.oid[:7]}")
    return head


def _made_or_found(head: BranchHead) -> str:
    return "created" if head.created else "found (nothing on it Baton did not write)"


def with_foreign_branch(event: Event, found: BranchHead, notes: list[str]) -> Event:
    """The issue's branch exists, Baton's record does not say Baton made it, and it carries
    commits its base lacks: it is someone else's, and `decide` refuses it (never adopts it)."""
    notes.append(f"branch {found.name} exists with {found.ahead} commit(s) Baton did not make")
    facts = BranchFacts(name=found.name, head=found.oid, ahead=found.ahead)
    return event.model_copy(update={"foreign_branch": facts})
