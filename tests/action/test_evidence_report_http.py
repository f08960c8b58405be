"""`baton report` with the evidence beside its result, over real HTTP against the fake GitHub, as
the report job runs it: the evidence reaches the rules, evidence that cannot be read is its
reason and changes nothing else, and a decision's check run is posted once, after the record,
its failure never losing the transition.

The rules that ask for a check run (issue 26's proof rules) are another change's: here `baton`
runs as `support/baton_with_checks.py`, whose `decide` asks for one as CONTRACT26 says (a report
with evidence that moves or retries; none for a stale or ignored one) and is Baton's otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.issue.apply import label_specs
from baton.workflow.config import Policy
from baton.workflow.model import load_preset
from fakes.http_github import FakeGitHub
from support.evidence_http import CHECK_RUNS, beside, entered, evidence_on, report, with_checks
from support.http import record_of


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ActionRunner:
    with_checks(monkeypatch)
    return ActionRunner(fake, tmp_path)


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
    (run,) = fake.check_runs_on(evidence.commit)
    assert (run["name"], run["conclusion"], run["external_id"]) == (
        "Baton / tests",
        "neutral",
        handover.partition(".")[0],
    )
    assert f"posted the check run 'Baton / tests' on {evidence.commit[:7]} (neutral)" in (
        first.stdout
    )
    assert "| red | 0 | 1 | 0 | 0 |" in first.summary.splitlines()


@pytest.mark.parametrize(
    ("status", "said"),
    [
        pytest.param(403, "Resource not accessible by integration", id="no checks: write"),
        pytest.param(502, "Server Error", id="GitHub failing"),
    ],
)
def test_a_check_run_that_cannot_be_posted_leaves_the_transition_written(
    action: ActionRunner, fake: FakeGitHub, status: int, said: str
) -> None:
    number, handover = entered(action, fake)
    evidence = evidence_on(fake)
    beside(action, evidence.model_dump_json().encode())
    fake.fail("POST", "/check-runs$", status, body={"message": said})

    step = ok(report(action, number, handover))

    assert step.decision["outcome"] == "transition"
    assert record_of(fake, number).state == step.outputs["state"] != "received"
    assert step.calls.count(CHECK_RUNS) == 1, "sent once, never again"
    assert ("POST", "/repos/octo/demo/actions/workflows/baton.yml/dispatches") in step.calls
    assert fake.check_runs_on(evidence.commit) == []
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

    assert {**step.decision, "issue": plain} == without.decision
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
