"""Whose commit and whose branch it is, and never stuck on a refused commit, over real HTTP:
`baton run` and `baton report` as the Action runs them, against the fake GitHub on 127.0.0.1.

* A commit at the branch head carrying the changeset's `Baton-Changeset:` trailer is adopted
  only when it is provably Baton's (REST "get a commit": on the changeset's base, exactly base +
  changeset, signed by GitHub itself as web-flow, authored by the bot, with the very message
  Baton writes); a write user's copy of the trailer is not,
  and the issue is told. Baton's own commit whose record was never written still is.
* A `baton/issue-N` branch someone else made first, with commits of their own, is refused with
  a message on the issue (delete or rename it); Baton's own branch found again after a crash
  (nothing on it but what its base has) is adopted.
* A commit GitHub refuses (a deletion of a path the branch lacks) is a refused changeset on the
  retry ladder, said on the issue with GitHub's words, ending at a human after the limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner, Step
from baton.core.model.changeset import CHANGESET_FILE
from baton.core.model.work import digest_in
from baton.github.client import GitHubTracker
from baton.github.tracker import CommitRequest
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.http import messages_of, record_comments, record_of, status_labels
from support.memory import changeset_on
from test_commit_faults_http import (
    BRANCH,
    CODE,
    ISSUE,
    LossyGitHub,
    assert_sound,
    at_implementing,
    failed_clearly,
    hand_in,
    lineage,
    report,
    rerun,
    where_of,
    without_branch,
)

DISPATCHES = "/repos/octo/demo/actions/workflows/baton.yml/dispatches"


@pytest.fixture
def fake() -> Iterator[LossyGitHub]:
    with LossyGitHub() as server:
        server.set_permission("maria", "maintain")
        server.set_permission("mallory", "write")
        server.set_permission("bob", "write")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


def ok(step: Step) -> Step:
    assert step.returncode == 0, step.stdout + step.stderr
    return step


def commit_reads(step: Step) -> list[str]:
    return [path for method, path in step.calls if method == "GET" and "/commits/" in path]


def dispatched(step: Step) -> bool:
    return ("POST", DISPATCHES) in step.calls


# --- 1. adopt only Baton's own commit -----------------------------------------------------------
def test_a_write_user_s_commit_with_the_changeset_s_trailer_is_not_adopted(fake, action):
    """Baton's commit of the changeset was lost; mallory pushes one with its trailer and a
    forbidden `.github/baton.yml`. The report reads that commit once, finds it unsigned and
    not the bot's, lists nothing of it as Baton's, tells the issue and runs the agent again."""
    base = at_implementing(action, fake)
    digest = hand_in(action, base)
    files = {**CODE, ".github/baton.yml": "approvers: {users: [mallory]}\n"}
    forged = fake.push(
        BRANCH, files, f"developer: done (#1)\n\nBaton-Changeset: {digest}", by="mallory"
    )

    step = ok(report(action))

    assert commit_reads(step) == [f"/repos/octo/demo/commits/{forged}"]
    record = record_of(fake, ISSUE)
    assert record.work is not None and record.work.commits == []
    assert record.work.stale_runs == 1
    assert record.state == "implementing" and record.attempt == 1
    assert step.outputs["agent"] == "developer"
    assert lineage(fake) == [forged, base], "nothing was committed on top of it"
    said = messages_of(fake, ISSUE)[-1]
    assert f"A commit on `{BRANCH}` was not taken as Baton's" in said
    assert f"commit {forged[:7]} claims these changes but is not Baton's" in said
    assert "GitHub did not verify its signature" in said


def test_baton_s_commit_whose_record_write_failed_is_adopted_on_the_re_run(fake, action):
    """The real re-run case: Baton committed, then the record's write failed. The re-run reads
    the head commit once (signed, the bot's, exactly the changeset on its base) and adopts it."""
    base = at_implementing(action, fake)
    digest = hand_in(action, base)
    fake.fail("POST", "/graphql", 500, times=None, operation="BatonWrite")

    failed = report(action)
    fake.clear_faults()
    repaired = ok(rerun(action))

    failed_clearly(failed)
    (head, *_) = lineage(fake)
    assert digest_in(fake.commit_message(head)) == digest
    assert commit_reads(repaired) == [f"/repos/octo/demo/commits/{head}"]
    assert_sound(fake, base, digest)


def test_a_copy_of_baton_s_tree_pushed_by_hand_is_still_not_baton_s(fake, action):
    """Exactly base + changeset on the right parent, but pushed by a person: the signature and
    the author say it is not Baton's commit, so the pull request body never lists it."""
    base = at_implementing(action, fake)
    digest = hand_in(action, base)
    copied = fake.push(BRANCH, CODE, f"x\n\nBaton-Changeset: {digest}", by="mallory")

    ok(report(action))

    assert all(mark.oid != copied for mark in record_of(fake, ISSUE).work.commits)
    assert "GitHub did not verify its signature" in messages_of(fake, ISSUE)[-1]


def test_a_github_signed_commit_of_the_changeset_with_another_message_is_not_adopted(fake, action):
    """Any workflow's token can have GitHub make and sign a commit (createCommitOnBranch):
    committed by web-flow, authored by the bot, exactly base + changeset, the trailer copied.
    Only the message Baton itself writes for this attempt and result makes it Baton's."""
    base = at_implementing(action, fake)
    digest = hand_in(action, base)
    changeset = changeset_on(base, CODE)
    elsewhere = GitHubTracker("octo/demo", fake.token, api_url=fake.url)  # all the bot's
    additions = tuple((f.path, f.contents) for f in changeset.files if f.contents is not None)
    made = elsewhere.commit(
        CommitRequest(
            BRANCH,
            base,
            "developer: done (#1)",
            f"Refs: #1\nBaton-Changeset: {digest}",
            additions,
            tuple(f.path for f in changeset.files if f.contents is None),
        )
    )
    facts = elsewhere.commit_facts(made)
    assert facts is not None and (facts.verified, facts.committer) == (True, "web-flow")

    ok(report(action))

    assert all(mark.oid != made for mark in record_of(fake, ISSUE).work.commits)
    said = messages_of(fake, ISSUE)[-1]
    assert f"commit {made[:7]} claims these changes but is not Baton's" in said
    assert "its message is not the one Baton writes for this changeset" in said


# --- 2. a branch Baton did not make ---------------------------------------------------------------
def label_run(action: ActionRunner, fake: FakeGitHub, label: str, **extra: str) -> Step:
    """Maria adds `label`; the real `baton run` handles the `issues` event."""
    fake.label_by(ISSUE, label, "maria")
    return action.run("issues", payloads.labeled(fake, ISSUE, label), **extra)


def test_a_branch_someone_else_made_first_is_refused_on_the_issue(fake, action):
    theirs = fake.push(BRANCH, {"theirs.py": "print('mine')\n"}, "Bob's start", by="bob")

    step = ok(label_run(action, fake, "status:implementing"))

    record = record_of(fake, ISSUE)
    assert (record.state, record.held) == ("implementing", True)
    assert record.work is None or not record.work.created
    assert status_labels(fake, ISSUE) == ["status:implementing"]
    assert step.outputs["agent"] == ""
    assert fake.branch_head(BRANCH) == theirs, "their branch is left as it is"
    said = messages_of(fake, ISSUE)[-1]
    assert f"{BRANCH} already exists with 1 commit(s) Baton did not make" in said
    assert "delete or rename that branch, then /retry" in said
    assert any("/compare/" in path for _, path in step.calls)


def test_after_the_branch_is_deleted_retry_makes_baton_s_own(fake, action):
    fake.push(BRANCH, {"theirs.py": "x\n"}, by="bob")
    ok(label_run(action, fake, "status:implementing"))
    with fake._lock:  # bob deletes his branch (the fake has no ref deletion API)
        del fake._git.refs[BRANCH]
    main = fake.branch_head("main")

    comment = fake.add_comment(ISSUE, "/retry", user="maria", association="MEMBER")
    ok(action.run("issue_comment", payloads.comment_created(fake, comment["id"])))

    record = record_of(fake, ISSUE)
    assert (record.state, record.held) == ("implementing", False)
    assert record.work is not None and record.work.created
    assert fake.branch_head(BRANCH) == main


def test_baton_s_own_branch_found_after_a_crash_is_adopted(fake, action):
    """The run made the branch and died before its record; main moved on meanwhile. The re-run
    finds the branch behind main, carrying nothing of its own: adopted, not refused."""
    fake.fail("POST", "/graphql", 500, times=None, operation="BatonWrite")
    failed = label_run(action, fake, "status:implementing")
    made = fake.branch_head(BRANCH)
    fake.clear_faults()
    fake.push("main", {"later.md": "later\n"}, by="maria")

    repaired = ok(label_run(action, fake, "status:implementing"))

    failed_clearly(failed)
    assert made is not None and fake.branch_head(BRANCH) == made
    record = record_of(fake, ISSUE)
    assert record.state == "implementing"
    assert record.work is not None and record.work.created
    assert repaired.outputs["agent"] == "developer"
    assert any("/compare/" in path for _, path in repaired.calls)


def test_a_report_that_would_create_the_branch_refuses_one_someone_else_made(fake, action):
    """The issue entered implementing before Baton made branches; bob made the branch since.
    The report commits nothing onto it and hands the issue to a human."""
    base = without_branch(action, fake)
    hand_in(action, base)
    theirs = fake.push(BRANCH, {"theirs.py": "x\n"}, by="bob")

    step = ok(report(action))

    assert fake.branch_head(BRANCH) == theirs
    record = record_of(fake, ISSUE)
    assert (record.state, record.held) == ("implementing", True)
    assert not dispatched(step)
    assert "delete or rename that branch" in messages_of(fake, ISSUE)[-1]


# --- 3. never stuck on a refused commit -----------------------------------------------------------
def hand_in_deleting_a_ghost(action: ActionRunner, base: str) -> None:
    changeset = changeset_on(base, {"src/export.py": "x = 1\n", "ghost.py": None})
    path = action.workdir / CHANGESET_FILE
    path.write_text(changeset.model_dump_json(), encoding="utf-8")


def test_a_commit_github_refuses_is_a_refused_changeset_on_the_retry_ladder(fake, action):
    base = at_implementing(action, fake)
    states = []
    for _ in range(3):
        hand_in_deleting_a_ghost(action, base)
        step = ok(report(action))
        record = record_of(fake, ISSUE)
        states.append((record.state, record.attempt, dispatched(step)))
        said = messages_of(fake, ISSUE)[-1]
        assert "changes were refused" in said
        assert "A path was requested for deletion which does not exist as of commit oid" in said
        assert fake.branch_head(BRANCH) == base, "nothing was written"

    assert states == [
        ("implementing", 2, True),
        ("implementing", 3, True),
        ("requires_human_intervention", 1, False),
    ]
    assert record.escalated_from == "implementing"
    assert any("Your changes were refused" in f for f in record.feedback)
    assert json.loads(step.outputs["decision"])["to"] == "requires_human_intervention"


# --- docs that match: an invalid result is a failed attempt, not a failed run -------------------
def test_an_invalid_agent_result_exits_0_with_a_warning_and_is_a_failed_attempt(fake, action):
    """What README and docs/reliability.md say: not exit 1 with nothing written, but the
    agent's failed attempt (attempt 2 in the record), the agent dispatched again with why."""
    at_implementing(action, fake)
    path = action.workdir / "result.json"
    path.write_text('{"status": "success", "confidence": 7}', encoding="utf-8")
    args = ["report", "--issue", str(ISSUE), "--result", str(path)]
    step = action.invoke(
        [*args, "--state", "implementing", "--agent", "developer"], "workflow_dispatch", {}
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert "::warning" in step.stdout and "::error" not in step.stdout
    record = record_of(fake, ISSUE)
    assert (record.state, record.attempt) == ("implementing", 2)
    assert dispatched(step)
    assert record.feedback == [
        "the agent result does not validate: confidence: Input should be less than or equal to 1"
    ]
    assert "Iteration 0, attempt 2." in record_comments(fake, ISSUE)[0].body


# --- 4. what the next agent loads, through the base's links, judged by the report job --------
SETTINGS = "vendor/tools/claude/settings.json"
HOOKS = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "sh x"}]}]}}\n'


def _linked_base(action: ActionRunner, fake: FakeGitHub) -> str:
    """The default branch keeps Claude Code's settings elsewhere: `.claude -> tools/claude`
    and `tools -> vendor/tools` (mode 120000), then the issue reaches implementing."""
    files = {".claude": "tools/claude", "tools": "vendor/tools", SETTINGS: "{}\n"}
    fake.push("main", files, "Keep the agent settings in vendor", links=[".claude", "tools"])
    return at_implementing(action, fake)


def test_a_change_through_a_linked_folder_is_refused_by_the_report_job_alone(fake, action):
    """The agent job is the agent's: its own check may never have run. The changeset handed
    in rewrites the settings `.claude` leads to through two links; the report job reads the
    base's tree from GitHub, refuses it naming the chain, and writes nothing to the branch."""
    base = _linked_base(action, fake)
    changeset = changeset_on(base, {SETTINGS: HOOKS, "src/export.py": "x = 1\n"})
    (action.workdir / CHANGESET_FILE).write_text(changeset.model_dump_json(), encoding="utf-8")

    step = ok(report(action))

    operations = [where_of(fake, i) for i in range(len(fake.requests))]  # the last run's
    assert operations.count("BatonTree") == 1  # the links' targets: one more read
    assert fake.branch_head(BRANCH) == base, "nothing was committed"
    said = messages_of(fake, ISSUE)[-1]
    assert (  # as Markdown shows it: `>` escaped
        f"- {SETTINGS} is what .claude points at (.claude -&gt; tools -&gt; vendor/tools/claude), "
        "and .claude is a forbidden path: a change there is a change to it\n"
    ) in said
    assert step.decision["outcome"] == "retry"


def test_a_change_beside_the_links_commits_after_reading_where_they_lead(fake, action):
    """Only where a link is does the report read more: the links' targets, then the folders
    `.claude` leads through (all of them in one read), and the change is committed."""
    base = _linked_base(action, fake)
    digest = hand_in(action, base)

    ok(report(action))

    operations = [where_of(fake, i) for i in range(len(fake.requests))]  # the last run's
    assert operations[:3] == ["BatonRead", "BatonTree", "BatonTree"]
    assert_sound(fake, base, digest)
