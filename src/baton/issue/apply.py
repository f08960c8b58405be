"""Carry out a Decision on a Tracker, in the order that survives a crash at any step.

0. a message a failed run could not post (the record written next forgets it);
1. the record (the memory) — so a run that dies later leaves labels the next run repairs;
2. the labels (a projection of the record) — only the difference is changed;
3. the one message for humans, and the reaction on the comment acted on;
4. duplicate record comments left by racing runs are removed (the oldest is kept);
5. the decision's check run (`post_check`), once the record that settled it is written: its
   failure is said, never raised, so the transition stands.
`writes_for` turns a Decision into the `Writes` of 0-4; the Tracker carries them out in one call
(GraphQL) or one per step. Dispatching the next agent is the caller's step, after all of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from baton.core.model.decision import Decision
from baton.core.model.issue_facts import IssueInfo
from baton.core.rules.labels import colour_of
from baton.errors import TrackerError
from baton.github.tracker import Checks, Issues, LabelChange, LabelSpec, Writes, Written
from baton.issue import record_comment
from baton.issue.load import Loaded
from baton.workflow.config import Policy, Settings
from baton.workflow.model import Workflow

DESCRIPTION_LIMIT = 100


@dataclass
class Applied:
    """What was written, for the log and the job summary."""

    steps: list[str] = field(default_factory=list)
    comment_id: int | None = None
    # The record comment as written (a hand-over binds to it); what was done is the rest.
    record_body: str | None = field(default=None, compare=False)
    check_url: str = ""  # the check run posted (`post_check`), its page
    check_problem: str | None = None  # why it could not be posted


def label_specs(workflow: Workflow, policy: Policy) -> dict[str, LabelSpec]:
    specs = {}
    for state, spec in workflow.states.items():
        colour = colour_of(state, spec.kind.value, spec.color)
        description = f"Baton: {spec.description or state}"
        if len(description) > DESCRIPTION_LIMIT:
            description = description[: DESCRIPTION_LIMIT - 1] + "…"
        name = workflow.label_for(state, policy.label_prefix)
        specs[name] = LabelSpec(name=name, color=colour.lower(), description=description)
    return specs


def tracker_labels(settings: Settings) -> tuple[str, ...]:
    """The labels a run may add, whose node ids the tracker's read looks up (so adding one
    costs nothing more): every workflow's status labels and the tasks' label."""
    workflows = (settings.workflow, *settings.workflows.values())
    names = [name for w in workflows for name in label_specs(w, settings.policy)]
    return (*names, settings.policy.epics.task_label)


def apply(
    decision: Decision,
    loaded: Loaded,
    issue: IssueInfo,
    tracker: Issues,
    workflow: Workflow,
    policy: Policy,
    *,
    secret: str | None = None,
) -> Applied:
    writes = writes_for(
        decision, loaded, issue, workflow, policy, secret=secret, written_at=tracker.clock()
    )
    written = tracker.write(writes)
    return _account(decision, loaded, issue, writes, written)


def post_check(decision: Decision, applied: Applied, tracker: Checks) -> None:
    """The decision's check run, after the record that settled it was written; once, as the
    decision is applied once (a re-run of the same report is stale and carries none). GitHub
    refusing it (a token without `checks: write`) or failing is said: the transition stands."""
    check = decision.check
    if check is None:
        return
    where = f"the check run {check.name!r} on {check.commit[:7]}"
    try:
        posted = tracker.create_check_run(check)
    except TrackerError as exc:
        applied.check_problem = f"could not post {where}: {exc}"
        applied.steps.append(applied.check_problem)
        return
    applied.check_url = posted.url
    applied.steps.append(f"posted {where} ({check.conclusion})")


def writes_for(
    decision: Decision,
    loaded: Loaded,
    issue: IssueInfo,
    workflow: Workflow,
    policy: Policy,
    *,
    secret: str | None = None,
    written_at: datetime | None = None,
) -> Writes:
    """The writes a decision needs, in the order that survives a crash at any step.
    `written_at`: when the record is written (the runner's clock by default)."""
    # A message a failed run could not post goes first: the record written next forgets it.
    lost = loaded.record.outbox if loaded.record and loaded.lost_message else None
    repost = None
    if lost is not None:
        note = "\n\n<sub>Re-posted: the run that wrote this could not post it.</sub>"
        repost = f"{record_comment.message_mark(lost.revision)}\n{lost.text}{note}"
    record = None
    if decision.record is not None:
        record = record_comment.render(
            decision.record,
            agent=workflow.agent_of(decision.record.state),
            secret=secret,
            written_at=written_at or datetime.now(UTC),
        )
    labels = None
    if decision.labels is not None:
        # On a move the new status label is always (re-)added: the payload's snapshot may show
        # it although another run removed it since; adding a label twice changes nothing.
        wanted_status = decision.record.state if decision.record else decision.state
        status = workflow.label_for(wanted_status, policy.label_prefix) if wanted_status else None
        moved = decision.state != decision.previous_state
        current = tuple(x for x in issue.labels if not (moved and x == status))
        # Likewise the label of the state the record was in is removed even if the snapshot
        # predates it (removing an absent label is harmless).
        if loaded.record is not None:
            before = workflow.label_for(loaded.record.state, policy.label_prefix)
            if before != status and before not in current:
                current = (*current, before)
        labels = LabelChange(current, decision.labels, label_specs(workflow, policy))
    message = None
    if decision.message:
        message = decision.message
        if decision.record is not None and decision.record.outbox is not None:
            mark = record_comment.message_mark(decision.record.revision, decision.event_id)
            # None when an earlier attempt at this event posted it, then failed to write its
            # record.
            message = None if loaded.has_posted(mark, message) else f"{mark}\n{message}"
    reaction = None
    if decision.reaction:
        reaction = (decision.reaction.comment_id, decision.reaction.content)
    return Writes(
        number=issue.number,
        repost=repost,
        record=record,
        record_comment=loaded.comment_id if record is not None else None,
        labels=labels,
        message=message,
        reaction=reaction,
        delete=loaded.duplicates,
        pull_request=decision.update_pull_request,
    )


def _account(
    decision: Decision, loaded: Loaded, issue: IssueInfo, writes: Writes, written: Written
) -> Applied:
    done = Applied(comment_id=written.record_comment or loaded.comment_id)
    if written.record_comment is not None:
        done.record_body = writes.record
    if written.reposted and loaded.record and loaded.record.outbox:
        done.steps.append(f"re-posted the message of revision {loaded.record.outbox.revision}")
    if written.record_gone is not None:
        done.steps.append(f"record comment {written.record_gone} was deleted")
    if decision.record is not None and written.record_comment is not None:
        if written.record_comment == writes.record_comment:
            done.steps.append(f"record updated (revision {decision.record.revision})")
        else:
            done.steps.append(f"record created (comment {written.record_comment})")
    if written.labels and decision.labels is not None:
        removed = [x for x in issue.labels if x not in decision.labels]
        added = [x for x in decision.labels if x not in issue.labels]
        done.steps.append(
            "labels: " + ", ".join([*(f"-{x}" for x in removed), *(f"+{x}" for x in added)])
        )
    if written.message_comment is not None:
        done.steps.append(f"message posted (comment {written.message_comment})")
    elif decision.message and writes.message is None:
        done.steps.append("message already on the issue (an earlier attempt posted it)")
    if decision.reaction:
        target = decision.reaction.comment_id
        if written.reacted:
            done.steps.append(f"reacted {decision.reaction.content} on {target}")
        elif written.reaction_problem:
            done.steps.append(f"could not react on {target}: {written.reaction_problem}")
    done.steps.extend(f"duplicate record comment {x} removed" for x in written.deleted)
    pull_request = decision.update_pull_request
    if pull_request is not None:
        what = f"pull request #{pull_request.number}" if pull_request.number else "pull request"
        if written.pull_request_updated:
            done.steps.append(
                f"{what} updated" + (", ready for review" if pull_request.ready else "")
            )
        elif written.pull_request_problem:
            done.steps.append(f"could not update the {what}: {written.pull_request_problem}")
    return done
