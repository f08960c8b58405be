"""Every event of one issue queues in one concurrency group, and the `baton` job's filter lets
the labels Baton acts on through: read off the workflow files and evaluated by GitHub's own
expression engine (`@actions/expressions`, installed test-only in tests/workflow/expressions by
`.ci/run`).

Issue, comment and dispatch events name the issue; pull-request and CI events name its branch.
Both must spell the same group in the `baton` job and in the `report` job, or two runs on one
issue overlap (docs/reliability.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from baton.sim import payloads
from baton.sim.memory_github import MemoryGitHub

ROOT = Path(__file__).resolve().parents[2]
ENGINE = Path(__file__).resolve().parent / "expressions"
REUSABLE = ROOT / ".github" / "workflows" / "baton-issues.yml"
EXPANDED = ROOT / "examples" / "workflows" / "baton-expanded.yml"
SHA = "a" * 40


def _engine_ready() -> bool:
    return shutil.which("node") is not None and (ENGINE / "node_modules" / "@actions").is_dir()


if not _engine_ready():
    # .ci/run installs the engine and sets this: there, a missing engine is a broken install.
    if os.environ.get("BATON_REQUIRE_EXPRESSIONS"):
        pytest.fail(
            "GitHub's expression engine is not installed (npm ci in tests/workflow/expressions)"
        )
    pytest.skip(
        "GitHub's expression engine is not installed: run `npm ci` in tests/workflow/expressions",
        allow_module_level=True,
    )


def render(templates: list[str], contexts: dict[str, Any]) -> list[str]:
    """The templates as the runner renders them, by GitHub's expression engine."""
    answer = subprocess.run(
        ["node", str(ENGINE / "evaluate.mjs")],
        input=json.dumps({"templates": templates, "contexts": contexts}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    rendered: list[str] = json.loads(answer.stdout)
    return rendered


def _jobs(path: Path) -> dict[str, Any]:
    jobs: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]
    return jobs


def _inputs(prefix: str | None) -> dict[str, Any]:
    """The reusable workflow's inputs at their defaults, the branch prefix as given."""
    on = yaml.safe_load(REUSABLE.read_text(encoding="utf-8"))[True]
    declared = on["workflow_call"]["inputs"]
    inputs = {name: spec.get("default") for name, spec in declared.items()}
    if prefix is not None:
        inputs["branch-prefix"] = prefix
    return inputs


Event = Callable[[MemoryGitHub, int, str], tuple[str, dict[str, Any]]]


def _labeled(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    gh.human_label(n, "baton", by="maria")
    return "issues", payloads.labeled(gh, n, "baton", sender="maria")


def _commented(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    comment = gh.human_comment(n, "approved", author="maria")
    return "issue_comment", payloads.comment_created(gh, comment.id)


def _dispatched(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    return "workflow_dispatch", payloads.workflow_dispatch(gh, {"issue": n}, sender=gh.bot_login)


def _reviewed(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.pull_request_review(
        gh,
        number=40 + n,
        branch=branch,
        head_sha=SHA,
        review_id=5,
        state="approved",
        reviewer="maria",
    )
    return "pull_request_review", payload


def _closed(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.pull_request_closed(
        gh, number=40 + n, branch=branch, head_sha=SHA, merged=True, sender="maria"
    )
    return "pull_request", payload


def _suite(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.check_suite_completed(
        gh, branch=branch, head_sha=SHA, conclusion="failure", suite_id=9, pull_requests=[40 + n]
    )
    return "check_suite", payload


def _workflow_run(gh: MemoryGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.workflow_run_completed(
        gh, branch=branch, head_sha=SHA, conclusion="failure", run_id=11, pull_requests=[40 + n]
    )
    return "workflow_run", payload


EVENTS: dict[str, Event] = {
    "a label": _labeled,
    "a comment": _commented,
    "Baton's dispatch": _dispatched,
    "a review": _reviewed,
    "the merge": _closed,
    "a check suite": _suite,
    "a workflow run": _workflow_run,
}


def _groups(path: Path, prefix: str | None, number: int) -> dict[str, str]:
    """Each event's group in the `baton` job of one issue, and the `report` job's."""
    jobs = _jobs(path)
    gh = MemoryGitHub("octo/repo")
    for _ in range(number):
        last = gh.open_issue("Export the report as CSV", author="alice")
    branch = f"{prefix if prefix is not None else 'baton/issue-'}{last}"
    contexts = []
    for build in EVENTS.values():
        name, payload = build(gh, last, branch)
        github = {"event_name": name, "event": payload, "repository": "octo/repo"}
        contexts.append({"github": github, "inputs": _inputs(prefix)})
    names = [*EVENTS, "the report job"]
    rendered = [render([jobs["baton"]["concurrency"]["group"]], context)[0] for context in contexts]
    report = {"needs": {"baton": {"outputs": {"issue": str(last)}}}, "inputs": _inputs(prefix)}
    rendered += render([jobs["report"]["concurrency"]["group"]], report)
    return dict(zip(names, rendered, strict=True))


CASES = [
    pytest.param(REUSABLE, None, "baton-baton/issue-7", id="reusable, default prefix"),
    pytest.param(REUSABLE, "work/bug-", "baton-work/bug-7", id="reusable, prefix work/bug-"),
    pytest.param(EXPANDED, None, "baton-baton/issue-7", id="expanded"),
]


@pytest.mark.parametrize(("path", "prefix", "group"), CASES)
def test_every_event_of_one_issue_and_its_report_queue_in_one_group(
    path: Path, prefix: str | None, group: str
) -> None:
    groups = _groups(path, prefix, 7)
    assert groups == dict.fromkeys(groups, group)


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
def test_another_issue_queues_in_another_group(path: Path) -> None:
    assert set(_groups(path, None, 8).values()) == {"baton-baton/issue-8"}


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
def test_the_sweep_has_a_group_of_its_own(path: Path) -> None:
    github = {"event_name": "schedule", "event": payloads.schedule("23 * * * *")}
    context = {"github": {**github, "repository": "octo/repo"}, "inputs": _inputs(None)}
    assert render([_jobs(path)["baton"]["concurrency"]["group"]], context) == ["baton-sweep"]


def test_the_engine_renders_what_the_runner_would() -> None:
    # The engine itself, on a case whose answer GitHub's docs give: `||` yields the first
    # truthy operand, a number coerces to its decimal text, a missing property to ''.
    rendered = render(
        ["a-${{ x.missing || x.n }}-${{ x.none }}-${{ format('{0}{1}', 'p/', x.n) }}"],
        {"x": {"n": 7}},
    )
    assert rendered == ["a-7--p/7"]


def _starts(path: Path, label: str, inputs: dict[str, Any]) -> bool:
    """Whether the `baton` job's `if:` lets a maintainer's label through, by GitHub's engine."""
    gh = MemoryGitHub("octo/repo")
    number = gh.open_issue("Export the report as CSV", author="alice")
    gh.human_label(number, label, by="maria")
    github = {
        "event_name": "issues",
        "event": payloads.labeled(gh, number, label, sender="maria"),
        "repository": "octo/repo",
    }
    condition = "${{ " + _jobs(path)["baton"]["if"] + " }}"
    (rendered,) = render([condition], {"github": github, "inputs": inputs})
    return rendered == "true"


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
@pytest.mark.parametrize(
    ("label", "starts"),
    [
        pytest.param("baton:epic", True, id="the epic label"),
        pytest.param("baton", True, id="the trigger label"),
        pytest.param("status:implementing", True, id="a status label"),
        pytest.param("bug", False, id="another label"),
    ],
)
def test_the_epic_label_starts_the_job_as_the_trigger_and_status_labels_do(
    path: Path, label: str, starts: bool
) -> None:
    """Labelling an issue `baton:epic` must reach Baton: the filter let only status labels
    and the trigger label through, so no epic could start from the recommended workflow."""
    assert _starts(path, label, _inputs(None)) is starts


def test_a_renamed_epic_label_starts_the_job_and_an_empty_one_lets_nothing_more_through() -> None:
    renamed = {**_inputs(None), "epic-label": "saga"}
    assert _starts(REUSABLE, "saga", renamed)
    assert not _starts(REUSABLE, "baton:epic", renamed)
    off = {**_inputs(None), "epic-label": ""}
    assert not _starts(REUSABLE, "baton:epic", off)
    assert _starts(REUSABLE, "baton", off), "the trigger label still starts it"
