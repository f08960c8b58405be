"""Pins the rules of `core/rules/triage.py` that a mutation sample found unprotected (issue 18, item
5): the fast path refuses a repository_dispatch that carries a result and lets any other through
to the full run; an issue's branch has at most nine digits, no leading zero."""

from __future__ import annotations

import pytest

from baton.core.rules.triage import DISPATCHED_RESULT, quick_reason, view_of
from baton.names import issue_of_branch
from baton.workflow.config import load_config

SETTINGS = load_config(None)
VIEW = view_of(SETTINGS.workflow, SETTINGS.policy, SETTINGS.workflows)


@pytest.mark.parametrize(
    ("client_payload", "reason"),
    [
        pytest.param({"issue": 3, "result": {}}, DISPATCHED_RESULT, id="a result is refused"),
        pytest.param({"issue": 3}, None, id="a request for a run goes on"),
    ],
)
def test_a_repository_dispatch_may_ask_for_a_run_but_never_carry_a_result(
    client_payload: dict[str, object], reason: str | None
) -> None:
    payload = {"action": "baton-run", "client_payload": client_payload}
    assert quick_reason("repository_dispatch", payload, VIEW) == reason


@pytest.mark.parametrize(
    ("branch", "issue"),
    [
        pytest.param("baton/issue-123456789", 123456789, id="nine digits"),
        pytest.param("baton/issue-1234567890", None, id="ten digits"),
        pytest.param("baton/issue-042", None, id="a leading zero"),
        pytest.param("baton/issue-4a", None, id="not a number"),
        pytest.param("feature/issue-42", None, id="another prefix"),
    ],
)
def test_the_issue_of_a_branch(branch: str, issue: int | None) -> None:
    assert issue_of_branch("baton/issue-", branch) == issue
