"""The repository around the caller: secrets, the Actions settings, the config read with
Baton's own loader, the labels; each finding as printed."""

from __future__ import annotations

import pytest

from baton.adopt.checks.repository import (
    check_actions,
    check_config,
    check_labels,
    check_secrets,
    evidence_notes,
)
from baton.adopt.findings import Finding
from baton.github.tracker import ActionsSettings
from baton.workflow.config import parse_config


def _lines(findings: list[Finding]) -> list[str]:
    return [line for finding in findings for line in finding.lines()]


def test_each_secret_the_workflow_passes_must_exist_case_aside() -> None:
    passed = ("ANTHROPIC_API_KEY", "BATON_RECORD_SECRET")
    assert check_secrets(["anthropic_api_key", "BATON_RECORD_SECRET"], passed, inherit=False) == []
    assert _lines(check_secrets([], passed, inherit=False)) == [
        "error: the workflow passes the secret ANTHROPIC_API_KEY, which the repository does not "
        "have",
        "  fix: gh secret set ANTHROPIC_API_KEY",
        "error: the workflow passes the secret BATON_RECORD_SECRET, which the repository does not "
        "have",
        "  fix: openssl rand -hex 32 | gh secret set BATON_RECORD_SECRET",
    ]


def test_a_record_secret_not_passed_leaves_the_record_unsigned() -> None:
    assert _lines(check_secrets(["GEMINI_API_KEY"], ("GEMINI_API_KEY",), inherit=False)) == [
        "warning: the workflow does not pass BATON_RECORD_SECRET, so Baton's record is not signed",
        "  fix: add `BATON_RECORD_SECRET: ${{ secrets.BATON_RECORD_SECRET }}` under the job's "
        "`secrets:`",
    ]


def test_secrets_inherit_needs_the_record_secret_in_the_repository() -> None:
    assert check_secrets(["BATON_RECORD_SECRET"], (), inherit=True) == []
    assert len(check_secrets([], (), inherit=True)) == 1


SETTINGS = "Settings → Actions → General"
APPROVE = "Allow GitHub Actions to create and approve pull requests"


@pytest.mark.parametrize(
    ("settings", "pull_requests", "expected"),
    [
        pytest.param(
            ActionsSettings(True, "all", "read", True), True, [], id="all allowed, PRs allowed"
        ),
        pytest.param(
            ActionsSettings(False, ""),
            True,
            [
                "error: GitHub Actions are disabled for this repository",
                f"  fix: enable them: {SETTINGS}",
            ],
            id="Actions off",
        ),
        pytest.param(
            ActionsSettings(True, "local_only", "read", True),
            True,
            [
                "error: this repository allows only its own actions and workflows, so it cannot "
                "call Baton's reusable workflow",
                f"  fix: allow Baton's repository: {SETTINGS} → Actions permissions",
            ],
            id="local actions only",
        ),
        pytest.param(
            ActionsSettings(True, "selected", "read", True),
            True,
            [
                "warning: this repository allows only selected actions and workflows",
                f"  fix: make sure Baton's repository is among them: {SETTINGS} → Actions "
                "permissions",
            ],
            id="selected actions",
        ),
        pytest.param(
            ActionsSettings(True, "all", "write", False),
            True,
            [
                f'error: "{APPROVE}" is off, so GitHub refuses Baton\'s pull request (403)',
                f'  fix: turn it on: {SETTINGS} → Workflow permissions → "{APPROVE}"',
            ],
            id="the pull-request setting off",
        ),
        pytest.param(
            ActionsSettings(True, "all", "read", False),
            False,
            [],
            id="the setting off, but the config opens no pull request",
        ),
    ],
)
def test_the_actions_settings(
    settings: ActionsSettings, pull_requests: bool, expected: list[str]
) -> None:
    assert _lines(check_actions(settings, pull_requests=pull_requests)) == expected


def test_no_config_is_the_defaults_and_a_valid_one_is_read() -> None:
    assert check_config(".github/baton.yml", None) == ([], None)
    findings, settings = check_config(".github/baton.yml", "workflow: approval-gate\n")
    assert findings == [] and settings is not None
    assert settings.workflow.name == "approval-gate"


def test_an_invalid_config_is_one_error_with_the_loaders_first_line() -> None:
    findings, settings = check_config("ci/baton.yml", "workflow: nope\n")
    assert settings is None
    (finding,) = findings
    assert finding.what == (
        "ci/baton.yml: unknown workflow preset 'nope'; the presets are: approval-gate, "
        "epic-task, epic-task-test-first, feature-epic, issue-lifecycle, task-review, test-first"
    )
    assert finding.fix == "baton validate --config ci/baton.yml lists every problem"


def test_labels_humans_pick_must_exist_status_labels_are_created_by_baton() -> None:
    settings = parse_config("workflow: approval-gate\nepics: {enabled: false}\n", source="x")
    statuses = [settings.workflow.label_for(s, "status:") for s in settings.workflow.states]
    assert check_labels(["BATON", *statuses], settings) == []
    assert _lines(check_labels(statuses[1:], settings)) == [
        "warning: the label baton does not exist, so nobody can pick it from the list",
        "  fix: gh label create baton",
        f"warning: 1 status labels do not exist yet: {statuses[0]}",
        "  fix: nothing to do: Baton creates each one, with its colour, the first time it is used",
    ]


def test_what_moves_the_states_is_one_note_as_validate_says_it() -> None:
    _, plain = check_config(".github/baton.yml", "workflow: approval-gate\n")
    assert plain is not None
    (said,) = evidence_notes(plain)
    assert said.level == "note"
    assert said.what == "no `tests:` in the config: transitions rest on agents' reports"
    assert said.fix == "add `tests:` to the config (docs/evidence.md)"
    text = "workflow: test-first\ntests: {command: pytest}\n"
    _, proved = check_config(".github/baton.yml", text)
    assert proved is not None
    (said,) = evidence_notes(proved)
    assert said.what == "settled by evidence (`tests:`): writing_tests, proving"
    assert said.fix == ""
