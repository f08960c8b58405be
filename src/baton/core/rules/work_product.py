"""The issue's branch and pull request as a projection of the record, as its labels are.

`conclude` asks these for every decision, whatever the rule: the branch is made when the issue
first enters a state that changes code, the pull request is marked ready when the issue enters
the workflow's `pull_request.ready` state, and its description follows the record's commits.
`settle` refuses one move: into the ready state when the work has commits but GitHub would not
open the pull request, which hands the issue to a human instead.
"""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.decision import PullRequestPlan
from baton.core.model.evidence import TestsRecord
from baton.core.model.record import Record
from baton.core.model.work import Work, branch_name
from baton.core.rules.context import BATON, Ctx, Draft, Scene, escalate, escalation_message, seen
from baton.core.text import messages
from baton.core.text.work import pull_request_body, pull_request_title
from baton.workflow.config import Policy

PULL_REQUEST_FIX = (
    'turn on "Allow GitHub Actions to create and approve pull requests" (Settings → Actions → '
    "General) or give Baton a token that may open pull requests, then /retry"
)


def work_of(record: Record, policy: Policy) -> Work:
    """The record's work, or the work the issue would have: its branch, not yet created."""
    return record.work or Work(branch=branch_name(policy.work.branch_prefix, record.issue))


def with_branch(scene: Scene, record: Record) -> tuple[Record, str | None]:
    """The record with its branch created when it is in a state that changes code and has no
    branch yet, and the branch to create (None: nothing to create)."""
    epic_branch = record.epic is not None and bool(record.epic.branch)  # where tasks merge
    if not scene.workflow.changes_code(record.state) and not epic_branch:
        return record, None
    work = record.work
    if (work is not None and work.created) or record.held:
        return record, None  # held for a human: made when the work goes on
    made = work_of(record, scene.policy).model_copy(update={"created": True})
    return record.model_copy(update={"work": made}), made.branch


def foreign_branch_message(name: str, head: str, ahead: int) -> str:
    return (
        f"{name} already exists with {ahead} commit(s) Baton did not make (head {head[:7]}), "
        "and Baton never takes over a branch it did not create: delete or rename that branch, "
        "then /retry"
    )


def refuse_foreign(scene: Scene, draft: Draft) -> Draft:
    """A draft that would make the issue's branch, when the run found that branch made by
    someone else with commits of their own (`Facts.foreign_branch`): the draft stands (still one
    transition per run), but the issue is held there for a human, told to delete or rename the
    branch; no agent runs, nothing is committed onto it, and no record names it as Baton's."""
    found = scene.facts.foreign_branch
    before = scene.record if isinstance(scene, Ctx) else None
    record = draft.record if draft.record is not None else before
    if found is None or record is None or with_branch(scene, record)[1] != found.name:
        return draft
    if draft.record is None and isinstance(scene, Ctx):
        record = seen(scene)  # the event is answered (a report's changes are not committed)
    held = record.model_copy(
        update={"held": True, "escalated_from": record.state, "dispatch": None}
    )
    ctx = Ctx(
        event=scene.event,
        workflow=scene.workflow,
        policy=scene.policy,
        record=held,
        facts=scene.facts,
    )
    why = foreign_branch_message(found.name, found.head, found.ahead)
    message = escalation_message(ctx, why, moved_to=None)
    return replace(
        draft,
        reason=f"{draft.reason}; held for a human: {why}",
        record=held,
        message=messages.join(draft.message, message),
        agent=None,
        commit=None,
        open_pull_request=None,  # nor a pull request opened from it
    )


def with_ready(scene: Scene, record: Record) -> Record:
    """In the workflow's ready state, the open pull request is marked ready for review."""
    work = record.work
    ready = scene.workflow.pull_request.ready
    if ready is None or record.state != ready or work is None:
        return record
    if not work.open_pull_request or work.ready:
        return record
    return record.model_copy(update={"work": work.model_copy(update={"ready": True})})


def opening(scene: Scene, work: Work, tests: TestsRecord | None = None) -> PullRequestPlan:
    """The draft pull request to open for the work as it is now (and the evidence so far)."""
    issue = scene.event.issue
    return PullRequestPlan(
        branch=work.branch,
        title=pull_request_title(issue.number, issue.title),
        body=pull_request_body(issue.number, work, tests),
    )


def update(
    scene: Scene, before: Work | None, record: Record, *, tests: TestsRecord | None = None
) -> PullRequestPlan | None:
    """The open pull request brought up to date when the work changed: a new commit in its
    description, marked ready, or just opened (its body written from the record), or the
    evidence changed (`tests`: the record's before this decision)."""
    work = record.work
    if work is None or not work.open_pull_request or not work.pull_request_id:
        return None
    if (
        before is not None
        and before.pull_request == work.pull_request
        and before.commits == work.commits
        and before.ready == work.ready
        and tests == record.tests
    ):
        return None
    # Marked ready once, when it becomes so: later updates send only the description.
    newly_ready = work.ready and not (before is not None and before.ready)
    return opening(scene, work, record.tests).model_copy(
        update={"node_id": work.pull_request_id, "number": work.pull_request, "ready": newly_ready}
    )


def settle(ctx: Ctx, draft: Draft) -> Draft:
    """A move into the ready state needs the pull request: with commits on the branch and none
    open (GitHub refused it), the issue goes to a human, who fixes the setting and retries."""
    record = draft.record
    wf, policy = ctx.workflow, ctx.policy
    ready = wf.pull_request.ready
    if record is None or ready is None or record.state != ready or ctx.state == ready:
        return draft
    work = record.work
    if draft.open_pull_request is not None or not policy.work.pull_request or work is None:
        return draft  # being opened right now, or never wanted
    if not work.commits or work.open_pull_request or work.closed == "merged":
        return draft
    if ready == wf.escalation.state:
        return draft
    if work.closed == "closed":
        problem = f"pull request #{work.pull_request} was closed without merging"
    else:
        problem = work.problem or "GitHub did not open it"
    why = (
        f"{ready} needs the issue's pull request, and none is open ({problem}): {PULL_REQUEST_FIX}"
    )
    before = ctx.record.model_copy(update={"work": work, "last_report": record.last_report})
    return escalate(replace(ctx, record=before), why, actor=BATON)
