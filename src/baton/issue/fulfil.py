"""The one step that answers what `decide` asked (`Decision.asks`) with the Tracker, and hands
the answers back as `Facts` for `decide` to read again. It knows how to read each fact, never
when one is needed: that is `core/rules/asking.py`'s.

Each login is looked up once per run (the facts hold it); the repository's OWNER counts as
admin without a call (the one association that cannot misreport).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from baton.core.model.facts import Asks, Facts
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import Record
from baton.github.tracker import Tracker
from baton.issue import epic_facts
from baton.workflow.config import Settings


@dataclass(frozen=True)
class Asked:
    """What the answers are read for: the issue's record and the issue as this run read them."""

    record: Record | None
    issue: IssueInfo
    now: datetime
    secret: str | None = None


def fulfil(
    asks: Asks,
    facts: Facts,
    asked: Asked,
    tracker: Tracker,
    settings: Settings,
    notes: list[str],
) -> Facts:
    """`facts` with the answers to `asks`, each read once."""
    found: dict[str, Any] = {}
    if asks.lineage is not None:
        found["lineage"] = tracker.lineage(*asks.lineage)
    if asks.review_notes is not None:
        found["review_notes"] = tracker.review_notes(*asks.review_notes)
    if asks.failing_checks is not None:
        found["failing_checks"] = tracker.failing_checks(asks.failing_checks)
    if asks.tasks:
        assert asked.record is not None
        found["tasks"] = epic_facts.observe(
            asked.record, tracker, settings, now=asked.now, secret=asked.secret
        )
    if asks.order:
        order = epic_facts.order_for(
            asked.record, asked.issue, tracker, settings, now=asked.now, secret=asked.secret
        )
        if order is None:
            found["orderless"] = True
        else:
            found["order"] = order
    if asks.failing_issues is not None:
        ask = asks.failing_issues
        count = tracker.failing_issues(ask.label, ask.since, ask.threshold)
        notes.append(
            f"the repository breaker counts {count} failing issue(s) since {ask.since:%H:%M}"
        )
        found["failing_issues"] = count
    facts = facts.merged(**found)
    if asks.actor is not None:
        facts = _identify(asks.actor, facts, tracker, settings)
    for login in asks.authors:
        facts = facts.merged(permissions={login: _permission(login, facts, tracker)})
    return facts


def _permission(login: str, facts: Facts, tracker: Tracker) -> str:
    known = facts.permissions.get(login)
    return known if known is not None else tracker.permission(login)


def _identify(actor: Actor, facts: Facts, tracker: Tracker, settings: Settings) -> Facts:
    """The actor's permission and the policy's teams they are an active member of."""
    login = actor.login
    if actor.association == "OWNER" and login not in facts.permissions:
        facts = facts.merged(permissions={login: "admin"})
    permission = _permission(login, facts, tracker)
    policy = settings.policy
    teams = sorted(set(policy.approvers.teams) | set(policy.maintainers.teams))
    member_of = tuple(t for t in teams if tracker.is_team_member(t, login))
    return facts.merged(permissions={login: permission}, teams={login: member_of})
