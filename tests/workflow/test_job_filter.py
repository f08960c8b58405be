"""The `baton` job's `if:` starts a runner only for events Baton may act on, and never drops one
it acts on: the workflow's own expression, evaluated by GitHub's engine over payloads built by
`baton.sim.payloads`, case by case, and against the fast path's own rules (`core.triage`) over
a grid of events. An issue with no Baton label starts nothing but a Baton label's arrival."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from baton.core.rules import triage
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from support.expressions import (
    EXPANDED,
    REUSABLE,
    condition,
    jobs,
    render_each,
    require_engine,
    reusable_inputs,
)

require_engine()
SHA = "a" * 40
Payload = dict[str, Any]


@dataclass(frozen=True)
class Names:
    """The config's names the filter reads, as the reusable workflow's inputs carry them."""

    prefix: str = "status:"
    trigger: str = "baton"
    epic: str = "baton:epic"  # "" when epics are off
    task: str = "baton:task"
    branch: str = "baton/issue-"
    on_open: bool = False
    pull_requests: bool = False

    def inputs(self) -> dict[str, Any]:
        return reusable_inputs(
            label_prefix=self.prefix,
            trigger_label=self.trigger,
            epic_label=self.epic,
            task_label=self.task,
            branch_prefix=self.branch,
            enter_on_open=self.on_open,
            pull_requests=self.pull_requests,
        )

    def view(self) -> triage.View:
        """What the fast path reads from the same config (its machine unknown: it then ignores
        no comment on a status-labelled issue, the widest it lets through)."""
        markers = (self.task, self.epic) if self.epic else ()
        return triage.View(
            label_prefix=self.prefix,
            trigger_label=self.trigger,
            markers=tuple(marker.casefold() for marker in markers),
            branch_prefix=self.branch,
            enter_on_open=self.on_open,
            pull_requests=self.pull_requests,
        )


DEFAULTS = Names()
RENAMED = Names("state/", "go", "saga", "chore", "work/bug-", on_open=True, pull_requests=True)
NO_EPICS = Names(epic="")


def starts(path: Path, events: list[tuple[str, Payload]], names: Names = DEFAULTS) -> list[bool]:
    """Whether the job's `if:` starts a runner for each event, by GitHub's engine."""
    expression = condition(jobs(path)["baton"]["if"])
    inputs = names.inputs()  # read from the workflow file once, not once per event
    contexts = [
        {
            "github": {
                "event_name": name,
                "event": payload,
                "repository": "octo/repo",
            },
            "inputs": inputs,
        }
        for name, payload in events
    ]
    return [answer == "true" for answer in render_each(expression, contexts)]


# --- the events, built from a fake GitHub ----------------------------------------------------
def _issue(labels: tuple[str, ...]) -> tuple[SimGitHub, int]:
    gh = SimGitHub("octo/repo")
    number = gh.open_issue("Export the report as CSV", author="alice")
    for label in labels:
        gh.human_label(number, label, by="maria")
    return gh, number


def issue_event(
    action: str, labels: tuple[str, ...] = (), *, label: str | None = None, sender: str = "maria"
) -> tuple[str, Payload]:
    gh, number = _issue(labels)
    return "issues", payloads.issues(gh, number, action, sender=sender, label=label)


def comment(
    labels: tuple[str, ...],
    *,
    body: str = "Looks right to me.",
    author: str = "maria",
    action: str = "created",
    on_pull_request: bool = False,
) -> tuple[str, Payload]:
    gh, number = _issue(labels)
    posted = gh.human_comment(number, body, author=author, bot=author.endswith("[bot]"))
    payload = payloads.issue_comment(gh, posted.id, action)
    if on_pull_request:
        url = f"https://api.github.com/repos/octo/repo/pulls/{number}"
        payload["issue"]["pull_request"] = {"url": url, "merged_at": None}
    return "issue_comment", payload


def review(
    branch: str, state: str = "approved", *, reviewer: str = "maria", fork: str | None = None
) -> tuple[str, Payload]:
    gh, _ = _issue(())
    payload = payloads.pull_request_review(
        gh,
        number=41,
        branch=branch,
        head_sha=SHA,
        review_id=5,
        state=state,
        reviewer=reviewer,
        fork=fork,
    )
    return "pull_request_review", payload


def merged(branch: str, *, sender: str = "maria", fork: str | None = None) -> tuple[str, Payload]:
    gh, _ = _issue(())
    payload = payloads.pull_request_closed(
        gh, number=41, branch=branch, head_sha=SHA, merged=True, sender=sender, fork=fork
    )
    return "pull_request", payload


def suite(
    branch: str, conclusion: str, *, check_runs: int = 1, from_fork: bool = False
) -> tuple[str, Payload]:
    gh, _ = _issue(())
    payload = payloads.check_suite_completed(
        gh,
        branch=branch,
        head_sha=SHA,
        conclusion=conclusion,
        suite_id=9,
        pull_requests=[41],
        from_fork=from_fork,
        check_runs=check_runs,
    )
    return "check_suite", payload


def workflow_run(branch: str, conclusion: str, *, fork: str | None = None) -> tuple[str, Payload]:
    gh, _ = _issue(())
    payload = payloads.workflow_run_completed(
        gh,
        branch=branch,
        head_sha=SHA,
        conclusion=conclusion,
        run_id=11,
        pull_requests=[41],
        fork=fork,
    )
    return "workflow_run", payload


def dispatch(issue: str, state: str = "", sender: str | None = None) -> tuple[str, Payload]:
    gh, _ = _issue(())
    inputs = ({"issue": issue} if issue else {}) | ({"state": state} if state else {})
    inputs |= {"handover": f"{'0' * 16}.{'a' * 64}"} if state else {}
    payload = payloads.workflow_dispatch(gh, inputs, sender=sender or gh.bot_login)
    return "workflow_dispatch", payload


def repository_dispatch(client_payload: Payload) -> tuple[str, Payload]:
    gh, _ = _issue(())
    payload = payloads.repository_dispatch(gh, "baton", client_payload, sender="maria")
    return "repository_dispatch", payload


def sweep() -> tuple[str, Payload]:
    return "schedule", payloads.schedule("23 * * * *")


# --- case by case ----------------------------------------------------------------------------
BATON = ("status:implementing",)
B = "baton/issue-7"
CASES: list[tuple[str, Callable[[], tuple[str, Payload]], bool]] = [
    ("a comment on an issue that is not Baton's", lambda: comment(()), False),
    ("a comment on an issue with an unrelated label", lambda: comment(("bug",)), False),
    ("a comment on a Baton issue", lambda: comment(BATON), True),
    ("an edited comment on a Baton issue", lambda: comment(BATON, action="edited"), True),
    ("a deleted comment on a Baton issue", lambda: comment(BATON, action="deleted"), False),
    ("a bot's comment on a Baton issue", lambda: comment(BATON, author="ci[bot]"), False),
    ("Baton's own comment", lambda: comment(BATON, author="github-actions[bot]"), False),
    ("a comment on a pull request", lambda: comment(BATON, on_pull_request=True), False),
    ("a comment on an issue labelled only for entry", lambda: comment(("baton",)), False),
    ("the trigger label added", lambda: issue_event("labeled", label="baton"), True),
    ("the epic label added", lambda: issue_event("labeled", label="baton:epic"), True),
    ("the task label added", lambda: issue_event("labeled", label="baton:task"), True),
    ("a status label added", lambda: issue_event("labeled", label="status:review"), True),
    (
        "a status label in other letter case",
        lambda: issue_event("labeled", label="Status:QA"),
        True,
    ),
    (
        "a label only beginning like the prefix",
        lambda: issue_event("labeled", label="statuses"),
        False,
    ),
    ("a status label removed", lambda: issue_event("unlabeled", BATON, label="status:x"), True),
    ("an unrelated label on a foreign issue", lambda: issue_event("labeled", label="bug"), False),
    (
        "an unrelated label on a Baton issue",
        lambda: issue_event("labeled", BATON, label="bug"),
        False,
    ),
    (
        "the trigger label added by a bot",
        lambda: issue_event("labeled", label="baton", sender="app[bot]"),
        False,
    ),
    ("an issue opened", lambda: issue_event("opened"), False),
    # GitHub sends `labeled` for each label an issue is opened with: that event starts it.
    (
        "an issue opened carrying the trigger label",
        lambda: issue_event("opened", ("baton",)),
        False,
    ),
    ("a Baton issue reopened", lambda: issue_event("reopened", BATON), True),
    ("a foreign issue reopened", lambda: issue_event("reopened", ("bug",)), False),
    ("a Baton issue closed", lambda: issue_event("closed", BATON), False),
    ("a Baton issue edited", lambda: issue_event("edited", BATON), False),
    ("a Baton issue assigned", lambda: issue_event("assigned", BATON), False),
    ("a pull request review on Baton's branch", lambda: review(B), True),
    ("requested changes on Baton's branch", lambda: review(B, "changes_requested"), True),
    ("a review on another branch", lambda: review("feature/csv"), False),
    ("a review on a branch merely starting like Baton's", lambda: review("baton/x"), False),
    ("a review from a fork's Baton-named branch", lambda: review(B, fork="mallory"), False),
    ("a commented review on Baton's branch", lambda: review(B, "commented"), False),
    ("a bot's review on Baton's branch", lambda: review(B, reviewer="ci[bot]"), False),
    ("Baton's pull request merged", lambda: merged(B), True),
    ("Baton's pull request merged by a bot", lambda: merged(B, sender="merge[bot]"), True),
    ("another pull request merged", lambda: merged("feature/csv"), False),
    ("a fork's pull request closed", lambda: merged(B, fork="mallory"), False),
    ("CI failed on Baton's branch", lambda: suite(B, "failure"), True),
    ("CI timed out on Baton's branch", lambda: workflow_run(B, "timed_out"), True),
    ("CI passed on Baton's branch", lambda: suite(B, "success"), False),
    ("CI awaiting approval on Baton's branch", lambda: workflow_run(B, "action_required"), False),
    ("a held run that never ran a job", lambda: suite(B, "failure", check_runs=0), False),
    ("CI failed on another branch", lambda: suite("main", "failure"), False),
    ("a fork's check suite", lambda: suite(B, "failure", from_fork=True), False),
    ("a fork's workflow run", lambda: workflow_run(B, "failure", fork="mallory"), False),
    ("Baton's dispatch", lambda: dispatch("7"), True),
    # Its agent job starts in its place (tests/workflow/test_handover_jobs.py).
    ("Baton's dispatch handing over the state", lambda: dispatch("7", "implementing"), False),
    ("a human's dispatch with a state", lambda: dispatch("7", "implementing", "maria"), True),
    ("a dispatch naming no issue", lambda: dispatch(""), False),
    ("a repository_dispatch asking for a run", lambda: repository_dispatch({"issue": 7}), True),
    (
        "a repository_dispatch carrying a result",
        lambda: repository_dispatch({"issue": 7, "result": {"status": "success"}}),
        False,
    ),
    ("the sweep", sweep, True),
]


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
def test_the_filter_starts_a_runner_only_for_events_baton_acts_on(path: Path) -> None:
    got = starts(path, [build() for _, build, _ in CASES])
    wrong = [name for (name, _, want), start in zip(CASES, got, strict=True) if start != want]
    assert not wrong, f"the filter decides these wrongly: {wrong}"


def test_the_reusable_filter_reads_the_configs_names_from_its_inputs() -> None:
    events = [
        issue_event("labeled", label="go"),
        issue_event("labeled", label="saga"),
        issue_event("labeled", label="chore"),
        issue_event("labeled", label="state/review"),
        issue_event("labeled", label="baton"),
        issue_event("labeled", label="status:review"),
        comment(("state/review",)),
        comment(BATON),
        comment(("state/review",), on_pull_request=True),
        issue_event("opened"),
        review("work/bug-7"),
        review(B),
    ]
    want = [True, True, True, True, False, False, True, False, True, True, True, False]
    assert starts(REUSABLE, events, RENAMED) == want


def test_with_epics_off_their_labels_start_nothing_and_the_trigger_label_still_does() -> None:
    events = [
        issue_event("labeled", label="baton:epic"),
        issue_event("labeled", label="baton:task"),
        issue_event("labeled", label="baton"),
    ]
    assert starts(REUSABLE, events, NO_EPICS) == [False, False, True]


# --- never drops an event the fast path would act on -----------------------------------------
FOREIGN = ("bug", "help wanted")


def _grid(names: Names) -> Iterator[tuple[str, Payload]]:
    """Events across every dimension the fast path reads from a payload."""
    ours = (names.trigger, f"{names.prefix}implementing", names.epic or "x", names.task)
    label_sets = [(), FOREIGN[:1], *[(label,) for label in ours], (FOREIGN[0], ours[1])]
    label_sets.append((f"{names.prefix}review".upper(),))
    senders = ("maria", "ci[bot]")
    for labels, sender in itertools.product(label_sets, senders):
        for action in ("opened", "reopened", "closed", "edited", "assigned"):
            yield issue_event(action, labels, sender=sender)
        for action, label in itertools.product(("labeled", "unlabeled"), (*FOREIGN, *ours)):
            yield issue_event(action, labels, label=label, sender=sender)
        for action, on_pull, body in itertools.product(
            ("created", "edited", "deleted"), (False, True), ("approved", "hello")
        ):
            yield comment(labels, body=body, author=sender, action=action, on_pull_request=on_pull)
    branches = (f"{names.branch}7", f"{names.branch}x", "feature/csv", "baton/issue-7", "main")
    for branch, fork in itertools.product(branches, (None, "mallory")):
        yield merged(branch, fork=fork)
        yield merged(branch, sender="merge[bot]", fork=fork)
        for state, reviewer in itertools.product(
            ("approved", "changes_requested", "commented", "dismissed"), senders
        ):
            yield review(branch, state, reviewer=reviewer, fork=fork)
        for conclusion in (
            "success",
            "failure",
            "timed_out",
            "startup_failure",
            "cancelled",
            "action_required",
            "neutral",
            "skipped",
        ):
            yield workflow_run(branch, conclusion, fork=fork)
            for runs in (0, 1):
                yield suite(branch, conclusion, check_runs=runs, from_fork=fork is not None)
    yield from (dispatch("7"), dispatch(""), sweep())
    yield from (repository_dispatch({"issue": 7}), repository_dispatch({"result": {}}))


@pytest.mark.parametrize(
    ("path", "names"),
    [
        pytest.param(REUSABLE, DEFAULTS, id="reusable, defaults"),
        pytest.param(REUSABLE, RENAMED, id="reusable, every name changed"),
        pytest.param(REUSABLE, NO_EPICS, id="reusable, epics off"),
        pytest.param(EXPANDED, DEFAULTS, id="expanded"),
    ],
)
def test_the_filter_never_drops_an_event_the_fast_path_would_act_on(
    path: Path, names: Names
) -> None:
    events = list(_grid(names))
    view = names.view()
    kept = [triage.quick_reason(name, payload, view) is None for name, payload in events]
    started = starts(path, events, names)
    dropped = [
        (name, payload.get("action"))
        for (name, payload), keep, start in zip(events, kept, started, strict=True)
        if keep and not start
    ]
    assert not dropped, f"the filter drops events Baton acts on: {dropped[:10]}"
    # And it is a filter: most of the grid is nothing to Baton, and starts nothing.
    assert sum(started) < len(events) / 2
