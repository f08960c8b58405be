"""One run on one issue: read what GitHub holds, decide, write back, chain the next agent.

Shared by `baton run` (events), `baton report` (agent hand-back), `baton sweep` (schedule),
`baton demo` and `baton simulate`, so every path goes through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from baton.apply import Applied, apply
from baton.commands import parse_command
from baton.config import Settings
from baton.decision import Decision, Outcome
from baton.engine import decide
from baton.events import Actor, Commented, Event, Labeled, Tick, tick
from baton.record_load import Loaded, load
from baton.relevance import why_irrelevant
from baton.tracker import DispatchTarget, Tracker


@dataclass
class RunResult:
    decision: Decision
    loaded: Loaded
    applied: Applied | None = None
    dispatched: bool = False
    notes: list[str] = field(default_factory=list)


def _needs_permission(event: Event, loaded: Loaded, settings: Settings) -> bool:
    """Look the actor up only when the decision may turn on who they are."""
    if event.actor.is_bot or event.actor.permission is not None:
        return False
    if isinstance(event, Labeled):
        return True
    if not isinstance(event, Commented):
        return event.kind == "issue"  # a reopen needs a maintainer
    if parse_command(event.body, settings.policy.approval_words):
        return True
    record = loaded.record
    if record is None or not settings.workflow.is_waiting(record.state):
        return False
    policy = settings.policy
    if policy.answerers == "anyone":
        return False
    return not (
        policy.answerers == "author-or-approvers" and event.actor.login == event.issue.author
    )


def _with_identity(event: Event, loaded: Loaded, tracker: Tracker, settings: Settings) -> Event:
    if not _needs_permission(event, loaded, settings):
        return event
    actor = event.actor
    # OWNER is the one association that cannot misreport; everything else asks the API.
    permission = "admin" if actor.association == "OWNER" else tracker.permission(actor.login)
    policy = settings.policy
    teams = sorted(set(policy.approvers.teams) | set(policy.maintainers.teams))
    member_of = tuple(t for t in teams if tracker.is_team_member(t, actor.login)) if teams else ()
    enriched = Actor(
        login=actor.login,
        is_bot=actor.is_bot,
        association=actor.association,
        permission=permission,
        teams=member_of,
    )
    return event.model_copy(update={"actor": enriched})


def handle(
    event: Event,
    tracker: Tracker,
    settings: Settings,
    *,
    chain: DispatchTarget | None = None,
    dry_run: bool = False,
    secret: str | None = None,
) -> RunResult:
    """Decide and apply one event; with `chain`, start the next agent's run by dispatch."""
    reason = why_irrelevant(event, settings.workflow, settings.policy)
    if reason is not None:
        ignored = Decision(
            outcome=Outcome.ignored,
            issue=event.issue.number,
            reason=f"{reason} (no API call)",
            event=event.kind,
        )
        return RunResult(decision=ignored, loaded=Loaded(record=None))
    issue = event.issue
    if issue.partial:
        issue = tracker.issue(issue.number)
        event = event.model_copy(update={"issue": issue})
    comments = tracker.comments(issue.number)
    loaded = load(
        issue.number,
        issue.labels,
        comments,
        settings.workflow,
        settings.policy,
        now=event.at,
        secret=secret,
    )
    event = _with_identity(event, loaded, tracker, settings)
    decision = decide(loaded.record, event, settings.workflow, settings.policy)
    result = RunResult(decision=decision, loaded=loaded)
    if dry_run:
        result.notes.append("dry run: nothing was written")
        return result
    result.applied = apply(
        decision, loaded, issue, tracker, settings.workflow, settings.policy, secret=secret
    )
    if chain is not None and decision.agent:
        tracker.dispatch(chain, {"issue": str(issue.number)})
        result.dispatched = True
    return result


@dataclass
class SweepResult:
    results: list[RunResult] = field(default_factory=list)
    scanned: int = 0
    calls: int = 0
    next_page: int | None = None


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
    """Act on timeouts and silent agents across open issues, within a budget of API calls."""
    budget = budget or settings.policy.sweep_budget
    out = SweepResult()
    page: int | None = start_page
    prefix = settings.policy.label_prefix.casefold()
    while page is not None and out.calls < budget:
        issues, next_page = tracker.open_issues(page)
        out.calls += 1
        for info in issues:
            if not any(label.casefold().startswith(prefix) for label in info.labels):
                continue
            if out.calls + 3 > budget:  # comments + a possible write + dispatch
                out.next_page = page
                return out
            event: Tick = tick(info.number, now).model_copy(update={"issue": info})
            result = handle(event, tracker, settings, chain=chain, dry_run=dry_run, secret=secret)
            out.calls += 1 + (len(result.applied.steps) if result.applied else 0)
            out.calls += int(result.dispatched)
            out.scanned += 1
            out.results.append(result)
        page = next_page
    out.next_page = page
    return out
