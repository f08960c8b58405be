"""`baton report` as click wires it (`action/report.py`): the changeset and the evidence are
found beside the result unless named, by option or by the Action's input, and the attempt and
state reach the command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from baton.action import commands
from baton.cli import cli


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What `report` hands `report_command`, which then does nothing."""
    seen: list[dict[str, Any]] = []

    def reporting(env: object, **given: Any) -> commands.CommandResult:
        seen.append(given)
        return commands.CommandResult()

    monkeypatch.setattr(commands, "report_command", reporting)
    return seen


def test_the_files_the_job_handed_back_are_looked_for_beside_the_result(
    handed: list[dict[str, Any]], tmp_path: Path
) -> None:
    result = tmp_path / "out" / "baton-result.json"
    args = ["report", "--issue", "7", "--result", str(result), "--handover", "n0nce.d1"]
    done = CliRunner().invoke(cli, args, env={"GITHUB_STEP_SUMMARY": "", "GITHUB_OUTPUT": ""})
    assert done.exit_code == 0, done.output
    (given,) = handed
    assert given == {
        "issue": 7,
        "result_path": result,
        "state": None,
        "agent": None,
        "changeset_path": tmp_path / "out" / "baton-changeset.json",
        "evidence_path": tmp_path / "out" / "baton-evidence.json",
        "handover": "n0nce.d1",
    }


def test_the_evidence_may_be_named_by_option_or_by_the_action_s_input(
    handed: list[dict[str, Any]], tmp_path: Path
) -> None:
    base = ["report", "--issue", "7", "--result", str(tmp_path / "r.json")]
    CliRunner().invoke(cli, [*base, "--evidence", "proof/e.json"])
    CliRunner().invoke(cli, base, env={"INPUT_EVIDENCE": "from-input.json"})
    assert [given["evidence_path"] for given in handed] == [
        Path("proof/e.json"),
        Path("from-input.json"),
    ]
