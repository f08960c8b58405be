"""The page kept in one pinned issue: opened once, found again, edited in place; a body GitHub
refuses leaves the previous page. Over HTTP, 1,000 issues within the call budget."""

from __future__ import annotations

import time
from datetime import timedelta

from baton.dashboard.publish import build, publish
from baton.github.client import GitHubTracker
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import load_config
from fakes.http_github import FakeGitHub
from support.records import START, record, record_body

SETTINGS = load_config(None)
BOT = SETTINGS.policy.bot_login
MOVES = [(0, "received", "maria", "entry"), (5, "implementing", "pm", "report")]
WINDOW = timedelta(days=90)


def hub_with(count: int) -> SimGitHub:
    hub = SimGitHub(bot_login=BOT, now=START + timedelta(hours=3))
    for _ in range(count):
        number = hub.open_issue("Some work", labels=("status:implementing",))
        hub.human_comment(number, record_body(record(number, MOVES), hub.now), author=BOT, bot=True)
    return hub


def refresh(hub: SimGitHub) -> tuple[int | None, list[str]]:
    built = build(hub, SETTINGS, now=hub.now, window=WINDOW, secret=None)
    done = publish(hub, built.page, built.collected.page_issue)
    return done.number, done.log


def test_the_page_is_opened_once_pinned_then_edited_in_place() -> None:
    hub = hub_with(2)
    first, log = refresh(hub)
    assert first == 3 and hub.issues[3].pinned and hub.issues[3].author == BOT
    assert log == ["the dashboard is in the new issue #3", "#3 is pinned"]
    hub.now = hub.now + timedelta(hours=1)
    again, log = refresh(hub)
    assert again == 3 and hub.calls["create_issue"] == 1 and hub.calls["edit_issue"] == 1
    assert "Updated 2026-03-02 13:00 UTC" in hub.issues[3].body
    assert not any(c.issue == 3 for c in hub.comment_store.values())  # never a comment


def test_a_page_that_reads_the_same_is_not_sent_again() -> None:
    hub = hub_with(1)
    refresh(hub)
    _, log = refresh(hub)
    assert log == ["the dashboard in #2 is current"] and hub.calls["edit_issue"] == 0


def test_a_body_github_refuses_leaves_the_previous_page_and_says_why() -> None:
    hub = hub_with(1)
    number, _ = refresh(hub)
    assert number is not None
    before = hub.issues[number].body
    built = build(hub, SETTINGS, now=hub.now, window=WINDOW, secret=None)
    done = publish(hub, "x" * 70_000, built.collected.page_issue)
    assert hub.issues[number].body == before
    assert done.problem == (
        "the dashboard in #2 was left as it was: GitHub refused updating the dashboard in #2 "
        "(PATCH /repos/octo/demo/issues/2): 422 Validation Failed: body is too long "
        "(maximum is 65536 characters)"
    )


def test_a_thousand_issues_over_http_cost_a_call_per_25_and_a_few_seconds() -> None:
    with FakeGitHub() as fake:
        for _ in range(1000):
            number = fake.add_issue("Some work", labels=["status:implementing"])
            body = record_body(record(number, MOVES), fake.now)
            fake.add_comment(number, body, user=fake.bot_login, user_type="Bot")
        board = GitHubTracker(
            fake.repo_full_name, fake.token, api_url=fake.url, retry=0, bot_login=fake.bot_login
        )
        settings = load_config(None, bot_login=fake.bot_login)
        # Baton's own CPU: this thread's (the fake answers from threads of its own).
        start = time.thread_time()
        built = build(board, settings, now=fake.now, window=WINDOW, secret=None)
        cpu = time.thread_time() - start
        read = (board.requests, board.graphql_requests)
        done = publish(board, built.page, built.collected.page_issue)
        assert built.figures.issues == 1000 and built.figures.unreadable == []
        # 10 pages of open issues, 1 of closed ones, 40 documents of 25 issues each; then the
        # issue opened (REST) and pinned (GraphQL).
        assert read == (51, 40)
        assert (board.requests, board.graphql_requests) == (53, 41)
        assert len(built.page) <= 65_536
        assert cpu < 5.0, cpu
        assert done.pinned and fake._issues[done.number or 0].pinned
        print(f"1,000 issues: {board.requests} calls, {cpu:.2f} s CPU, page {len(built.page):,}")
