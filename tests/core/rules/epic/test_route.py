"""An epic's rules (`rules/epic/route.py`): the `feature-epic` preset the rules follow, as
docs/epics.md draws it."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from baton.core.model.decision import Outcome
from baton.core.model.epic import EpicState
from baton.workflow.graph import to_mermaid
from support.epic_rules import EPIC, B, in_discovery

EPICS_DOC = Path(__file__).resolve().parents[4] / "docs" / "epics.md"


def test_the_epics_doc_shows_the_generated_feature_epic_diagram() -> None:
    text = EPICS_DOC.read_text(encoding="utf-8")
    match = re.search(
        r"<!-- epic-diagram:start -->\n```mermaid\n(.*?)\n```\n<!-- epic-diagram:end -->",
        text,
        re.S,
    )
    assert match, "docs/epics.md keeps the epic diagram between its markers"
    assert match.group(1) == to_mermaid(EPIC.workflow), (
        "regenerate it with `baton graph --workflow feature-epic`"
    )


def test_a_rerun_of_an_epic_dispatch_whose_agent_already_reported_starts_nothing() -> None:
    record = in_discovery("asking").model_copy(update={"processed": ["report:run-9"]})
    decision = B.decide(record, B.dispatched("discovery", run="run-9"))
    assert (decision.outcome, decision.agent) == (Outcome.ignored, None)
    assert decision.reason == "this run's agent already reported; a re-run starts nothing"
    assert B.decide(record, B.dispatched("discovery", run="run-10")).agent == "discovery"


def test_an_epics_tick_falls_back_to_the_common_timeout_rule() -> None:
    build = B.with_policy(agent_timeout=timedelta(hours=2))
    record = B.record("planning", epic=EpicState())
    decision = build.decide(record, build.tick("planning", after=timedelta(hours=3)))
    assert decision.outcome is Outcome.retry
    assert decision.reason.startswith("the planner did not report within 2:00:00")
    quiet = build.decide(record, build.tick("planning", after=timedelta(hours=1)))
    assert (quiet.outcome, quiet.reason) == (Outcome.ignored, "nothing is due in planning")
