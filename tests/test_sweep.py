"""The sweep: which issues it reads (`due_reason`, from the listing alone), and a trigger label
left on an issue: resolved once, not reported every hour.

A trigger label whose run never came (it failed, or the label was added while Baton could not
run) used to make every hourly sweep read the issue, decide "not in the workflow" and leave the
label on — an API read an hour per such issue, forever, at the front of the queue. Now the
sweep leaves a fresh label to its own run, and takes a stale one off with a note, once. On an
issue that has a record, the engine's label repair takes it off, also once.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from baton.core.model.decision import Outcome
from baton.core.model.issue_facts import IssueInfo
from baton.core.model.record import handover
from baton.core.rules.due import RECENT
from baton.sim.sim_github import SimGitHub
from baton.sweep import due_reason, stale_trigger_note
from baton.sweep import sweep as run_sweep
from baton.workflow.config import Settings
from support.memory import (
    ISSUE,
    Skipped,
    configured,
    enter,
    messages_of,
    record_of,
    state_of,
    sweep,
    sweep_run,
    writes,
)

HOUR = timedelta(hours=1)


def left_on(gh: SimGitHub, label: str = "baton") -> None:
    """Someone adds `label` to issue #1 and no run of Baton ever handles it."""
    gh.human_label(ISSUE, label)


def test_a_stale_trigger_label_on_an_issue_outside_the_workflow_is_taken_off_with_a_note(
    gh: SimGitHub, settings: Settings
) -> None:
    left_on(gh)

    decision = sweep(gh, settings, after=RECENT + HOUR)

    assert decision.outcome is Outcome.noted
    assert "baton" not in gh.labels_of(ISSUE)
    assert messages_of(gh) == [stale_trigger_note("baton")]
    assert record_of(gh) is None, "the issue is not entered: nobody knows who added the label"


def test_the_stale_trigger_label_is_resolved_once_and_never_read_again(
    gh: SimGitHub, settings: Settings
) -> None:
    left_on(gh)
    sweep(gh, settings, after=RECENT + HOUR)
    reads, written = gh.calls["comments"], writes(gh)

    later = [sweep(gh, settings, after=HOUR) for _ in range(5)]

    assert all(isinstance(d, Skipped) for d in later)
    assert gh.calls["comments"] == reads and writes(gh) == written
    assert len(messages_of(gh)) == 1


def test_a_fresh_trigger_label_is_left_to_its_own_run(gh: SimGitHub, settings: Settings) -> None:
    left_on(gh)

    decision = sweep(gh, settings, after=HOUR)

    assert isinstance(decision, Skipped)
    assert gh.labels_of(ISSUE) == ["baton"] and writes(gh) == 0


def test_a_maintainer_can_add_the_label_again_and_the_issue_enters(
    gh: SimGitHub, settings: Settings
) -> None:
    left_on(gh)
    sweep(gh, settings, after=RECENT + HOUR)

    entered = enter(gh, settings, by="maria")

    assert entered.outcome is Outcome.transition
    assert state_of(gh) == "received"


def test_a_trigger_label_left_beside_a_record_is_taken_off_once_by_the_label_repair(
    gh: SimGitHub, settings: Settings
) -> None:
    enter(gh, settings)
    left_on(gh)  # re-added, and its run died

    first = sweep(gh, settings, after=RECENT + HOUR)
    then = sweep(gh, settings, after=HOUR)

    assert not isinstance(first, Skipped) and first.outcome is Outcome.noted
    assert "baton" not in gh.labels_of(ISSUE)
    assert state_of(gh) == "received"
    assert isinstance(then, Skipped)


def test_a_dry_run_sweep_says_what_it_would_do_and_writes_nothing(
    gh: SimGitHub, settings: Settings
) -> None:
    left_on(gh)
    gh.now += RECENT + HOUR

    swept = run_sweep(gh, settings, now=gh.now, chain=None, dry_run=True)

    assert [r.decision.outcome for r in swept.results] == [Outcome.noted]
    assert "dry run: nothing was written" in swept.results[0].notes
    assert gh.labels_of(ISSUE) == ["baton"] and writes(gh) == 0


def test_a_renamed_trigger_label_is_the_one_taken_off(gh: SimGitHub) -> None:
    settings = configured(entry={"trigger_label": "go-baton"})
    left_on(gh, "go-baton")
    left_on(gh, "bug")

    sweep(gh, settings, after=RECENT + HOUR)

    assert gh.labels_of(ISSUE) == ["bug"]
    assert messages_of(gh) == [stale_trigger_note("go-baton")]


# --- which issues a sweep reads: `due_reason`, from the listing alone ---------------------------

NOW = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)


def _listed(*labels: str, idle: timedelta | None) -> IssueInfo:
    return IssueInfo(
        number=9, labels=labels, updated_at=None if idle is None else NOW - idle, partial=False
    )


@pytest.mark.parametrize(
    ("labels", "idle", "reason"),
    [
        (("bug",), timedelta(days=30), None),
        (("baton",), RECENT, None),
        (
            ("baton",),
            RECENT + timedelta(seconds=1),
            "the trigger label is still on it (a run that entered it may have died)",
        ),
        (
            ("baton",),
            None,
            "the trigger label is still on it (a run that entered it may have died)",
        ),
        (("status:implementing", "status:completed"), RECENT, "its status labels need repair"),
        (("status:no-such-state",), RECENT, "its status labels need repair"),
        (("status:implementing",), None, "its last update is unknown"),
        (("status:implementing",), timedelta(hours=1, minutes=59), None),
        (
            ("status:implementing",),
            timedelta(hours=2),
            "the developer has been silent for 2:00:00",
        ),
        (("status:waiting-for-human-input",), RECENT, "recent activity while it waits for a human"),
        (("status:waiting-for-human-input",), RECENT + timedelta(seconds=1), None),
        (("status:waiting-for-human-input",), timedelta(days=14), "it has waited 14 days"),
        (
            ("status:requires-human-intervention",),
            RECENT,
            "recent activity while it waits for a human decision",
        ),
        (("status:requires-human-intervention",), timedelta(days=3), None),
        (("status:completed",), timedelta(minutes=5), None),
    ],
)
def test_due_reason_reads_an_issue_only_when_a_run_may_be_owed(
    labels: tuple[str, ...], idle: timedelta | None, reason: str | None
) -> None:
    settings = configured(agent_timeout="2h")
    assert due_reason(_listed(*labels, idle=idle), NOW, settings) == reason


def test_without_an_agent_timeout_a_silent_agent_is_not_due() -> None:
    settings = configured()
    assert (
        due_reason(_listed("status:implementing", idle=timedelta(days=90)), NOW, settings) is None
    )


def test_the_sweeps_retry_of_a_silent_agent_hands_over_the_new_attempt(gh: SimGitHub) -> None:
    settings = configured(agent_timeout="2h")
    enter(gh, settings)
    first = record_of(gh)
    assert first is not None and first.dispatch is not None

    swept = sweep_run(gh, settings, after=3 * HOUR)

    record = record_of(gh)
    assert swept is not None and swept.decision.outcome is Outcome.retry
    assert record is not None and record.dispatch is not None and record.attempt == 2
    # The dispatch names the attempt the record now waits on, never the silent one: a late run
    # of that one is refused by its agent job, and its report is stale.
    assert gh.dispatches[-1].inputs["handover"] == handover(record)
    assert record.dispatch.nonce != first.dispatch.nonce
    # Within the timeout the same pending attempt is not dispatched again.
    sweep_run(gh, settings, after=HOUR)
    assert len(gh.dispatches) == 1


# --- the pinned dashboard, refreshed after the sweep when the config asks ----------------------
def _dashboard_settings(pinned: bool) -> Settings:
    from baton.workflow.config import settings_from
    from baton.workflow.config_model import Config, DashboardSettings

    return settings_from(Config(dashboard=DashboardSettings(pinned=pinned)), source="test")


def test_the_dashboard_is_not_refreshed_unless_the_config_asks(gh: SimGitHub) -> None:
    from baton.sweep import refresh_dashboard

    before = gh.requests
    off = _dashboard_settings(False)
    assert refresh_dashboard(gh, off, now=gh.now, secret=None, dry_run=False) is None
    assert gh.requests == before


def test_the_dashboard_is_refreshed_in_one_pinned_issue_after_the_sweep(gh: SimGitHub) -> None:
    from baton.sweep import refresh_dashboard

    on = _dashboard_settings(True)
    first = refresh_dashboard(gh, on, now=gh.now, secret=None, dry_run=False)
    assert first is not None and first.published.created and first.published.pinned
    gh.now = gh.now + timedelta(hours=1)
    again = refresh_dashboard(gh, on, now=gh.now, secret=None, dry_run=False)
    assert again is not None and again.published.edited
    assert again.published.number == first.published.number
    assert again.page.startswith("<!-- baton:dashboard -->")


def test_a_failed_dashboard_refresh_fails_no_sweep(gh: SimGitHub) -> None:
    from baton.errors import TrackerError
    from baton.sweep import refresh_dashboard

    gh.fail_next("closed_issues", TrackerError("GitHub answered 502", status=502))
    done = refresh_dashboard(gh, _dashboard_settings(True), now=gh.now, secret=None, dry_run=False)
    assert done is not None and done.page == ""
    assert done.published.problem == "the dashboard was not refreshed: GitHub answered 502"


@pytest.mark.parametrize(
    ("labels", "idle", "reason"),
    [
        (
            ("baton:epic", "status:implementing"),
            3 * HOUR,
            "the conductor has not looked for 3:00:00",
        ),
        (("baton:epic", "status:planning"), HOUR, "a plan may wait to be created (1:00:00 idle)"),
        (("baton:epic", "status:planning"), HOUR - timedelta(seconds=1), None),
        (("baton:epic", "status:discovery"), timedelta(days=2), None),
        (
            ("baton:task", "status:pending"),
            3 * HOUR,
            "the task has not read its epic's order for 3:00:00",
        ),
        (
            ("baton:task", "status:blocked"),
            3 * HOUR,
            "the task has not read its epic's order for 3:00:00",
        ),
        (("baton:task", "status:in-progress"), timedelta(days=2), None),
    ],
)
def test_an_idle_epic_or_task_is_read_again_where_a_lost_dispatch_would_stall_it(
    labels: tuple[str, ...], idle: timedelta, reason: str | None
) -> None:
    assert due_reason(_listed(*labels, idle=idle), NOW, configured()) == reason


def test_the_stale_trigger_cleanup_is_told_as_a_tick(gh: SimGitHub, settings: Settings) -> None:
    left_on(gh)

    decision = sweep(gh, settings, after=RECENT + HOUR)

    assert decision.event == "tick"
    assert json.loads(decision.summary_json())["event"] == "tick"
