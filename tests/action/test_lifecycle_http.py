"""A whole issue lifecycle through `baton run` and `baton report` as subprocesses, with the
environment GitHub sets, against the fake GitHub over real HTTP: PyGithub, pagination and the
chain of workflow_dispatch runs are exercised for real."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.http import record_of


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.set_permission("alice", "read")
        server.set_permission("bob", "read")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


def chained(action: ActionRunner, fake: FakeGitHub, step: Step) -> Step:
    """The run a report's workflow_dispatch starts: its agent job accepts the hand-over and
    names the agent due."""
    assert step.decision["agent"], step.stdout
    assert fake.dispatches[-1].inputs["handover"] == step.outputs["handover"]
    kicked = action.brief()
    assert kicked.returncode == 0, kicked.stdout + kicked.stderr
    assert kicked.outputs["agent"] == step.outputs["agent"]
    assert kicked.outputs["accepted"] == "true", kicked.stderr
    assert kicked.calls == [("POST", "/graphql BatonRead")], "a chained run only reads, once"
    return kicked


def report(action: ActionRunner, fake: FakeGitHub, **result: object) -> Step:
    step = action.report(1, {"status": "success", "confidence": 0.9, **result})
    assert step.returncode == 0, step.stdout + step.stderr
    if step.outputs["agent"]:
        chained(action, fake, step)
    return step


def test_an_issue_walks_from_opened_to_completed_over_http(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    number = fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    assert number == 1

    opened = action.run("issues", payloads.opened(fake, number))
    assert opened.returncode == 0
    assert opened.calls == [], "an issue outside the workflow costs no API call"
    assert opened.outputs["agent"] == ""
    assert opened.decision["outcome"] == "ignored"
    assert "ignored" in opened.stdout

    fake.label_by(number, "baton", "maria")
    entered = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert entered.returncode == 0, entered.stdout + entered.stderr
    assert entered.outputs["state"] == "received"
    assert entered.outputs["agent"] == "pm"
    assert entered.outputs["transitioned"] == "true"
    assert fake.labels_of(number) == ["status:received"], "trigger label consumed"
    label = fake.labels()["status:received"]
    assert label["color"] != "ededed" and label["description"].startswith("Baton:")
    assert entered.calls == [
        ("POST", "/graphql BatonRead"),
        ("GET", "/repos/octo/demo/collaborators/maria/permission"),
        ("POST", "/repos/octo/demo/labels"),  # first use: created with its colour, once
        ("POST", "/graphql BatonWrite"),
    ]
    assert "received" in entered.summary and "```mermaid" in entered.summary
    # What the run cost and what is left of each hourly budget, from GitHub's headers.
    limit = fake.rate_limit
    assert (
        "GitHub API calls this run: 4 (2 GraphQL, 2 REST); left this hour: "
        f"{limit - 2:,} of {limit:,} REST, {limit - 2:,} of {limit:,} GraphQL"
    ) in entered.summary, entered.summary

    step = report(action, fake, summary="Feature request; analysing first.")
    assert step.outputs["state"] == "analyzing_requirements"
    assert fake.dispatches[-1].workflow == "baton.yml"
    assert fake.dispatches[-1].ref == "refs/heads/main"
    handed = {"issue": "1", "state": "analyzing_requirements", "handover": step.outputs["handover"]}
    assert fake.dispatches[-1].inputs == handed

    step = report(
        action,
        fake,
        confidence=0.6,
        summary="Two details are open.",
        questions=["Commas or semicolons?", "All columns or visible ones?"],
    )
    assert step.outputs["state"] == "requirements_unclear"
    step = report(action, fake, summary="Asking the humans.")
    assert step.outputs["state"] == "waiting_for_requirements_clarification"
    assert step.outputs["agent"] == ""
    questions = fake.comments(number)[-1]["body"]
    assert "Commas or semicolons?" in questions and "All columns or visible ones?" in questions

    stranger = fake.add_comment(number, "use tabs!!", user="bob")
    ignored = action.run("issue_comment", payloads.comment_created(fake, stranger["id"]))
    assert ignored.outputs["transitioned"] == "false"
    assert fake.labels_of(number) == ["status:waiting-for-requirements-clarification"]

    answer = fake.add_comment(number, "Commas, visible columns only.", user="alice")
    answered = action.run("issue_comment", payloads.comment_created(fake, answer["id"]))
    assert answered.outputs["state"] == "requirements_clarified"
    assert answered.outputs["agent"] == "pm", "the follow-up job runs in the same workflow run"
    assert "eyes" in [r["content"] for r in fake.comment(answer["id"])["reactions"]]

    for expected, result in [
        ("creating_tests", {"confidence": 0.92}),
        ("implementing", {}),
        ("running_tests", {"confidence": 0.95}),
        ("fixing_issues", {"status": "failure", "issues_found": ["test_hidden fails"]}),
        ("creating_pr", {"confidence": 0.95}),
        ("waiting_for_human_input", {"summary": "Opened PR #2."}),
    ]:
        step = report(action, fake, **result)
        assert step.outputs["state"] == expected, step.stdout

    drive_by = fake.add_comment(number, "approved", user="bob")
    refused = action.run("issue_comment", payloads.comment_created(fake, drive_by["id"]))
    assert refused.outputs["transitioned"] == "false"
    assert "only approvers" in fake.comments(number)[-1]["body"]

    approval = fake.add_comment(number, "Approved — tests look good.", user="maria")
    approved = action.run("issue_comment", payloads.comment_created(fake, approval["id"]))
    assert approved.outputs["state"] == "human_input_received"
    assert approved.outputs["agent"] == "pm"

    done = report(action, fake, summary="Merging PR #2.")
    assert done.outputs["state"] == "completed"
    assert done.outputs["agent"] == ""
    assert fake.labels_of(number) == ["status:completed"]

    record = record_of(fake, number)
    assert record.state == "completed"
    assert record.iteration == 12
    assert [e.to_state for e in record.history][-3:] == [
        "waiting_for_human_input",
        "human_input_received",
        "completed",
    ]
    assert len(fake.dispatches) == 7, "one workflow run per agent hand-off after a report"
    # Every call of the walk: 12 transitions, 7 chained runs, the refused comments, the
    # 13 status labels created on their first use, and the issue's branch (2: the default
    # branch's head, then the ref) when it enters creating_tests (benchmarks/README.md).
    assert fake.rate_used <= 75, fake.rate_used
    assert fake.branch_head("baton/issue-1") is not None


def test_a_report_writes_the_record_before_the_labels_and_dispatches_last(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    action.run("issues", payloads.labeled(fake, number, "baton"))
    step = action.report(number, {"status": "success", "confidence": 0.9})
    record_id = fake.comments(1)[0]["id"]
    assert step.calls == [
        ("POST", "/graphql BatonRead"),
        ("POST", "/graphql BatonRecordCheck"),
        ("POST", "/repos/octo/demo/labels"),  # status:analyzing-requirements, first use
        ("POST", "/graphql BatonWrite"),
        ("POST", "/repos/octo/demo/actions/workflows/baton.yml/dispatches"),
    ], "read, check the record did not change meanwhile, write, then dispatch"
    (write,) = fake.calls(operation="BatonWrite")
    document = write.body["query"]
    assert document.index("record: updateIssueComment") < document.index("labelsAdded:")
    assert document.index("labelsAdded:") < document.index("labelsRemoved:")
    assert write.body["variables"]["recordId"] == f"IC_fake{record_id}"


def test_an_invalid_agent_result_is_a_failed_attempt_the_issue_shows(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    action.run("issues", payloads.labeled(fake, number, "baton"))
    step = action.report(number, {"status": "done", "confidence": 2})
    assert step.returncode == 0, "the job did its work: it refused the result and said so"
    assert "::warning" in step.stdout and "status" in step.stdout
    assert step.decision["outcome"] == "retry"
    after = record_of(fake, number)
    assert (after.state, after.attempt) == ("received", 2)
    assert any("status" in item for item in after.feedback)


def test_outputs_cannot_be_injected_through_user_text(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    fake.set_permission("ev\nil", "read")
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    action.run("issues", payloads.labeled(fake, number, "baton"))
    hostile = "approved\nagent<<EOF\nhacked\nEOF\n::add-mask::x\n::set-output name=agent::evil"
    comment = fake.add_comment(number, hostile, user="bob")
    step = action.run("issue_comment", payloads.comment_created(fake, comment["id"]))
    assert step.returncode == 0
    assert step.outputs["agent"] == ""
    assert set(step.outputs) == {
        "issue",
        "state",
        "previous-state",
        "agent",
        "transitioned",
        "decision",
        "branch",
        "pull-request",
        "handover",
    }
    assert not any(
        line.startswith("::") and "set-output" in line for line in step.stdout.splitlines()
    )


def test_the_token_is_never_printed(fake: FakeGitHub, action: ActionRunner) -> None:
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    fake.fail("POST", "/graphql", 500, times=None, operation="BatonWrite")
    step = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert step.returncode == 1
    assert "::error" in step.stdout
    assert fake.token not in step.stdout + step.stderr + step.summary


def test_a_bad_token_fails_with_a_clear_annotation(fake: FakeGitHub, action: ActionRunner) -> None:
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    step = action.invoke(
        ["run"],
        "issues",
        payloads.labeled(fake, number, "baton"),
        **{"INPUT_GITHUB-TOKEN": "wrong-token"},
    )
    assert step.returncode == 1
    assert "::error" in step.stdout and "401" in step.stdout
    assert "wrong-token" not in step.stdout + step.stderr


def test_a_server_without_graphql_gets_the_same_transition_over_rest(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    """A GitHub Enterprise Server whose GraphQL refuses Baton's documents (or a spent GraphQL
    budget): the first document is answered with errors and no data, nothing ran, and the run
    goes on over REST, one call per step, with a warning saying so."""
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    fake.fail(
        "POST",
        "/graphql",
        200,
        times=None,
        body={
            "errors": [{"message": "Field 'issueOrPullRequest' doesn't exist on type 'Repository'"}]
        },
    )
    entered = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert entered.returncode == 0, entered.stdout + entered.stderr
    assert fake.labels_of(number) == ["status:received"]
    assert record_of(fake, number).state == "received"
    assert "::warning title=Baton::GraphQL could not be used" in entered.stdout
    assert entered.calls[0] == ("POST", "/graphql BatonRead")
    assert all("graphql" not in path for _, path in entered.calls[1:]), "one try, then REST"
    step = action.report(number, {"status": "success", "confidence": 0.9})
    assert step.returncode == 0, step.stdout + step.stderr
    assert record_of(fake, number).state == "analyzing_requirements"
    assert fake.labels_of(number) == ["status:analyzing-requirements"]


def test_a_spent_graphql_budget_leaves_the_rest_budget_to_finish_the_run(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    """GraphQL's hourly budget is GITHUB_TOKEN's second: when it is spent, GitHub answers the
    read with RATE_LIMITED and no data, and the run does the same work over REST."""
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")
    fake.graphql_limit = 0
    entered = action.run("issues", payloads.labeled(fake, number, "baton"))
    assert entered.returncode == 0, entered.stdout + entered.stderr
    assert "::warning title=Baton::GraphQL could not be used (API rate limit exceeded" in (
        entered.stdout
    )
    assert fake.labels_of(number) == ["status:received"]
    assert record_of(fake, number).state == "received"
    assert [p for _, p in entered.calls].count("/graphql BatonRead") == 1
