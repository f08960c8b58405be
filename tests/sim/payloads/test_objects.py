"""GitHub's objects as the REST API answers and the webhooks carry them
(`sim/payloads/objects.py`): the fields Baton and the fakes rely on."""

from __future__ import annotations

from baton.sim import payloads
from baton.sim.model.rules import REACTIONS

API = "https://api.github.com"


def test_a_bot_user_links_to_its_app_and_a_person_to_their_profile() -> None:
    bot = payloads.user_object(API, "baton-app[bot]", "Bot", 7)
    person = payloads.user_object(API, "alice", "User", 8)

    assert bot["html_url"] == "https://github.com/apps/baton-app"
    assert person["html_url"] == "https://github.com/alice"
    assert bot["url"] == f"{API}/users/baton-app%5Bbot%5D"


def test_a_labels_url_quotes_its_name() -> None:
    label = payloads.label_object(
        API, "octo/repo", label_id=3, name="status:in review", color="ededed", description=None
    )

    assert label["url"] == f"{API}/repos/octo/repo/labels/status%3Ain%20review"
    assert (label["name"], label["default"]) == ("status:in review", False)


def test_reactions_are_counted_per_content_with_every_content_present() -> None:
    summary = payloads.reactions_object(f"{API}/x", ["+1", "+1", "heart"])

    assert summary["total_count"] == 3
    assert (summary["+1"], summary["heart"]) == (2, 1)
    assert all(content in summary for content in REACTIONS)


def test_the_repository_counts_its_open_issues_under_both_names() -> None:
    owner = payloads.user_object(API, "octo", "Organization", 1)
    repo = payloads.repository_object(
        API, "octo/repo", owner, open_issues=4, now="2026-01-05T09:00:00Z"
    )

    assert (repo["id"], repo["full_name"], repo["name"]) == (
        payloads.REPOSITORY_ID,
        "octo/repo",
        "repo",
    )
    assert repo["open_issues"] == repo["open_issues_count"] == 4
