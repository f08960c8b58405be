"""Reading the records the dashboard is made from, as the sweep reads issues: the listings of
open issues (and of those closed within the window), then the comments of the issues carrying a
status label, 25 to a GraphQL document (`Lookups.look_up`'s snapshots). 1,000 issues cost 10
listings and 40 documents.

Only Baton's own records count: a record is read and trusted as a run trusts it
(`issue.load.read_record`: the bot's comment, not edited by anyone else, not put back, signed
when a secret is configured). One that cannot be read or trusted is named, with why, and the
page is made all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from baton.core.model.issue_facts import IssueInfo
from baton.dashboard.model import Unreadable, Worked
from baton.dashboard.page import MARKER
from baton.errors import RecordCorrupt
from baton.github.tracker import Board, Lookup
from baton.issue.load import read_record
from baton.workflow.config import Settings
from baton.workflow.model import Workflow

BATCH = 25  # issues per GraphQL document: their first 100 comments each


@dataclass
class Collected:
    worked: list[Worked] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    page_issue: IssueInfo | None = None  # the dashboard's own issue, found by its marker
    listed: int = 0


def workflows_of(settings: Settings) -> dict[str, Workflow]:
    """Every workflow in use, by name: the configured one and, with epics, theirs."""
    return {settings.workflow.name: settings.workflow, **settings.workflows}


def status_labels(settings: Settings) -> frozenset[str]:
    prefix = settings.policy.label_prefix
    return frozenset(
        workflow.label_for(state, prefix).casefold()
        for workflow in workflows_of(settings).values()
        for state in workflow.states
    )


def is_page(info: IssueInfo, bot_login: str) -> bool:
    """The dashboard's issue: the bot's, open, its body opening with the marker."""
    return (
        info.state == "open"
        and info.author.casefold() == bot_login.casefold()
        and info.body.lstrip().startswith(MARKER)
    )


def _listed(board: Board, since: datetime) -> list[IssueInfo]:
    found: dict[int, IssueInfo] = {}
    for closed in (False, True):
        page: int | None = 1
        while page is not None:
            issues, page = board.closed_issues(since, page) if closed else board.open_issues(page)
            found.update((info.number, info) for info in issues)
    return sorted(found.values(), key=lambda info: info.number)


def collect(
    board: Board, settings: Settings, *, now: datetime, window: timedelta, secret: str | None
) -> Collected:
    """The records of the issues Baton has worked: open, and closed within `window`."""
    bot = settings.policy.bot_login
    listed = _listed(board, now - window)
    out = Collected(listed=len(listed))
    out.page_issue = next((info for info in listed if is_page(info, bot)), None)
    labels = status_labels(settings)
    wanted = [
        info
        for info in listed
        if not info.is_pull_request and any(label.casefold() in labels for label in info.labels)
    ]
    for start in range(0, len(wanted), BATCH):
        chunk = {info.number: info for info in wanted[start : start + BATCH]}
        for number, snapshot in board.look_up(Lookup(snapshots=tuple(chunk))).snapshots.items():
            info = chunk[number]
            try:
                record = read_record(snapshot.comments, bot, secret)
            except RecordCorrupt as exc:
                out.unreadable.append(Unreadable(number=number, title=info.title, problem=str(exc)))
                continue
            if record is None:
                continue  # a status label, but no record of Baton's: not Baton's issue
            if record.issue != number:
                problem = f"the record is for issue {record.issue}, not this one"
                out.unreadable.append(Unreadable(number=number, title=info.title, problem=problem))
                continue
            out.worked.append(Worked(number, info.title, info.state == "open", record))
    return out
