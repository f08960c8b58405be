"""A hand-off in two jobs: the report dispatches the next run with the state it hands over, and
that run's agent job checks the state against the record it reads itself before it names an
agent (`baton context --state`). A write user can dispatch with any inputs: a state the record
does not hold, or an agent it does not wait for, runs nothing and writes nothing. A caller
without the `state` input still chains, with the issue alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from action_harness import ActionRunner, Step
from baton.action.handover import refusal
from baton.core.model.issue_facts import IssueInfo
from baton.core.model.record import Dispatch, Record
from baton.sim import payloads
from baton.workflow.config import Config, settings_from
from fakes.http_github import FakeGitHub
from support.http import record_of

AT = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
WORKFLOW = settings_from(Config(workflow="issue-lifecycle"), source="the default").workflow
DUE = Dispatch(agent="developer", state="implementing", attempt=1, at=AT, run="90")
WAITING = Record(
    workflow="issue-lifecycle", issue=7, state="implementing", entered_at=AT, dispatch=DUE
)
OPEN = IssueInfo(number=7)
CLOSED = IssueInfo(number=7, state="closed")
OTHER = "creating_tests"


def _with(**changes: object) -> Record:
    return WAITING.model_copy(update=changes)


def case(
    name: str,
    why: str | None,
    record: Record = WAITING,
    *,
    issue: IssueInfo = OPEN,
    state: str = "implementing",
    run: str = "91",
) -> Any:
    return pytest.param(record, issue, state, run, why, id=name)


NOT_DUE = "no run of the developer is due in implementing"
ELSEWHERE = DUE.model_copy(update={"state": "fixing_issues"})
REPORTED = _with(processed=["report:91"])
CHECKS = [
    case("the record waits for it", None),
    case("closed since", "#7 is closed; no agent runs on a closed issue", issue=CLOSED),
    case("another state", f"the dispatch named {OTHER}, but #7 is in implementing", state=OTHER),
    case("held", "implementing is held for a human", _with(held=True)),
    case("no agent", "completed has no agent", _with(state="completed"), state="completed"),
    case("no run pending", NOT_DUE, _with(dispatch=None)),
    case("pending elsewhere", NOT_DUE, _with(dispatch=ELSEWHERE)),
    case("a re-run", "this run's agent already reported; a re-run starts nothing", REPORTED),
    case("no run id to tell", None, REPORTED, run=""),
]


@pytest.mark.parametrize(("record", "issue", "state", "run", "why"), CHECKS)
def test_a_dispatch_runs_an_agent_only_where_the_record_waits_for_it(
    record: Record, issue: IssueInfo, state: str, run: str, why: str | None
) -> None:
    assert refusal(record, issue, WORKFLOW, state=state, run_id=run) == why


# --- over HTTP, as the jobs run it -------------------------------------------------------------
@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.add_workflow("baton.yml", inputs=["issue", "state"])
        yield server


def _handed_over(fake: FakeGitHub, action: ActionRunner) -> tuple[int, Step]:
    """An issue the pm handed to the analyst, and the pm's report that dispatched the run."""
    number = fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    fake.label_by(number, "baton", "maria")
    assert action.run("issues", payloads.labeled(fake, number, "baton")).outputs["agent"] == "pm"
    step = action.report(number, {"status": "success", "confidence": 0.9, "summary": "Clear."})
    assert step.returncode == 0, step.stdout + step.stderr
    return number, step


def _brief(action: ActionRunner, fake: FakeGitHub, state: str, **extra: str) -> Step:
    """The agent job's briefing step on the run Baton's last dispatch started."""
    name, payload = payloads.from_dispatch(fake, fake.dispatches[-1])
    prompt = action.workdir / "prompt.md"
    prompt.unlink(missing_ok=True)
    issue = str(payload["inputs"]["issue"])
    args = ["context", "--issue", issue, "--state", state, "--output", str(prompt)]
    return action.invoke(args, name, payload, **extra)


def test_the_report_hands_over_the_state_and_the_agent_job_names_the_agent_itself(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    action = ActionRunner(fake, tmp_path)
    number, _ = _handed_over(fake, action)
    assert fake.dispatches[-1].inputs == {"issue": str(number), "state": "analyzing_requirements"}

    step = _brief(action, fake, "analyzing_requirements")

    assert step.returncode == 0, step.stdout + step.stderr
    assert step.outputs == {"agent": "analyst", "state": "analyzing_requirements", "branch": ""}
    assert "analyzing_requirements" in (tmp_path / "prompt.md").read_text(encoding="utf-8")
    assert step.calls == [("POST", "/graphql BatonRead")], "one read, nothing written"


def test_a_forged_state_runs_no_agent_and_writes_nothing(fake: FakeGitHub, tmp_path: Path) -> None:
    action = ActionRunner(fake, tmp_path)
    number, _ = _handed_over(fake, action)
    before = record_of(fake, number)

    step = _brief(action, fake, "received")  # the pm's state, which the issue has left

    assert step.returncode == 0, step.stdout + step.stderr
    assert step.outputs["agent"] == ""
    said = "no agent runs: the dispatch named received, but #1 is in analyzing_requirements"
    assert said in step.stdout + step.stderr
    assert not (tmp_path / "prompt.md").exists()
    assert [c for c in step.calls if "BatonRead" not in c[1]] == []
    assert record_of(fake, number) == before


def test_a_re_run_whose_agent_already_reported_starts_no_agent_again(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    action = ActionRunner(fake, tmp_path)
    number, _ = _handed_over(fake, action)
    assert _brief(action, fake, "analyzing_requirements", GITHUB_RUN_ID="700").outputs["agent"]
    # The analyst's attempt failed: the issue stays in its state, the retry due.
    failed = {"status": "failure", "confidence": 0.1, "summary": "The agent crashed."}
    done = action.report(number, failed, GITHUB_RUN_ID="700", INPUT_STATE="analyzing_requirements")
    assert done.returncode == 0, done.stdout + done.stderr
    assert record_of(fake, number).state == "analyzing_requirements"

    again = _brief(action, fake, "analyzing_requirements", GITHUB_RUN_ID="700")

    assert again.outputs["agent"] == ""
    said = "no agent runs: this run's agent already reported; a re-run starts nothing"
    assert said in again.stdout + again.stderr


def test_a_caller_without_the_state_input_still_chains_with_the_issue_alone(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_workflow("baton.yml", inputs=["issue"])  # an older caller
    action = ActionRunner(fake, tmp_path)

    number, step = _handed_over(fake, action)

    assert fake.dispatches[-1].inputs == {"issue": str(number)}
    assert "declares no `state` input under workflow_dispatch" in step.stdout
    # GitHub refused the first dispatch (422) and nothing else: one more call, no other write.
    dispatches = [c for c in step.calls if c[1].endswith("/dispatches")]
    assert len(dispatches) == 2


def test_an_issue_closed_before_its_agent_job_forgets_the_run_so_reopening_starts_it(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    action = ActionRunner(fake, tmp_path)
    number, _ = _handed_over(fake, action)
    fake.update_issue(number, state="closed", actor="alice")
    name, payload = payloads.from_dispatch(fake, fake.dispatches[-1])

    refused = _brief(action, fake, "analyzing_requirements")
    # The report job's `baton run` in place of the skipped baton job (the workflow's REFUSED).
    decided = action.run(name, payload)

    assert refused.outputs["agent"] == ""
    assert "closed before the analyst's run started" in decided.stdout
    assert record_of(fake, number).dispatch is None
