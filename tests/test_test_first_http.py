"""The `test-first` lifecycle end to end over real HTTP against the fake GitHub: `baton run` for
the webhook events and `baton report` for the agent jobs' hand-backs (result, changeset and
evidence beside each other), on a config with `tests:`, the evidence from the real `baton verify`
(the real pytest) on checkouts of the fake's commits.

The tester's tests-only changeset with its red proof (bound to the branch head and the
changeset's digest, its files digest that of the tree after it), a maintainer's sign-off, a
developer's changeset touching the signed-off test refused, the implementation, a stale evidence
file (another commit) moving nothing, the green proof on Baton's last commit; `Baton / tests`
check runs neutral then success on those commits; every report and event delivered twice
writing nothing twice (no second commit, comment or check run).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from action_harness import Step
from baton.core.model.changeset import Changeset
from baton.core.model.evidence import Evidence, files_digest
from baton.sim import payloads
from baton.sim.scenario.evidence import tree_entries
from baton.workflow.suite import DEFAULT_FROZEN, DEFAULT_TEST_PATHS
from fakes.http_github import FakeGitHub
from support.http import messages_of, record_of
from support.memory import changeset_on
from support.proof_http import (
    CHECK_RUNS,
    computed_result,
    dispatched,
    hand_back,
    proof_runner,
    report,
    verify,
)

ISSUE = 1
BRANCH = "baton/issue-1"
DISPATCHES = "/repos/octo/demo/actions/workflows/baton.yml/dispatches"
TEST_FILE = "tests/test_export_csv.py"
# On the default branch before the issue: the code and a test that passes (PASS_TO_PASS).
MAIN = {
    "report/__init__.py": "",
    "report/weekly.py": "def rows():\n    return [{'a': 1}]\n",
    "tests/test_weekly.py": (
        "from report.weekly import rows\n\n\ndef test_rows():\n    assert rows()\n"
    ),
}
# The tester's tests: they fail inside the test, as nothing exports yet.
TESTS = {
    TEST_FILE: (
        "def test_header_row():\n"
        "    from report.export import to_csv\n\n"
        '    assert to_csv([{"a": 1}]).splitlines()[0] == "a"\n\n\n'
        "def test_hidden_columns_are_skipped():\n"
        "    from report.export import to_csv\n\n"
        '    assert "h" not in to_csv([{"a": 1, "h": 2}], hidden={"h"})\n'
    ),
}
FAIL_TO_PASS = (
    "tests.test_export_csv::test_header_row",
    "tests.test_export_csv::test_hidden_columns_are_skipped",
)
CODE = {
    "report/export.py": (
        "def to_csv(rows, hidden=()):\n"
        "    columns = [c for c in rows[0] if c not in hidden]\n"
        "    lines = [','.join(columns)]\n"
        "    lines += [','.join(str(r[c]) for c in columns) for r in rows]\n"
        "    return '\\n'.join(lines) + '\\n'\n"
    ),
}
WEAKENED = {**CODE, TEST_FILE: "def test_header_row():\n    pass\n"}
TESTER = {"status": "success", "confidence": 0.9, "summary": "Two tests for the CSV export."}
DEVELOPER = {"status": "success", "confidence": 0.9, "summary": "to_csv, hidden columns left out."}
PM = {"status": "success", "confidence": 0.9, "summary": "A clear request: tests first."}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.push("main", MAIN, "The weekly report", by="maria")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


@dataclass(frozen=True)
class Written:
    """What the runs wrote that a repeat must not write again: the branch's head, the
    comments, the check runs, the dispatches, and what the record holds of the work (a repeat
    only notes that it came: its run in `processed`)."""

    head: str | None
    comments: int
    checks: int
    dispatches: int
    record: tuple[object, ...]


def written(fake: FakeGitHub) -> Written:
    head = fake.branch_head(BRANCH)
    comments = len(fake.comments(ISSUE))
    with fake._lock:
        checks = sum(len(fake._work.runs_on(oid)) for oid in fake._git.commits)
    found = record_of(fake, ISSUE)
    work = found.work.commits if found.work is not None else None
    kept = (found.state, found.attempt, found.iteration, len(found.history), found.tests, work)
    return Written(head, comments, checks, len(fake.dispatches), kept)


def ok(step: Step) -> Step:
    assert step.returncode == 0, step.stdout + step.stderr
    assert "Traceback" not in step.stderr, step.stderr
    return step


class Lifecycle:
    """One issue through `test-first`, each job as the Action runs it."""

    def __init__(self, fake: FakeGitHub, root: Path) -> None:
        self.fake = fake
        self.root = root
        self.action = proof_runner(fake, root / "runner")
        self.jobs = 0
        self.bound: dict[str, Any] = {}  # the agent's run Baton started last

    def handed_over(self, step: Step) -> Step:
        """What a run started: a dispatched run's inputs, or the agent job of its own run."""
        if ("POST", DISPATCHES) in step.calls:
            self.bound = dispatched(self.fake)
        elif step.outputs.get("agent"):
            names = ("state", "agent", "handover")
            self.bound = {"issue": ISSUE, **{n: step.outputs[n] for n in names}}
        return step

    def event(self, name: str, payload: dict[str, Any]) -> Step:
        return self.handed_over(ok(self.action.run(name, payload)))

    def deliver(
        self,
        result: dict[str, Any],
        changeset: Changeset | None = None,
        evidence: Evidence | None = None,
    ) -> Step:
        """The hand-back of the agent's run Baton dispatched last, reported."""
        path = hand_back(self.action, result, changeset, evidence)
        return self.handed_over(ok(report(self.action, path, self.bound)))

    def twice(
        self,
        result: dict[str, Any],
        changeset: Changeset | None = None,
        evidence: Evidence | None = None,
    ) -> Step:
        """The report, then the same report delivered again: the repeat writes nothing."""
        inputs = self.bound
        path = hand_back(self.action, result, changeset, evidence)
        first = self.handed_over(ok(report(self.action, path, inputs)))
        before = written(self.fake)
        again = ok(report(self.action, path, inputs))
        assert again.decision["outcome"] == "refused", again.stdout
        assert written(self.fake) == before, "the repeat wrote something twice"
        assert CHECK_RUNS not in again.calls
        return first

    def verify(self, commit: str, **how: Any) -> Evidence:
        self.jobs += 1
        return verify(self.fake, self.action, commit, self.root / f"job{self.jobs}", **how)

    def to_writing_tests(self) -> str:
        """Maria starts Baton on the issue; the pm's triage sends it to the tester: the head
        of the issue's branch, where the tester's run starts."""
        self.fake.label_by(ISSUE, "baton", "maria")
        self.event("issues", payloads.labeled(self.fake, ISSUE, "baton"))
        step = self.deliver(PM)
        assert (step.outputs["state"], step.outputs["agent"]) == ("writing_tests", "tester")
        head = self.fake.branch_head(BRANCH)
        assert head is not None and head == self.fake.branch_head("main")
        return head

    def red(self) -> tuple[Changeset, Evidence, Step]:
        """The tester's tests-only changeset on the branch head, its red proof from the real
        `baton verify`, reported twice."""
        base = self.to_writing_tests()
        changeset = changeset_on(base, TESTS)
        evidence = self.verify(base, changeset=changeset)
        return changeset, evidence, self.twice(TESTER, changeset, evidence)

    def sign_off(self) -> Step:
        """Maria approves the red proof in a comment; the event delivered twice."""
        said = self.fake.add_comment(ISSUE, "approved", user="maria", association="MEMBER")
        first = self.event("issue_comment", payloads.comment_created(self.fake, said["id"]))
        before = written(self.fake)
        ok(self.action.run("issue_comment", payloads.comment_created(self.fake, said["id"])))
        assert written(self.fake) == before, "the repeated event wrote something twice"
        return first

    def implement(self, files: dict[str, str | None] = CODE) -> Step:
        """The developer's changeset on the branch head, reported twice."""
        head = self.fake.branch_head(BRANCH)
        assert head is not None
        return self.twice(DEVELOPER, changeset_on(head, files))

    def green(self, evidence: Evidence) -> Step:
        """The `tests` profile's hand-back: the computed result beside the evidence."""
        return self.twice(computed_result(evidence), evidence=evidence)


def digest_of(fake: FakeGitHub, commit: str) -> str:
    """`Evidence.files` of the fake's commit: its test and frozen files (the defaults)."""
    with fake._lock:
        entries = tree_entries(fake._git, commit, None)
    return files_digest(entries, DEFAULT_TEST_PATHS, DEFAULT_FROZEN)


def check_run(fake: FakeGitHub, commit: str) -> tuple[str, str]:
    (run,) = fake.check_runs_on(commit)
    return run["name"], run["conclusion"]


# --- the red proof, signed off ------------------------------------------------------------------
def test_the_tester_s_red_proof_is_committed_with_a_neutral_check_run_once(fake, tmp_path):
    life = Lifecycle(fake, tmp_path)
    changeset, evidence, step = life.red()

    made = fake.branch_head(BRANCH)
    assert made is not None and made != changeset.base
    assert (evidence.verdict, evidence.commit) == ("red", changeset.base), "bound to the head"
    assert evidence.changeset == changeset.digest()
    assert evidence.files == digest_of(fake, made), "the tree after the changeset"
    assert step.outputs["state"] == "tests_review" and step.calls.count(CHECK_RUNS) == 1
    assert check_run(fake, made) == ("Baton / tests", "neutral")
    assert fake.check_runs_on(changeset.base) == []
    record = record_of(fake, ISSUE)
    assert record.tests is not None and record.tests.red is not None
    assert record.tests.red.commit == made and record.tests.signed is None
    assert record.tests.red.sets.fail_to_pass == FAIL_TO_PASS
    assert record.tests.red.sets.pass_to_pass == ("tests.test_weekly::test_rows",)
    assert "The red proof to sign off" in messages_of(fake, ISSUE)[-1]


def test_a_maintainer_s_comment_signs_the_red_proof_off(fake, tmp_path):
    life = Lifecycle(fake, tmp_path)
    life.red()
    red = record_of(fake, ISSUE).tests.red

    step = life.sign_off()

    assert (step.outputs["state"], step.outputs["agent"]) == ("implementing", "developer")
    signed = record_of(fake, ISSUE).tests.signed
    assert signed is not None and (signed.by, signed.proof) == ("maria", red)


def test_a_developer_changeset_touching_the_signed_off_test_is_refused_naming_it(fake, tmp_path):
    life = Lifecycle(fake, tmp_path)
    life.red()
    life.sign_off()
    before = written(fake)

    step = life.deliver(DEVELOPER, changeset_on(fake.branch_head(BRANCH), WEAKENED))

    assert record_of(fake, ISSUE).state == "implementing"
    assert fake.branch_head(BRANCH) == before.head, "nothing committed"
    assert CHECK_RUNS not in step.calls
    assert TEST_FILE in messages_of(fake, ISSUE)[-1]
    assert fake.file_at(BRANCH, TEST_FILE) == TESTS[TEST_FILE]


# --- the implementation, a stale evidence file, the green proof --------------------------------
def test_evidence_of_another_commit_moves_nothing(fake, tmp_path):
    life = Lifecycle(fake, tmp_path)
    life.red()
    red_commit = fake.branch_head(BRANCH)
    life.sign_off()
    life.implement()
    head = fake.branch_head(BRANCH)
    assert record_of(fake, ISSUE).state == "proving" and head != red_commit
    stale = life.verify(red_commit, base=fake.branch_head("main"))  # the tests of another commit
    before = written(fake)

    step = life.deliver(computed_result(stale), evidence=stale)

    assert step.decision["outcome"] == "retry"
    assert f"the tests ran on {red_commit[:7]}, not on {head[:7]}" in step.stdout
    record = record_of(fake, ISSUE)
    assert (record.state, record.attempt) == ("proving", 1)
    assert record.tests.counts == before.record[4].counts, "not counted"
    assert fake.branch_head(BRANCH) == head and CHECK_RUNS not in step.calls
    assert fake.check_runs_on(head) == []
    assert step.outputs["agent"] == "tester", "the tests run again on the head"


def test_the_test_first_lifecycle_ends_green_with_a_check_run_on_baton_s_last_commit(
    fake, tmp_path
):
    life = Lifecycle(fake, tmp_path)
    changeset, red, _ = life.red()
    red_commit = fake.branch_head(BRANCH)
    life.sign_off()
    life.deliver(DEVELOPER, changeset_on(red_commit, WEAKENED))  # refused
    implemented = life.implement()
    assert (implemented.outputs["state"], implemented.outputs["agent"]) == ("proving", "tester")
    last = fake.branch_head(BRANCH)
    stale = life.verify(red_commit, base=changeset.base)
    life.deliver(computed_result(stale), evidence=stale)  # moves nothing
    green = life.verify(last, base=changeset.base)

    step = life.green(green)

    assert (green.verdict, green.commit, green.changeset) == ("green", last, None)
    assert green.files == red.files == digest_of(fake, last), "the signed-off files as signed"
    assert step.outputs["state"] == "creating_pr"
    assert check_run(fake, red_commit) == ("Baton / tests", "neutral")
    assert check_run(fake, last) == ("Baton / tests", "success")
    assert fake.check_runs_on(changeset.base) == []
    record = record_of(fake, ISSUE)
    assert (record.tests.counts.red, record.tests.counts.green) == (1, 1)
    assert [m.oid for m in record.work.commits] == [red_commit, last]


def test_a_green_check_run_github_refuses_leaves_the_move_written_and_the_pm_dispatched(
    fake, tmp_path
):
    life = Lifecycle(fake, tmp_path)
    changeset, _, _ = life.red()
    life.sign_off()
    life.implement()
    last = fake.branch_head(BRANCH)
    green = life.verify(last, base=changeset.base)
    fake.fail("POST", "/check-runs$", 403, body={"message": "Resource not accessible"})

    step = life.deliver(computed_result(green), evidence=green)

    assert (step.outputs["state"], step.outputs["agent"]) == ("creating_pr", "pm")
    assert record_of(fake, ISSUE).state == "creating_pr"
    assert step.calls.count(CHECK_RUNS) == 1, "sent once, never again"
    assert step.calls.index(CHECK_RUNS) < step.calls.index(("POST", DISPATCHES))
    assert fake.check_runs_on(last) == []
    assert "::warning title=Baton::could not post the check run 'Baton / tests'" in step.stdout
