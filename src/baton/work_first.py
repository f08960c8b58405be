"""The GitHub work a decision asks for before it is final (`Decision.work_first`, and the
branch it creates): an epic's sub-issues, a task's merge, a commit, a pull request, the branch.

Each answer becomes a fact (`Facts`: a commit's as the report's changeset), and `run.handle`
decides again on them, so `decide` stays pure while the run does what only GitHub can.
"""

from __future__ import annotations

from baton.core.model.changeset import Changeset
from baton.core.model.decision import CommitPlan, Decision, PullRequestPlan
from baton.core.model.facts import Facts
from baton.core.model.work import BranchFacts, PullRequestFacts
from baton.errors import CommitRefused, PullRequestRefused, StaleHead
from baton.github.tracker import BranchHead, CommitRequest, FirstCommit, Git, Tracker


def wants_work(decision: Decision, facts: Facts) -> bool:
    """Whether GitHub must do something before this decision is final: the work it asks for
    first, or the branch it creates while this run has not made (or found) it yet."""
    return decision.work_first or (decision.create_branch is not None and facts.branch is None)


def do_work(
    decision: Decision,
    facts: Facts,
    changeset: Changeset | None,
    tracker: Tracker,
    notes: list[str],
) -> Facts:
    """Carry out what the decision needs GitHub to do before it is final (a commit, a new pull
    request, an epic's sub-issues, a task's merge, the branch) and hand the answer back as
    facts, for `decide` to read again."""
    if decision.create_tasks is not None:
        plan = decision.create_tasks
        created = tracker.create_tasks(plan)
        notes.append(
            f"sub-issues of #{plan.epic}: {len(created.created)} for {len(plan.tasks)} tasks"
        )
        return facts.merged(created=created)
    if decision.merge is not None:
        merging = tracker.merge(decision.merge)
        notes.append(f"merged {decision.merge.head} into {decision.merge.base}: {merging.status}")
        return facts.merged(merge=merging)
    if decision.commit is not None:
        opening = decision.open_pull_request
        return _commit(decision.commit, opening, facts, changeset, tracker, notes)
    opening = decision.open_pull_request
    if opening is None:
        return facts.merged(branch=create_branch(decision, tracker, notes))
    try:
        opened = tracker.open_pull_request(opening)
    except PullRequestRefused as exc:
        notes.append(f"the pull request could not be opened: {exc}")
        return facts.merged(opened=PullRequestFacts(problem=str(exc)))
    notes.append(f"opened draft pull request #{opened.number} from {opening.branch}")
    opened_facts = PullRequestFacts(number=opened.number, node_id=opened.node_id)
    return facts.merged(opened=opened_facts)


def _commit(
    plan: CommitPlan,
    opening: PullRequestPlan | None,
    facts: Facts,
    changeset: Changeset | None,
    tracker: Tracker,
    notes: list[str],
) -> Facts:
    """The changeset's commit; at the branch's first, its draft pull request in the same
    request (`PullRequests.commit_opening`)."""
    judged = facts.changeset
    assert changeset is not None and judged is not None
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
        if not judged.head:  # no branch yet: it starts where the agent started
            made = tracker.create_branch(plan.branch)
            if made.ahead:
                return facts.merged(branch=found_branch(made, notes))
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
        stale = judged.model_copy(update={"status": "stale", "head": head})
        return facts.merged(changeset=stale, opened=_kept(opened))
    except CommitRefused as exc:
        # The same commit would be refused at every run: a refused changeset (a failed attempt,
        # said on the issue with GitHub's answer), never a run that fails forever.
        notes.append(f"GitHub refused the commit: {exc}")
        refused = judged.model_copy(update={"status": "refused", "problems": [str(exc)]})
        return facts.merged(changeset=refused, opened=_kept(opened))
    notes.append(f"committed {len(changeset.files)} file(s) to {plan.branch} as {oid[:7]}")
    done = judged.model_copy(update={"status": "committed", "oid": oid})
    return facts.merged(changeset=done, opened=opened)


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


def create_branch(decision: Decision, tracker: Git, notes: list[str]) -> BranchFacts:
    """The branch the decision makes, from its base (an epic's branch for a task). Before the
    record that names it, and before the re-check of the record, so the window between that
    check and the write stays free of calls: a run that dies after this leaves a branch the
    next run finds (and adopts: nothing on it its base lacks)."""
    assert decision.create_branch is not None
    planned = decision.record.work if decision.record else None
    base = planned.base if planned is not None and planned.base else None
    head = tracker.create_branch(decision.create_branch, base)
    if not head.ahead:
        notes.append(f"branch {head.name} {_made_or_found(head)} at {head.oid[:7]}")
        return BranchFacts(name=head.name, head=head.oid, ahead=0)
    return found_branch(head, notes)


def _made_or_found(head: BranchHead) -> str:
    return "created" if head.created else "found (nothing on it Baton did not write)"


def found_branch(found: BranchHead, notes: list[str]) -> BranchFacts:
    """The issue's branch exists, Baton's record does not say Baton made it, and it carries
    commits its base lacks: it is someone else's, and `decide` refuses it (never adopts it)."""
    notes.append(f"branch {found.name} exists with {found.ahead} commit(s) Baton did not make")
    return BranchFacts(name=found.name, head=found.oid, ahead=found.ahead)
