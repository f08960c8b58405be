"""Pins the rules of `core/rules/admission.py` that a mutation sample found unprotected (issue
18, item 5): the epic label enters an epic (and only the epic's workflow reads it so), the
first record's counters, and the exact words that tell a maintainer how to enter an issue that
shows a status label but has no record."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from baton.core.model.decision import Outcome
from baton.workflow.config import Config, settings_from


def _builders() -> Any:
    path = Path(__file__).with_name("conftest.py")
    spec = importlib.util.spec_from_file_location("engine_builders", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


EPIC = settings_from(Config.model_validate({})).for_labels(["baton:epic"])
E = _builders().Build(EPIC.workflow, EPIC.policy)


@pytest.mark.parametrize(
    ("label", "state", "why", "forced"),
    [
        pytest.param("baton:epic", "discovery", "epic label", False, id="the epic label"),
        pytest.param(
            "status:planning",
            "planning",
            "status label status:planning",
            True,
            id="a status label is still a status label on an epic",
        ),
    ],
)
def test_a_maintainers_label_enters_an_epic(label: str, state: str, why: str, forced: bool) -> None:
    decision = E.decide(None, E.labeled(label, "maria", None))
    assert (decision.outcome, decision.state, decision.forced) == (
        Outcome.transition,
        state,
        forced,
    )
    assert decision.reason == f"entered at {state}: {why} by maria"


def test_the_epic_label_is_no_trigger_outside_the_epics_workflow(lifecycle: Any) -> None:
    decision = lifecycle.decide(None, lifecycle.labeled("baton:epic", "maria", None))
    assert decision.state is None and decision.record is None
    assert decision.outcome is not Outcome.transition


def test_the_first_record_counts_from_zero_and_its_agent_from_attempt_one(lifecycle: Any) -> None:
    decision = lifecycle.decide(None, lifecycle.labeled("baton", "maria", None))
    record = decision.record
    assert record is not None and record.dispatch is not None
    assert (record.iteration, record.attempt, record.dispatch.attempt) == (0, 1, 1)
    entry = record.history[0]
    assert (entry.iteration, entry.forced, entry.trigger) == (0, False, "entry")


SHOWN = (
    "the issue is not in the workflow: it has the status label status:implementing but no Baton "
    "record (a record comment deleted, or a label added outside Baton), and a status label "
    "alone is not trusted; a maintainer relabels it to enter ({how})"
)


@pytest.mark.parametrize(
    ("policy", "how"),
    [
        pytest.param(
            {},
            "removes status:implementing and adds it again or adds the 'baton' label",
            id="both ways",
        ),
        pytest.param(
            {"trigger_label": ""},
            "removes status:implementing and adds it again",
            id="no trigger label",
        ),
        pytest.param(
            {"enter_on_status_label": False},
            "adds the 'baton' label",
            id="status labels do not enter",
        ),
        pytest.param(
            {"trigger_label": "", "enter_on_status_label": False},
            "enters it",
            id="neither",
        ),
    ],
)
def test_a_status_label_without_a_record_says_how_to_enter(
    lifecycle: Any, policy: dict[str, Any], how: str
) -> None:
    build = lifecycle.with_policy(**policy)
    event = build.commented("is anyone on this?", "bob", None)
    event = event.model_copy(update={"issue": build.issue(None, labels=("status:implementing",))})
    decision = build.decide(None, event)
    assert (decision.outcome, decision.reason) == (Outcome.ignored, SHOWN.format(how=how))
