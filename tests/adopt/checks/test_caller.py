"""The caller's checks, case by case: `baton init`'s caller has nothing wrong, and each way a
hand-written one goes wrong is one finding, printed as a maintainer reads it."""

from __future__ import annotations

import pytest

from baton.adopt.checks.caller import check_caller, missing, unparsed
from baton.adopt.init import setup_for

RELEASE = "0123456789abcdef0123456789abcdef01234567"
PATH = ".github/workflows/baton.yml"
CALLER = setup_for("claude", RELEASE).files[PATH]
PERMISSIONS = (
    "  fix: give the job `permissions: {contents: write, issues: write, pull-requests: write, "
    "actions: write, checks: write}`"
)


JOB_PERMISSIONS = (
    "    permissions:\n      contents: write\n      issues: write\n      pull-requests: write\n"
    "      actions: write\n      checks: write\n"
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
        _edited("      state: #", "      hint: #").replace("      handover: #", "      note: #"),
        [
            f"warning: {PATH}: `workflow_dispatch` has no `state` and `handover` input, so each "
            "hand-off starts a `baton` job to name the agent (three jobs instead of two)",
            "  fix: add `state: {description: the state whose agent Baton starts}, handover: "
            "{description: the attempt Baton starts, left empty by humans}` beside `issue`",
        ],
        id="an older caller without the hand-over inputs",
    ),
    pytest.param(
        _edited("      handover: #", "      note: #"),
        [
            f"warning: {PATH}: `workflow_dispatch` has no `handover` input, so each hand-off "
            "starts a `baton` job to name the agent (three jobs instead of two)",
            "  fix: add `handover: {description: the attempt Baton starts, left empty by "
            "humans}` beside `issue`",
        ],
        id="a caller with the state but not the attempt",
    ),
    pytest.param(
        _edited("      checks: write\n", ""),
        [
            f"error: {PATH}: job `baton` does not grant checks: write, which Baton's jobs need",
            PERMISSIONS,
        ],
        id="a permission left out",
    ),
    pytest.param(
        _edited("      checks: write\n", "      checks: read\n"),
        [
            f"error: {PATH}: job `baton` does not grant checks: write, which Baton's jobs need",
            PERMISSIONS,
        ],
        id="a caller from before the evidence's check run, granting checks: read",
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


def test_a_quoted_on_key_is_read_like_yamls_bare_on() -> None:
    """YAML 1.1 reads a bare `on:` as True; a workflow may quote it, and GitHub reads both."""
    quoted = _edited("\non:\n", '\n"on":\n')
    assert _lines(quoted) == []
    assert _lines(quoted.replace("  schedule:\n", "  schedule_x:\n")) == [
        f"error: {PATH} is not started by `schedule` (the sweep: timeouts, drifted labels, "
        "silent agents)",
        "  fix: add `schedule:` under `on:`",
    ]


def test_a_trigger_listed_without_types_takes_them_all_and_a_single_type_is_read() -> None:
    assert _lines(_edited(" {types: [opened, reopened, closed, labeled]}\n", "\n")) == []
    assert _lines(_edited("{types: [submitted]}", "{types: submitted}")) == []
    assert _lines(_edited("{types: [created, edited]}", "{types: deleted}")) == [
        f"error: {PATH}: `issue_comment` lacks the types created, edited (humans answering Baton)",
        "  fix: list them: `issue_comment: {types: [created, edited]}`",
    ]


def test_every_missing_trigger_is_told_not_only_the_first() -> None:
    text = _edited("  pull_request_review:", "  pull_request_review_x:").replace(
        "  pull_request:", "  pull_request_x:"
    )
    told = [line.split("`")[1] for line in _lines(text) if "is not started by" in line]
    assert told == ["pull_request_review", "pull_request"]


def test_read_all_and_the_workflows_own_permissions_are_read() -> None:
    read_all = _lines(_edited(JOB_PERMISSIONS, "    permissions: read-all\n"))
    assert read_all == [
        f"error: {PATH}: job `baton` does not grant contents: write, issues: write, "
        "pull-requests: write, actions: write, checks: write, which Baton's jobs need",
        PERMISSIONS,
    ]
    # No job-level grant: the workflow's own `permissions:` is what the job gets.
    top = _edited(JOB_PERMISSIONS, "").replace("\njobs:\n", "\npermissions: write-all\njobs:\n")
    assert _lines(top) == []
    assert _lines(_edited(JOB_PERMISSIONS, "")) == [
        f"error: {PATH}: job `baton` does not grant contents: write, issues: write, "
        "pull-requests: write, actions: write, checks: write, which Baton's jobs need",
        PERMISSIONS,
    ]


def test_the_jobs_inputs_reach_the_other_checks() -> None:
    caller = check_caller({PATH: _edited("    with:\n", "    with:\n      trigger-label: go\n")})
    assert caller is not None and caller.inputs["trigger-label"] == "go"


USES = "    uses: o/r/.github/workflows/baton-issues.yml@v1\n"


@pytest.mark.parametrize(
    "text",
    [
        "on: [issues, workflow_dispatch]\njobs:\n  baton:\n" + USES,
        "on: push\njobs: [baton]\n",
        "on: push\njobs:\n  baton: just a string\n",
        "on:\n  workflow_dispatch: on\njobs:\n  baton:\n" + USES + "    with: [x]\n",
        "- a list\n",
    ],
    ids=["on as a list", "jobs as a list", "a job as a string", "odd shapes inside", "no mapping"],
)
def test_a_workflow_of_any_shape_is_judged_without_a_crash(text: str) -> None:
    caller = check_caller({PATH: text})
    # Only a job calling Baton makes it the caller; that one is judged, every finding printable.
    assert (caller is not None) == (USES in text)
    if caller is not None:
        assert caller.findings and all(finding.lines() for finding in caller.findings)


def test_a_workflow_whose_aliases_expand_past_the_bound_is_a_warning_in_one_line() -> None:
    """GitHub workflows may use anchors (GitHub Actions reads them): a shared `env` passes; a
    document of a few hundred bytes that expands to millions of values is not read."""
    shared = (
        "on: push\nenv: &env {A: '1'}\njobs:\n  a: {runs-on: x, env: *env, steps: [{run: a}]}\n"
    )
    levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"] + [
        f"{now}: &{now} [{', '.join([f'*{before}'] * 9)}]"
        for before, now in zip("abcdefg", "bcdefgh", strict=True)
    ]
    bomb = "\n".join(levels) + "\n"
    findings = unparsed(
        {PATH: CALLER, ".github/workflows/env.yml": shared, ".github/workflows/x.yml": bomb}
    )
    assert [finding.lines() for finding in findings] == [
        [
            "warning: .github/workflows/x.yml: not read: line 7: its aliases expand to more "
            "than 4,194,304 characters of values (a YAML alias bomb?)"
        ]
    ]


def test_a_workflow_over_512_kb_is_not_read() -> None:
    big = "on: push\n" + "# padding\n" * 52429
    (finding,) = unparsed({PATH: CALLER, ".github/workflows/big.yml": big})
    assert finding.lines() == [
        "warning: .github/workflows/big.yml: not read: 524,299 bytes or more; at most 524,288 "
        "are read"
    ]
