"""`core/model/decision.py`: a decision says whether GitHub must act before it is final, and
its one-line JSON for the workflow's `decision` output is stable and ASCII."""

from __future__ import annotations

import json

import pytest

from baton.core.model.decision import CommitPlan, Decision, Outcome, PullRequestPlan
from baton.core.model.facts import Asks

COMMIT = CommitPlan(branch="b", digest="d", expected_head="h", headline="x", body="y")
OPEN = PullRequestPlan(branch="b", title="t", body="", ready=False)


@pytest.mark.parametrize(
    ("work", "first"),
    [
        pytest.param({}, False, id="nothing to do on GitHub first"),
        pytest.param({"commit": COMMIT}, True, id="a commit"),
        pytest.param({"open_pull_request": OPEN}, True, id="a pull request to open"),
        pytest.param({"update_pull_request": OPEN}, False, id="an update is no answer awaited"),
        pytest.param({"asks": Asks(tasks=True)}, False, id="a fact to look up is no work"),
    ],
)
def test_work_first_is_what_github_must_answer_before_deciding_again(
    work: dict[str, object], first: bool
) -> None:
    decision = Decision(outcome=Outcome.noted, issue=1, reason="r", **work)  # type: ignore[arg-type]
    assert decision.work_first is first


def test_the_summary_is_one_line_of_ascii_json_in_a_fixed_order() -> None:
    decision = Decision(
        outcome=Outcome.transition,
        issue=7,
        reason="approved by “wendy”",
        previous_state="review",
        state="done",
        agent=None,
        repairs=("status:x",),
        event="comment:1",
    )
    line = decision.summary_json()
    assert "\n" not in line and line.isascii()
    assert list(json.loads(line)) == [
        "outcome",
        "issue",
        "from",
        "to",
        "forced",
        "agent",
        "reason",
        "event",
        "repairs",
    ]
    assert json.loads(line)["reason"] == "approved by “wendy”"
    assert decision.transitioned
