"""Reading the records: only Baton's own count, an unreadable one is named, and the reads are
batched as the sweep's are."""

from __future__ import annotations

from datetime import timedelta

from baton.dashboard.collect import BATCH, collect
from baton.dashboard.page import MARKER
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings, load_config
from support.records import START, record, record_body

SETTINGS: Settings = load_config(None)
BOT = SETTINGS.policy.bot_login
MOVES = [(0, "received", "maria", "entry"), (5, "implementing", "pm", "report")]


def hub_with(count: int, *, secret: str | None = None) -> SimGitHub:
    hub = SimGitHub(bot_login=BOT, now=START + timedelta(hours=3))
    for _ in range(count):
        number = hub.open_issue("Some work", labels=("status:implementing",))
        body = record_body(record(number, MOVES), hub.now, secret)
        hub.human_comment(number, body, author=BOT, bot=True)
    return hub


def test_the_records_of_issues_with_a_status_label_are_read_25_to_a_call() -> None:
    hub = hub_with(60)
    hub.open_issue("Not Baton's")  # no status label: never read
    found = collect(hub, SETTINGS, now=hub.now, window=timedelta(days=90), secret=None)
    assert len(found.worked) == 60 and found.listed == 61
    assert hub.calls["read_many"] == 3 == -(-60 // BATCH)
    assert (hub.calls["open_issues"], hub.calls["closed_issues"]) == (1, 1)


def test_a_status_label_without_a_record_of_batons_is_not_counted() -> None:
    hub = hub_with(1)
    number = hub.open_issue("Labelled by hand", labels=("status:implementing",))
    hub.human_comment(number, record_body(record(number, MOVES), hub.now), author="mallory")
    found = collect(hub, SETTINGS, now=hub.now, window=timedelta(days=90), secret=None)
    assert [w.number for w in found.worked] == [1]
    assert found.unreadable == []


def test_an_unsigned_record_with_a_secret_configured_is_unreadable_and_named() -> None:
    hub = hub_with(2, secret="s3cret")
    forged = hub.open_issue("Forged", labels=("status:implementing",))
    hub.human_comment(forged, record_body(record(forged, MOVES), hub.now), author=BOT, bot=True)
    found = collect(hub, SETTINGS, now=hub.now, window=timedelta(days=90), secret="s3cret")
    assert [w.number for w in found.worked] == [1, 2]
    [bad] = found.unreadable
    assert (bad.number == forged and "signature" in bad.problem) or "signed" in bad.problem


def test_a_record_that_does_not_parse_is_named_never_a_failure() -> None:
    hub = hub_with(1)
    broken = hub.open_issue("Broken", labels=("status:implementing",))
    hub.human_comment(broken, "<!-- baton:record\n{not json\n-->", author=BOT, bot=True)
    found = collect(hub, SETTINGS, now=hub.now, window=timedelta(days=90), secret=None)
    assert [w.number for w in found.worked] == [1]
    assert [u.number for u in found.unreadable] == [broken]


def test_closed_issues_count_within_the_window_only() -> None:
    hub = hub_with(2)
    hub.human_close(1, by="maria")
    hub.now = hub.now + timedelta(days=100)
    number = hub.open_issue("Fresh", labels=("status:implementing",))
    hub.human_comment(number, record_body(record(number, MOVES), hub.now), author=BOT, bot=True)
    found = collect(hub, SETTINGS, now=hub.now, window=timedelta(days=90), secret=None)
    assert [(w.number, w.open) for w in found.worked] == [(2, True), (3, True)]


def test_the_dashboards_own_issue_is_found_by_its_marker_and_author() -> None:
    hub = hub_with(1)
    hub.open_issue("Baton dashboard", MARKER + "\nforged", author="mallory")
    own = hub.create_issue("Baton dashboard", MARKER + "\n# Baton dashboard")
    found = collect(hub, SETTINGS, now=hub.now, window=timedelta(days=90), secret=None)
    assert found.page_issue is not None and found.page_issue.number == own.number
