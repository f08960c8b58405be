"""An epic whose tasks run tests first (`epics: {task_workflow: epic-task-test-first}` and
`tests:`), end to end over real HTTP against the fake GitHub: the real CLI for every run and
report, the evidence from the real `baton verify` (the real pytest) on checkouts of the fake's
commits.

The epic plans two tasks and runs one at a time (`max_parallel: 1`). The first task's tester
writes tests only; their red proof is committed on the task's branch (made from the epic's); a
maintainer signs the proof off on the task's sub-issue; the developer's first changeset, which
weakens a signed-off test, is refused naming it; the second makes the tests pass; the tests
profile's green proof sends the task to its reviewer, whose approval completes it and merges its
branch into the epic's. Until then the second task waits (the first one, in writing_tests,
tests_review and proving, holds the only slot); the conductor starts it after the merge.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner
from baton.core.model.changeset import Changeset
from baton.core.model.evidence import Evidence
from baton.core.model.record import Record
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.epic_http import EpicPlayer, Play, status_of
from support.http import messages_of, record_of
from support.memory import changeset_on
from support.proof_http import CHECK_RUNS, computed_result, proof_config, verify

MAIN = {
    "report/__init__.py": "",
    "report/weekly.py": "def rows():\n    return [{'a': 1}]\n",
    "tests/test_weekly.py": (
        "from report.weekly import rows\n\n\ndef test_rows():\n    assert rows()\n"
    ),
}
PLAN = [{"key": "csv", "title": "CSV export"}, {"key": "json", "title": "JSON export"}]
Files = dict[str, str | None]
TESTS: dict[str, Files] = {
    "csv": {
        "tests/test_csv.py": "def test_header():\n"
        "    from report.csv_export import header\n\n"
        "    assert header([{'a': 1}]) == 'a'\n",
    },
    "json": {
        "tests/test_json.py": "def test_dump():\n"
        "    from report.json_export import dump\n\n"
        "    assert dump([]) == '[]'\n",
    },
}
CODE: dict[str, Files] = {
    "csv": {"report/csv_export.py": "def header(rows):\n    return ','.join(rows[0])\n"},
    "json": {
        "report/json_export.py": "import json\n\n\ndef dump(rows):\n    return json.dumps(rows)\n"
    },
}
WEAKENED: Files = {**CODE["csv"], "tests/test_csv.py": "def test_header():\n    pass\n"}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.set_permission("alice", "read")
        server.push("main", MAIN, "The weekly report", by="maria")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    config = proof_config(tmp_path, "issue-lifecycle")
    config.write_text(
        config.read_text(encoding="utf-8")
        + "epics:\n  max_parallel: 1\n  task_workflow: epic-task-test-first\n",
        encoding="utf-8",
    )
    work = tmp_path / "work"
    work.mkdir()
    return ActionRunner(fake, work, config=str(config))


class Script:
    """The agents: discovery, the plan, and each task's tester, developer and reviewer; the
    tester's red proof and the tests profile's green one are the real `baton verify`'s."""

    def __init__(self, fake: FakeGitHub, action: ActionRunner, root: Path) -> None:
        self.fake, self.action, self.root = fake, action, root
        self.keys: dict[int, str] = {}
        self.developed: list[int] = []
        self.jobs = 0

    def _verify(self, commit: str, changeset: Changeset | None = None) -> Evidence:
        """The agent job's `baton verify` on `commit` (with the tester's changeset: red)."""
        self.jobs += 1
        where = self.root / f"job{self.jobs}"
        return verify(self.fake, self.action, commit, where, changeset=changeset)

    def __call__(self, number: int, agent: str, record: Record | None) -> Play | None:
        if agent == "discovery":
            return Play({"spec": "# Spec\nExports.", "categories": ["users", "scope"]})
        if agent == "planner":
            return Play({"tasks": PLAN})
        assert record is not None and record.task is not None and record.work is not None
        key, head = record.task.key, self.fake.branch_head(record.work.branch)
        assert head is not None
        if record.state == "writing_tests":
            changeset = changeset_on(head, TESTS[key])
            red = self._verify(head, changeset=changeset)
            return Play({"summary": "tests written"}, changeset=changeset, evidence=red)
        if record.state == "in_progress":
            weaken = key == "csv" and number not in self.developed
            self.developed.append(number)
            files = WEAKENED if weaken else CODE[key]
            return Play({"summary": "implemented"}, changeset=changeset_on(head, files))
        if record.state == "proving":
            green = self._verify(head)
            return Play(computed_result(green), evidence=green)
        return Play({"summary": "ok"})  # the reviewer approves, the pm requeues


def to_implementing(player: EpicPlayer, fake: FakeGitHub) -> int:
    epic = fake.add_issue("Exports", "Export the weekly report.", user="alice")
    player.epics.append(epic)
    fake.label_by(epic, "baton:epic", "maria")
    player.event("issues", payloads.labeled(fake, epic, "baton:epic"))
    approved = fake.add_comment(epic, "approved", user="maria")
    player.event("issue_comment", payloads.comment_created(fake, approved["id"]))
    player.drain()
    assert status_of(fake, epic) == "status:implementing"
    return epic


# ~45 s: some 27 CLI runs and three real `baton verify` runs; the one end-to-end proof that an
# epic's tasks run tests first, so it stays in the default suite.
def test_an_epic_s_task_goes_red_signed_off_green_reviewed_and_merged_before_the_next_starts(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    started = time.monotonic()
    player = EpicPlayer(fake, action, Script(fake, action, tmp_path / "jobs"), max_parallel=1)
    epic = to_implementing(player, fake)
    first, second = fake.sub_issues(epic)
    planned = record_of(fake, epic).epic
    assert planned is not None and planned.branch
    epic_branch = planned.branch

    player.settle()  # the first task's red proof; it waits for its sign-off, holding the slot
    assert status_of(fake, first) == "status:tests-review"
    assert status_of(fake, second) == "status:pending", "the only slot is held"
    red_commit = fake.branch_head(f"baton/issue-{first}")
    task = record_of(fake, first)
    assert task.tests is not None and task.tests.red is not None
    assert task.tests.red.commit == red_commit
    assert task.tests.red.sets.fail_to_pass == ("tests.test_csv::test_header",)
    assert task.work is not None and task.work.base == epic_branch
    assert "The red proof to sign off" in messages_of(fake, first)[-1]
    assert [r["conclusion"] for r in fake.check_runs_on(red_commit)] == ["neutral"]

    signed = fake.add_comment(first, "approved", user="maria")
    player.event("issue_comment", payloads.comment_created(fake, signed["id"]))
    player.settle()

    task = record_of(fake, first)
    assert task.tests is not None and task.tests.signed is not None
    assert task.tests.signed.by == "maria"
    refused = [m for m in messages_of(fake, first) if "changes were refused" in m]
    assert len(refused) == 1 and (
        "tests/test_csv.py is a signed-off test file: only the tester changes it" in refused[0]
    ), "the developer's edit of the signed-off test is refused, naming it"
    assert fake.file_at(epic_branch, "tests/test_csv.py") == TESTS["csv"]["tests/test_csv.py"]
    assert fake.file_at(epic_branch, "report/csv_export.py") == CODE["csv"]["report/csv_export.py"]
    assert status_of(fake, first) == "status:completed"
    assert task.tests.counts.red == 1 and task.tests.counts.green == 1
    assert task.work is not None and task.work.commits[0].oid == red_commit
    last = task.work.commits[-1].oid  # the implementation, where the green proof ran
    assert [r["conclusion"] for r in fake.check_runs_on(last)] == ["success"]

    # The conductor started the second task after the first merged; it waits for its sign-off.
    assert status_of(fake, second) == "status:tests-review"
    assert player.problems == [] and player.busy_seen == 1
    assert player.started == {first: 1, second: 1}
    assert [h.to_state for h in task.history] == [
        "pending",
        "writing_tests",
        "tests_review",
        "in_progress",  # the refused changeset moved nothing: the developer ran again
        "proving",
        "pending_review",
        "completed",
    ]
    assert task.history[3].reason == "maria approved, signing off the tests"
    reports = sum(
        1 for name, step in player.steps if name.startswith("report") and CHECK_RUNS in step.calls
    )
    assert reports == 3, "a check run for each proof: two red, one green"
    took = time.monotonic() - started
    print(f"\n{len(player.steps)} runs, {player.calls()} API calls, {took:.0f} s")
