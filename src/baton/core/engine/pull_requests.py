"""The issue's pull request steering the issue: reviews, the merge or close, CI's checks."""

from __future__ import annotations

from baton.core.decision import Outcome
from baton.core.engine.context import Ctx, Draft
from baton.core.events import ChecksCompleted, PullRequestClosed, Reviewed


def on_review(ctx: Ctx, event: Reviewed) -> Draft:
    return Draft(Outcome.ignored, "reviews are not handled yet")


def on_closed(ctx: Ctx, event: PullRequestClosed) -> Draft:
    return Draft(Outcome.ignored, "pull requests are not handled yet")


def on_checks(ctx: Ctx, event: ChecksCompleted) -> Draft:
    return Draft(Outcome.ignored, "checks are not handled yet")
