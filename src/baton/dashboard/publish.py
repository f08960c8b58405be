"""The dashboard made and kept: `build` reads the records and renders the page (or its JSON);
`publish` keeps it in one pinned issue, opened once, found again by its marker and edited in
place, never a comment. A body GitHub refuses leaves the previous page where it was, and the
log says why; so does a pin GitHub refuses (the page is there, only not pinned).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from baton.core.model.issue_facts import IssueInfo
from baton.dashboard.collect import Collected, collect, workflows_of
from baton.dashboard.figures import figures
from baton.dashboard.model import Figures
from baton.dashboard.page import TITLE, render
from baton.errors import TrackerError
from baton.github.tracker import Board, Pages
from baton.workflow.config import Settings


@dataclass(frozen=True)
class Built:
    figures: Figures
    page: str
    collected: Collected


@dataclass
class Published:
    number: int | None = None
    created: bool = False
    edited: bool = False
    pinned: bool = False
    log: list[str] = field(default_factory=list)
    problem: str | None = None


def build(
    board: Board, settings: Settings, *, now: datetime, window: timedelta, secret: str | None
) -> Built:
    found = collect(board, settings, now=now, window=window, secret=secret)
    computed = figures(
        found.worked,
        found.unreadable,
        workflows_of(settings),
        now=now,
        window_days=window.days,
        bot_login=settings.policy.bot_login,
        tests=settings.policy.tests is not None,
    )
    return Built(figures=computed, page=render(computed), collected=found)


def publish(pages: Pages, page: str, current: IssueInfo | None) -> Published:
    """The page in the dashboard's issue: edited in place when there is one (nothing sent
    when it already reads so), else a new issue, pinned."""
    out = Published()
    if current is not None:
        out.number = current.number
        if current.body == page:
            out.log.append(f"the dashboard in #{current.number} is current")
            return out
        try:
            pages.edit_issue(current.number, page)
        except TrackerError as exc:
            out.problem = f"the dashboard in #{current.number} was left as it was: {exc}"
            out.log.append(out.problem)
            return out
        out.edited = True
        out.log.append(f"the dashboard in #{current.number} is updated ({len(page):,} characters)")
        return out
    try:
        opened = pages.create_issue(TITLE, page)
    except TrackerError as exc:
        out.problem = f"the dashboard's issue could not be opened: {exc}"
        out.log.append(out.problem)
        return out
    out.number, out.created = opened.number, True
    out.log.append(f"the dashboard is in the new issue #{opened.number}")
    try:
        pages.pin_issue(opened.node_id)
    except TrackerError as exc:
        out.log.append(f"the dashboard's issue #{opened.number} is not pinned: {exc}")
        return out
    out.pinned = True
    out.log.append(f"#{opened.number} is pinned")
    return out
