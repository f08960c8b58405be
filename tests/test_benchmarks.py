"""The benchmark script keeps working (its figures are quoted in the docs and notes)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def test_record_sizes_are_measured_after_real_transitions() -> None:
    bench = load_script()
    sizes = bench.record_sizes([3, 30])
    assert [count for count, _ in sizes] == [3, 30]
    assert all(0 < size < bench.TARGET_RECORD_BYTES for _, size in sizes)


def test_the_report_names_every_target() -> None:
    bench = load_script()
    rows = [
        bench.Row("ignored: push", 0, "—"),
        bench.Row("agent report with a transition (and dispatch)", 7, "…"),
        bench.Row("human reply in a waiting state", 6, "…"),
    ]
    text = bench.render(
        rows,
        bench.Row("sweep", 35, "…"),
        [
            ("python -c pass", 0.02, 1.0, 40_000, 0.02),
            ("baton run, ignored event", 0.08, 4.0, 40_000, 0.07),
            ("baton run, transition (entry)", 0.5, 25.0, 60_000, 0.3),
            ("baton report, transition with a changeset", 0.6, 30.0, 60_000, 0.5),
        ],
        [(1000, 8_500)],
        [
            bench.Row("agent report with a changeset: the first commit", 6, "…"),
            bench.Row("agent report whose changeset is refused", 4, "…"),
            bench.Row("PR: merged", 3, "…"),
        ],
    )
    targets = text.split("## Targets", 1)[1].strip().splitlines()
    assert targets == [
        "- ignored events make 0 API calls: met",
        "- an ignored run within 5× a bare interpreter's CPU: 3.5× — met",
        "- a transition in at most 4 API calls: at most 7 "
        "(agent report with a transition (and dispatch)) — NOT met "
        "(benchmarks/README.md says where each call goes)",
        "- a transition within 20× a bare interpreter's CPU: 25.0× "
        "(baton report, transition with a changeset) — NOT met",
        "- an agent report carrying a changeset in at most 5 API calls: at most 6 "
        "(agent report with a changeset: the first commit) — NOT met",
        "- the record under 16,000 bytes after 1,000 transitions: 8,500 — met",
        "- a sweep over 1,000 open issues within the hourly budget: 35 calls — met",
    ]


def test_each_event_kind_costs_the_calls_the_benchmarks_quote(tmp_path: Path) -> None:
    """The call budget, asserted over real HTTP: a transition in at most four calls (the read,
    a permission lookup or the record check, the write, a dispatch), ignored events in none."""
    bench = load_script()
    counts = {row.kind: row.calls for row in bench.api_calls(tmp_path)}
    assert all(calls == 0 for kind, calls in counts.items() if kind.startswith("ignored"))
    assert {kind: calls for kind, calls in counts.items() if not kind.startswith("ignored")} == {
        "entry: trigger label by a maintainer": 3,
        "agent report with a transition (and dispatch)": 4,
        "chained run naming the next agent": 1,
        "human reply in a waiting state": 3,
        "approval by a maintainer": 4,
        "forced relabel by a maintainer": 4,
        "unknown status label": 4,
    }


def test_a_sweep_over_a_thousand_issues_leaves_the_hour_almost_whole(tmp_path: Path) -> None:
    bench = load_script()
    row = bench.sweep_calls(tmp_path, total=1000, in_workflow=50, due=5)
    assert row.calls <= 25  # 10 listing pages, a read per due issue, its writes


READ = ("POST", "/graphql BatonRead")
CHECK = ("POST", "/graphql BatonRecordCheck")
WRITE = ("POST", "/graphql BatonWrite")
COMMIT = ("POST", "/graphql BatonCommit")
FIRST_COMMIT = ("POST", "/graphql BatonCommitOpening")  # with its draft pull request
BRANCH = [("POST", "/graphql BatonBranch"), ("POST", "/graphql BatonCreateBranch")]
DISPATCH = ("POST", "/actions/workflows/baton.yml/dispatches")


def _permission(login: str) -> tuple[str, str]:
    return ("GET", f"/collaborators/{login}/permission")


NOTES = ("GET", "/pulls/{pr}/reviews/{id}/comments")
RUNS = ("GET", "/commits/{sha}/check-runs")


def _calls(detail: str) -> list[tuple[str, str]]:
    """A row's calls as (method, path); a review's id, which the fake numbers, as {id}."""
    if detail == "—":
        return []
    calls = []
    for call in detail.split(", "):
        method, path = call.split(" ", 1)
        path = re.sub(r"/pulls/\d+/reviews/\d+/", "/pulls/{pr}/reviews/{id}/", path)
        calls.append((method, re.sub(r"/commits/[0-9a-f]{40}/", "/commits/{sha}/", path)))
    return calls


@pytest.mark.slow  # 30 s of CLI runs; the default suite pins a report with a changeset's calls
# (tests/action/test_work_http.py) and `.ci/run` keeps to its ten minutes
def test_the_work_costs_the_calls_the_benchmarks_quote(tmp_path: Path) -> None:
    """Each call of the work, asserted over real HTTP: a call added to a commit, a refusal or a
    pull-request event fails here (benchmarks/README.md says where each goes)."""
    bench = load_script()
    rows = {row.kind: _calls(row.detail) for row in bench.work_calls(tmp_path)}
    assert rows == {
        "agent report entering the first code state (creates the branch)": [
            READ,
            *BRANCH,
            CHECK,
            WRITE,
            DISPATCH,
        ],
        "agent report with a changeset: the first commit (opens the pull request)": [
            READ,
            FIRST_COMMIT,
            CHECK,
            WRITE,
            DISPATCH,
        ],
        "agent report whose changeset is refused (a forbidden path)": [
            READ,
            CHECK,
            WRITE,
            DISPATCH,
        ],
        # Stale by the branch head the read brings: no commit is tried.
        "agent report with a stale changeset (a human pushed meanwhile)": [
            READ,
            CHECK,
            WRITE,
            DISPATCH,
        ],
        # GitHub refuses the commit (its compare-and-swap); the new head is read for the record.
        "agent report whose commit loses the race (a push between the read and the commit)": [
            READ,
            COMMIT,
            ("POST", "/graphql BatonBranch"),
            CHECK,
            WRITE,
            DISPATCH,
        ],
        "agent report with a changeset: a later commit (→ creating_pr, marks the PR ready)": [
            READ,
            COMMIT,
            CHECK,
            WRITE,
            DISPATCH,
        ],
        "ignored: a plain review comment (from the payload)": [],
        "PR: a stranger's approving review (no weight)": [READ, _permission("mallory")],
        "PR: a stranger's review requesting changes (no weight)": [
            READ,
            NOTES,
            _permission("mallory"),
        ],
        "PR: passing checks (check_suite)": [],  # ignored from the payload alone
        # The payload names only the failing suite or workflow: the head's check runs say
        # which check failed and why, for the developer's feedback.
        "PR: failing checks via check_suite (→ fixing_issues)": [READ, RUNS, CHECK, WRITE],
        "PR: failing checks via workflow_run (→ fixing_issues)": [READ, RUNS, CHECK, WRITE],
        "PR: an approver's review requesting changes (→ addressing_feedback)": [
            READ,
            NOTES,
            _permission("maria"),
            CHECK,
            WRITE,
        ],
        "PR: an approver's approving review at the gate (→ human_input_received)": [
            READ,
            _permission("maria"),
            CHECK,
            WRITE,
        ],
        "PR: merged (→ completed)": [READ, CHECK, WRITE],
        "forced relabel into a code state (creates the branch)": [
            READ,
            _permission("maria"),
            *BRANCH,
            CHECK,
            WRITE,
        ],
        "PR: closed without merging (→ waiting_for_human_input)": [READ, CHECK, WRITE],
        "ignored: a pull request merged from a non-Baton branch": [],
        "ignored: a review on a non-Baton branch": [],
        "ignored: failing checks on a non-Baton branch": [],
    }


@pytest.mark.slow  # a figure (5 MB through the real CLI), measured by benchmarks/run.py too
def test_a_changeset_at_the_limits_is_committed_in_one_request(tmp_path: Path) -> None:
    """300 files, 4,000,000 bytes: one BatonCommit of about 4/3 of that (base64); one byte more
    is refused before any commit."""
    bench = load_script()
    limits = bench.changeset_limits(tmp_path)
    assert (limits.max_files, limits.max_bytes) == (300, 4_000_000)
    assert _calls(limits.calls) == [READ, FIRST_COMMIT, CHECK, WRITE, DISPATCH]
    assert _calls(limits.over_calls) == [READ, CHECK, WRITE, DISPATCH]
    base64 = 4 * -(-limits.max_bytes // 3)
    assert base64 < limits.request < base64 + 100_000
    assert base64 < limits.changeset_file < base64 + 100_000


# --- epics ---------------------------------------------------------------------------------
def test_a_ten_task_plan_costs_four_round_trips_then_eight_and_its_rerun_two() -> None:
    """The planner's report through `run.handle`, GitHubTracker's requests in process: the plan
    recorded (read, check, write, the epic's run dispatched); that run makes it: the read (which
    brings the epic's sub-issues, the task label's id, the default head and whether the epic's
    branch exists: all create_tasks' query asked), one document of 10 issues with the epic's
    branch (`createRef` beside them), one of the edges, the record's check and write, three
    starts dispatched (`max_parallel`); one more with the task label missing. Handled again, the
    report is seen as applied after reading the epic (its sub-issues with it) and its tasks."""
    bench = load_script()
    rows = {row.kind: (row.calls, row.detail) for row in bench.epic_plan_calls()}
    read = "BatonRead"  # the issue, its comments, the branch, the sub-issues, the label ids
    create = "BatonCreateTasks, BatonBlockedBy"  # createRef beside the 10 createIssue fields
    starts = ", ".join(["POST /actions/workflows/baton.yml/dispatches"] * 3)
    write = f"BatonRecordCheck, BatonWrite, {starts}"
    made = "the epic's next run: 10 sub-issues, their edges, the first starts; the task label"
    assert rows == {
        "planner's report of 10 tasks (the plan recorded)": (
            4,
            f"{read}, BatonRecordCheck, BatonWrite, POST /actions/workflows/baton.yml/dispatches",
        ),
        f"{made} missing": (9, f"{read}, POST /labels, {create}, {write}"),
        f"{made} present": (8, f"{read}, {create}, {write}"),
        "the same report again (a re-run after success)": (2, f"{read}, BatonReadMany"),
    }


def _plan(count: int, free: int, deps: int) -> list[dict[str, object]]:
    """`count` tasks, the first `free` unblocked, each later one blocked by the `deps` before."""
    return [
        {
            "key": f"t{i}",
            "title": f"Task {i}",
            "body": f"Part {i}.",
            "depends_on": [] if i < free else [f"t{j}" for j in range(max(0, i - deps), i)],
        }
        for i in range(count)
    ]


@pytest.mark.parametrize(
    ("count", "free", "deps", "edges", "trips"),
    [
        pytest.param(1, 1, 0, 0, 5, id="one task: read, create, check, write, its start"),
        pytest.param(20, 20, 0, 0, 7, id="the limit, no edges: three starts (max_parallel)"),
        pytest.param(20, 3, 6, 96, 8, id="the limit, 96 edges: one document of them"),
    ],
)
def test_an_epic_s_creation_run_stays_within_eight_round_trips_up_to_the_plan_limit(
    count: int, free: int, deps: int, edges: int, trips: int
) -> None:
    """The default `epics.max_tasks` (20) with the default `max_parallel` (3), the task label
    present: the read, one document of issues (and the epic's branch), one of edges (up to
    100), the record's check and write, one start per free task up to `max_parallel`."""
    bench = load_script()
    plan = _plan(count, free, deps)
    assert sum(len(t["depends_on"]) for t in plan) == edges  # type: ignore[arg-type]
    _first, made, _again = bench.EpicWorld(task_label=True).report_plan(plan)
    assert made.trips == trips <= 8, made.detail
    assert made.detail.count("dispatch") == min(free, 3)


def test_a_conductor_run_over_ten_tasks_reads_twice_and_writes_nothing() -> None:
    """A workflow_dispatch on an epic in implementing, its tasks 3 completed, 3 in progress and
    4 pending: the epic with its sub-issues, the records of its tasks; nothing to order."""
    bench = load_script()
    rows, statuses, _seconds = bench.epic_conductor(repeat=1)
    assert statuses == {"completed": 3, "in-progress": 3, "pending": 4}
    assert [(row.calls, row.detail) for row in rows] == [(2, "BatonRead, BatonReadMany")]


def test_create_tasks_over_http_costs_four_calls_three_with_the_label_and_one_again() -> None:
    bench = load_script()
    rows = {
        row.kind: (row.calls, row.detail.split(":", 1)[0]) for row in bench.epic_tracker_calls()
    }
    assert rows == {
        "create_tasks of 10 tasks, the task label missing": (4, "3 GraphQL + 1 REST"),
        "create_tasks of 10 tasks, the task label present": (3, "3 GraphQL + 0 REST"),
        "create_tasks again after success": (1, "1 GraphQL + 0 REST"),
    }


def test_the_epic_record_stays_within_a_comment_with_fifty_tasks() -> None:
    bench = load_script()
    sizes = bench.epic_record_sizes([10, 50])
    assert [(tasks, spec) for tasks, spec, _, _ in sizes] == [(10, 6_000), (50, 6_000)]
    assert all(data < body < 65_536 for _, _, body, data in sizes)  # GitHub's comment limit


def test_the_epics_section_replaces_its_old_self_and_keeps_the_rest() -> None:
    bench = load_script()
    text = "# Baton benchmarks\n\n## A\n\nx\n\n## Epics\n\nold\n\n## B\n\ny\n"
    assert bench._with_epics(text, "## Epics\n\nnew\n") == (
        "# Baton benchmarks\n\n## A\n\nx\n\n## Epics\n\nnew\n\n## B\n\ny\n"
    )
    assert bench._with_epics("# T\n", "## Epics\n\nnew\n") == "# T\n\n## Epics\n\nnew\n"
