"""The one step that answers what `decide` asked (`Decision.asks`) with the Tracker, and hands
the answers back as `Facts` for `decide` to read again. It knows how to read each fact, never
when one is needed: that is `core/rules/asking.py`'s. The reads go to GitHub as one `Lookup`
(`Lookups.look_up`), and the epic's side after it (`issue/epic_facts.py`).

Each login is looked up once per run (the facts hold it); the repository's OWNER counts as
admin without a call (the one association that cannot misreport).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from baton.core.model.facts import Asks, Facts
from baton.core.model.issue_facts import IssueInfo
from baton.core.model.record import Record
from baton.github.tracker import LookedUp, Lookup, Tracker
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
    """`facts` with the answers to `asks`, each read once: one `look_up` for the pull
    request's reads, the breaker's count and the people, then the epic's side."""
    known = dict(facts.permissions)
    actor = asks.actor
    if actor is not None and actor.association == "OWNER":
        known.setdefault(actor.login, "admin")
    logins = list(dict.fromkeys(([actor.login] if actor is not None else []) + list(asks.authors)))
    teams = sorted(set(settings.policy.approvers.teams) | set(settings.policy.maintainers.teams))
    lookup = Lookup(
        permissions=tuple(login for login in logins if login not in known),
        memberships=tuple((team, actor.login) for team in teams) if actor is not None else (),
        lineage=asks.lineage,
        review_notes=asks.review_notes,
        failing_checks=asks.failing_checks,
        failing_issues=asks.failing_issues,
    )
    answer = tracker.look_up(lookup) if lookup != Lookup() else LookedUp()
    found: dict[str, Any] = {
        "lineage": answer.lineage,
        "review_notes": answer.review_notes,
        "failing_checks": answer.failing_checks,
        "failing_issues": answer.failing_issues,
    }
    if (ask := asks.failing_issues) is not None:
        notes.append(
            f"the repository breaker counts {answer.failing_issues} failing issue(s) since "
            f"{ask.since:%H:%M}"
        )
    if logins:
        found["permissions"] = {
            login: known.get(login) or answer.permissions[login] for login in logins
        }
    if actor is not None:
        found["teams"] = {
            actor.login: tuple(t for t in teams if (t, actor.login) in answer.members)
        }
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
    return facts.merged(**{k: v for k, v in found.items() if v is not None})
