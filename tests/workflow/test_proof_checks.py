"""What `baton validate` says of evidence: the proof checks' notes (their problems are among the
broken workflows of test_checks.py, one case each)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.workflow.model import load_preset
from baton.workflow.proof_checks import proof_notes
from baton.workflow.suite import SuiteSettings

SUITE = SuiteSettings(command="pytest")


@pytest.mark.parametrize(
    ("preset", "tests", "notes"),
    [
        pytest.param(
            "approval-gate",
            None,
            ["no `tests:` in the config: transitions rest on agents' reports"],
            id="neither tests nor proof states",
        ),
        pytest.param(
            "test-first",
            None,
            [
                "no `tests:` in the config: transitions rest on agents' reports",
                "writing_tests, proving: their proof is ignored without `tests:` (with it, the "
                "tests' verdict settles them: docs/evidence.md)",
            ],
            id="proof states without tests are ignored",
        ),
        pytest.param(
            "approval-gate",
            SUITE,
            [
                "`tests:` is set, but no state of approval-gate has a proof: transitions rest on "
                "agents' reports (`baton verify` runs only where a step calls it)"
            ],
            id="tests without a proof state",
        ),
        pytest.param(
            "test-first",
            SUITE,
            ["settled by evidence (`tests:`): writing_tests, proving"],
            id="both",
        ),
    ],
)
def test_validate_notes_whether_tests_and_proof_states_meet(
    preset: str, tests: SuiteSettings | None, notes: list[str]
) -> None:
    assert proof_notes(load_preset(preset), tests) == notes


def test_validate_prints_the_notes_for_a_config(tmp_path: Path) -> None:
    config = tmp_path / "baton.yml"
    config.write_text("workflow: approval-gate\ntests:\n  command: pytest\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", "--config", str(config)])
    assert (result.exit_code, result.output) == (
        0,
        "approval-gate: 0 error(s), 0 warning(s)\n"
        "note: `tests:` is set, but no state of approval-gate has a proof: transitions rest on "
        "agents' reports (`baton verify` runs only where a step calls it)\n",
    )


@pytest.mark.parametrize(
    ("tests", "said"),
    [
        pytest.param(
            "tests:\n  command: pytest\n",
            "note: settled by evidence (`tests:`): epic-task-test-first.writing_tests, "
            "epic-task-test-first.proving\n",
            id="with tests",
        ),
        pytest.param(
            "",
            "note: no `tests:` in the config: transitions rest on agents' reports\n"
            "note: epic-task-test-first.writing_tests, epic-task-test-first.proving: their proof "
            "is ignored without `tests:` (with it, the tests' verdict settles them: "
            "docs/evidence.md)\n",
            id="without tests",
        ),
    ],
)
def test_validate_names_the_proof_states_of_an_epic_s_tests_first_tasks(
    tmp_path: Path, tests: str, said: str
) -> None:
    config = tmp_path / "baton.yml"
    config.write_text(
        "workflow: approval-gate\nepics:\n  task_workflow: epic-task-test-first\n" + tests,
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli, ["validate", "--config", str(config)])
    assert (result.exit_code, result.output) == (
        0,
        "approval-gate: 0 error(s), 0 warning(s)\n" + said,
    )
