"""The scheduled sweep: timeouts, silent agents, missed comments and drift, on a budget.

It pages through open issues least recently updated first and reads an issue only when
something can be due there, judged from the listing alone: a waiting state older than its
timeout, a work state whose agent may have gone silent, recent activity on a state that waits
for a human (a comment whose own run was cancelled), or labels that disagree. Issues it acts on
are updated and move to the back of the queue, so a sweep that runs out of budget resumes next
time with the issues that waited longest.

A trigger label left on an issue Baton never took in (its run failed, or it was added while
Baton could not run) is nothing the engine can act on from a tick: the sweep cannot know who
added it, so it cannot enter the issue. Once the label's own run has had time to come, the
sweep takes the label off with a note saying so — once, instead of reading the issue every hour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from baton.core.model.decision import Decision, Outcome
from baton.core.model.events import Tick, tick
from baton.core.model.issue_facts import IssueInfo
from baton.core.rules import due
from baton.core.rules.labels import is_trigger
from baton.core.text import markdown
from baton.core.text.messages import SIGNATURE
from baton.dashboard.publish import Published, build, publish
from baton.errors import TrackerError
from baton.github.tracker import Board, DispatchTarget, Tracker, request_count
from baton.issue.apply import apply
from baton.run import RunResult, handle
from baton.workflow.config import Settings

CALLS_PER_ISSUE = 4  # the most one issue can cost: read, check, write, dispatch


@dataclass
class SweepResult:
    results: list[RunResult] = field(default_factory=list)
    listed: int = 0
    scanned: int = 0
    calls: int = 0
    next_page: int | None = None


def due_reason(info: IssueInfo, now: datetime, settings: Settings) -> str | None:
    """Why this issue is worth reading now, from its labels and last update (`core/rules/due`,
    with the issue's own machine: an epic's or a task's); None: skip it."""
    settings = settings.for_labels(info.labels)
    idle = now - info.updated_at if info.updated_at else None
    return due.due_reason(info.labels, idle, settings.workflow, settings.policy)


def _trigger(info: IssueInfo, settings: Settings) -> str | None:
    trigger = settings.policy.trigger_label
    return next((label for label in info.labels if is_trigger(label, trigger)), None)


def stale_trigger_note(label: str) -> str:
    return "\n".join(
        [
            f"The {markdown.code(label)} label was on this issue, but no run of Baton took the "
            "issue in: the run that adding it started may have failed, or it was added while "
            "Baton could not run. So I removed it.",
            "",
            "A maintainer can add it again to start Baton on this issue.",
            "",
            SIGNATURE,
        ]
    )


def _clear_stale_trigger(
    info: IssueInfo,
    result: RunResult,
    tracker: Tracker,
    settings: Settings,
    *,
    dry_run: bool,
    secret: str | None,
) -> RunResult:
    """Take a leftover trigger label off an issue outside the workflow, with a note; any other
    result is returned as it is. With a record, the engine's own label repair removes it."""
    label = _trigger(info, settings)
    if label is None or result.loaded.record is not None:
        return result
    if result.decision.outcome is not Outcome.ignored:
        return result
    decision = Decision(
        outcome=Outcome.noted,
        issue=info.number,
        reason=f"removed the trigger label {label!r}: no run took the issue in",
        labels=tuple(x for x in info.labels if x != label),
        message=stale_trigger_note(label),
        event="tick",
    )
    cleared = RunResult(decision=decision, loaded=result.loaded, notes=list(result.notes))
    if dry_run:
        cleared.notes.append("dry run: nothing was written")
        return cleared
    workflow, policy = settings.workflow, settings.policy
    cleared.applied = apply(decision, result.loaded, info, tracker, workflow, policy, secret=secret)
    return cleared


def _spent(tracker: Tracker, start: int) -> int:
    return (request_count(tracker) or 0) - start


def sweep(
    tracker: Tracker,
    settings: Settings,
    *,
    now: datetime,
    chain: DispatchTarget | None,
    start_page: int = 1,
    budget: int | None = None,
    dry_run: bool = False,
    secret: str | None = None,
) -> SweepResult:
    """One pass over open issues within a budget of API calls."""
    budget = budget or settings.policy.sweep_budget
    out = SweepResult()
    start = request_count(tracker) or 0
    page: int | None = start_page
    while page is not None:
        if _spent(tracker, start) + 1 > budget:
            break
        issues, next_page = tracker.open_issues(page)
        out.listed += len(issues)
        for info in issues:
            if due_reason(info, now, settings) is None:
                continue
            if _spent(tracker, start) + CALLS_PER_ISSUE > budget:
                out.next_page = page
                out.calls = _spent(tracker, start)
                return out
            event: Tick = tick(info.number, now).model_copy(update={"issue": info})
            result = handle(event, tracker, settings, chain=chain, dry_run=dry_run, secret=secret)
            result = _clear_stale_trigger(
                info, result, tracker, settings, dry_run=dry_run, secret=secret
            )
            out.scanned += 1
            out.results.append(result)
        page = next_page
    out.next_page = page
    out.calls = _spent(tracker, start)
    return out


@dataclass
class Refreshed:
    page: str
    published: Published


def refresh_dashboard(
    tracker: Board, settings: Settings, *, now: datetime, secret: str | None, dry_run: bool
) -> Refreshed | None:
    """After the sweep, the pinned dashboard brought up to date when the config's `dashboard`
    asks for it (off by default: then no call). GitHub failing it fails no sweep: the previous
    page stays, and the log says why."""
    wanted = settings.config.dashboard
    if not wanted.pinned:
        return None
    try:
        built = build(tracker, settings, now=now, window=wanted.window, secret=secret)
    except TrackerError as exc:
        return Refreshed("", Published(problem=f"the dashboard was not refreshed: {exc}"))
    if dry_run:
        return Refreshed(built.page, Published(log=["dry run: the dashboard was not written"]))
    return Refreshed(built.page, publish(tracker, built.page, built.collected.page_issue))
