"""The job summary of one run (`action/summary.py`): what it says of spend and of an epic's
plan, and that an epic's own diagram is drawn."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from baton.action.summary import decision_summary, epic_lines, run_cost_lines, work_lines
from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Decision, Outcome
from baton.core.model.epic import Cost, EpicState, PlannedTask, Spend, TaskStatus
from baton.core.model.events import AgentReported
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
