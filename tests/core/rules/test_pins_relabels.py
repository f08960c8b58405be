"""Pins the rules of `core/rules/relabels.py` that a mutation sample found unprotected (issue
18, item 5): a relabel that was handled once never acts again. `decide` turns away a
re-delivered event before any rule; `on_label` keeps its own guard, so the rule is safe
however it is reached, and both are pinned here."""

from __future__ import annotations

from typing import Any

from baton.core.model.decision import Outcome
from baton.core.rules.context import Ctx
from baton.core.rules.relabels import on_label


def _moved_on(build: Any) -> tuple[Any, Any]:
    """Maria relabelled the issue to creating_pr; its agent has since moved it on to
    completed. Returns the record now and the relabel event, delivered again."""
    relabel = build.labeled("status:creating-pr", "maria", "implementing")
    forced = build.decide(build.record("implementing"), relabel).record
    assert forced is not None and relabel.id in forced.processed
    now = forced.model_copy(update={"state": "validating_solution"})
    return now, relabel.model_copy(
        update={"issue": build.issue("validating_solution", labels=("status:creating-pr",))}
    )


def test_a_re_delivered_relabel_does_not_force_the_issue_back(lifecycle: Any) -> None:
    record, again = _moved_on(lifecycle)
    decision = lifecycle.decide(record, again)
    assert decision.outcome is not Outcome.transition
    assert decision.state == "validating_solution" and not decision.forced
    assert decision.record is None or decision.record.state == "validating_solution"


def test_the_label_rule_itself_ignores_a_relabel_it_handled(lifecycle: Any) -> None:
    record, again = _moved_on(lifecycle)
    ctx = Ctx(event=again, workflow=lifecycle.workflow, policy=lifecycle.policy, record=record)
    draft = on_label(ctx, again)
    assert (draft.outcome, draft.record, draft.forced) == (Outcome.ignored, None, False)
    assert draft.reason == "label event status:creating-pr was already handled"
