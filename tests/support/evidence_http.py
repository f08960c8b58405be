"""An issue at the tester's red proof and reported on with evidence beside the result, over real
HTTP: `baton` as the report job runs it, on `test-first` with `tests:` (support/proof_http.py),
so the check run is the real proof rules' (`core/rules/proof.py`). The tester's result comes
with its tests-only changeset beside it, on the head of the issue's branch, as a red proof's
does; the evidence is bound to both."""

from __future__ import annotations

import json
from pathlib import Path

from action_harness import ActionRunner, Step
from baton.core.model.changeset import CHANGESET_FILE, Changeset
from baton.core.model.evidence import EVIDENCE_FILE, Evidence, TestCase
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.memory import changeset_on
from support.proof_http import CHECK_RUNS, proof_runner

__all__ = [
    "CHECK_RUNS",
    "already_passing",
    "beside",
    "branch_of",
    "entered",
    "evidence_on",
    "proof_runner",
    "report",
    "tests_on",
]

TEST = {"tests/test_csv.py": "def test_header():\n    assert 1 == 2\n"}
TESTER = {"status": "success", "confidence": 0.9, "summary": "A test of the CSV header."}
PM = {"status": "success", "confidence": 0.9, "summary": "A clear request: tests first."}


def _report(action: ActionRunner, number: int, state: str, handover: str, result: dict) -> Step:
    path = action.workdir / "baton-result.json"
    path.write_text(json.dumps(result), encoding="utf-8")
    args = ["report", "--issue", str(number), "--result", str(path), "--state", state]
    return action.invoke([*args, "--handover", handover], "workflow_dispatch", {})


def entered(action: ActionRunner, fake: FakeGitHub) -> tuple[int, str]:
    """An issue in `writing_tests` (a `proof: red` state), its tester's run dispatched: the
    issue and the hand-over. Its branch is made, at the default branch's head."""
    number, _ = action.entered()
    (action.workdir / CHANGESET_FILE).unlink(missing_ok=True)
    step = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert step.returncode == 0 and step.outputs["agent"] == "pm", step.stdout + step.stderr
    beside(action, None)
    step = _report(action, number, "received", step.outputs["handover"], PM)
    assert step.returncode == 0 and step.outputs["agent"] == "tester", step.stdout + step.stderr
    _, payload = payloads.from_dispatch(fake, fake.dispatches[-1])
    handover: str = payload["inputs"]["handover"]
    return number, handover


def branch_of(number: int) -> str:
    return f"baton/issue-{number}"


def tests_on(fake: FakeGitHub, number: int) -> Changeset:
    """The tester's changeset: one new test, on the head of the issue's branch."""
    head = fake.branch_head(branch_of(number))
    assert head is not None
    return changeset_on(head, TEST)


def evidence_on(fake: FakeGitHub, number: int = 1) -> Evidence:
    """A red proof of the tester's changeset on the head of the issue's branch: one new test
    failing inside the test, bound to what the report is bound to (that head, that changeset)."""
    changeset = tests_on(fake, number)
    failing = TestCase(id="tests/test_csv.py::test_header", outcome="failed", message="1 != 2")
    return Evidence(
        verdict="red",
        reason="1 new test fails",
        commit=changeset.base,
        exit_status=1,
        tests=(failing,),
        new=(failing.id,),
        changeset=changeset.digest(),
    )


def already_passing(fake: FakeGitHub, number: int = 1) -> Evidence:
    """The same tests run, the new one passing already: no red proof (`failing`)."""
    red = evidence_on(fake, number)
    passing = TestCase(id=red.tests[0].id, outcome="passed")
    return red.model_copy(
        update={"verdict": "failing", "reason": "a new test passes", "tests": (passing,)}
    )


def beside(action: ActionRunner, data: bytes | None) -> Path:
    """`baton-evidence.json` beside the result: these bytes, or none."""
    path = action.workdir / EVIDENCE_FILE
    path.unlink(missing_ok=True)
    if data is not None:
        path.write_bytes(data)
    return path


def report(action: ActionRunner, number: int, handover: str) -> Step:
    """The report job's step: the tester's result and changeset, and whatever evidence lies
    beside them."""
    changeset = tests_on(action.fake, number)
    (action.workdir / CHANGESET_FILE).write_text(changeset.model_dump_json(), encoding="utf-8")
    return _report(action, number, "writing_tests", handover, TESTER)
