"""`baton doctor` over real HTTP against the fake: a repository set up as `baton init` says has
nothing wrong; each read the token may not make is reported as unchecked, never a crash."""

from __future__ import annotations

import time

import pytest

from adopt.conftest import RELEASE, doctor_report, set_up
from baton.adopt.doctor import diagnose
from baton.adopt.init import setup_for
from baton.errors import TrackerError
from baton.github.setup import GitHubRepositorySetup
from fakes.http_github import FakeGitHub
from workflow.api_permissions import Request, needs, union

STATUS_LABELS = (
    "warning: 30 status labels do not exist yet: status:received, "
    "status:analyzing-requirements, status:requirements-unclear, "
    "status:waiting-for-requirements-clarification, status:requirements-clarified and 25 more"
)
CREATED_ON_USE = (
    "  fix: nothing to do: Baton creates each one, with its colour, the first time it is used"
)
# The starter config has no `tests:`: said as a note, after everything to fix (issue 26).
NO_TESTS = [
    "note: no `tests:` in the config: transitions rest on agents' reports; creating_tests, "
    "running_tests: their proof is ignored without `tests:` (with it, the tests' verdict "
    "settles them: docs/evidence.md)",
    "  fix: add `tests:` to the config (docs/evidence.md)",
]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_repository_set_up_as_init_says_has_nothing_wrong(fake: FakeGitHub, agent: str) -> None:
    set_up(fake, agent)
    assert doctor_report(fake) == [
        STATUS_LABELS,
        CREATED_ON_USE,
        *NO_TESTS,
        "Baton's setup looks right: 0 errors, 1 warning, 1 note.",
    ]
    assert {call.method for call in fake.requests} == {"GET"}  # doctor changes nothing


def test_a_repository_without_baton_has_one_error_and_its_fix(fake: FakeGitHub) -> None:
    assert doctor_report(fake)[:2] == [
        "error: no workflow in .github/workflows calls Baton's reusable workflow "
        "(baton-issues.yml)",
        "  fix: run `baton init` and commit .github/workflows/baton.yml",
    ]


def test_what_needs_admin_is_unchecked_for_a_writers_token_not_a_crash(ready: FakeGitHub) -> None:
    ready.token_is_admin = False
    assert doctor_report(ready)[-7:] == [
        "cannot check: the Actions secrets: GitHub answered 403",
        "  fix: use a token with admin on the repository (fine-grained: Secrets read)",
        "cannot check: the Actions settings: GitHub answered 403",
        "  fix: use a token with admin on the repository (fine-grained: Administration read)",
        *NO_TESTS,
        "Baton's setup looks right: 0 errors, 1 warning, 2 not checked, 1 note.",
    ]


def test_a_404_from_an_admin_endpoint_is_unchecked_too(ready: FakeGitHub) -> None:
    ready.fail("GET", "/actions/permissions$", status=404, times=1)
    assert "cannot check: the Actions settings: GitHub answered 404" in doctor_report(ready)


def test_pull_requests_refused_to_actions_is_an_error_with_the_setting(ready: FakeGitHub) -> None:
    ready.actions_may_open_pull_requests = False
    lines = doctor_report(ready)
    assert lines[:2] == [
        'error: "Allow GitHub Actions to create and approve pull requests" is off, so GitHub '
        "refuses Baton's pull request (403)",
        "  fix: turn it on: Settings → Actions → General → Workflow permissions → "
        '"Allow GitHub Actions to create and approve pull requests"',
    ]


def test_an_invalid_config_is_an_error_with_the_loaders_line(ready: FakeGitHub) -> None:
    ready.push("main", {".github/baton.yml": "workflow: issue-lifecycle\nsweep_budget: lots\n"})
    assert doctor_report(ready)[:2] == [
        "error: .github/baton.yml:2: sweep_budget: Input should be a valid integer, unable to "
        "parse string as an integer",
        "  fix: baton validate --config .github/baton.yml lists every problem",
    ]


def test_a_bad_token_stops_doctor_with_githubs_answer(ready: FakeGitHub) -> None:
    setup = GitHubRepositorySetup(ready.repo_full_name, "not-the-token", api_url=ready.url)
    with pytest.raises(TrackerError, match="401 Bad credentials"):
        diagnose(setup)


def test_doctor_only_reads_and_each_request_is_a_mapped_github_route(ready: FakeGitHub) -> None:
    doctor_report(ready)
    made = {Request(call.method, call.path) for call in ready.requests}
    assert {request.method for request in made} == {"GET"}
    assert union(needs(request) for request in made) == {
        "contents": "read",
        "issues": "read",
        "secrets": "read",
        "administration": "read",
    }


def test_a_trigger_label_renamed_in_the_config_only_is_an_error(ready: FakeGitHub) -> None:
    ready.push("main", {".github/baton.yml": "entry:\n  trigger_label: ai\n"})
    ready.add_label("ai")
    assert doctor_report(ready)[:2] == [
        "error: .github/workflows/baton.yml: the input `trigger-label` is 'baton', but "
        ".github/baton.yml sets entry.trigger_label: 'ai'; the job filter goes by the input",
        "  fix: pass `trigger-label: ai` under the job's `with:`",
    ]


# The billion laughs as a job calling Baton: before, the secrets it passes were joined as text
# (`str` of a value nine aliases deep: 10^9 strings), and doctor ran out of memory.
BATON = f"o/r/.github/workflows/baton-issues.yml@{'0' * 40}"
LAUGHS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{letter}: &{letter} [{','.join([f'*{previous}'] * 9)}]"
            for previous, letter in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "on: issues",
        "jobs:",
        f"  baton: {{uses: '{BATON}', secrets: {{X: *i}}}}",
    ]
)


def test_a_yaml_alias_bomb_in_a_workflow_is_refused_quickly_in_one_line(ready: FakeGitHub) -> None:
    ready.push("main", {".github/workflows/a-laughs.yml": LAUGHS})
    started = time.perf_counter()

    lines = doctor_report(ready)

    assert time.perf_counter() - started < 10
    assert (
        "warning: .github/workflows/a-laughs.yml: not read: line 7: its aliases expand to more "
        "than 4,194,304 characters of values (a YAML alias bomb?)"
    ) in lines
    assert lines[-1] == "Baton's setup looks right: 0 errors, 2 warnings, 1 note."


def test_an_alias_in_the_config_is_an_error_in_one_line(ready: FakeGitHub) -> None:
    ready.push("main", {".github/baton.yml": "x: &x {permission: write}\napprovers: *x\n"})
    assert doctor_report(ready)[:2] == [
        "error: .github/baton.yml: line 1: the value anchored there (&) is repeated by an alias "
        "(*); Baton's config and workflow files take no aliases: write it out",
        "  fix: baton validate --config .github/baton.yml lists every problem",
    ]


def test_a_workflow_file_the_config_names_is_read_from_the_repository(ready: FakeGitHub) -> None:
    from baton.workflow.model import load_preset, to_yaml

    mine = to_yaml(load_preset("approval-gate"))
    ready.push("main", {".github/baton.yml": "workflow: mine.yml\n", ".github/mine.yml": mine})
    lines = doctor_report(ready)
    assert not [line for line in lines if line.startswith("error")], lines

    ready.push("main", {".github/mine.yml": None})
    assert doctor_report(ready)[0] == (
        "error: .github/baton.yml: workflow: the workflow file .github/mine.yml does not exist"
    )


def test_a_caller_naming_no_ready_profile_is_an_error(ready: FakeGitHub) -> None:
    caller = ".github/workflows/baton.yml"
    written = setup_for("claude", RELEASE).files[caller]
    ready.push("main", {caller: written.replace("agent: claude-code", "agent: claude")})
    assert doctor_report(ready)[:2] == [
        f"error: {caller}: the input `agent` is 'claude', which is no ready profile "
        "(claude-code, claude-code-read-only, codex, gemini)",
        "  fix: name one, e.g. `agent: claude-code`, or give your own `agent-command` instead",
    ]
