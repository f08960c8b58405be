"""`GitHubTracker`: the roles composed over one transport, counting for them all, stamping
records by the runner's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import responses

from baton.github.client import GitHubTracker
from baton.github.tracker import ActionTracker

API = "https://api.github.com:443"
REPO = f"{API}/repos/octo/demo"


def test_a_record_is_stamped_by_the_runner_s_clock_in_utc() -> None:
    before = datetime.now(UTC)
    stamped = GitHubTracker("octo/demo", "t0ken").clock()
    assert stamped.tzinfo is not None and before <= stamped <= before + timedelta(minutes=1)


def test_every_role_counts_on_the_one_transport(mocked: responses.RequestsMock) -> None:
    tracker: ActionTracker = GitHubTracker("octo/demo", "t0ken", retry=0)
    mocked.get(f"{REPO}/collaborators/maria/permission", json={"role_name": "write"})
    mocked.get(f"{REPO}/pulls/3/reviews/4/comments", json=[])
    tracker.permission("maria")  # the role
    tracker.review_notes(3, 4)  # the pull request's role
    assert (tracker.requests, tracker.graphql_requests, tracker.notes) == (2, 0, [])
