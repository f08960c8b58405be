"""An issue handed to its pm and reported on with evidence beside the result, over real HTTP:
`baton` as the report job runs it, with the stand-in of issue 26's proof rules that asks for a
check run (`support/baton_with_checks.py`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import action_harness
from action_harness import ActionRunner, Step
from baton.core.model.evidence import EVIDENCE_FILE, Evidence, TestCase
from baton.sim import payloads
from fakes.http_github import FakeGitHub

WITH_CHECKS = Path(__file__).parent / "baton_with_checks.py"
CHECK_RUNS = ("POST", "/repos/octo/demo/check-runs")
RESULT = {"status": "success", "confidence": 0.9, "summary": "A clear request."}


def with_checks(patch: pytest.MonkeyPatch) -> None:
    """Every `baton` the action harness starts decides with the stand-in."""
    patch.setattr(action_harness, "BATON", [sys.executable, str(WITH_CHECKS)])


def entered(action: ActionRunner, fake: FakeGitHub) -> tuple[int, str]:
    """An issue in `received`, its pm's run dispatched: the issue and the hand-over."""
    number, _ = action.entered()
    step = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert step.returncode == 0 and step.outputs["agent"] == "pm", step.stdout + step.stderr
    return number, step.outputs["handover"]


def evidence_on(fake: FakeGitHub) -> Evidence:
    """A red proof on the default branch's head: one new test failing."""
    head = fake.branch_head("main")
    assert head is not None
    failing = TestCase(id="tests/test_csv.py::test_header", outcome="failed", message="1 != 2")
    return Evidence(
        verdict="red", reason="1 new test fails", commit=head, exit_status=1, tests=(failing,)
    )


def beside(action: ActionRunner, data: bytes | None) -> Path:
    """`baton-evidence.json` beside the result: these bytes, or none."""
    path = action.workdir / EVIDENCE_FILE
    path.unlink(missing_ok=True)
    if data is not None:
        path.write_bytes(data)
    return path


def report(action: ActionRunner, number: int, handover: str) -> Step:
    """The report job's step: the pm's result, and whatever evidence lies beside it."""
    path = action.workdir / "baton-result.json"
    path.write_text(json.dumps(RESULT), encoding="utf-8")
    args = ["report", "--issue", str(number), "--result", str(path), "--state", "received"]
    return action.invoke([*args, "--handover", handover], "workflow_dispatch", {})
