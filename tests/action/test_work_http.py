"""The work travels, end to end over real HTTP: the real CLI (`baton run`, `baton agent`,
`baton report`) as the reusable workflow runs it, against the fake GitHub on 127.0.0.1.

The agent jobs are real: a git checkout of the issue's branch (with the ids GitHub holds), an
agent command that edits files in it with no GitHub token in its environment, `baton agent`
capturing what it changed, and `baton report` validating and committing it. Then the pull
request steers the issue: a review asking for a change reaches the developer's briefing, and the
merge completes the issue.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import BATON, ActionRunner, Step
from baton.core.model.work import digest_in
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.git_checkout import checkout
from support.http import record_of

BRANCH = "baton/issue-1"
TESTS = "tests/test_export_csv.py"
CODE = "src/report/export.py"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.set_permission("alice", "read")
        server.set_permission("mallory", "read")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


def ok(step: Step) -> Step:
    assert step.returncode == 0, step.stdout + step.stderr
    return step


def chain(action: ActionRunner, fake: FakeGitHub) -> Step:
    """The run Baton's own dispatch starts; it names the agent due and the branch."""
    name, payload = payloads.from_dispatch(fake, fake.dispatches[-1])
    return ok(action.run(name, payload))


def report(action: ActionRunner, fake: FakeGitHub, **result: object) -> Step:
    """A report without a changeset (an agent that changes no code), then the chained run."""
    step = ok(action.report(1, {"status": "success", "confidence": 0.9, **result}))
    if step.outputs["agent"]:
        chain(action, fake)
    return step


AGENT = """
import json, os, pathlib, sys
assert not [k for k in os.environ if "TOKEN" in k.upper()], "a token reached the agent"
spec = json.loads(pathlib.Path(os.environ["AGENT_SPEC"]).read_text())
for path, text in spec["files"].items():
    target = pathlib.Path(path)
    if text is None:
        target.unlink()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
pathlib.Path(os.environ["BATON_RESULT_FILE"]).write_text(json.dumps(spec["result"]))
"""


class AgentJob:
    """The reusable workflow's agent job: checkout of the branch, `baton context` with a read
    token, then `baton agent --prompt` with no token at all."""

    def __init__(self, action: ActionRunner, fake: FakeGitHub, root: Path, **env: str) -> None:
        self.action, self.fake, self.root = action, fake, root
        self.env = env  # what the workflow adds to the job's steps (the App's bot login)
        self.runs = 0
        root.mkdir(parents=True, exist_ok=True)
        (root / "agent.py").write_text(AGENT, encoding="utf-8")

    def run(self, branch: str, files: dict[str, str | None], **result: object) -> Path:
        """Run the agent on a fresh checkout of `branch`; the folder holding its result and
        changeset is returned (what the job uploads as its artifact)."""
        self.runs += 1
        job = self.root / f"job{self.runs}"
        work = checkout(self.fake._git, branch, job / "checkout")
        out = job / "out"
        context = ok(
            self.action.invoke(
                ["context", "--issue", "1", "--output", str(job / "prompt.md")],
                "workflow_dispatch",
                {},
                **self.env,
            )
        )
        assert context.calls, "the briefing is read with the token, before the agent"
        spec = {"files": files, "result": {"status": "success", "confidence": 0.9, **result}}
        (job / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
        env["AGENT_SPEC"] = str(job / "spec.json")
        done = subprocess.run(
            [
                *BATON,
                "agent",
                "--prompt",
                str(job / "prompt.md"),
                "--command",
                f"{sys.executable} {self.root / 'agent.py'}",
                "--output",
                str(out / "baton-result.json"),
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return out

    def report(self, out: Path, **extra: str) -> Step:
        return self.action.invoke(
            ["report", "--issue", "1", "--result", str(out / "baton-result.json")],
            "workflow_dispatch",
            {},
            **{**self.env, **extra},
        )


def commits_by_baton(fake: FakeGitHub) -> list[str]:
    """The digests of Baton's commits on the branch, newest first, following first parents."""
    found = []
    oid = fake.branch_head(BRANCH)
    while oid is not None:
        digest = digest_in(fake.commit_message(oid))
        if digest:
            found.append(digest)
        parents = fake._git.commits[oid].parents
        oid = parents[0] if parents else None
    return found


def test_an_issue_ends_as_a_merged_pull_request_built_by_read_only_agents(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    fake.label_by(number, "baton", "maria")
    ok(action.run("issues", payloads.labeled(fake, number, "baton")))
    report(action, fake, summary="Clear feature request.")  # pm -> analyzing_requirements
    analysed = report(action, fake, summary="Clear.", confidence=0.95)  # -> creating_tests
    assert analysed.outputs["state"] == "creating_tests"
    assert analysed.outputs["branch"] == BRANCH, "the branch exists before the tester's job"
    assert fake.branch_head(BRANCH) == fake.branch_head("main")

    # The tester writes a test file: committed, and the draft pull request opens with it.
    out = jobs.run(BRANCH, {TESTS: "def test_csv():\n    assert False\n"}, summary="Tests.")
    tested = ok(jobs.report(out))
    assert tested.outputs["state"] == "implementing"
    assert fake.file_at(BRANCH, TESTS) == "def test_csv():\n    assert False\n"
    pr = int(tested.outputs["pull-request"])
    assert ("POST", "/graphql BatonCommitOpening") in tested.calls, "opened with the first commit"
    assert ("POST", "/repos/octo/demo/pulls") not in tested.calls
    assert fake.pull_request(pr)["draft"] is True
    head = fake.branch_head(BRANCH)
    assert head is not None
    message = fake.commit_message(head)
    assert message.startswith("tester: Tests. (#1)")
    assert "Agent tester in creating_tests, attempt 1." in message
    chain(action, fake)

    # A changeset touching the workflows is refused whole: nothing reaches the branch.
    out = jobs.run(
        BRANCH,
        {".github/workflows/ci.yml": "on: push\n", CODE: "EVIL = 1\n"},
        summary="Implemented, and sped up CI.",
        confidence=0.95,
    )
    refused = ok(jobs.report(out))
    assert refused.decision["outcome"] == "retry"
    assert fake.branch_head(BRANCH) == head
    assert fake.file_at(BRANCH, CODE) is None
    said = fake.comments(number)[-1]["body"]
    assert "- .github/workflows/ci.yml is a forbidden path (.github/workflows/\\*\\*)" in said
    chain(action, fake)

    # A human pushes while the developer works: its changeset is stale, nothing is overwritten,
    # and the developer runs again on the new head, the attempt not counted.
    out = jobs.run(BRANCH, {CODE: "def to_csv():\n    return ''\n"}, summary="Implemented.")
    pushed = fake.push(BRANCH, {"NOTES.md": "by hand\n"}, message="A note", by="maria")
    stale = ok(jobs.report(out))
    assert stale.outputs["agent"] == "developer"
    assert fake.branch_head(BRANCH) == pushed
    assert record_of(fake, number).attempt == 2, "the refusal counted, the stale run did not"
    chain(action, fake)

    out = jobs.run(
        BRANCH,
        {CODE: "def to_csv():\n    return 'a,b'\n"},
        summary="Implemented to_csv.",
        confidence=0.95,
        next_state="creating_pr",
    )
    developed = ok(jobs.report(out))
    assert developed.outputs["state"] == "creating_pr"
    # A report with a changeset: 5 calls (and a status label's creation on its first use).
    assert [c for c in developed.calls if c[1] != "/repos/octo/demo/labels"] == [
        ("POST", "/graphql BatonRead"),  # the issue, its comments and the branch head
        ("POST", "/graphql BatonCommit"),  # the commit, compare-and-swap on the head
        ("POST", "/graphql BatonRecordCheck"),  # no other run wrote the record meanwhile
        ("POST", "/graphql BatonWrite"),  # record, labels, message, the pull request's body
        ("POST", "/repos/octo/demo/actions/workflows/baton.yml/dispatches"),
    ]
    assert fake.file_at(BRANCH, "NOTES.md") == "by hand\n", "the human's push is kept"
    assert fake.file_at(BRANCH, CODE) == "def to_csv():\n    return 'a,b'\n"
    assert fake.pull_request(pr)["draft"] is False, "ready for review at creating_pr"

    # A re-run of the same report job commits nothing twice and moves nothing twice.
    before = commits_by_baton(fake)
    again = ok(jobs.report(out, GITHUB_RUN_ID=str(action.run_id)))
    assert commits_by_baton(fake) == before and len(before) == 2
    assert again.outputs["transitioned"] == "false"
    chain(action, fake)
    waiting = report(action, fake, summary="PR ready for review.")
    assert waiting.outputs["state"] == "waiting_for_human_input"

    # A review asking for a change reaches the developer's briefing.
    head = fake.branch_head(BRANCH)
    assert head is not None
    review = fake.review(
        pr, "maria", "changes_requested", "Quote the fields.", notes=[(CODE, 2, "use csv")]
    )
    asked = ok(
        action.run(
            "pull_request_review",
            payloads.pull_request_review(
                fake,
                number=pr,
                branch=BRANCH,
                head_sha=head,
                review_id=review,
                state="changes_requested",
                reviewer="maria",
                body="Quote the fields.",
            ),
        )
    )
    assert asked.outputs["state"] == "addressing_feedback"
    assert asked.outputs["agent"] == "developer"
    briefing = ok(action.invoke(["context", "--issue", "1"], "workflow_dispatch", {}))
    assert "Quote the fields." in briefing.stdout and "use csv" in briefing.stdout

    out = jobs.run(
        BRANCH,
        {CODE: "import csv\n\ndef to_csv():\n    return 'a,b'\n"},
        summary="Fields quoted with the csv module.",
        confidence=0.95,
    )
    fixed = ok(jobs.report(out))
    assert fixed.outputs["state"] == "creating_pr"
    chain(action, fake)
    report(action, fake, summary="Updated the PR.")

    # The merge completes the issue.
    merged_at = fake.merge(pr, by="maria")
    done = ok(
        action.run(
            "pull_request",
            payloads.pull_request_closed(
                fake,
                number=pr,
                branch=BRANCH,
                head_sha=fake.branch_head(BRANCH) or "",
                merged=True,
                sender="maria",
            ),
        )
    )
    assert merged_at
    assert done.outputs["state"] == "completed"
    record = record_of(fake, number)
    assert record.work is not None and record.work.closed == "merged"
    assert len(record.work.commits) == 3
    assert fake.file_at("main", CODE) == "import csv\n\ndef to_csv():\n    return 'a,b'\n"
    assert fake.file_at("main", TESTS) is not None


def enter_implementing(action: ActionRunner, fake: FakeGitHub) -> int:
    """A maintainer puts a new issue straight into `implementing`: the branch is made."""
    number = fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    fake.label_by(number, "status:implementing", "maria")
    entered = ok(action.run("issues", payloads.labeled(fake, number, "status:implementing")))
    assert entered.outputs["branch"] == BRANCH and entered.outputs["agent"] == "developer"
    return number


def test_failing_checks_send_the_work_back_with_their_names_and_output(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = enter_implementing(action, fake)
    out = jobs.run(
        BRANCH,
        {CODE: "def to_csv(): ...\n"},
        summary="Done.",
        confidence=0.95,
        next_state="creating_pr",
    )
    ok(jobs.report(out))
    chain(action, fake)
    report(action, fake, summary="PR ready.")
    head = fake.branch_head(BRANCH)
    assert head is not None and record_of(fake, number).state == "waiting_for_human_input"

    fake.add_check_run(head, "tests", "failure", "2 failed", text="test_a\ntest_b")
    fake.add_check_run(head, "lint", "success", "clean")
    failed = ok(
        action.run(
            "check_suite",
            payloads.check_suite_completed(
                fake, branch=BRANCH, head_sha=head, conclusion="failure", suite_id=5
            ),
        )
    )
    assert failed.outputs["state"] == "fixing_issues"
    assert (
        "GET",
        f"/repos/octo/demo/commits/{head}/check-runs",
    ) in failed.calls, "the failing checks' output is read only for Baton's own head"
    feedback = record_of(fake, number).feedback
    assert any("tests" in f and "2 failed" in f for f in feedback), feedback
    assert not any("lint" in f for f in feedback)

    # Checks on a head Baton did not write (older, or a human's) move nothing.
    pushed = fake.push(BRANCH, {"NOTES.md": "x\n"}, message="note", by="maria")
    other = ok(
        action.run(
            "check_suite",
            payloads.check_suite_completed(
                fake, branch=BRANCH, head_sha=pushed, conclusion="failure", suite_id=6
            ),
        )
    )
    assert other.outputs["transitioned"] == "false"


@pytest.mark.slow  # also played in memory: tests/sim/scenarios/work_closed_pull_request_*.yml
def test_a_pull_request_closed_unmerged_hands_the_issue_to_a_maintainer(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = enter_implementing(action, fake)
    out = jobs.run(BRANCH, {CODE: "x = 1\n"}, summary="Done.", confidence=0.5)
    reported = ok(jobs.report(out))
    pr = int(reported.outputs["pull-request"])
    fake.close_pull_request(pr, by="maria")
    closed = ok(
        action.run(
            "pull_request",
            payloads.pull_request_closed(
                fake,
                number=pr,
                branch=BRANCH,
                head_sha=fake.branch_head(BRANCH) or "",
                merged=False,
                sender="maria",
            ),
        )
    )
    assert closed.outputs["state"] == "waiting_for_human_input"
    assert closed.outputs["agent"] == ""
    assert f"#{pr}" in fake.comments(number)[-1]["body"]


def test_a_repository_that_forbids_actions_pull_requests_says_so_and_hands_the_pr_state_to_a_human(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    fake.actions_may_open_pull_requests = False
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = enter_implementing(action, fake)
    out = jobs.run(BRANCH, {CODE: "x = 1\n"}, summary="Done.", confidence=0.5)
    reported = ok(jobs.report(out))
    assert fake.file_at(BRANCH, CODE) == "x = 1\n", "the work is committed all the same"
    assert ("POST", "/graphql BatonCommitOpening") in reported.calls, "refused in its document"
    assert ("POST", "/repos/octo/demo/pulls") not in reported.calls
    assert reported.outputs["pull-request"] == ""
    said = "\n".join(c["body"] for c in fake.comments(number))
    assert "Allow GitHub Actions to create and approve pull requests" in said
    assert "GitHub Actions is not permitted to create or approve pull requests." in (
        reported.summary
    )
    assert "the issue goes to a human (`requires_human_intervention`)" in said
    summary = reported.summary
    assert "(at the pull-request state the issue goes to a human until it is)" in summary
    record = record_of(fake, number)
    assert record.work is not None and record.work.problem

    # The work reaches the pull-request state: no pull request can be opened, so the issue
    # goes to requires_human_intervention; a maintainer fixes the setting and retries.
    chain(action, fake)
    out = jobs.run(
        BRANCH, {CODE: "x = 2\n"}, summary="Fixed.", confidence=0.95, next_state="creating_pr"
    )
    held = ok(jobs.report(out))
    assert held.outputs["agent"] == "", held.stdout
    assert record_of(fake, number).state == "requires_human_intervention"
    fake.actions_may_open_pull_requests = True
    comment = fake.add_comment(number, "/retry", user="maria")
    retried = ok(action.run("issue_comment", payloads.comment_created(fake, comment["id"])))
    assert retried.outputs["state"] == "fixing_issues", "the step that was stopped runs again"
    assert retried.outputs["agent"] == "developer"
    out = jobs.run(BRANCH, {}, summary="Nothing left.", confidence=0.95, next_state="creating_pr")
    ready = ok(jobs.report(out))
    assert ready.outputs["state"] == "creating_pr", ready.stdout
    pr = int(ready.outputs["pull-request"])
    assert fake.pull_request(pr)["draft"] is False, "opened, and ready at the PR state"


def test_an_approval_counts_only_for_batons_last_commit(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = enter_implementing(action, fake)
    out = jobs.run(
        BRANCH, {CODE: "x = 1\n"}, summary="Done.", confidence=0.95, next_state="creating_pr"
    )
    pr = int(ok(jobs.report(out)).outputs["pull-request"])
    chain(action, fake)
    report(action, fake, summary="PR ready.")
    assert record_of(fake, number).state == "waiting_for_human_input"

    def approve() -> Step:
        review = fake.review(pr, "maria", "approved", "Ship it.")
        head = fake.branch_head(BRANCH) or ""
        return ok(
            action.run(
                "pull_request_review",
                payloads.pull_request_review(
                    fake,
                    number=pr,
                    branch=BRANCH,
                    head_sha=head,
                    review_id=review,
                    state="approved",
                    reviewer="maria",
                    body="Ship it.",
                ),
            )
        )

    # A read user's commit on top of Baton's: the approval is of a commit Baton did not check.
    pushed = fake.push(BRANCH, {"NOTES.md": "by hand\n"}, message="note", by="bob")
    stale = approve()
    assert stale.outputs["transitioned"] == "false"
    assert record_of(fake, number).state == "waiting_for_human_input"
    said = fake.comments(number)[-1]["body"]
    assert "`maria`'s approval of #" in said and "does not count" in said, said
    assert (
        f"but `{pushed[:7]}`, on top of Baton's last commit "
        f"`{record_of(fake, number).work.head[:7]}`, is by `bob`, who has `read` access."
    ) in said
    assert ("GET", f"/repos/octo/demo/compare/{record_of(fake, number).work.head}...{pushed}") in [
        (method, path.partition("?")[0]) for method, path in stale.calls
    ]

    # The agent takes the push in; an approval of Baton's new commit counts.
    asked = fake.review(pr, "maria", "changes_requested", "Keep the notes.")
    sent = ok(
        action.run(
            "pull_request_review",
            payloads.pull_request_review(
                fake,
                number=pr,
                branch=BRANCH,
                head_sha=fake.branch_head(BRANCH) or "",
                review_id=asked,
                state="changes_requested",
                reviewer="maria",
                body="Keep the notes.",
            ),
        )
    )
    assert sent.outputs["state"] == "addressing_feedback"
    out = jobs.run(
        BRANCH, {CODE: "x = 2\n"}, summary="Kept.", confidence=0.95, next_state="creating_pr"
    )
    ok(jobs.report(out))
    chain(action, fake)
    report(action, fake, summary="PR updated.")
    assert record_of(fake, number).work.head == fake.branch_head(BRANCH)
    assert approve().outputs["state"] == "human_input_received"


def _at_the_gate(action: ActionRunner, fake: FakeGitHub, tmp_path: Path) -> tuple[int, int]:
    """The issue waiting for a human with Baton's pull request ready: (issue, pull request)."""
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = enter_implementing(action, fake)
    out = jobs.run(
        BRANCH, {CODE: "x = 1\n"}, summary="Done.", confidence=0.95, next_state="creating_pr"
    )
    pr = int(ok(jobs.report(out)).outputs["pull-request"])
    chain(action, fake)
    report(action, fake, summary="PR ready.")
    assert record_of(fake, number).state == "waiting_for_human_input"
    return number, pr


def _approve(action: ActionRunner, fake: FakeGitHub, pr: int, reviewer: str = "maria") -> Step:
    review = fake.review(pr, reviewer, "approved", "Ship it.")
    payload = payloads.pull_request_review(
        fake,
        number=pr,
        branch=BRANCH,
        head_sha=fake.branch_head(BRANCH) or "",
        review_id=review,
        state="approved",
        reviewer=reviewer,
        body="Ship it.",
    )
    return ok(action.run("pull_request_review", payload))


def test_an_approval_counts_for_a_writers_commits_on_top_of_batons_last(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    fake.set_permission("wendy", "write")
    number, pr = _at_the_gate(action, fake, tmp_path)
    last = record_of(fake, number).work.head
    fake.push(BRANCH, {"NOTES.md": "a note\n"}, message="note", by="wendy")
    head = fake.push(BRANCH, {"NOTES.md": "a better note\n"}, message="note", by="maria")

    approved = _approve(action, fake, pr)

    assert approved.outputs["state"] == "human_input_received", approved.stdout
    looked = [(m, p.partition("?")[0]) for m, p in approved.calls]
    assert ("GET", f"/repos/octo/demo/compare/{last}...{head}") in looked
    assert ("GET", "/repos/octo/demo/collaborators/wendy/permission") in looked
    # maria is the reviewer and the second commit's author: looked up once.
    assert looked.count(("GET", "/repos/octo/demo/collaborators/maria/permission")) == 1


def test_an_approval_of_many_writers_commits_on_top_asks_each_author_once_and_counts(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    """The run asks for the authors after Baton's last one by one, as the rule reads them: a
    page of writers' commits is no endless loop."""
    writers = [f"writer{i}" for i in range(14)]
    for login in writers:
        fake.set_permission(login, "write")
    _, pr = _at_the_gate(action, fake, tmp_path)
    for i, login in enumerate(writers):
        fake.push(BRANCH, {"NOTES.md": f"note {i}\n"}, message=f"note {i}", by=login)

    approved = _approve(action, fake, pr)

    assert approved.outputs["state"] == "human_input_received", approved.stdout
    looked = [(m, p.partition("?")[0]) for m, p in approved.calls]
    for login in writers:
        asked = ("GET", f"/repos/octo/demo/collaborators/{login}/permission")
        assert looked.count(asked) == 1, login


def test_an_approval_of_batons_last_commit_reads_no_commits(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    _, pr = _at_the_gate(action, fake, tmp_path)

    approved = _approve(action, fake, pr)

    assert approved.outputs["state"] == "human_input_received", approved.stdout
    assert not [path for _, path in approved.calls if "/compare/" in path]


def test_a_commit_on_top_that_github_links_to_no_account_keeps_the_approval_from_counting(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    number, pr = _at_the_gate(action, fake, tmp_path)
    pushed = fake.push(
        BRANCH, {"NOTES.md": "hm\n"}, message="note", by="maria", email="maria@example.com"
    )

    stale = _approve(action, fake, pr)

    assert stale.outputs["transitioned"] == "false"
    said = fake.comments(number)[-1]["body"]
    assert f"but `{pushed[:7]}`, on top of Baton's last commit" in said, said
    assert "has no GitHub account as its author." in said


def test_a_held_ci_run_that_ended_unapproved_sends_nothing_back(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = enter_implementing(action, fake)
    out = jobs.run(
        BRANCH, {CODE: "x = 1\n"}, summary="Done.", confidence=0.95, next_state="creating_pr"
    )
    opened = ok(jobs.report(out))
    pr = int(opened.outputs["pull-request"])
    # The issue is told, when the pull request opens, what approving its CI means.
    said = fake.comments(number)[-1]["body"]
    assert f"CI on pull request #{pr} waits for a maintainer's approval" in said, said
    assert "**Approve and run**" in said and "with the repository's secrets" in said
    assert "waits for approval" in opened.summary
    chain(action, fake)
    report(action, fake, summary="PR ready.")
    head = fake.branch_head(BRANCH)
    assert head is not None and record_of(fake, number).state == "waiting_for_human_input"

    def workflow_run(conclusion: str, run_id: int) -> Step:
        payload = payloads.workflow_run_completed(
            fake,
            branch=BRANCH,
            head_sha=head,
            conclusion=conclusion,
            run_id=run_id,
            pull_requests=[pr],
            event="pull_request",
        )
        return ok(action.run("workflow_run", payload))

    # Held for a writer's "Approve and run": ignored from the payload alone.
    held = workflow_run("action_required", 31)
    assert held.outputs["transitioned"] == "false" and held.calls == []
    # Never approved: `failure`, but no job ran, so no check run failed on the head.
    unapproved = workflow_run("failure", 32)
    assert unapproved.outputs["transitioned"] == "false"
    assert ("GET", f"/repos/octo/demo/commits/{head}/check-runs") in unapproved.calls
    assert "no job ran" in unapproved.summary, unapproved.summary
    assert record_of(fake, number).state == "waiting_for_human_input"
    # A check suite in which no check ran says so itself: no API call.
    empty = ok(
        action.run(
            "check_suite",
            payloads.check_suite_completed(
                fake, branch=BRANCH, head_sha=head, conclusion="failure", suite_id=33, check_runs=0
            ),
        )
    )
    assert empty.outputs["transitioned"] == "false" and empty.calls == []

    # Approved, it ran and failed: the work goes back with what failed.
    fake.add_check_run(head, "tests", "failure", "1 failed")
    ran = workflow_run("failure", 34)
    assert ran.outputs["state"] == "fixing_issues"
    assert any("1 failed" in f for f in record_of(fake, number).feedback)


APP = "baton-app[bot]"


def test_an_app_identity_writes_only_where_the_config_accepts_unapproved_ci(
    tmp_path: Path,
) -> None:
    with FakeGitHub(bot_login=APP) as fake:
        fake.set_permission("maria", "maintain")
        number = fake.add_issue("Export the report as CSV", "Please.", user="alice")
        fake.label_by(number, "status:implementing", "maria")
        labeled = payloads.labeled(fake, number, "status:implementing")

        # No acceptance: a clear error, and nothing written.
        refused = ActionRunner(fake, tmp_path / "refused")
        (tmp_path / "refused").mkdir()
        step = refused.run("issues", labeled, **{"INPUT_BOT-LOGIN": APP})
        assert step.returncode != 0
        assert "::error title=Baton::" in step.stdout + step.stderr
        assert "`ci: {unapproved_runs: accept}`" in step.stdout + step.stderr
        assert [call for call in step.calls if call[0] != "GET"] == []
        assert fake.comments(number) == [] and fake.branch_head(BRANCH) is None

        # Accepted: Baton works, and says on the issue that CI runs without approval.
        config = tmp_path / "baton.yml"
        config.write_text("ci: {unapproved_runs: accept}\n", encoding="utf-8")
        action = ActionRunner(fake, tmp_path / "accepted", config=str(config))
        (tmp_path / "accepted").mkdir()
        app = {"INPUT_BOT-LOGIN": APP}
        entered = ok(action.run("issues", labeled, **app))
        assert entered.outputs["branch"] == BRANCH
        # The reusable workflow hands the agent job's briefing the same login.
        jobs = AgentJob(action, fake, tmp_path / "jobs", INPUT_BOT_LOGIN=APP)
        out = jobs.run(BRANCH, {CODE: "x = 1\n"}, summary="Done.", confidence=0.5)
        opened = ok(jobs.report(out))
        pr = opened.outputs["pull-request"]
        said = fake.comments(number)[-1]["body"]
        assert f"CI on pull request #{pr} runs without approval" in said, said
        assert "Approve and run" not in said
        assert "without approval (`ci: {unapproved_runs: accept}`)" in opened.summary
