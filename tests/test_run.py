"""One run on one issue (`run.handle`): an event its payload rules out costs no call; otherwise
the issue is read, decided on, the record re-checked just before the write, written, and only
then the next agent's run dispatched. A dry run decides and writes nothing; a failed write
leaves the issue as it was, for the next run; a run that lost a race decides again. A decision's
check run is posted after its record, once, and never costs the move."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from baton.core.model.decision import CheckPlan, Decision, Outcome
from baton.core.model.events import Commented, IssueChanged, commented
from baton.core.model.issue_facts import Actor, IssueInfo
from baton.core.model.record import handover
from baton.errors import TrackerError
from baton.issue import record_comment
from baton.issue.apply import Applied
from baton.issue.load import Loaded
from baton.run import MAX_RACES, handle
from baton.sim.payloads import DispatchRequest
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Settings
from support.memory import (
    BRANCH,
    CHAIN,
    ISSUE,
    PEOPLE,
    Job,
    changeset_job,
    changeset_on,
    configured,
    enter,
    enter_at,
    messages_of,
    record_comments,
    record_of,
    relabel_job,
    report_job,
    requests_in_order,
    state_of,
    writes,
)

PERMISSION = "GET /repos/octo/demo/collaborators/maria/permission"
LABEL_MADE = "POST /repos/octo/demo/labels"  # the new status label, made before the write
DISPATCH = "POST /repos/octo/demo/actions/workflows/baton.yml/dispatches"


def entry_job(gh: SimGitHub, settings: Settings) -> Job:
    """maria adds the trigger label; the run handling it chains to CHAIN."""
    job = relabel_job(gh, settings, "baton", "maria")
    job.chain = CHAIN
    return job


def the_pm_reports(gh: SimGitHub, settings: Settings) -> Job:
    """The pm's run hands back: the requirements are next (chaining to CHAIN)."""
    return report_job(gh, settings, "pm", next_state="analyzing_requirements", summary="Clear")


def dispatched_at(gh: SimGitHub, at: str, state: str) -> DispatchRequest:
    """The run of issue #1 started through CHAIN at `at`, handed the state whose agent is due
    and the hand-over of the record comment as it now is (its attempt and content digest)."""
    (comment,) = record_comments(gh)
    inputs = {
        "issue": "1",
        "state": state,
        "handover": handover(record_comment.parse(comment.body)),
    }
    return DispatchRequest(
        "workflow_dispatch", at, workflow="baton.yml", ref="refs/heads/main", inputs=inputs
    )


# --- ruled out by the payload ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (
            lambda gh: commented(
                id="comment:77",
                issue=IssueInfo(number=ISSUE, author="alice"),
                actor=Actor(login="bob"),
                at=gh.now,
                comment_id=77,
                body="Any news?",
                approval_words=("approved",),
            ),
            "a comment on an issue that is not in the workflow (no API call)",
        ),
        (
            lambda gh: IssueChanged(
                id="edited:1",
                issue=IssueInfo(number=ISSUE, author="alice", labels=("status:received",)),
                actor=Actor(login="alice"),
                at=gh.now,
                action="edited",
            ),
            "issue edited: nothing to act on (no API call)",
        ),
        (
            lambda gh: commented(
                id="comment:78",
                issue=IssueInfo(
                    number=ISSUE, author="alice", labels=("baton:task", "status:in-progress")
                ),
                actor=Actor(login="bob"),
                at=gh.now,
                comment_id=78,
                body="Any news?",
                approval_words=("approved",),
            ),
            "a comment with no command while the developer works (no API call)",
        ),
    ],
    ids=["a comment outside the workflow", "an issue edited", "a task's comment, by its workflow"],
)
def test_an_event_its_payload_rules_out_is_ignored_without_a_single_call(
    gh: SimGitHub,
    settings: Settings,
    event: Callable[[SimGitHub], Commented | IssueChanged],
    reason: str,
) -> None:
    log = list(gh.log)
    seen = requests_in_order(gh)

    result = handle(event(gh), gh, settings, chain=CHAIN)

    assert result.decision.outcome is Outcome.ignored
    assert (result.decision.issue, result.decision.reason) == (ISSUE, reason)
    assert result.loaded == Loaded(record=None)
    assert (result.applied, result.dispatched, result.notes, result.record) == (
        None,
        False,
        [],
        None,
    )
    assert seen == [] and gh.requests == 0 and gh.log == log and gh.dispatches == []


# --- a transition -----------------------------------------------------------------------------
def test_the_trigger_label_writes_the_record_and_labels_then_dispatches_the_agent(
    gh: SimGitHub, settings: Settings
) -> None:
    job = entry_job(gh, settings)
    seen = requests_in_order(gh)

    result = job.run()

    record = record_comments(gh)
    assert len(record) == 1
    assert result.decision.outcome is Outcome.transition
    assert (result.decision.state, result.decision.agent) == ("received", "pm")
    # the reads, the status label made, the record and its labels in one document (GitHub
    # runs its fields in order: the record first), and the dispatch last: a run dying before
    # it leaves a record whose agent is still due, never an agent with no record
    assert seen == [
        "BatonRead",
        PERMISSION,
        LABEL_MADE,
        "BatonWrite: addComment addLabelsToLabelable removeLabelsFromLabelable",
        DISPATCH,
    ]
    assert gh.dispatches == [dispatched_at(gh, "2026-01-05T09:05:00Z", "received")]
    assert result.dispatched is True
    assert result.applied == Applied(
        steps=[f"record created (comment {record[0].id})", "labels: -baton, +status:received"],
        comment_id=record[0].id,
    )
    assert result.notes == []
    assert result.loaded == Loaded(record=None)  # nothing was there before
    written = record_of(gh)
    assert result.record is not None and written is not None
    # what was decided is what the next run reads, but for the time GitHub stamped on it
    assert result.record == written.model_copy(update={"written_at": None})
    assert gh.labels_of(ISSUE) == ["status:received"]


def test_without_a_chain_the_agent_is_named_but_not_dispatched(
    gh: SimGitHub, settings: Settings
) -> None:
    job = entry_job(gh, settings)
    job.chain = None

    result = job.run()

    assert (result.decision.agent, result.dispatched) == ("pm", False)
    assert gh.calls["dispatch"] == 0 and gh.dispatches == []
    assert state_of(gh) == "received"


def test_a_report_is_written_after_the_record_is_read_again_and_dispatches_last(
    gh: SimGitHub, settings: Settings
) -> None:
    enter(gh, settings)
    comment_id = record_comments(gh)[0].id
    job = the_pm_reports(gh, settings)
    seen = requests_in_order(gh)

    result = job.run()

    assert result.decision.outcome is Outcome.transition
    assert (result.decision.previous_state, result.decision.state) == (
        "received",
        "analyzing_requirements",
    )
    assert result.decision.agent == "analyst"
    # one read of the issue, its comments and its branch; `BatonRecordCheck`: the record read
    # again just before the write, the concurrency check
    assert seen == [
        "BatonRead",
        "BatonRecordCheck",
        LABEL_MADE,
        "BatonWrite: updateIssueComment addLabelsToLabelable removeLabelsFromLabelable",
        DISPATCH,
    ]
    assert result.loaded.comment_id == comment_id
    assert result.loaded.record is not None and result.loaded.record.state == "received"
    assert result.applied == Applied(
        steps=[
            "record updated (revision 2)",
            "labels: -status:received, +status:analyzing-requirements",
        ],
        comment_id=comment_id,
    )
    assert gh.dispatches == [dispatched_at(gh, "2026-01-05T09:10:00Z", "analyzing_requirements")]
    assert (result.dispatched, result.notes) == (True, [])
    assert state_of(gh) == "analyzing_requirements"


def test_a_redelivered_entry_writes_nothing_and_dispatches_the_agent_still_due(
    gh: SimGitHub, settings: Settings
) -> None:
    job = entry_job(gh, settings)
    job.run()
    written = writes(gh) - gh.calls["dispatch"]
    seen = requests_in_order(gh)

    again = job.run()

    assert again.decision.outcome is Outcome.resume
    assert again.decision.reason == (
        "event labeled:1:baton:2026-01-05T09:00:00Z was already applied; pm is still due"
    )
    # the payload's labels ("baton") are stale: the one read brings the issue itself (its
    # labels, the record) before anything, and nothing is written
    assert seen == ["BatonRead", PERMISSION, DISPATCH]
    assert writes(gh) - gh.calls["dispatch"] == written
    assert again.applied == Applied(steps=[], comment_id=record_comments(gh)[0].id)
    assert again.dispatched is True and len(gh.dispatches) == 2


# --- a dry run ------------------------------------------------------------------------------
def test_a_dry_run_decides_what_a_run_would_and_writes_nothing(
    gh: SimGitHub, settings: Settings
) -> None:
    job = relabel_job(gh, settings, "baton", "maria")
    event = job.event_at(gh.now)
    seen = requests_in_order(gh)

    result = handle(event, gh, settings, chain=CHAIN, dry_run=True)

    assert result.decision.outcome is Outcome.transition
    assert (result.decision.state, result.decision.agent) == ("received", "pm")
    assert result.record is not None and result.record.state == "received"
    assert result.notes == ["dry run: nothing was written"]
    assert (result.applied, result.dispatched) == (None, False)
    assert seen == ["BatonRead", PERMISSION]
    assert writes(gh) == 0 and gh.dispatches == []
    assert gh.labels_of(ISSUE) == ["baton"] and record_of(gh) is None


# --- a failed write ---------------------------------------------------------------------------
def test_a_record_that_could_not_be_created_leaves_the_issue_for_the_next_run(
    gh: SimGitHub, settings: Settings
) -> None:
    job = entry_job(gh, settings)
    # The write document dies at its first field, the record's comment: GitHub's 502.
    gh.api.fail_graphql_field("addComment", status=502, operation="BatonWrite")

    with pytest.raises(TrackerError, match=r"^GitHub refused writing to #1 \(GraphQL\): 502 "):
        job.run()

    assert record_of(gh) is None and gh.labels_of(ISSUE) == ["baton"]
    assert gh.calls["dispatch"] == 0, "no agent runs without its record"

    rerun = job.run()

    assert (rerun.decision.outcome, rerun.decision.state) == (Outcome.transition, "received")
    assert len(record_comments(gh)) == 1 and gh.labels_of(ISSUE) == ["status:received"]
    assert len(gh.dispatches) == 1 and rerun.dispatched is True


def test_a_record_that_could_not_be_updated_keeps_the_state_until_the_report_runs_again(
    gh: SimGitHub, settings: Settings
) -> None:
    enter(gh, settings)
    job = the_pm_reports(gh, settings)
    # The write document dies at its first field, the record's edit: GitHub's 502.
    gh.api.fail_graphql_field("updateIssueComment", status=502, operation="BatonWrite")

    with pytest.raises(TrackerError, match=r"^GitHub refused writing to #1 \(GraphQL\): 502 "):
        job.run()

    assert state_of(gh) == "received" and gh.labels_of(ISSUE) == ["status:received"]
    assert gh.calls["dispatch"] == 0

    rerun = job.run()

    assert rerun.decision.state == "analyzing_requirements" and rerun.dispatched is True
    assert state_of(gh) == "analyzing_requirements"
    assert gh.labels_of(ISSUE) == ["status:analyzing-requirements"]
    assert len(gh.dispatches) == 1


# --- a race -----------------------------------------------------------------------------------
def test_a_run_whose_record_changed_before_its_write_decides_again_on_the_new_one(
    gh: SimGitHub, settings: Settings
) -> None:
    enter(gh, settings)
    first, second = the_pm_reports(gh, settings), the_pm_reports(gh, settings)

    def the_other_run_writes_first(operation: str) -> None:
        if operation == "comment":  # the first run's re-check of the record
            gh.on_call = None
            second.run()

    gh.on_call = the_other_run_writes_first
    lost = first.run()

    won = second.results[0]
    assert (won.decision.outcome, won.dispatched) == (Outcome.transition, True)
    assert lost.notes == ["another run changed the record first; decided again (1x)"]
    assert lost.decision.outcome is Outcome.refused
    assert lost.decision.reason == (
        "stale report: the report is from pm, but analyzing_requirements belongs to analyst"
    )
    assert lost.applied == Applied(
        steps=["record updated (revision 3)"], comment_id=record_comments(gh)[0].id
    )
    assert lost.dispatched is False and len(gh.dispatches) == 1
    assert state_of(gh) == "analyzing_requirements"


def test_a_record_changed_under_every_attempt_writes_nothing_and_says_so(
    gh: SimGitHub, settings: Settings
) -> None:
    enter(gh, settings)
    stored = gh.comment_store[record_comments(gh)[0].id]
    body = stored.body
    job = the_pm_reports(gh, settings)
    edits = iter(range(MAX_RACES))

    def someone_rewrites_it(operation: str) -> None:
        if operation == "comment":
            stored.body = f"{body}{' ' * (next(edits) + 1)}"

    gh.on_call = someone_rewrites_it
    written = writes(gh)

    with pytest.raises(TrackerError) as raised:
        job.run()

    assert str(raised.value) == (
        "issue #1: the record changed under 3 concurrent runs in a row; nothing was written "
        "(the next event or sweep will pick it up)"
    )
    assert writes(gh) == written and gh.calls["comment"] == MAX_RACES == 3


# --- the hand-over's dispatch --------------------------------------------------------------
def test_a_dispatch_whose_answer_was_lost_is_said_and_its_re_run_hands_over_the_same_attempt(
    gh: SimGitHub, settings: Settings
) -> None:
    enter(gh, settings)
    job = the_pm_reports(gh, settings)
    gh.fail_next("dispatch", TrackerError("GitHub refused starting workflow baton.yml", status=502))

    first = job.run()

    # GitHub may have started the run before answering 502: not sent again, said so.
    assert gh.calls["dispatch"] == 1 and gh.dispatches == []
    assert first.dispatched is True and state_of(gh) == "analyzing_requirements"
    assert any("may or may not have started" in note for note in first.notes)
    handed = handover(record_of(gh))  # the attempt the lost dispatch named

    rerun = job.run()  # a write user re-runs the report job: the same attempt, the same nonce

    assert [d.inputs["handover"] for d in gh.dispatches] == [handed]
    assert rerun.dispatched is True


def test_a_dispatch_refused_outright_still_fails_the_run(gh: SimGitHub, settings: Settings) -> None:
    enter(gh, settings)
    job = the_pm_reports(gh, settings)
    gh.fail_next("dispatch", TrackerError("GitHub refused starting workflow baton.yml", status=403))

    with pytest.raises(TrackerError, match="refused starting workflow"):
        job.run()


def test_a_red_proof_s_changeset_outside_the_tests_is_refused_naming_the_file() -> None:
    """`run` judges the changeset with what the state may do to the test files (issue 26):
    the tester of a red proof writes tests only."""
    gh = SimGitHub()
    for login, permission in PEOPLE.items():
        gh.set_permission(login, permission)
    gh.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")
    settings = configured(workflow="test-first", tests={"command": "pytest"})
    enter_at(gh, settings, "writing_tests")
    base = gh.git.head(BRANCH)
    assert base is not None
    files = {"tests/test_export.py": "def test_export():\n    assert False\n", "src/x.py": ""}

    result = changeset_job(gh, settings, "tester", changeset_on(base, files)).run()

    assert result.decision.outcome is Outcome.retry
    assert gh.git.head(BRANCH) == base  # nothing was committed
    said = messages_of(gh)[-1]
    assert "src/x.py is not a test file (tests.paths) nor test infrastructure" in said
    assert "tests/test_export.py" not in said


# --- the decision's check run -------------------------------------------------------------------
@pytest.fixture
def checking(gh: SimGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    """`decide` asks for a check run on every report it moves on (as issue 26's proof rules do
    for evidence; those rules are another change's)."""
    import baton.run

    rules = baton.run.decide

    def deciding(*args: Any) -> Decision:
        decision = rules(*args)
        head = gh.git.head("main")
        if decision.outcome is not Outcome.transition or args[1].kind != "report" or not head:
            return decision
        check = CheckPlan(commit=head, conclusion="success", title="green", summary="ok")
        return decision.model_copy(update={"check": check})

    monkeypatch.setattr(baton.run, "decide", deciding)


def test_a_check_run_is_posted_after_the_record_and_before_the_dispatch(
    gh: SimGitHub, settings: Settings, checking: None
) -> None:
    enter(gh, settings)
    job = the_pm_reports(gh, settings)
    seen = requests_in_order(gh)

    result = job.run()

    assert seen[-3:] == [
        "BatonWrite: updateIssueComment addLabelsToLabelable removeLabelsFromLabelable",
        "POST /repos/octo/demo/check-runs",
        DISPATCH,
    ]
    assert len(gh.check_runs) == 1
    assert result.applied is not None
    assert result.applied.steps[-1].startswith("posted the check run 'Baton / tests' on ")


def test_a_dry_run_posts_no_check_run(gh: SimGitHub, settings: Settings, checking: None) -> None:
    enter(gh, settings)
    event = the_pm_reports(gh, settings).event_at(gh.now)

    result = handle(event, gh, settings, chain=CHAIN, dry_run=True)

    assert result.decision.check is not None
    assert gh.check_runs == [] and gh.calls["create_check_run"] == 0


def test_a_run_that_lost_the_race_posts_no_check_run_of_the_decision_it_dropped(
    gh: SimGitHub, settings: Settings, checking: None
) -> None:
    enter(gh, settings)
    first, second = the_pm_reports(gh, settings), the_pm_reports(gh, settings)

    def the_other_run_writes_first(operation: str) -> None:
        if operation == "comment":
            gh.on_call = None
            second.run()

    gh.on_call = the_other_run_writes_first
    lost = first.run()

    assert lost.decision.outcome is Outcome.refused and lost.decision.check is None
    assert len(gh.check_runs) == 1, "the winner's, once"


def test_a_check_run_github_refuses_leaves_the_move_written_and_dispatched(
    gh: SimGitHub, settings: Settings, checking: None
) -> None:
    enter(gh, settings)
    gh.fail_next("create_check_run", TrackerError("403 Resource not accessible", status=403))

    result = the_pm_reports(gh, settings).run()

    assert state_of(gh) == "analyzing_requirements" and result.dispatched
    assert gh.check_runs == []
    assert result.applied is not None and result.applied.check_problem is not None


def test_the_human_comments_a_run_saw_reach_the_rules_as_the_new_states_floor(
    gh: SimGitHub, settings: Settings
) -> None:
    """A remark made while an agent worked was written before the next state was entered: it
    answers nothing there, so the move records the newest human comment the run saw."""
    enter(gh, settings)
    remark = gh.human_comment(ISSUE, "Any news?", author="bob")
    gh.human_comment(ISSUE, "Thanks!", author="baton-helper[bot]", bot=True)

    the_pm_reports(gh, settings).run()

    record = record_of(gh)
    assert record is not None and record.state == "analyzing_requirements"
    assert record.entered_after_comment == remark.id
