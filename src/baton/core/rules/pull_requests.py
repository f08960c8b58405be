"""The issue's pull request steering the issue: reviews, the merge or close, CI's checks.

Only the issue's own pull request counts (the number in the record's work): a pull request
from a branch of the same name, or the issue's earlier one, steers nothing. A route of the
workflow's `pull_request` moves the issue even where the table has no edge, recorded with its
cause (`review`, `merge`, `pull_request`, `checks`) and who caused it: a route is the workflow's
own rule, not a forced relabel, so the history, the job summary and the `decision` output never
call it forced. Reviews weigh only from approvers; a merge is a fact (GitHub already let
only a writer merge) and completes the issue from wherever it is, a closed issue too; nothing
else moves a closed issue or leaves a terminal state.
"""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.decision import Outcome
from baton.core.model.events import ChecksCompleted, PullRequestClosed, Reviewed, ReviewNote
from baton.core.model.facts import NO_FACTS, Facts
from baton.core.model.record import KEEP_FEEDBACK, Record, clip
from baton.core.model.work import Work
from baton.core.rules import approved_commit
from baton.core.rules.authority import is_member
from baton.core.rules.context import (
    Ctx,
    Draft,
    Scene,
    agent_due,
    escalate,
    limit_breach,
    move,
    seen,
)
from baton.core.rules.humans import human_input, human_move
from baton.core.rules.triage import FAILED_CONCLUSIONS
from baton.core.text import messages
from baton.workflow.model import StateKind

NOTE = 300  # characters of one review note or check failure handed to an agent


def _foreign(ctx: Ctx, number: int | None) -> str | None:
    """Why pull request `number` is not the issue's, or None when it is."""
    work = ctx.record.work
    if work is None or work.pull_request is None:
        return f"pull request #{number} is not the issue's: the issue has no pull request yet"
    if number != work.pull_request:
        return f"pull request #{number} is not the issue's (#{work.pull_request} is)"
    return None


def _with_work(record: Record, work: Work) -> Record:
    return record.model_copy(update={"work": work})


def _closed_issue(ctx: Ctx) -> bool:
    return ctx.event.issue.state == "closed"


def _waits_for_a_human(ctx: Ctx) -> bool:
    """Held, or escalated: only a human's decision moves the issue on."""
    escalation = ctx.workflow.escalation.state
    return ctx.record.held or (ctx.state == escalation and ctx.record.escalated_from is not None)


# --- what approving CI means -----------------------------------------------------------------
def ci_notice(scene: Scene, before: Work | None, record: Record) -> str | None:
    """What approving CI on the pull request means, when it opens and when it is marked ready
    for review (the moments a writer looks at it); None at any other decision."""
    work = record.work
    if work is None or not work.open_pull_request:
        return None
    assert work.pull_request is not None  # an open pull request has its number
    same = before is not None and before.pull_request == work.pull_request
    opened = not same
    ready = work.ready and not (same and before is not None and before.ready)
    if not (opened or ready):
        return None
    policy = scene.policy
    return messages.ci_approval(work.pull_request, held=policy.held_ci, bot_login=policy.bot_login)


# --- reviews --------------------------------------------------------------------------------
def on_review(ctx: Ctx, event: Reviewed) -> Draft:
    """An approver's review: requested changes go to the route, an approval counts at a gate.
    Anyone else's review, and a plain review comment, carries no weight."""
    foreign = _foreign(ctx, event.pull_request)
    if foreign:
        return Draft(Outcome.ignored, foreign)
    work = ctx.record.work
    assert work is not None  # _foreign said it is the issue's
    login = event.actor.login
    if work.closed:
        return Draft(Outcome.ignored, f"pull request #{event.pull_request} is {work.closed}")
    if event.review_id <= work.last_review:
        return Draft(Outcome.ignored, f"review {event.review_id} was already handled")
    if event.verdict == "commented":
        return Draft(
            Outcome.ignored,
            f"a review comment by {login} moves nothing: only an approval or requested changes do",
        )
    if not is_member(event.actor, ctx.policy.approvers, ctx.facts):
        who = ctx.policy.approvers.permission or "a listed user or team"
        return Draft(
            Outcome.ignored,
            f"{login}'s review carries no weight: only approvers' reviews steer the issue "
            f"(needs {who})",
        )
    if _closed_issue(ctx):
        return Draft(Outcome.ignored, f"the issue is closed; {login}'s review moves nothing")
    record = _with_work(ctx.record, work.model_copy(update={"last_review": event.review_id}))
    ctx = replace(ctx, record=record)
    if event.verdict == "approved":
        return _approved(ctx, event)
    return _changes_requested(ctx, event)


def _approved(ctx: Ctx, event: Reviewed) -> Draft:
    """An approver's approving review is the gate's approval, as an "approved" comment is, but
    only for the commit it reviewed: Baton's last, or one built on it by write users."""
    spec = ctx.workflow.spec(ctx.state)
    login = event.actor.login
    said = human_input(ctx, login, event.body or "approved the pull request", None)
    if spec.kind is StateKind.waiting and spec.approval and not ctx.record.held:
        stale = _stale_approval(ctx, event)
        if stale is not None:
            return stale
        return human_move(
            ctx,
            login,
            spec.approval,
            approved=True,
            said=said,
            comment_id=None,
            what=f"approved pull request #{event.pull_request}",
            trigger="review",
        )
    return Draft(
        Outcome.noted,
        f"{login} approved pull request #{event.pull_request}, but {ctx.state} is no gate: "
        "the approval is not applied",
        record=seen(ctx),
    )


def _stale_approval(ctx: Ctx, event: Reviewed) -> Draft | None:
    """An approval counts for Baton's last commit, or for a commit built on it by users with
    write access (`approved_commit`); any other is noted and said. None when it counts."""
    work = ctx.record.work
    assert work is not None  # on_review read the issue's pull request from it
    refused = approved_commit.refusal(event, work.head, ctx.facts)
    if refused is None:
        return None
    reason, message = refused
    return Draft(Outcome.noted, reason, record=seen(ctx), message=message)


def _review_feedback(event: Reviewed, notes: list[ReviewNote]) -> list[str]:
    """The review's words for the agent: its body, then each inline note where it points."""
    login = event.actor.login
    feedback = [clip(f"{login} requested changes: {event.body}", 500)] if event.body.strip() else []
    for note in notes:
        where = f"{note.path}:{note.line}" if note.line else note.path
        feedback.append(clip(f"{where}: {note.body}", NOTE))
    return (feedback or [f"{login} requested changes on pull request #{event.pull_request}"])[
        :KEEP_FEEDBACK
    ]


def _changes_requested(ctx: Ctx, event: Reviewed) -> Draft:
    """An approver's requested changes move the issue to the route, the review as feedback."""
    wf, record = ctx.workflow, ctx.record
    login = event.actor.login
    target = wf.pull_request.changes_requested
    feedback = _review_feedback(event, ctx.facts.review_notes or [])
    said = human_input(ctx, login, event.body or "requested changes", None)
    pending = [*record.pending_input, said][-KEEP_FEEDBACK:]
    if target is None or target == ctx.state or wf.is_terminal(ctx.state):
        why = (
            f"{ctx.state} is terminal (relabel the issue to resume)"
            if target is not None and target != ctx.state
            else "no route moves it"
        )
        kept = seen(ctx).model_copy(update={"pending_input": pending})
        return Draft(
            Outcome.noted,
            f"{login} requested changes on pull request #{event.pull_request}; {why}: the review "
            "is kept for the next agent",
            record=kept,
        )
    breach = limit_breach(ctx, target)
    if breach:
        return escalate(ctx, breach, actor=login, extra={"feedback": feedback})
    moved = move(
        ctx,
        target,
        reason=f"{login} requested changes on pull request #{event.pull_request}",
        actor=login,
        trigger="review",
        feedback=feedback,
        pending_input=pending,
        open_questions=[],
        approval=None,
    )
    agent = wf.agent_of(target)
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: {login} requested changes on pull request #{event.pull_request}",
        record=moved,
        message=messages.changes_requested(login, event.pull_request, target, agent),
        agent=agent_due(ctx, moved),
    )


# --- merged or closed -----------------------------------------------------------------------
def on_closed(ctx: Ctx, event: PullRequestClosed) -> Draft:
    """Merged: the issue completes, from wherever it is. Closed unmerged: the issue waits for a
    maintainer, who resumes it by relabelling or closes it."""
    foreign = _foreign(ctx, event.pull_request)
    if foreign:
        return Draft(Outcome.ignored, foreign)
    work = ctx.record.work
    assert work is not None
    if work.closed:
        return Draft(
            Outcome.ignored, f"pull request #{event.pull_request} was already {work.closed}"
        )
    closed = work.model_copy(update={"closed": "merged" if event.merged else "closed"})
    if event.merged:
        return _merged(ctx, event, closed)
    return _closed_unmerged(ctx, event, closed)


def _merged(ctx: Ctx, event: PullRequestClosed, work: Work) -> Draft:
    login, number = event.actor.login, event.pull_request
    target = ctx.workflow.pull_request.merged
    if target is None or target == ctx.state:
        return Draft(
            Outcome.noted,
            f"pull request #{number} merged by {login}",
            record=_with_work(seen(ctx), work),
            message=messages.merged(login, number, target),
        )
    moved = move(
        ctx,
        target,
        reason=f"pull request #{number} merged by {login}",
        actor=login,
        trigger="merge",
        approval=None,
        work=work,
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: pull request #{number} merged by {login}",
        record=moved,
        message=messages.merged(login, number, target),
        agent=agent_due(ctx, moved),
    )


def _closed_unmerged(ctx: Ctx, event: PullRequestClosed, work: Work) -> Draft:
    login, number = event.actor.login, event.pull_request
    target = ctx.workflow.pull_request.closed
    if (
        target is None
        or target == ctx.state
        or ctx.workflow.is_terminal(ctx.state)
        or _closed_issue(ctx)
    ):
        message = None
        if not _closed_issue(ctx):
            message = messages.pull_request_closed(login, number, ctx.state, moved=False)
        return Draft(
            Outcome.noted,
            f"pull request #{number} closed without merging by {login}; the issue stays in "
            f"{ctx.state}",
            record=_with_work(seen(ctx), work),
            message=message,
        )
    moved = move(
        ctx,
        target,
        reason=f"pull request #{number} closed without merging by {login}",
        actor=login,
        trigger="pull_request",
        approval=None,
        work=work,
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: pull request #{number} closed without merging by {login}",
        record=moved,
        message=messages.pull_request_closed(login, number, target, moved=True),
        agent=agent_due(ctx, moved),
    )


# --- what a pull request's event needs read first ----------------------------------------------
def needs_review_notes(record: Record | None, event: Reviewed, facts: Facts = NO_FACTS) -> bool:
    """A review asking for changes on the issue's own pull request, whose inline comments the
    payload left out: the next agent is told them."""
    work = record.work if record is not None else None
    return (
        work is not None
        and event.pull_request == work.pull_request
        and event.verdict == "changes_requested"
        and facts.review_notes is None
    )


def needs_failing_checks(
    record: Record | None, event: ChecksCompleted, facts: Facts = NO_FACTS
) -> bool:
    """Checks that failed on Baton's last commit: the payload names only the suite's app or
    workflow, the check runs say what failed."""
    work = record.work if record is not None else None
    return (
        work is not None
        and event.head == work.head
        and event.conclusion.lower() in FAILED_CONCLUSIONS
        and facts.failing_checks is None
    )


# --- checks ---------------------------------------------------------------------------------
def _not_failures_to_act_on(ctx: Ctx, event: ChecksCompleted, work: Work) -> Draft | None:
    """Why checks on the issue's branch change nothing: another pull request's, a closed one,
    an older head, a pass or no conclusion, a run held for approval, a closed issue."""
    if event.pull_request is not None and event.pull_request != work.pull_request:
        foreign = _foreign(ctx, event.pull_request)
        return Draft(Outcome.ignored, f"checks for {foreign}")
    if work.closed:
        return Draft(Outcome.ignored, f"pull request #{work.pull_request} is {work.closed}")
    head = event.head[:7]
    if event.head != work.head:
        return Draft(
            Outcome.ignored,
            f"checks on {head}, an older head: the branch is at {work.head[:7] or 'no commit'}",
        )
    conclusion = event.conclusion.lower()
    if conclusion == "success":
        return Draft(Outcome.ignored, f"checks passed on {head}")
    if conclusion not in FAILED_CONCLUSIONS:
        return Draft(
            Outcome.ignored, f"checks ended {conclusion or 'with no conclusion'} on {head}"
        )
    if ctx.facts.failing_checks == []:
        # GitHub holds the pull_request runs of a pull request GITHUB_TOKEN opened or updated
        # until a writer approves them; one never approved ends `failure` with no job run.
        return Draft(
            Outcome.ignored,
            f"{event.source} concluded {conclusion} on {head}, but no check run on it failed: "
            "no job ran (a run held for approval and never approved ends so), nothing to fix",
        )
    if _closed_issue(ctx):
        return Draft(Outcome.ignored, f"checks failed on {head}, but the issue is closed")
    return None


def _kept_for_later(
    ctx: Ctx, work: Work, head: str, failures: list[str], *, working: bool
) -> Draft:
    """Failures no route acts on now (an agent works, the issue waits for a human or is
    terminal, no route): kept for the next agent, once each."""
    wf = ctx.workflow
    known = {*work.failing_checks, *ctx.record.feedback}
    news = [failure for failure in failures if failure not in known]
    if not news:  # delivered again, or a second suite saying the same
        return Draft(Outcome.ignored, f"checks failed on {head}: the failures are known")
    kept = [*work.failing_checks, *news][-KEEP_FEEDBACK:]
    record = _with_work(seen(ctx), work.model_copy(update={"failing_checks": kept}))
    if working:
        why = f"the {wf.agent_of(ctx.state)} is working; the failures go to the next agent"
    elif wf.is_terminal(ctx.state):
        why = f"{ctx.state} is terminal (relabel the issue to resume)"
    elif _waits_for_a_human(ctx):
        why = "the issue waits for a human decision"
    else:
        why = "no route moves the issue"
    return Draft(Outcome.noted, f"checks failed on {head}; {why}", record=record)


def on_checks(ctx: Ctx, event: ChecksCompleted) -> Draft:
    """Failing checks on the branch head send the work to the route when no agent works on it;
    while one does, they wait for the next agent. Passing checks change nothing."""
    work = ctx.record.work
    if work is None or event.branch != work.branch:
        return Draft(Outcome.ignored, f"checks on {event.branch}, which is not the issue's branch")
    ignored = _not_failures_to_act_on(ctx, event, work)
    if ignored is not None:
        return ignored
    head = event.head[:7]
    # The check runs read name what failed; the payload (a workflow run's) names itself.
    failures = [
        clip(
            f"check {note.name} failed: {note.summary}"
            if note.summary
            else f"check {note.name} failed",
            NOTE,
        )
        for note in ctx.facts.failing_checks or event.failing
    ][:KEEP_FEEDBACK]
    wf = ctx.workflow
    target = wf.pull_request.checks_failed
    working = wf.spec(ctx.state).kind is StateKind.work and not ctx.record.held
    if (
        working
        or target is None
        or target == ctx.state
        or wf.is_terminal(ctx.state)
        or (_waits_for_a_human(ctx))
    ):
        return _kept_for_later(ctx, work, head, failures, working=working)
    breach = limit_breach(ctx, target)
    if breach:
        return escalate(ctx, breach, actor=event.actor.login, extra={"feedback": failures})
    moved = move(
        ctx,
        target,
        reason=f"checks failed on {head}",
        actor=event.actor.login,
        trigger="checks",
        feedback=failures,
        approval=None,
        work=work.model_copy(update={"failing_checks": []}),
    )
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: checks failed on {head}",
        record=moved,
        message=messages.checks_failed(event.head, failures, target),
        agent=agent_due(ctx, moved),
    )
