"""Agent reports: a proposal the table allows, else the PM rules, else the retry ladder.

A report may come with the agent's changeset, as the run judged it (`Facts.changeset`): a
refused one is a failed attempt, a stale one (the branch moved under the agent) runs the agent
again on the new head, a valid one is committed first (the run commits, then decides again with
the commit's id), and the first commit opens the draft pull request the same way.
"""

from __future__ import annotations

from dataclasses import replace

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import CommitPlan, Outcome, PullRequestPlan
from baton.core.model.events import AgentReported
from baton.core.model.evidence import Evidence, Verdict
from baton.core.model.record import KEEP_FEEDBACK, LastReport, clip
from baton.core.model.work import ChangesetFacts, CommitMark
from baton.core.rules import proof
from baton.core.rules.context import (
    BATON,
    MAX_STALE_RUNS,
    STALE_NOTE,
    Ctx,
    Draft,
    agent_due,
    dispatch,
    escalate,
    escalation_message,
    limit_breach,
    move,
    retry,
    seen,
)
from baton.core.rules.pm_rules import facts_for, pick
from baton.core.rules.work_product import opening, work_of
from baton.core.text import markdown, messages
from baton.core.text.work import commit_message, first_line
from baton.workflow.model import ESCALATE, RETRY, StateKind

NOT_ADOPTED = 500  # characters of why a commit was not taken as Baton's


def on_report(ctx: Ctx, event: AgentReported) -> Draft:
    """An agent's report: a stale one is refused, a fresh one moves, retries or escalates."""
    wf, record = ctx.workflow, ctx.record
    spec = wf.spec(ctx.state)
    stale = None
    if event.state and event.state != ctx.state:
        stale = f"the report is for {event.state}, but the issue is in {ctx.state}"
    elif spec.kind is not StateKind.work or record.held:
        stale = f"{ctx.state} is not waiting on an agent"
    elif event.agent and event.agent != spec.agent:
        stale = f"the report is from {event.agent}, but {ctx.state} belongs to {spec.agent}"
    elif event.nonce and (record.dispatch is None or record.dispatch.nonce != event.nonce):
        stale = _another_attempt(ctx, event.nonce)
    if stale:
        # Remembered, so the same report delivered again later can never apply to a new state.
        # A commit this run already made (the issue moved meanwhile) is remembered too: it is
        # on the branch, and the record must know it, or a re-run would look for it again.
        # So is the pull request it opened for that commit, or GitHub would hold an open pull
        # request from the issue's branch that the record does not know (and whose reviews
        # would steer nothing).
        changes = ctx.facts.changeset
        committed = changes is not None and changes.status == "committed"
        if committed:
            ctx = _with_changeset(ctx, event, event.agent or spec.agent or "agent")
        refused = Draft(Outcome.refused, f"stale report: {stale}", record=seen(ctx))
        return _pull_request(ctx, event, refused) if ctx.facts.opened is not None else refused
    agent = spec.agent or "agent"
    changes = ctx.facts.changeset
    runs = record.work.stale_runs if record.work is not None else 0
    ctx = _with_changeset(ctx, event, agent)
    if changes is not None and changes.status == "stale":
        # A pull request GitHub opened with the failed first commit is recorded all the same.
        return _pull_request(ctx, event, _stale(ctx, changes, agent))
    if event.result is None:
        why = event.error or "the agent returned no result"
        return retry(ctx, f"the {agent}'s result was invalid", [why], actor=agent)
    result = event.result
    feedback = [*result.issues_found] or ([result.summary] if result.summary else [])
    report = LastReport(
        agent=agent,
        state=ctx.state,
        status=result.status.value,
        confidence=result.confidence,
        summary=clip(result.summary, 1500),
        at=ctx.now,
    )
    ctx = replace(ctx, record=ctx.record.model_copy(update={"last_report": report}))
    if changes is not None and changes.status == "refused":
        return _pull_request(ctx, event, _refused(ctx, changes, agent))
    kind = proof.proof_of(wf, ctx.policy, ctx.state)
    if kind is not None:
        return _pull_request(ctx, event, _settled(ctx, event, result, agent, kind, runs))
    if changes is not None and changes.status == "ok":
        if wf.changes_code(ctx.state):
            return _commit_first(ctx, changes, result, agent)
        draft = _on_result(ctx, result, agent, feedback)
        why = f"the changeset was not committed: {ctx.state} does not change code"
        return replace(draft, reason=f"{draft.reason}; {why}")
    return _pull_request(ctx, event, _on_result(ctx, result, agent, feedback))


def _another_attempt(ctx: Ctx, nonce: str) -> str:
    """Why a report naming `nonce` is not for the run Baton waits on: a late run (a dispatch
    GitHub started twice, a re-run of an old run) reporting on a newer attempt."""
    pending = ctx.record.dispatch
    if pending is None:
        return f"the report is for run {nonce}, but no agent run is pending in {ctx.state}"
    return (
        f"the report is for run {nonce}, but {ctx.state} waits on attempt {pending.attempt} "
        f"of the {pending.agent} (run {pending.nonce})"
    )


def _settled(
    ctx: Ctx,
    event: AgentReported,
    result: AgentResult,
    agent: str,
    kind: proof.Proof,
    runs: int,
) -> Draft:
    """A `proof` state's report, settled by the evidence beside it (`core/rules/proof.py`):
    none is a failed attempt, stale runs the agent again, a changeset is committed first, and
    the verdict picks the edge through the state's rules, with the check run to post."""
    why = proof.missing(event)
    if why:
        return retry(ctx, why, [why], actor=agent)
    why = proof.stale(ctx.record, event, ctx.facts.changeset)
    if why:
        return proof.rerun(ctx, why, agent, runs)
    changes = ctx.facts.changeset
    if changes is not None and changes.status == "ok" and ctx.workflow.changes_code(ctx.state):
        return _commit_first(ctx, changes, result, agent)
    judged = proof.verdict_of(ctx.record, event, ctx.facts.changeset)
    ctx = replace(ctx, record=proof.recorded(ctx.record, judged, kind, ctx.now))
    ruled = proof.as_result(result, judged)
    draft = _on_result(ctx, ruled, agent, list(ruled.issues_found), judged=judged)
    pending = ctx.record.dispatch
    nonce = event.nonce or (pending.nonce if pending is not None else "")
    moved = draft.record
    signing = moved is not None and proof.signs_off(ctx.workflow, ctx.policy, moved.state)
    # Entering a sign-off, the red proof in the request says it all; elsewhere a note.
    message = (
        draft.message if signing else messages.join(proof.note(ctx.state, judged), draft.message)
    )
    return replace(draft, check=proof.check(judged, nonce), message=message)


def _on_result(
    ctx: Ctx,
    result: AgentResult,
    agent: str,
    feedback: list[str],
    *,
    judged: proof.Judged | None = None,
) -> Draft:
    """Where the result leads: its proposal if the table allows it, else the PM rules (in a
    proof state, the verdict of the evidence `judged` is one of their facts)."""
    wf = ctx.workflow
    verdict: Verdict | None = judged.verdict if judged is not None else None
    evidence: Evidence | None = judged.evidence if judged is not None else None
    if result.next_state is not None and verdict is None:
        proposed = result.next_state
        if wf.allows(ctx.state, proposed):
            return _advance(ctx, proposed, f"proposed by the {agent}", result, agent)
        allowed = ", ".join(wf.targets(ctx.state)) or "none"
        why = f"the {agent} proposed {proposed}, which {ctx.state} cannot move to"
        return retry(ctx, why, [f"{why} (allowed: {allowed})", *feedback], actor=agent)
    rule = pick(wf.rules.get(ctx.state, []), facts_for(ctx.record, result, verdict))
    if rule is None:
        if verdict is not None:
            why = f"no rule of {ctx.state} matches a {verdict} verdict"
            return retry(ctx, why, [why, *feedback], actor=agent)
        why = f"no PM rule of {ctx.state} matches a {result.status.value} result"
        return retry(ctx, why, [f"{why}; propose next_state", *feedback], actor=agent)
    why = rule.why or f"rule to {rule.to}"
    if rule.to == RETRY:
        return retry(ctx, why, feedback, actor=agent)
    if rule.to == ESCALATE:
        return escalate(ctx, why, actor=agent)
    return _advance(ctx, rule.to, why, result, agent, evidence=evidence)


def _advance(
    ctx: Ctx,
    target: str,
    why: str,
    result: AgentResult,
    agent: str,
    *,
    evidence: Evidence | None = None,
) -> Draft:
    """Move where the report leads if the gate and the limits allow, with the message to post."""
    wf = ctx.workflow
    if wf.spec(target).requires_approval and not facts_for(ctx.record, result).approved:
        gates = [s for s, spec in wf.states.items() if spec.approval and wf.allows(ctx.state, s)]
        ask = f"; propose {', '.join(gates)} to ask for it" if gates else ""
        why = f"{target} needs a human approval first, and none was given"
        return retry(ctx, why, [why + ask], actor=agent)
    breach = limit_breach(ctx, target)
    if breach:
        return escalate(ctx, breach, actor=BATON)
    record = ctx.record
    questions = list(result.questions) or list(record.open_questions)
    spec = wf.spec(target)
    # A relay state (a PM routing the work) hands on what it was given; any other agent has
    # consumed the feedback and the human input meant for it.
    relay = wf.spec(ctx.state).relay
    feedback = [clip(f, 500) for f in result.issues_found][:KEEP_FEEDBACK]
    if relay and not feedback:
        feedback = list(record.feedback)
    work = record.work
    if work is not None and work.failing_checks:
        # Checks that failed while this agent worked go to the next one.
        feedback = [*feedback, *work.failing_checks][:KEEP_FEEDBACK]
        work = work.model_copy(update={"failing_checks": []})
    moved = move(
        ctx,
        target,
        reason=f"{why} ({result.status.value}, confidence {result.confidence:.2f})",
        actor=agent,
        trigger="report",
        feedback=feedback,
        open_questions=[clip(q, 500) for q in questions][:KEEP_FEEDBACK],
        pending_input=list(record.pending_input) if relay else [],
        approval=None,  # an approval never carries over past the agent that acted on it
        work=work,
    )
    message = None
    if target == wf.escalation.state:
        moved = moved.model_copy(update={"escalated_from": ctx.state})
        message = escalation_message(ctx, why, moved_to=target)
    elif spec.kind is StateKind.waiting:
        if spec.reply and not spec.approval:
            message = messages.questions(target, agent, result.summary, questions)
        else:
            work = moved.work
            message = messages.approval_request(
                target,
                result.summary,
                ctx.policy,
                replies_allowed=spec.reply is not None,
                pull_request=work.pull_request if work and work.open_pull_request else None,
            )
            if proof.signs_off(wf, ctx.policy, target):
                message = messages.join(message, proof.red_message(moved, evidence))
    elif spec.kind is StateKind.terminal:
        message = messages.finished(target, result.summary)
    return Draft(
        Outcome.transition,
        f"{ctx.state} → {target}: {why}",
        record=moved,
        message=message,
        agent=agent_due(ctx, moved),
    )


# --- the changeset ------------------------------------------------------------------------
def _with_changeset(ctx: Ctx, event: AgentReported, agent: str) -> Ctx:
    """The record knowing the commit the report's changeset became (once, however often the
    report is decided), and counting stale runs only while they come in a row."""
    changes = ctx.facts.changeset
    record = ctx.record
    if changes is None or changes.status == "stale":
        return ctx
    work = record.work
    if changes.status == "committed" and changes.oid and changes.digest:
        summary = event.result.summary if event.result else ""
        mark = CommitMark(
            digest=changes.digest,
            oid=changes.oid,
            agent=agent,
            state=ctx.state,
            attempt=record.attempt,
            files=changes.files,
            at=ctx.now,
            summary=first_line(summary, 200),
        )
        work = work_of(record, ctx.policy).with_commit(mark)
    if work is not None and work.stale_runs:
        work = work.model_copy(update={"stale_runs": 0})
    if work is record.work:
        return ctx
    return replace(ctx, record=record.model_copy(update={"work": work}))


def _stale(ctx: Ctx, changes: ChangesetFacts, agent: str) -> Draft:
    """The branch moved while the agent worked: nothing was written, and the agent runs again
    on the new head with the same attempt (the move was no fault of its own). Stale runs in a
    row are counted, so a branch that keeps moving reaches a human instead of looping."""
    record = ctx.record
    work = work_of(record, ctx.policy)
    base, head = changes.base[:7] or "?", changes.head[:7] or "?"
    why = f"{work.branch} moved from {base} to {head} while the {agent} worked"
    if work.stale_runs >= MAX_STALE_RUNS:
        return escalate(
            ctx,
            f"{why}, {work.stale_runs + 1} times in a row; its changes were never committed",
            actor=BATON,
        )
    note = (
        f"{STALE_NOTE}{work.branch} moved from {base} to {head} while you worked. Do the work "
        "again on the new head; this run does not count as a failed attempt."
    )
    kept = [f for f in record.feedback if not f.startswith(STALE_NOTE)]
    state_agent = ctx.workflow.agent_of(ctx.state)
    # A head commit that claimed these changes and was not adopted is said on the issue: a
    # human should know who pushed it, and Baton never lists it as its own.
    message = not_adopted(work.branch, changes.problems[0]) if changes.problems else None
    updated = seen(ctx).model_copy(
        update={
            "work": work.model_copy(update={"stale_runs": work.stale_runs + 1}),
            "feedback": [note, *kept][:KEEP_FEEDBACK],
            "dispatch": dispatch(ctx, state_agent, ctx.state, record.attempt),
        }
    )
    return Draft(
        Outcome.retry,
        f"stale changeset: {why}; the {agent} runs again on {head} "
        f"(attempt {record.attempt}, not counted)",
        record=updated,
        message=message,
        agent=agent_due(ctx, updated),
    )


def not_adopted(branch: str, why: str) -> str:
    """A commit at the head of the issue's branch named the agent's changes in Baton's
    trailer, and is not provably Baton's: not adopted, and the agent runs again on it."""
    return messages.sign(
        [
            f"### ⚠️ A commit on {markdown.code(branch)} was not taken as Baton's",
            "",
            f"{markdown.clip(markdown.escape(why), NOT_ADOPTED)}",
            "",
            "Baton lists only commits it made itself. The agent runs again on the branch as it "
            "is now; if that commit should not be there, remove it from the branch.",
        ]
    )


def _refused(ctx: Ctx, changes: ChangesetFacts, agent: str) -> Draft:
    """A changeset that failed Baton's checks: nothing is written, the attempt failed, and the
    agent is told why when it runs again."""
    problems = list(changes.problems) or ["the changeset was refused"]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    why = f"the {agent}'s changes were refused: {problems[0]}{more}"
    feedback = [f"Your changes were refused and nothing was committed: {p}" for p in problems]
    draft = retry(ctx, why, feedback, actor=agent)
    branch = work_of(ctx.record, ctx.policy).branch
    refusal = messages.changes_refused(agent, branch, problems)
    return replace(draft, message=messages.join(refusal, draft.message))


def _commit_first(ctx: Ctx, changes: ChangesetFacts, result: AgentResult, agent: str) -> Draft:
    """A valid changeset on the branch head is committed before the report is decided: the run
    commits it and decides again with the commit (`committed`), which nothing here writes."""
    record = ctx.record
    branch = work_of(record, ctx.policy).branch
    headline, body = commit_message(
        issue=record.issue,
        agent=agent,
        state=ctx.state,
        attempt=record.attempt,
        summary=result.summary,
        digest=changes.digest,
    )
    plan = CommitPlan(
        branch=branch,
        digest=changes.digest,
        expected_head=changes.base,
        headline=headline,
        body=body,
    )
    return Draft(
        Outcome.noted,
        f"the {agent}'s changes ({changes.files} files) are committed to {branch} first; "
        "the report is decided then",
        commit=plan,
        open_pull_request=_opened_with(ctx),
    )


def _opened_with(ctx: Ctx) -> PullRequestPlan | None:
    """The draft pull request a commit opens in the same request: at the first commit, as
    `_pull_request` would open it after (its body is brought up to date with the record)."""
    work = work_of(ctx.record, ctx.policy)
    if work.open_pull_request or not ctx.policy.work.pull_request:
        return None
    if ctx.workflow.role == "task":
        return None  # a task's work merges into its epic's branch, whose pull request shows it
    return opening(ctx, work, ctx.record.tests)


def _pull_request(ctx: Ctx, event: AgentReported, draft: Draft) -> Draft:
    """The pull request after a report: the one this run opened (or why it could not) is
    recorded; with commits and none open, one is opened at a commit or on entering the ready
    state (the run opens it, then decides again)."""
    record = draft.record
    if record is None or record.work is None:
        return draft
    work = record.work
    opened = ctx.facts.opened
    if opened is not None:
        if opened.number is not None:
            same = work.pull_request == opened.number
            work = work.model_copy(
                update={
                    "pull_request": opened.number,
                    "pull_request_id": opened.node_id,
                    "problem": None,
                    "closed": None,
                    "ready": work.ready and same,
                }
            )
            return replace(draft, record=record.model_copy(update={"work": work}))
        problem = clip(opened.problem or "GitHub gave no reason", 500)
        message = draft.message
        if problem != work.problem:  # said once, not at every commit while it lasts
            message = messages.join(message, messages.pull_request_refused(work.branch, problem))
        work = work.model_copy(update={"problem": problem})
        return replace(draft, record=record.model_copy(update={"work": work}), message=message)
    if work.open_pull_request or not work.commits or not ctx.policy.work.pull_request:
        return draft
    if ctx.workflow.role == "task":
        return draft  # a task's work merges into its epic's branch, whose pull request shows it
    changes = ctx.facts.changeset
    committed = changes is not None and changes.status == "committed"
    ready = ctx.workflow.pull_request.ready
    entering_ready = record.state == ready and ctx.state != ready
    if not (committed or entering_ready):
        return draft
    return replace(draft, open_pull_request=opening(ctx, work, record.tests))
