"""`baton report` with a result it must refuse, over real HTTP: the refusal is the agent's
failure and climbs the retry ladder with the reason in the record, never a stuck issue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.issue import record_comment
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        yield server


def _record(fake: FakeGitHub, number: int) -> record_comment.Record:
    (body,) = [
        c["body"]
        for c in fake.comments(number)
        if c["user"]["login"] == fake.bot_login and record_comment.has_marker(c["body"])
    ]
    return record_comment.parse(body)


def _report_bytes(action: ActionRunner, number: int, raw: bytes) -> Step:
    path = action.workdir / "result.json"
    path.write_bytes(raw)
    return action.invoke(
        ["report", "--issue", str(number), "--result", str(path), "--state", "received"],
        "workflow_dispatch",
        {},
    )


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        pytest.param(
            json.dumps({"status": "success", "confidence": 0.9, "next_state": "shipping"}),
            "the pm proposed shipping, which received cannot move to",
            id="a next_state the workflow does not have",
        ),
        pytest.param(
            json.dumps({"status": "success", "confidence": "0.9"}),
            "confidence: Input should be a valid number",
            id="a confidence given as a string",
        ),
        pytest.param(
            json.dumps({"status": "success", "confidence": True}),
            "confidence: Input should be a valid number",
            id="a confidence given as a boolean",
        ),
        pytest.param(
            json.dumps({"status": "success", "confidence": 0.9, "summary": 7}),
            "summary: Input should be a valid string",
            id="a summary that is not a string",
        ),
        pytest.param("{not json", "is not JSON", id="a result that is not JSON"),
        pytest.param(
            b'{"status": "success", "confidence": 0.9, "summary": "\xff\xfe"}',
            "is not UTF-8",
            id="a result that is not UTF-8",
        ),
    ],
)
def test_a_refused_result_is_a_failed_attempt_that_says_why(
    fake: FakeGitHub, tmp_path: Path, raw: str | bytes, why: str
) -> None:
    action = ActionRunner(fake, tmp_path)
    number = fake.add_issue("Export as CSV", "Please.")
    fake.label_by(number, "baton", "maria")
    action.run("issues", P.labeled(fake, number, "baton"))

    step = _report_bytes(action, number, raw if isinstance(raw, bytes) else raw.encode())

    assert step.returncode == 0, step.stdout + step.stderr
    assert "Traceback" not in step.stderr
    assert step.decision["outcome"] == "retry"
    assert step.outputs["agent"] == "pm", "the same agent runs again"
    record = _record(fake, number)
    assert record.state == "received"
    assert record.attempt == 2
    assert any(why in item for item in record.feedback), record.feedback
    assert why in step.stdout, "the job log says why"


def test_refused_results_end_with_a_human_not_a_stuck_issue(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    action = ActionRunner(fake, tmp_path)
    number = fake.add_issue("Export as CSV", "Please.")
    fake.label_by(number, "baton", "maria")
    action.run("issues", P.labeled(fake, number, "baton"))
    bad = json.dumps({"status": "success", "confidence": 0.9, "next_state": "nowhere"}).encode()

    steps = [_report_bytes(action, number, bad) for _ in range(3)]

    assert [s.decision["outcome"] for s in steps] == ["retry", "retry", "transition"]
    assert _record(fake, number).state == "requires_human_intervention"
