"""`baton report` with the evidence beside its result, over real HTTP against the fake GitHub, as
the report job runs it: the evidence reaches the rules, evidence that cannot be read is its
reason and changes nothing else, and a decision's check run is posted once, after the record,
its failure never losing the transition.

The issue is at `test-first`'s `writing_tests` (`proof: red`) on a config with `tests:`, so the
check run is the one the real proof rules ask for (`core/rules/proof.py`); the whole lifecycle,
with changesets and the real `baton verify`, is tests/test_test_first_http.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.core.model.evidence import Evidence
from baton.issue.apply import label_specs
from baton.workflow.config import Policy
from baton.workflow.model import load_preset
from fakes.http_github import FakeGitHub
from support.evidence_http import (
    CHECK_RUNS,
    already_passing,
    beside,
    branch_of,
    entered,
    evidence_on,
    proof_runner,
    report,
)
from support.http import record_of
from support.proof_http import dispatched

DISPATCHES = ("POST", "/repos/octo/demo/actions/workflows/baton.yml/dispatches")


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return proof_runner(fake, tmp_path)


def ok(step: Step) -> Step:
    assert step.returncode == 0, step.stdout + step.stderr
    assert "Traceback" not in step.stderr
    return step


# --- the check run: once, after the record ------------------------------------------------------
def test_a_decision_s_check_run_is_posted_once_even_when_the_report_comes_twice(
    action: ActionRunner, fake: FakeGitHub
) -> None:
    number, handover = entered(action, fake)
    evidence = evidence_on(fake)
    beside(action, evidence.model_dump_json().encode())

    first = ok(report(action, number, handover))
    again = ok(report(action, number, handover))  # the same report, delivered again

    assert first.decision["outcome"] == "transition"
    assert first.calls.count(CHECK_RUNS) == 1
    writes = [i for i, c in enumerate(first.calls) if c == ("POST", "/graphql BatonWrite")]
    assert writes and writes[-1] < first.calls.index(CHECK_RUNS), "after the record"
    assert again.decision["outcome"] == "refused", "stale: that attempt was reported"
    assert CHECK_RUNS not in again.calls
    made = fake.branch_head(branch_of(number))  # Baton's commit of the tests the evidence ran
    assert made is not None and made != evidence.commit
    assert fake.check_runs_on(evidence.commit) == []
    (run,) = fake.check_runs_on(made)
    assert (run["name"], run["conclusion"], run["external_id"]) == (
        "Baton / tests",
        "neutral",
        handover.partition(".")[0],
    )
    assert f"posted the check run 'Baton / tests' on {made[:7]} (neutral)" in first.stdout
    assert "| red | 0 | 1 | 0 | 0 |" in first.summary.splitlines()


def test_a_report_with_evidence_makes_one_call_more_than_without_its_check_run(
    tmp_path: Path,
) -> None:
    """The same tester's report moving to tests_review: on a config without `tests:` (the
    agent's word) and with them (the red proof beside it). The evidence costs one REST call."""
    steps = []
    for tests in (False, True):
        with FakeGitHub() as server:
            server.set_permission("maria", "maintain")
            runner = proof_runner(server, tmp_path / f"tests-{tests}", tests=tests)
            number, handover = entered(runner, server)
            evidence = evidence_on(server, number).model_dump_json().encode() if tests else None
            beside(runner, evidence)
            steps.append(ok(report(runner, number, handover)))
    without, with_evidence = steps

    assert without.decision["reason"].endswith("the tests are written"), "the agent's word"
    assert with_evidence.decision["reason"].endswith("the new tests fail for the right reason")
    assert {**without.decision, "reason": ""} == {**with_evidence.decision, "reason": ""}
    assert without.outputs["state"] == with_evidence.outputs["state"] == "tests_review"
    assert [c for c in with_evidence.calls if c != CHECK_RUNS] == without.calls
    assert len(with_evidence.calls) == len(without.calls) + 1
    assert "GitHub API calls: 5 (4 GraphQL, 1 REST)" in without.stdout
    assert "GitHub API calls: 6 (4 GraphQL, 2 REST)" in with_evidence.stdout


FAULTS = [
    pytest.param(403, "Resource not accessible by integration", id="no checks: write"),
    pytest.param(502, "Server Error", id="GitHub failing"),
]
# A red proof moves to tests_review (a waiting state, nobody to dispatch); a new test that passes
# already is no red proof: the tester runs again, dispatched.
MOVES = [
    pytest.param(evidence_on, "transition", "tests_review", None, id="red: moved"),
    pytest.param(already_passing, "retry", "writing_tests", "tester", id="failing: retried"),
]


@pytest.mark.parametrize(("status", "said"), FAULTS)
@pytest.mark.parametrize(("evidence_of", "outcome", "state", "agent"), MOVES)
def test_a_check_run_that_cannot_be_posted_leaves_the_decision_written_and_dispatched(
    action: ActionRunner,
    fake: FakeGitHub,
    status: int,
    said: str,
    evidence_of: Callable[[FakeGitHub, int], Evidence],
    outcome: str,
    state: str,
    agent: str | None,
) -> None:
    number, handover = entered(action, fake)
    evidence = evidence_of(fake, number)
    beside(action, evidence.model_dump_json().encode())
    fake.fail("POST", "/check-runs$", status, body={"message": said})

    step = ok(report(action, number, handover))

    assert step.decision["outcome"] == outcome
    record = record_of(fake, number)
    assert record.state == step.outputs["state"] == state
    assert record.history[-1].to_state == state and record.tests is not None
    assert step.calls.count(CHECK_RUNS) == 1, "sent once, never again"
    writes = [i for i, c in enumerate(step.calls) if c == ("POST", "/graphql BatonWrite")]
    assert writes and writes[-1] < step.calls.index(CHECK_RUNS), "the record came first"
    assert (DISPATCHES in step.calls) == (agent is not None)
    if agent is not None:
        assert step.calls.index(DISPATCHES) > step.calls.index(CHECK_RUNS)
        assert (dispatched(fake)["state"], step.outputs["agent"]) == (state, agent)
    made = fake.branch_head(branch_of(number))
    assert made is not None and made != evidence.commit, "the tests were committed"
    assert fake.check_runs_on(made) == fake.check_runs_on(evidence.commit) == []
    assert "::warning title=Baton::could not post the check run 'Baton / tests'" in step.stdout
    assert f"{status} {said}" in step.stdout


# --- evidence that cannot be read ---------------------------------------------------------------
def _too_big(action: ActionRunner) -> None:
    with beside(action, b"").open("wb") as handle:
        handle.truncate(33 * 1024 * 1024)  # sparse


def _not_json(action: ActionRunner) -> None:
    beside(action, b'{"verdict": "red",')


def _a_link(action: ActionRunner) -> None:
    target = action.workdir / "elsewhere.json"
    target.write_text(evidence_on(action.fake).model_dump_json(), encoding="utf-8")
    beside(action, None).symlink_to(target)


BAD = {
    "over 32 MB": (_too_big, "is over 32 MB"),
    "not JSON": (_not_json, "the evidence is not JSON"),
    "a symbolic link": (_a_link, "is a symbolic link"),
}


@pytest.mark.parametrize(("spoil", "why"), BAD.values(), ids=BAD.keys())
def test_evidence_that_cannot_be_read_is_said_and_changes_nothing_else(
    action: ActionRunner, fake: FakeGitHub, spoil: object, why: str
) -> None:
    spec = label_specs(load_preset("issue-lifecycle"), Policy())["status:analyzing-requirements"]
    fake.add_label(spec.name, spec.color, spec.description)  # made already, for both alike
    plain, plain_handover = entered(action, fake)
    spoiled, spoiled_handover = entered(action, fake)
    beside(action, None)
    without = ok(report(action, plain, plain_handover))
    spoil(action)  # type: ignore[operator]

    step = ok(report(action, spoiled, spoiled_handover))

    reason = step.decision.pop("reason")
    assert {**step.decision, "issue": plain, "reason": without.decision["reason"]} == (
        without.decision
    )
    assert without.decision["outcome"] == "retry", "no evidence: a failed attempt"
    assert reason.startswith("the evidence beside the result could not be read: the evidence ")
    assert why in reason
    assert step.calls == without.calls, "the same requests: no check run, nothing else"
    assert CHECK_RUNS not in step.calls
    plain_record, spoiled_record = record_of(fake, plain), record_of(fake, spoiled)
    assert (spoiled_record.state, spoiled_record.attempt) == (
        plain_record.state,
        plain_record.attempt,
    )
    assert "::warning title=Baton::the evidence was not read: the evidence " in step.stdout
    assert why in step.stdout
    assert any(line.startswith("Evidence: not read: ") for line in step.summary.splitlines())
