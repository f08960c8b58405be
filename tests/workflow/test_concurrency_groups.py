"""Every event of one issue queues in one concurrency group: read off the workflow files and
evaluated by GitHub's own expression engine (tests/support/expressions.py).

Issue, comment and dispatch events name the issue; pull-request and CI events name its branch.
Both must spell the same group in the `baton` job and in the `report` job (also in a run Baton's
dispatch started without a `baton` job), or two runs on one issue overlap
(docs/reliability.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from support.expressions import (
    EXPANDED,
    REUSABLE,
    job_starts,
    jobs,
    render,
    require_engine,
    reusable_inputs,
)

require_engine()
SHA = "a" * 40
HANDOVER = f"{'0' * 16}.{'a' * 64}"


def _jobs(path: Path) -> dict[str, Any]:
    return jobs(path)


def _inputs(prefix: str | None) -> dict[str, Any]:
    """The reusable workflow's inputs at their defaults, the branch prefix as given."""
    return reusable_inputs() if prefix is None else reusable_inputs(branch_prefix=prefix)


Event = Callable[[SimGitHub, int, str], tuple[str, dict[str, Any]]]


def _labeled(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    gh.human_label(n, "baton", by="maria")
    return "issues", payloads.labeled(gh, n, "baton", sender="maria")


def _commented(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    comment = gh.human_comment(n, "approved", author="maria")
    return "issue_comment", payloads.comment_created(gh, comment.id)


def _dispatched(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    return "workflow_dispatch", payloads.workflow_dispatch(gh, {"issue": n}, sender=gh.bot_login)


def _reviewed(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
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


def _closed(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.pull_request_closed(
        gh, number=40 + n, branch=branch, head_sha=SHA, merged=True, sender="maria"
    )
    return "pull_request", payload


def _suite(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.check_suite_completed(
        gh, branch=branch, head_sha=SHA, conclusion="failure", suite_id=9, pull_requests=[40 + n]
    )
    return "check_suite", payload


def _workflow_run(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.workflow_run_completed(
        gh, branch=branch, head_sha=SHA, conclusion="failure", run_id=11, pull_requests=[40 + n]
    )
    return "workflow_run", payload


def _repository_dispatch(gh: SimGitHub, n: int, branch: str) -> tuple[str, dict[str, Any]]:
    payload = payloads.repository_dispatch(gh, "baton", {"issue": n}, sender="maria")
    return "repository_dispatch", payload


EVENTS: dict[str, Event] = {
    "a label": _labeled,
    "a comment": _commented,
    "Baton's dispatch": _dispatched,
    "a repository dispatch": _repository_dispatch,
    "a review": _reviewed,
    "the merge": _closed,
    "a check suite": _suite,
    "a workflow run": _workflow_run,
}


def _groups(path: Path, prefix: str | None, number: int) -> dict[str, str]:
    """Each event's group in the `baton` job of one issue, and the `report` job's."""
    jobs = _jobs(path)
    gh = SimGitHub("octo/repo")
    for _ in range(number):
        last = gh.open_issue("Export the report as CSV", author="alice")
    branch = f"{prefix if prefix is not None else 'baton/issue-'}{last}"
    contexts = []
    for build in EVENTS.values():
        name, payload = build(gh, last, branch)
        github = {"event_name": name, "event": payload, "repository": "octo/repo"}
        contexts.append({"github": github, "inputs": _inputs(prefix)})
    names = [
        *EVENTS,
        "the report job",
        "the report job of a run without a baton job",
        "the report job of a repository dispatch's run",
    ]
    rendered = [render([jobs["baton"]["concurrency"]["group"]], context)[0] for context in contexts]
    group = jobs["report"]["concurrency"]["group"]
    after_baton = {"issue": str(last)}
    inputs = {"issue": str(last), "state": "implementing", "handover": HANDOVER}
    dispatch = payloads.workflow_dispatch(gh, inputs, sender=gh.bot_login)
    handed_over = {"event_name": "workflow_dispatch", "event": dispatch}
    by_repository = contexts[3]["github"]
    runs = [(after_baton, contexts[2]["github"]), ({}, handed_over), ({}, by_repository)]
    for outputs, github in runs:
        report = {"needs": {"baton": {"outputs": outputs}}, "github": github}
        rendered += render([group], report | {"inputs": _inputs(prefix)})
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


# `#5`, `05` and ` 5` are three groups to GitHub: a dispatch's issue is its digits alone
# (`^[1-9][0-9]*$`), or no job starts (and Baton's parser refuses the same text: test_webhooks).
HOSTILE = ["#5", "05", " 5", "5 ", "-5", "+5", "5.0", "1e3", "1E3", "", "0", "5a", "5\n", "0x5"]
HOSTILE += ["1 5", "\u00a05", "5\u00a0", "Infinity", "true", "[5]", "5,0", "1_000"]
FINE = ["5", "10", "7", "123456"]
NAMED = {"agent": "developer", "issue": "5", "handover": HANDOVER, "accepted": "true"}


def _by(sender: str, inputs: dict[str, str]) -> tuple[str, dict[str, Any]]:
    gh = SimGitHub("octo/repo")
    return "workflow_dispatch", payloads.workflow_dispatch(gh, inputs, sender=sender)


def _asked(issue: Any) -> list[tuple[str, dict[str, Any]]]:
    """A write user's dispatch, Baton's hand-over and a repository dispatch of `issue`."""
    gh = SimGitHub("octo/repo")
    handed = {"issue": issue, "state": "implementing", "handover": HANDOVER}
    by_repository = payloads.repository_dispatch(gh, "baton", {"issue": issue}, sender="maria")
    return [
        _by("maria", {"issue": issue}),
        _by(gh.bot_login, handed),
        ("repository_dispatch", by_repository),
    ]


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
@pytest.mark.parametrize("issue", HOSTILE)
def test_a_dispatch_naming_its_issue_otherwise_than_by_its_digits_starts_no_job(
    path: Path, issue: str
) -> None:
    events = _asked(issue)
    assert job_starts(path, events, [NAMED] * len(events)) == [(), (), ()]


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
@pytest.mark.parametrize("issue", FINE)
def test_a_dispatch_naming_its_issue_by_its_digits_starts_its_jobs(path: Path, issue: str) -> None:
    events = _asked(issue)
    starts = job_starts(path, events, [NAMED] * len(events))
    every = ("baton", "agent", "report")
    assert starts == [every, ("agent", "report"), every]


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
def test_a_repository_dispatch_names_its_issue_as_a_json_number_too(path: Path) -> None:
    gh = SimGitHub("octo/repo")
    events = [
        ("repository_dispatch", payloads.repository_dispatch(gh, "b", {"issue": n}, sender="maria"))
        for n in (5, 5.5, 0, -5, 1e21)
    ]
    starts = job_starts(path, events, [NAMED] * len(events))
    assert starts == [("baton", "agent", "report"), (), (), (), ()]
