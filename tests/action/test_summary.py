"""The job summary of one run (`action/summary.py`): what it says of spend, of an epic's plan
and of the evidence a report carried (a table, the tests' own text escaped), and that an epic's
own diagram is drawn."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.action.summary import (
    decision_summary,
    epic_lines,
    evidence_lines,
    run_cost_lines,
    work_lines,
)
from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision, Outcome
from baton.core.model.epic import Cost, EpicState, PlannedTask, Spend, TaskStatus
from baton.core.model.events import AgentReported
from baton.core.model.evidence import Evidence, TestCase
from baton.core.model.record import Record
from baton.core.model.work import CommitMark, Work
from baton.issue.load import Loaded
from baton.run import RunResult
from baton.workflow.config import Config, settings_from
from baton.workflow.model import AgentStatus

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
SETTINGS = settings_from(Config())


def _record(**changes: object) -> Record:
    base = Record(workflow="feature-epic", issue=7, state="implementing", entered_at=NOW)
    return base.model_copy(update=changes)


def test_no_record_and_no_spend_say_nothing() -> None:
    assert epic_lines(None) == []
    assert epic_lines(_record(workflow="issue-lifecycle", state="received")) == []


def test_spend_is_shown_with_its_figures() -> None:
    spend = Spend().add(Cost(tokens=12_400, money=0.42, minutes=7.5))
    assert epic_lines(_record(spend=spend)) == [
        "",
        # $ escaped: GitHub math
        "Spent on this issue: 1 agent run, 12,400 tokens, \\$0.42, 7.5 min",
    ]


def test_runs_whose_figures_the_agent_claimed_are_counted_apart() -> None:
    spend = Spend().add(Cost(tokens=600, money=0.004, source="cli"))
    spend = spend.add(Cost(tokens=50, source="agent"))
    assert epic_lines(_record(spend=spend)) == [
        "",
        "Spent on this issue: 2 agent runs, 650 tokens, \\$0.00 "
        "(1 agent run as the agent claimed, no CLI reported it)",
    ]


REPORTED_COSTS = {
    "reported by the CLI": (
        Cost(tokens=600, money=0.004, source="cli"),
        "This agent run: 600 tokens, \\$0.0040 (reported by the CLI)",
    ),
    "the agent's own claim": (
        Cost(tokens=50, source="agent"),
        "This agent run: 50 tokens (the agent's own claim)",
    ),
    "nothing reported": (None, "This agent run: nothing reported"),
}


@pytest.mark.parametrize("cost,line", REPORTED_COSTS.values(), ids=REPORTED_COSTS.keys())
def test_a_report_s_summary_shows_what_its_run_spent_and_who_counted_it(
    cost: Cost | None, line: str
) -> None:
    result = AgentResult(status=AgentStatus.success, confidence=0.9, cost=cost)
    event = AgentReported.model_construct(result=result)  # only its result is read
    assert run_cost_lines(event) == ["", line]
    assert run_cost_lines(None) == []


def test_an_epics_task_table_is_shown_and_its_titles_escaped() -> None:
    task = PlannedTask(key="api", title="API <b>@alice</b> | #3", number=12)
    record = _record(epic=EpicState(tasks=[task.model_copy(update={"status": TaskStatus.pending})]))
    lines = epic_lines(record)
    table = "\n".join(lines)
    assert "| task | sub-issue | state | attempts | blocked by |" in table
    assert "#12" in table
    assert "<b>" not in table and "@alice" not in table.replace("@\u200balice", "")


def test_an_epic_summary_draws_the_epics_own_machine() -> None:
    epic_settings = SETTINGS.for_labels(["baton:epic"])
    decision = Decision(
        outcome=Outcome.noted, issue=7, reason="the conductor's pass", state="implementing"
    )
    result = RunResult(decision=decision, loaded=Loaded(record=_record()), settings=epic_settings)
    text = decision_summary(result, SETTINGS, calls=None)
    assert "```mermaid" in text and "implementing: implementing (conductor)" in text


def _worked() -> Record:
    commit = CommitMark(
        digest="d" * 64,
        oid="c" * 40,
        agent="developer",
        state="implementing",
        attempt=1,
        files=2,
        at=NOW,
    )
    work = Work(
        branch="baton/issue-7", created=True, head="c" * 40, commits=[commit], pull_request=9
    )
    return _record(workflow="issue-lifecycle", work=work)


def test_with_github_token_the_summary_says_ci_waits_for_approval_and_what_it_runs() -> None:
    lines = work_lines(_worked(), SETTINGS)

    assert lines[-1] == (
        "CI on the pull request waits for approval: GitHub holds the pull_request runs of a "
        "pull request GITHUB_TOKEN opened or updated until someone with write access clicks "
        '"Approve and run" on its page. Approving runs the agent-written code with the '
        "repository's secrets: review the diff first. Pushes made with GITHUB_TOKEN start no "
        "other run (docs/tokens.md)."
    )


def test_with_an_app_identity_the_summary_says_ci_runs_unreviewed() -> None:
    accepted = Config.model_validate({"ci": {"unapproved_runs": "accept"}})
    settings = settings_from(accepted, bot_login="baton-app[bot]")

    assert work_lines(_worked(), settings)[-1] == (
        "CI runs on these commits without approval (`ci: {unapproved_runs: accept}`): the "
        "agent-written code runs with the repository's secrets before anyone has reviewed it "
        "(docs/tokens.md)."
    )


def test_no_commit_yet_says_nothing_of_ci() -> None:
    work = Work(branch="baton/issue-7", created=True)
    lines = work_lines(_record(workflow="issue-lifecycle", work=work), SETTINGS)

    assert not any("CI" in line for line in lines)


# --- the evidence a report carried ----------------------------------------------------------
def _reported(**fields: object) -> AgentReported:
    return AgentReported.model_construct(**fields)  # only its evidence is read


def _test(id_: str, outcome: str, message: str = "") -> TestCase:
    return TestCase.model_validate({"id": id_, "outcome": outcome, "message": message})


def test_the_evidence_is_a_table_of_its_verdict_counts_and_first_failing_tests() -> None:
    evidence = Evidence(
        verdict="red",
        reason="2 new tests fail | for the right reason <b>",
        commit="ab" * 20,
        exit_status=1,
        tests=(
            _test("tests/test_csv.py::test_header", "failed", "assert 'a|b' == `x` @alice #3"),
            _test("tests/test_csv.py::test_[rows]", "error", "fixture 'db' not found\nnext"),
            _test("tests/test_csv.py::test_old", "passed"),
            _test("tests/test_csv.py::test_slow", "skipped", "slow"),
            _test("tests/test_api.py::test_get", "passed"),
        ),
    )

    assert evidence_lines(_reported(evidence=evidence)) == [
        "",
        "Evidence of the tests on `abababa` (Baton's rules judge it again from its tests): "
        "2 new tests fail \\| for the right reason &lt;b&gt;",
        "",
        "| verdict | passed | failed | error | skipped |",
        "|---|---|---|---|---|",
        "| red | 2 | 1 | 1 | 1 |",
        "",
        "| failing test | outcome | message |",
        "|---|---|---|",
        "| tests/test_csv.py:\u200b:test_header | failed | assert 'a\\|b' == \\`x\\` @\u200balice "
        "#\u200b3 |",
        "| tests/test_csv.py:\u200b:test_\\[rows\\] | error | fixture 'db' not found next |",
    ]


def test_only_the_first_ten_failing_tests_are_listed_with_the_count_of_the_rest() -> None:
    tests = tuple(_test(f"t{n}", "failed", "boom") for n in range(13))
    evidence = Evidence(verdict="failing", reason="13 fail", commit="c" * 40, exit_status=1)
    lines = evidence_lines(_reported(evidence=evidence.model_copy(update={"tests": tests})))

    assert lines[5] == "| failing | 0 | 13 | 0 | 0 |"
    assert lines[9:] == [
        *(f"| t{n} | failed | boom |" for n in range(10)),
        "",
        "… and 3 more failing (baton-evidence.json)",
    ]


def test_evidence_that_could_not_be_read_says_why_and_none_says_nothing() -> None:
    problem = "the evidence /w/baton-evidence.json is a symbolic link"
    assert evidence_lines(_reported(evidence=None, evidence_problem=problem)) == [
        "",
        "Evidence: not read: the evidence /w/baton-evidence.json is a symbolic link",
    ]
    assert evidence_lines(_reported(evidence=None, evidence_problem=None)) == []
    assert evidence_lines(None) == []


def test_a_report_s_summary_carries_its_evidence() -> None:
    evidence = Evidence(verdict="green", reason="all 3 pass", commit="c" * 40, exit_status=0)
    decision = Decision(outcome=Outcome.noted, issue=7, reason="ok", state="implementing")
    result = RunResult(
        decision=decision,
        loaded=Loaded(record=_record()),
        event=_reported(result=None, evidence=evidence, evidence_problem=None),
    )
    text = decision_summary(result, SETTINGS, calls=None)
    assert "| green | 0 | 0 | 0 | 0 |" in text.splitlines()
