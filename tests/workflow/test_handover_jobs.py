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
from baton.sim.sim_github import SimGitHub
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
    gh = SimGitHub("octo/repo")
    gh.open_issue("Export the report as CSV", author="alice")
    payload = payloads.workflow_dispatch(gh, inputs, sender=sender or gh.bot_login)
    return "workflow_dispatch", payload


HANDOVER = f"{'0' * 16}.{'a' * 64}"
HANDED_OVER = {"issue": "7", "state": "implementing", "handover": HANDOVER}
ACCEPTED = NAMED | {"accepted": "true"}


HAND_OFF = ("agent", "report")
RUNS = [
    pytest.param(dispatch(HANDED_OVER), HAND_OFF, id="Baton's dispatch handing over the state"),
    pytest.param(dispatch({"issue": "7"}), EVERY, id="a caller without the state input"),
    pytest.param(
        dispatch({"issue": "7", "state": "implementing"}), EVERY, id="a caller without handover"
    ),
    pytest.param(dispatch(HANDED_OVER, "maria"), EVERY, id="a human's, whatever its inputs"),
    pytest.param(dispatch({**HANDED_OVER, "state": ""}), EVERY, id="an empty state"),
    pytest.param(dispatch({**HANDED_OVER, "handover": ""}), EVERY, id="an empty hand-over"),
    # With GITHUB_TOKEN, Baton is github-actions[bot]: another bot's dispatch is decided first.
    pytest.param(dispatch(HANDED_OVER, APP), EVERY, id="another bot's"),
]


@pytest.mark.parametrize("path", FLOWS)
@pytest.mark.parametrize(("event", "started"), RUNS)
def test_a_hand_off_starts_two_jobs_and_every_other_run_three(
    path: Path, event: tuple[str, dict[str, Any]], started: tuple[str, ...]
) -> None:
    assert job_starts(path, [event], [ACCEPTED]) == [started]


WITH_APP = reusable_inputs(app_client_id="Iv23liAbCdEf")
APP_RUNS = [
    pytest.param(dispatch(HANDED_OVER, APP), HAND_OFF, id="the App's hand-over"),
    # Some workflow's GITHUB_TOKEN dispatch is not Baton's when Baton is the App: it starts the
    # baton job (which decides it and starts no second run), never the agent job directly.
    pytest.param(dispatch(HANDED_OVER), EVERY, id="a GITHUB_TOKEN dispatch"),
    pytest.param(dispatch(HANDED_OVER, "maria"), EVERY, id="a human's"),
]


@pytest.mark.parametrize(("event", "started"), APP_RUNS)
def test_with_an_app_only_a_dispatch_by_another_bot_than_github_actions_hands_over(
    event: tuple[str, dict[str, Any]], started: tuple[str, ...]
) -> None:
    assert job_starts(REUSABLE, [event], [ACCEPTED], inputs=WITH_APP) == [started]


# What the agent job says of the run decides whether anything is reported: `accepted` is set
# by its `brief` step once the checks passed (`true`) or refused (`false`); empty when the job
# failed before (a transient API error, a setup failure), when nothing may be reported.
VERDICTS = [
    pytest.param({"accepted": "true"}, (), HAND_OFF, EVERY, id="accepted"),
    pytest.param({"accepted": "true"}, ("agent",), HAND_OFF, EVERY, id="accepted, then failed"),
    pytest.param({"accepted": "false"}, (), HAND_OFF, ("baton", "agent"), id="refused"),
    pytest.param({}, ("agent",), ("agent",), ("baton", "agent"), id="failed before its checks"),
    pytest.param({}, (), ("agent",), ("baton", "agent"), id="ended with no verdict"),
]


@pytest.mark.parametrize("path", FLOWS)
@pytest.mark.parametrize(("verdict", "failed", "handed", "decided"), VERDICTS)
def test_the_report_job_starts_only_once_the_agent_job_accepted_or_refused_the_run(
    path: Path,
    verdict: dict[str, str],
    failed: tuple[str, ...],
    handed: tuple[str, ...],
    decided: tuple[str, ...],
) -> None:
    outputs = [NAMED | verdict] * 2
    events = [dispatch(HANDED_OVER), dispatch({"issue": "7"})]
    assert job_starts(path, events, outputs, failed=failed) == [handed, decided]


@pytest.mark.parametrize("path", FLOWS)
def test_after_an_agent_job_that_ran_no_agent_the_report_job_decides_the_run_instead(
    path: Path,
) -> None:
    report = jobs(path)["report"]
    said = {"agent": "", "issue": "7", "accepted": "false"}
    refused = job_starts(path, [dispatch(HANDED_OVER)], [said])
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
    refused = {"agent": "", "accepted": "false"}
    assert chosen({"result": "success", "outputs": refused}) == ["run"]
    # The agent ran, or the job failed after accepting it (a failed attempt): `baton report`.
    accepted = {"agent": "developer", "accepted": "true"}
    assert chosen({"result": "success", "outputs": accepted}) == ["report"]
    assert chosen({"result": "failure", "outputs": {"accepted": "true"}}) == ["report"]
    assert chosen({"result": "failure", "outputs": {"accepted": "true"}}, DECIDED) == ["report"]
    failed = job_starts(path, [dispatch(HANDED_OVER)], [refused], failed=("agent",))
    assert failed == [("agent", "report")]


@pytest.mark.parametrize("path", FLOWS)
def test_a_missing_result_is_stood_in_for_only_after_the_agent_job_accepted_the_run(
    path: Path,
) -> None:
    stand_in = condition(_step(path, "report", "Stand in for a missing result")["if"])

    def stands_in(accepted: str) -> str:
        context = _context(dispatch(HANDED_OVER), SKIPPED)
        context["needs"]["agent"] = {"result": "failure", "outputs": {"accepted": accepted}}
        context["env"] = {"REFUSED": "false"}
        context["steps"] = {"download": {"outcome": "failure"}}
        return render([stand_in.replace("hashFiles(", "format('', ")], context)[0]

    assert [stands_in(a) for a in ("true", "false", "")] == ["true", "false", "false"]


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
BATONS = f"{'1' * 16}.{'b' * 64}"
DECIDED = {
    "result": "success",
    "outputs": {
        "issue": "7",
        "state": "implementing",
        "agent": "developer",
        "bot-login": APP,
        "handover": BATONS,
    },
}


GITHUB = "github-actions[bot]"
BRIEFS = [
    pytest.param(
        dispatch(HANDED_OVER),
        SKIPPED,
        {},
        ["7", "implementing", HANDOVER, GITHUB],
        id="handed over",
    ),
    pytest.param(
        dispatch(HANDED_OVER, APP),
        SKIPPED,
        {"app-client-id": "Iv23liAbCdEf"},
        ["7", "implementing", HANDOVER, APP],
        id="by the App",
    ),
    pytest.param(
        dispatch({"issue": "7"}), DECIDED, {}, ["7", "", BATONS, APP], id="after the baton job"
    ),
    # A hand-over the baton job decided (here a write user's with a forged hand-over): the
    # baton job's own hand-over, never the dispatch's.
    pytest.param(
        dispatch(HANDED_OVER, "maria"), DECIDED, {}, ["7", "", BATONS, APP], id="a human's"
    ),
]


@pytest.mark.parametrize(("event", "baton", "inputs", "want"), BRIEFS)
def test_the_briefing_checks_the_hand_over_and_trusts_the_configured_bot(
    event: tuple[str, dict[str, Any]],
    baton: dict[str, Any],
    inputs: dict[str, Any],
    want: list[str],
) -> None:
    env = _step(REUSABLE, "agent", "brief")["env"]
    context = _context(event, baton)
    context["inputs"] |= inputs
    fields = [env["ISSUE"], env["STATE"], env["HANDOVER"], env["INPUT_BOT_LOGIN"]]
    assert render(fields, context) == want
    assert '--handover "$HANDOVER"' in _step(REUSABLE, "agent", "brief")["run"]


def test_with_github_token_the_record_is_never_looked_for_as_the_senders() -> None:
    env = _step(REUSABLE, "agent", "brief")["env"]
    # Whoever sent it (the `if:` lets only github-actions[bot] hand over), the record is
    # Baton's configured identity's; in the expanded workflow a fixed login.
    context = _context(dispatch(HANDED_OVER, "mallory[bot]"), SKIPPED)
    assert render([env["INPUT_BOT_LOGIN"]], context) == [GITHUB]
    assert _step(EXPANDED, "agent", "brief")["env"]["INPUT_BOT_LOGIN"] == GITHUB


@pytest.mark.parametrize("path", FLOWS)
def test_the_report_takes_the_issue_and_state_from_the_dispatch_never_from_the_agent_job(
    path: Path,
) -> None:
    report = next(s for s in jobs(path)["report"]["steps"] if s.get("with", {}).get("result"))
    fields = [report["with"]["issue"], report["with"]["state"], report["with"]["handover"]]
    assert not any("needs.agent" in field for field in fields)
    context = _context(dispatch(HANDED_OVER), SKIPPED)
    forged = {"state": "merged", "handover": BATONS}
    context["needs"]["agent"] = {"result": "success", "outputs": forged}
    assert render(fields, context) == ["7", "implementing", HANDOVER]
    after_baton = _context(dispatch({"issue": "7"}), DECIDED)
    assert render(fields, after_baton) == ["7", "implementing", BATONS]
