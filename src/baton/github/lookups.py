"""`Lookups.look_up`: the reads a decision asks for, answered part by part with the separate
reads a tracker's role modules make (`github.issues`, `github.pulls`, `github.sub_issues`), so
one `Lookup` costs exactly the round trips those reads cost: one
REST call per login's permission, per team membership, per compare, per review's notes, per
head's checks and for the breaker's count; one GraphQL query for an epic's sub-issues and one
document for a handful of issues' comments. Nothing asked, nothing read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from baton.core.model.events import CheckNote, Lineage, ReviewNote
from baton.github.role_data import LookedUp, Lookup, Snapshot, SubIssue


class Reads(Protocol):
    """The separate reads a tracker makes, one GitHub read each (not a role of the Tracker:
    the loop asks for them as one `Lookup`)."""

    def permission(self, login: str) -> str:
        """The login's repository permission: admin, maintain, write, triage, read or none."""
        ...

    def is_team_member(self, team: str, login: str) -> bool:
        """Whether login is an active member of `org/team-slug`."""
        ...

    def lineage(self, base: str, commit: str) -> Lineage:
        """Commit `commit` against commit `base` (REST compare `base...commit`)."""
        ...

    def review_notes(self, pull_request: int, review_id: int) -> list[ReviewNote]:
        """The inline comments of one review."""
        ...

    def failing_checks(self, head: str) -> list[CheckNote]:
        """The check runs on commit `head` that failed, with the first lines of their output."""
        ...

    def sub_issues(self, number: int) -> list[SubIssue]:
        """The sub-issues of `number` in GitHub's order, with labels and blockers."""
        ...

    def read_many(self, numbers: list[int]) -> dict[int, Snapshot]:
        """Several issues' comments (no issue details)."""
        ...

    def failing_issues(self, label: str, since: datetime, limit: int) -> int:
        """How many open issues carry `label` and were updated since `since`, up to `limit`."""
        ...


def look_up(reads: Reads, lookup: Lookup) -> LookedUp:
    """The answers to `lookup`, each part read once, in the order the parts are listed: the
    pull request's reads, the epic's, the breaker's count, then the people."""
    lineage = reads.lineage(*lookup.lineage) if lookup.lineage is not None else None
    notes = reads.review_notes(*lookup.review_notes) if lookup.review_notes is not None else None
    checks = (
        reads.failing_checks(lookup.failing_checks) if lookup.failing_checks is not None else None
    )
    subs = reads.sub_issues(lookup.sub_issues) if lookup.sub_issues is not None else None
    snapshots = reads.read_many(list(lookup.snapshots)) if lookup.snapshots else {}
    count = None
    if (ask := lookup.failing_issues) is not None:
        count = reads.failing_issues(ask.label, ask.since, ask.threshold)
    permissions = {login: reads.permission(login) for login in dict.fromkeys(lookup.permissions)}
    members = frozenset(
        (team, login)
        for team, login in dict.fromkeys(lookup.memberships)
        if reads.is_team_member(team, login)
    )
    return LookedUp(
        permissions=permissions,
        members=members,
        lineage=lineage,
        review_notes=notes,
        failing_checks=checks,
        sub_issues=subs,
        snapshots=snapshots,
        failing_issues=count,
    )
