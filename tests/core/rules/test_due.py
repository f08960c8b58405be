"""Which issues the sweep reads (`rules/due.py`), from the listing alone. The common machine's
cases are `tests/test_sweep.py`'s (through the sweep); here the epic's and the task's, whose
dispatches may be lost between an epic and its tasks, and the edges of each rule."""

from __future__ import annotations

from datetime import timedelta

import pytest

from baton.core.rules.due import EPIC_RECOVERY, RECENT, due_reason
from baton.workflow.config import Config, settings_from

SETTINGS = settings_from(Config.model_validate({}))  # no agent_timeout: no silent agent
EPIC = SETTINGS.for_labels(["baton:epic"])
TASK = SETTINGS.for_labels(["baton:task"])
# An epic's states and a waiting task's are waiting states: within RECENT (longer than
# EPIC_RECOVERY) any activity is due as recent, so a lost dispatch shows past it.
LATE = RECENT + EPIC_RECOVERY


@pytest.mark.parametrize(
    ("label", "idle", "reason"),
    [
        ("status:implementing", LATE, "the conductor has not looked for 3:00:00"),
        ("status:planning", LATE, "a plan may wait to be created (3:00:00 idle)"),
        ("status:completing", LATE, None),
        ("status:discovery", LATE, None),
    ],
)
def test_an_epic_is_read_again_when_a_dispatch_may_have_been_lost(
    label: str, idle: timedelta, reason: str | None
) -> None:
    assert due_reason((label, "baton:epic"), idle, EPIC.workflow, EPIC.policy) == reason


@pytest.mark.parametrize(
    ("label", "reason"),
    [
        ("status:pending", "the task has not read its epic's order for 3:00:00"),
        ("status:blocked", "the task has not read its epic's order for 3:00:00"),
        ("status:completed", None),
    ],
)
def test_a_waiting_task_is_read_again_when_its_order_may_have_been_lost(
    label: str, reason: str | None
) -> None:
    assert due_reason((label, "baton:task"), LATE, TASK.workflow, TASK.policy) == reason


FIRST = settings_from(
    Config.model_validate({"epics": {"task_workflow": "epic-task-test-first"}})
).for_labels(["baton:task"])


@pytest.mark.parametrize(
    ("label", "idle", "reason"),
    [
        ("status:pending", LATE, "the task has not read its epic's order for 3:00:00"),
        ("status:tests-review", timedelta(hours=1), "recent activity while it waits for a human"),
        ("status:tests-review", LATE, None),
        ("status:tests-review", timedelta(days=60), None),
    ],
)
def test_a_tests_first_task_waiting_for_its_sign_off_is_no_lost_order(
    label: str, idle: timedelta, reason: str | None
) -> None:
    """It waits for a human, not for its epic (it counts as in progress, holding its slot): the
    sweep reads it only for recent activity (a comment whose run never came), never as stuck;
    it has no timeout, as a human's review has none."""
    assert due_reason((label, "baton:task"), idle, FIRST.workflow, FIRST.policy) == reason


def test_the_same_states_of_the_common_machine_are_not_epic_recovery() -> None:
    """`implementing` of issue-lifecycle is a work state: due for its silent agent, not for a
    conductor."""
    wf, policy = SETTINGS.workflow, SETTINGS.policy
    assert due_reason(("status:implementing",), timedelta(hours=1), wf, policy) is None
    assert due_reason(("status:blocked",), LATE, wf, policy) is None


def test_a_trigger_label_is_due_once_its_own_run_had_time_to_come() -> None:
    wf, policy = SETTINGS.workflow, SETTINGS.policy
    assert due_reason(("baton",), RECENT, wf, policy) is None
    stale = due_reason(("baton",), RECENT + timedelta(seconds=1), wf, policy)
    assert stale == "the trigger label is still on it (a run that entered it may have died)"
