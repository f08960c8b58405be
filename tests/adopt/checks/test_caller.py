"""The caller's checks, case by case: `baton init`'s caller has nothing wrong, and each way a
hand-written one goes wrong is one finding, printed as a maintainer reads it."""

from __future__ import annotations

import pytest

from baton.adopt.checks.caller import check_caller, missing, unparsed
from baton.adopt.init import plan

RELEASE = "0123456789abcdef0123456789abcdef01234567"
PATH = ".github/workflows/baton.yml"
CALLER = plan("claude", RELEASE).files[PATH]
PERMISSIONS = (
    "  fix: give the job `permissions: {contents: write, issues: write, pull-requests: write, "
    "actions: write, checks: read}`"
)


JOB_PERMISSIONS = (
    "    permissions:\n      contents: write\n      issues: write\n      pull-requests: write\n"
    "      actions: write\n      checks: read\n"
)


def _edited(old: str, new: str) -> str:
    assert old in CALLER
    return CALLER.replace(old, new)


def _lines(text: str) -> list[str]:
    caller = check_caller({PATH: text})
    assert caller is not None
    return [line for finding in caller.findings for line in finding.lines()]


def test_the_caller_init_writes_has_nothing_wrong() -> None:
    caller = check_caller({PATH: CALLER, ".github/workflows/ci.yml": "on: push\njobs: {}\n"})
    assert caller is not None
    assert (caller.path, caller.findings, caller.inherit) == (PATH, [], False)
    assert caller.secrets == ("ANTHROPIC_API_KEY", "BATON_RECORD_SECRET")
    assert caller.config == ".github/baton.yml"


CASES = [
    pytest.param(
        _edited(f"@{RELEASE} # v0.1.0", "@v0.1.0"),
        [
            f"error: {PATH}: `uses: issue-baton/baton/.github/workflows/baton-issues.yml@v0.1.0` "
            "is not pinned to a commit (a tag or branch can move)",
            "  fix: pin the release's commit: `uses: issue-baton/baton/.github/workflows/"
            "baton-issues.yml@<40 hex digits> # v0.1.0`",
        ],
        id="uses names a tag, not a commit",
    ),
    pytest.param(
        _edited("    inputs:\n      issue:\n", "    inputs:\n      number:\n"),
        [
            f"error: {PATH}: `workflow_dispatch` has no `issue` input, which Baton dispatches "
            "the next agent's run with",
            "  fix: add `inputs: {issue: {required: true, type: string}}` under "
            "`workflow_dispatch:`",
        ],
        id="the dispatch input is named otherwise",
    ),
    pytest.param(
        _edited("      checks: read\n", ""),
        [
            f"error: {PATH}: job `baton` does not grant checks: read, which Baton's jobs need",
            PERMISSIONS,
        ],
        id="a permission left out",
    ),
    pytest.param(
        _edited("      actions: write\n", "      actions: read\n"),
        [
            f"error: {PATH}: job `baton` does not grant actions: write, which Baton's jobs need",
            PERMISSIONS,
        ],
        id="read where Baton writes",
    ),
    pytest.param(
        _edited(JOB_PERMISSIONS, "").replace("permissions: {}\n", ""),
        [
            f"error: {PATH}: job `baton` sets no `permissions:`, so Baton's token gets the "
            "repository's default",
            PERMISSIONS,
        ],
        id="no permissions anywhere",
    ),
    pytest.param(
        _edited("types: [opened, reopened, closed, labeled]", "types: [opened, labeled]"),
        [
            f"error: {PATH}: `issues` lacks the types closed, reopened (an issue entering, "
            "closing and its status labels)",
            "  fix: list them: `issues: {types: [closed, labeled, opened, reopened]}`",
        ],
        id="issue types missing",
    ),
    pytest.param(
        _edited('  schedule:\n    - cron: "23 * * * *"', "  # no sweep"),
        [
            f"error: {PATH} is not started by `schedule` (the sweep: timeouts, drifted labels, "
            "silent agents)",
            "  fix: add `schedule:` under `on:`",
        ],
        id="no sweep",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_each_mistake_is_one_finding_with_its_fix(text: str, expected: list[str]) -> None:
    assert _lines(text) == expected


def test_write_all_grants_what_baton_needs() -> None:
    text = _edited(JOB_PERMISSIONS, "    permissions: write-all\n")
    assert _lines(text) == []


def test_secrets_inherit_and_another_config_path_are_read() -> None:
    text = _edited("    with:\n", "    with:\n      config: ci/baton.yml\n")
    caller = check_caller({PATH: text.split("    secrets:\n")[0] + "    secrets: inherit\n"})
    assert caller is not None
    assert (caller.inherit, caller.secrets, caller.config) == (True, (), "ci/baton.yml")


def test_no_workflow_calling_baton_is_one_error() -> None:
    assert (
        check_caller({PATH: "on: push\njobs:\n  a:\n    uses: ./.github/workflows/x.yml\n"}) is None
    )
    assert missing({PATH: ""}).lines() == [
        "error: no workflow in .github/workflows calls Baton's reusable workflow "
        "(baton-issues.yml) (1 read)",
        "  fix: run `baton init` and commit .github/workflows/baton.yml",
    ]


def test_a_workflow_github_cannot_read_is_a_warning() -> None:
    (finding,) = unparsed({PATH: CALLER, ".github/workflows/bad.yml": "on: [push\n"})
    assert finding.lines() == [
        "warning: .github/workflows/bad.yml is not a YAML mapping, so GitHub cannot run it"
    ]
