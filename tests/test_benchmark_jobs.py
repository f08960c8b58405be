"""RESULTS.md's job starts and billed minutes are the workflow files' own: `benchmarks/jobs.py`
evaluates the reusable workflow's `if:`s with GitHub's expression engine over the runs of
`baton demo`'s issue, and the section in RESULTS.md is what it renders now, so a change of the
workflow that moves a figure fails here until `benchmarks/run.py --jobs` is run again."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from support.expressions import EXPANDED, ROOT, require_engine

require_engine()


@pytest.fixture(scope="module")
def jobs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_jobs", ROOT / "benchmarks" / "jobs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_jobs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures(jobs: ModuleType) -> object:
    return jobs.figures()


def test_each_hand_off_starts_three_jobs_before_and_two_after(figures: object) -> None:
    before, after = figures.before, figures.after  # type: ignore[attr-defined]
    assert len(after) == len(before) >= 5, "the demo's issue hands off to most of its agents"
    assert set(before) == {("baton", "agent", "report")}
    assert set(after) == {("agent", "report")}


def test_an_ignored_event_starts_at_most_the_baton_job(figures: object) -> None:
    ignored = dict(figures.ignored)  # type: ignore[attr-defined]
    assert ignored["a comment outside the workflow"] == ()
    assert ignored["a label that is not Baton's"] == ()
    assert ignored["a comment while an agent works"] == ("baton",)


def test_the_expanded_example_starts_the_same_jobs(jobs: ModuleType, figures: object) -> None:
    assert jobs.figures(EXPANDED) == figures


def test_github_bills_each_job_rounded_up_to_a_whole_minute(jobs: ModuleType) -> None:
    seconds = {"baton": 60, "agent": 61, "report": 1}
    assert jobs.billed(("baton", "agent", "report"), seconds) == 1 + 2 + 1
    assert jobs.billed((), seconds) == 0


def test_results_md_holds_the_figures_the_workflow_gives_now(
    jobs: ModuleType, figures: object
) -> None:
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    section = jobs.render(figures)
    assert section in results, "run `python benchmarks/run.py --jobs`"
    assert jobs.with_section(results, section) == results


@pytest.fixture(scope="module")
def evidence(jobs: ModuleType) -> list[object]:
    return jobs.evidence_figures()  # type: ignore[no-any-return]


def test_evidence_costs_no_job_start_a_test_run_is_one_hand_off(evidence: list[object]) -> None:
    """issue-lifecycle with `tests:` starts the same jobs as without: the `tests` profile's
    agent job replaces the tester's, and only running_tests runs it (creating_tests runs the
    tester's model, then its tests in the same job)."""
    without, with_tests, first = evidence
    assert with_tests.jobs == without.jobs  # type: ignore[attr-defined]
    assert with_tests.agent_jobs == without.agent_jobs  # type: ignore[attr-defined]
    assert (without.test_runs, with_tests.test_runs, first.test_runs) == (0, 1, 1)  # type: ignore[attr-defined]
    assert with_tests.minutes() < with_tests.minutes(evidence=False)  # type: ignore[attr-defined]
    assert without.minutes() == without.minutes(evidence=False)  # type: ignore[attr-defined]


def test_results_md_holds_the_evidence_figures_the_workflow_gives_now(
    jobs: ModuleType, evidence: list[object]
) -> None:
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    section = jobs.render_evidence(evidence)
    assert section in results, "run `python benchmarks/run.py --jobs`"
    assert jobs.with_section(results, section) == results
