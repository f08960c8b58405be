"""Two job starts per hand-off: a run Baton's dispatch starts with the state it hands over has
no `baton` job, its `agent` job starts at once and its `report` job follows; every other run
keeps the `baton` job first. Read off the workflow files and evaluated job by job by GitHub's
own expression engine (tests/support/expressions.py), with the results of the jobs each one
needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baton.sim import payloads
from baton.sim.memory_github import MemoryGitHub
from support.expressions import (
    EXPANDED,
    REUSABLE,
    condition,
    job_starts,
    jobs,
    render,
    require_engine,
    reusable_inputs,
)

require_engine()
FLOWS = [pytest.param(REUSABLE, id="reusable"), pytest.param(EXPANDED, id="expanded")]
EVERY = ("baton", "agent", "report")
NAMED = {"agent": "developer", "issue": "7"}
APP = "baton-app[bot]"


def dispatch(inputs: dict[str, str], sender: str | None = None) -> tuple[str, dict[str, Any]]:
    gh = MemoryGitHub("octo/repo")
    gh.open_issue("Export the report as CSV", author="alice")
    payload = payloads.workflow_dispatch(gh, inputs, sender=sender or gh.bot_login)
    return "workflow_dispatch", payload


HANDED_OVER = {"issue": "7", "state": "implementing"}


HAND_OFF = ("agent", "report")
RUNS = [
    pytest.param(dispatch(HANDED_OVER), HAND_OFF, id="Baton's dispatch handing over the state"),
    pytest.param(dispatch(HANDED_OVER, APP), HAND_OFF, id="the App's dispatch, likewise"),
    pytest.param(dispatch({"issue": "7"}), EVERY, id="a caller without the state input"),
    pytest.param(dispatch(HANDED_OVER, "maria"), EVERY, id="a human's, whatever its inputs"),
    pytest.param(dispatch({"issue": "7", "state": ""}), EVERY, id="an empty state"),
]


@pytest.mark.parametrize("path", FLOWS)
@pytest.mark.parametrize(("event", "started"), RUNS)
def test_a_hand_off_starts_two_jobs_and_every_other_run_three(
    path: Path, event: tuple[str, dict[str, Any]], started: tuple[str, ...]
) -> None:
    assert job_starts(path, [event], [NAMED]) == [started]


@pytest.mark.parametrize("path", FLOWS)
def test_after_an_agent_job_that_ran_no_agent_the_report_job_decides_the_run_instead(
    path: Path,
) -> None:
    report = jobs(path)["report"]
    refused = job_starts(path, [dispatch(HANDED_OVER)], [{"agent": "", "issue": "7"}])
    assert refused == [("agent", "report")]
    commands = {
        s["with"]["command"]: s["if"] for s in report["steps"] if "command" in s.get("with", {})
    }
    assert set(commands) == {"report", "run"}

    def chosen(agent: dict[str, Any], baton: dict[str, Any] = SKIPPED) -> list[str]:
        context = _context(dispatch(HANDED_OVER), baton)
        context["needs"]["agent"] = agent
        context["env"] = {"REFUSED": render([report["env"]["REFUSED"]], context)[0]}
        runs = render([condition(commands[c]) for c in sorted(commands)], context)
        return [c for c, answer in zip(sorted(commands), runs, strict=True) if answer == "true"]

    # The record refused the dispatch: `baton run`, as the skipped baton job would have.
    assert chosen({"result": "success", "outputs": {"agent": ""}}) == ["run"]
    # The agent ran, or the job failed (a failed attempt is reported): `baton report`.
    assert chosen({"result": "success", "outputs": {"agent": "developer"}}) == ["report"]
    assert chosen({"result": "failure", "outputs": {}}) == ["report"]
    assert chosen({"result": "failure", "outputs": {}}, DECIDED) == ["report"]
    failed = job_starts(path, [dispatch(HANDED_OVER)], [{"agent": ""}], failed=("agent",))
    assert failed == [("agent", "report")]


def test_a_dry_run_decides_in_the_baton_job_and_starts_no_agent() -> None:
    dry = reusable_inputs(dry_run=True)
    # The baton job's `agent` output is empty in a dry run (its outputs say so).
    outputs = jobs(REUSABLE)["baton"]["outputs"]["agent"]
    assert render([outputs], {"inputs": dry, "steps": {"baton": {"outputs": NAMED}}}) == [""]
    started = job_starts(REUSABLE, [dispatch(HANDED_OVER)], [{"agent": ""}], inputs=dry)
    assert started == [("baton",)]


def _step(path: Path, job: str, name: str) -> dict[str, Any]:
    found = [s for s in jobs(path)[job]["steps"] if s.get("id") == name or s.get("name") == name]
    (step,) = found
    return dict(step)


def _context(event: tuple[str, dict[str, Any]], baton: dict[str, Any]) -> dict[str, Any]:
    name, payload = event
    return {
        "github": {"event_name": name, "event": payload},
        "needs": {"baton": baton},
        "inputs": reusable_inputs(),
    }


SKIPPED: dict[str, Any] = {"result": "skipped", "outputs": {}}
DECIDED = {
    "result": "success",
    "outputs": {"issue": "7", "state": "implementing", "agent": "developer", "bot-login": APP},
}


GITHUB = "github-actions[bot]"
BRIEFS = [
    pytest.param(dispatch(HANDED_OVER), SKIPPED, ["7", "implementing", GITHUB], id="handed over"),
    pytest.param(dispatch(HANDED_OVER, APP), SKIPPED, ["7", "implementing", APP], id="by the App"),
    pytest.param(dispatch({"issue": "7"}), DECIDED, ["7", "", APP], id="after the baton job"),
]


@pytest.mark.parametrize(("event", "baton", "want"), BRIEFS)
def test_the_briefing_checks_the_handed_over_state_and_trusts_the_dispatching_bot(
    event: tuple[str, dict[str, Any]], baton: dict[str, Any], want: list[str]
) -> None:
    env = _step(REUSABLE, "agent", "brief")["env"]
    got = render([env["ISSUE"], env["STATE"], env["INPUT_BOT_LOGIN"]], _context(event, baton))
    assert got == want


@pytest.mark.parametrize("path", FLOWS)
def test_the_report_takes_the_issue_and_state_from_the_dispatch_never_from_the_agent_job(
    path: Path,
) -> None:
    report = next(s for s in jobs(path)["report"]["steps"] if s.get("with", {}).get("result"))
    fields = [report["with"]["issue"], report["with"]["state"]]
    assert not any("needs.agent" in field for field in fields)
    context = _context(dispatch(HANDED_OVER), SKIPPED)
    context["needs"]["agent"] = {"result": "success", "outputs": {"state": "merged"}}
    assert render(fields, context) == ["7", "implementing"]
    assert render(fields, _context(dispatch({"issue": "7"}), DECIDED)) == ["7", "implementing"]
