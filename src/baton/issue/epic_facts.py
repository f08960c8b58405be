"""What an epic's or a task's run reads of the other side before deciding.

An epic's conductor looks up its sub-issues (their status labels, one query) and then the
records of the tasks not yet finished (one query for a handful), as `TaskObservation`s. A task
waiting for its epic (`pending`, `blocked`, or its first run) reads its epic's record for its
order. Both are facts (`Facts.tasks`, `Facts.order`), read when `decide` asks for them
(`issue/fulfil.py`), so `decide` stays pure; a run that already holds them (deciding again after
GitHub work) reads nothing twice.
"""

from __future__ import annotations

from datetime import datetime

from baton.core.model.epic import ACTIVE, TaskObservation, TaskOrder, TaskStatus, status_of
from baton.core.model.issue_facts import IssueInfo
from baton.core.model.record import Record
from baton.core.rules.epic import asks
from baton.core.text import task_marker as marker
from baton.github.tracker import Lookup, SubIssue, Tracker
from baton.issue.load import load
from baton.workflow.config import Settings


def _status(sub: SubIssue, settings: Settings) -> TaskStatus | None:
    tasks = settings.workflows.get(settings.policy.epics.task_workflow)
    if tasks is None:
        return None
    found = {
        state
        for label in sub.labels
        if (state := tasks.state_for_label(label, settings.policy.label_prefix)) is not None
    }
    if len(found) != 1:
        return None
    return status_of(tasks, found.pop())


def observe(
    record: Record,
    tracker: Tracker,
    settings: Settings,
    *,
    now: datetime,
    secret: str | None = None,
) -> list[TaskObservation]:
    """The epic's tasks as GitHub holds them now."""
    assert record.epic is not None
    planned = {t.number: t for t in record.epic.tasks if t.number is not None}
    listed = tracker.look_up(Lookup(sub_issues=record.issue)).sub_issues or []
    subs = [s for s in listed if s.number in planned]
    unfinished = tuple(
        s.number
        for s in subs
        if s.open and asks.unfinished(planned[s.number].status, _status(s, settings))
    )
    snapshots = tracker.look_up(Lookup(snapshots=unfinished)).snapshots if unfinished else {}
    task_workflow = settings.workflows.get(settings.policy.epics.task_workflow)
    observations = []
    for sub in subs:
        status = _status(sub, settings)
        link = spend = None
        attempt = 0
        snapshot = snapshots.get(sub.number)
        if snapshot is not None and task_workflow is not None:
            loaded = load(
                sub.number,
                sub.labels,
                snapshot.comments,
                task_workflow,
                settings.policy,
                now=now,
                secret=secret,
            )
            if loaded.record is not None and loaded.record.task is not None:
                link = loaded.record.task
                # The record is the memory, the label a projection that may lag it (a run that
                # died between the two, a relabel whose own run has not come): trust the record.
                status = status_of(task_workflow, loaded.record.state) or status
                spend = loaded.record.spend
                # Attempts: each one ended in a verdict (a failure or the success), and the one
                # under way; a human's /retry does not start the count again.
                under_way = status_of(task_workflow, loaded.record.state) in ACTIVE
                attempt = link.failures + link.successes + (1 if under_way else 0)
        observations.append(
            TaskObservation(
                number=sub.number,
                open=sub.open,
                status=status,
                link=link,
                spend=spend,
                attempt=attempt,
            )
        )
    return observations


def order_for(
    record: Record | None,
    issue: IssueInfo,
    tracker: Tracker,
    settings: Settings,
    *,
    now: datetime,
    secret: str | None = None,
) -> TaskOrder | None:
    """The task's order in its epic's record; None when the task is no epic's we know."""
    if record is not None and record.task is not None:
        epic_number, key = record.task.epic, record.task.key
    else:
        bot = settings.policy.bot_login.casefold()
        mark = marker.read(issue.body) if issue.author.casefold() == bot else None
        if mark is None:
            return None
        epic_number, key = mark
    epic_workflow = settings.workflows.get(settings.policy.epics.workflow)
    if epic_workflow is None:
        return None
    snapshot = tracker.read(epic_number, with_issue=False)
    loaded = load(
        epic_number,
        (),
        snapshot.comments,
        epic_workflow,
        settings.policy,
        now=now,
        secret=secret,
    )
    epic_record = loaded.record
    if epic_record is None or epic_record.epic is None:
        return None
    epic = epic_record.epic
    task = epic.by_number(issue.number)
    known = task is not None and task.key == key and task.replaced_by is None
    return TaskOrder(
        epic=epic_number,
        key=key,
        epic_state=epic_record.state,
        known=known,
        starts=task.starts if task is not None else 0,
        block=task.block if task is not None else False,
        base_branch=epic.branch,
    )
