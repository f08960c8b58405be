"""`core/model/agent_result.py`: an agent's result is believed only once it validates; strict
types, bounded items, a blank proposal is none, and each failure says what to fix."""

from __future__ import annotations

import json

import pytest

from baton.core.model.agent_result import MAX_TEXT, AgentResult, parse_agent_result
from baton.errors import InvalidAgentResult


def _parse(**fields: object) -> AgentResult:
    return parse_agent_result(json.dumps({"status": "success", "confidence": 0.9, **fields}))


def test_a_valid_result_is_read_and_unknown_keys_are_ignored() -> None:
    result = _parse(summary="done", extra="ignored")
    assert (result.status.value, result.confidence, result.summary) == ("success", 0.9, "done")


def test_blank_items_are_dropped_and_the_rest_stripped() -> None:
    assert _parse(issues_found=["  a  ", " ", ""]).issues_found == ["a"]


@pytest.mark.parametrize(
    ("proposal", "expected"),
    [
        pytest.param("  review  ", "review", id="stripped"),
        pytest.param("   ", None, id="blank is no proposal"),
        pytest.param(None, None, id="none"),
    ],
)
def test_a_blank_next_state_is_no_proposal(proposal: str | None, expected: str | None) -> None:
    assert _parse(next_state=proposal).next_state == expected


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        pytest.param({"confidence": "0.9"}, "confidence", id="a confidence as a string"),
        pytest.param({"confidence": 1.5}, "confidence", id="a confidence above one"),
        pytest.param({"summary": 3}, "summary", id="a summary as a number"),
        pytest.param({"questions": ["x" * (MAX_TEXT + 1)]}, "at most", id="an item too long"),
        pytest.param({"status": "maybe"}, "status", id="an unknown status"),
    ],
)
def test_an_invalid_result_names_what_to_fix(fields: dict[str, object], says: str) -> None:
    with pytest.raises(InvalidAgentResult) as caught:
        _parse(**fields)
    assert str(caught.value).startswith("the agent result does not validate")
    assert says in str(caught.value)


def test_a_result_that_is_not_json_says_so() -> None:
    with pytest.raises(InvalidAgentResult, match="the agent result is not JSON"):
        parse_agent_result("{not json")
