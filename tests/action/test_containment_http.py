"""What an agent writes reaches the branch, the commit and the pull request only past Baton's
checks, end to end over real HTTP: the real CLI against the fake GitHub, real agent jobs in a
git checkout. A file the next agent would obey is refused with the YAML that allows it; the
agent's summary and the issue's title land in the commit and the pull request as data."""

from __future__ import annotations

import re
from pathlib import Path

from action.test_work_http import BRANCH, TESTS, AgentJob, action, fake, ok, report
from action_harness import ActionRunner
from baton.core.text.plaintext import ZWSP
from baton.sim import payloads
from fakes.http_github import FakeGitHub

__all__ = ["action", "fake"]  # the fixtures, shared with the work's own end-to-end test

Z = ZWSP
LIVE = re.compile(r"#\d|@[A-Za-z0-9_-]|GH-\d|://", re.IGNORECASE)
HOSTILE_SUMMARY = "Fixes #2, closes octo/demo#2 @octo-org/security https://github.com/o/r/issues/2"


def _to_creating_tests(action: ActionRunner, fake: FakeGitHub, title: str) -> int:
    number = fake.add_issue(title, "Please add a CSV export.", user="alice")
    fake.label_by(number, "baton", "maria")
    ok(action.run("issues", payloads.labeled(fake, number, "baton")))
    report(action, fake, summary="Clear feature request.")
    analysed = report(action, fake, summary="Clear.", confidence=0.95)
    assert analysed.outputs["state"] == "creating_tests"
    return number


def test_agent_config_is_refused_and_agent_and_issue_text_land_only_as_data(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    jobs = AgentJob(action, fake, tmp_path / "jobs")
    number = _to_creating_tests(action, fake, "Fixes #3 for @octo/security")
    head = fake.branch_head(BRANCH)

    # A hook the next agent's Claude Code would run: refused whole, in any case.
    out = jobs.run(
        BRANCH,
        {".Claude/settings.json": '{"hooks": {}}', TESTS: "def test_x():\n    pass\n"},
        summary="Tests.",
    )
    refused = ok(jobs.report(out))
    assert refused.decision["outcome"] == "retry"
    assert fake.branch_head(BRANCH) == head and fake.file_at(BRANCH, TESTS) is None
    said = fake.comments(number)[-1]["body"]
    assert "- .Claude/settings.json is a forbidden path (\\*\\*/.claude/\\*\\*)" in said
    assert 'work: {allow: \\[".Claude/settings.json"\\]}' in said
    ok(action.run(*payloads.from_dispatch(fake, fake.dispatches[-1])))

    # The agent's summary and the issue's title: data in the commit and the pull request.
    out = jobs.run(BRANCH, {TESTS: "def test_x():\n    pass\n"}, summary=HOSTILE_SUMMARY)
    tested = ok(jobs.report(out))
    head = fake.branch_head(BRANCH)
    assert head is not None
    headline, _, body = fake.commit_message(head).partition("\n\n")
    assert headline == f"tester: Fixes #{Z}2, closes octo/demo#{Z}2 @{Z}octo-org/security h… (#1)"
    assert LIVE.findall(headline) == ["#1"]  # Baton's own reference to the issue, only
    assert LIVE.findall(body) == ["#1"]
    pull = fake.issue(int(tested.outputs["pull-request"]))  # its title and body are its issue's
    assert pull["title"] == f"Fixes #{Z}3 for @{Z}octo/security (#1)"
    assert LIVE.findall(pull["body"] or "") == ["#1", "#1"]  # "Closes #1", "on issue #1"


def test_a_changeset_rewriting_the_config_at_the_configured_path_is_refused(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    # The workflow's `config:` input may name any path: that file is Baton's config as much as
    # .github/baton.yml is (the approvers, the next agent's instructions).
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "baton.yml").write_text("{}\n", encoding="utf-8")
    action = ActionRunner(fake, tmp_path, config="ci/baton.yml")
    number = _to_creating_tests(action, fake, "Export the report as CSV")
    jobs = AgentJob(action, fake, tmp_path / "jobs", INPUT_CONFIG="ci/baton.yml")
    head = fake.branch_head(BRANCH)

    out = jobs.run(
        BRANCH,
        {"CI/Baton.yml": "approvers: {users: [mallory]}\n", TESTS: "def test_x():\n    pass\n"},
        summary="Tests.",
    )
    refused = ok(jobs.report(out))

    assert refused.decision["outcome"] == "retry"
    assert fake.file_at(BRANCH, "CI/Baton.yml") is None, "the agent rewrote Baton's config"
    assert fake.branch_head(BRANCH) == head
    said = fake.comments(number)[-1]["body"]
    assert (
        "- CI/Baton.yml is a forbidden path (ci/baton.yml): Baton's config, as the workflow's "
        "\\`config\\` input names it: an agent would rewrite its own rules; no setting allows it"
    ) in said
