"""States settled by evidence (issue 26), decided directly: the red proof, its sign-off, the
green proof, stale and missing evidence, and the same presets without `tests:` as before."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from baton.core.model.agent_result import AgentResult
from baton.core.model.decision import Outcome
from baton.core.model.evidence import (
    Evidence,
    ProofCounts,
    RedProof,
    SignedOff,
    SignOff,
    TestCase,
    TestsRecord,
)
from baton.core.model.facts import Facts
from baton.core.model.work import ChangesetFacts, CommitMark, Work
from baton.core.rules import proof
from baton.core.rules.context import MAX_STALE_RUNS
from baton.core.text.markdown import ZWSP as Z
from baton.workflow.model import AgentStatus, load_preset
from baton.workflow.suite import SuiteSettings

BASE = "a" * 40  # the branch head the tester started from (conftest's)
HEAD = "c" * 40  # Baton's last commit on the branch (conftest's)
DIGEST = "sha256:" + "d" * 64  # the changeset's digest (conftest's)
ENTERED = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
SUITE = SuiteSettings(command='python -m pytest -q --junitxml="$BATON_JUNIT"')
COMMITTED = "e" * 40  # the commit Baton made of the tester's changeset
FILES = "sha256:" + "f" * 64
OTHER_FILES = "sha256:" + "0" * 64
NEW = "tests.test_csv::test_export"
OLD = "tests.test_calc::test_add"
ESCALATED = "requires_human_intervention"


def result(status: str = "success", **fields: Any) -> AgentResult:
    return AgentResult(status=AgentStatus(status), confidence=0.95, summary="done", **fields)


def case(test_id: str, outcome: str, message: str = "") -> TestCase:
    return TestCase(id=test_id, outcome=outcome, message=message)  # type: ignore[arg-type]


RED_TESTS = (case(OLD, "passed"), case(NEW, "failed", "AttributeError: no attribute 'export'"))
GREEN_TESTS = (case(OLD, "passed"), case(NEW, "passed"))


def evidence(commit: str = HEAD, **fields: Any) -> Evidence:
    """Evidence of the tests on `commit`: a green run unless `fields` say otherwise."""
    values: dict[str, Any] = {
        "verdict": "green",
        "reason": "2 passed, 0 skipped",
        "commit": commit,
        "exit_status": 0,
        "tests": GREEN_TESTS,
        "files": FILES,
    }
    return Evidence(**{**values, **fields})


def red_evidence(**fields: Any) -> Evidence:
    """The tester's new test failing for the right reason, run on BASE + its changeset."""
    values: dict[str, Any] = {
        "verdict": "red",
        "reason": "1 new or changed failed",
        "exit_status": 1,
        "tests": RED_TESTS,
        "new": (NEW,),
        "changeset": DIGEST,
    }
    merged = {**values, **fields}
    return evidence(merged.pop("commit", BASE), **merged)


def red_proof() -> RedProof:
    return RedProof(
        commit=COMMITTED,
        sets=SignedOff(fail_to_pass=(NEW,), pass_to_pass=(OLD,)),
        files=FILES,
        at=ENTERED,
    )


def signed(**counts: int) -> TestsRecord:
    return TestsRecord(
        signed=SignOff(proof=red_proof(), by="maria", at=ENTERED),
        counts=ProofCounts(red=1, **counts),
    )


@pytest.fixture(scope="module")
def build_of(lifecycle: Any) -> Any:
    """conftest's Build, for other presets."""
    return type(lifecycle)


@pytest.fixture(scope="module")
def first(build_of: Any) -> Any:
    """test-first with `tests:` in the config: evidence settles writing_tests and proving."""
    return build_of(load_preset("test-first")).with_policy(tests=SUITE)


@pytest.fixture(scope="module")
def lifecycle_tests(lifecycle: Any) -> Any:
    return lifecycle.with_policy(tests=SUITE)


def work(*, pull_request: int | None = 7, **changes: Any) -> Work:
    """The issue's work: its branch, one commit of Baton's (HEAD), its draft pull request."""
    made = CommitMark(
        digest=DIGEST,
        oid=HEAD,
        agent="developer",
        state="implementing",
        attempt=1,
        files=2,
        at=ENTERED,
    )
    base = Work(
        branch="baton/issue-1",
        created=True,
        head=HEAD,
        commits=[made],
        pull_request=pull_request,
        pull_request_id="PR_kwDOfake7" if pull_request else "",
    )
    return base.model_copy(update=changes)


def changeset(status: str, **fields: Any) -> ChangesetFacts:
    """The tester's changeset as the run found it: two files on top of BASE."""
    defaults: dict[str, Any] = {"digest": DIGEST, "base": BASE, "files": 2, "bytes": 120}
    return ChangesetFacts(status=status, **{**defaults, **fields})  # type: ignore[arg-type]


def report(build: Any, state: str, outcome: AgentResult | None = None, **event: Any):
    return build.reported(state, outcome or result(), **event)


# --- the red proof ----------------------------------------------------------------------------
def test_a_tests_changeset_with_fresh_evidence_is_committed_first(first: Any) -> None:
    record = first.record("writing_tests", work=work(pull_request=None, commits=[], head=""))
    event = report(first, "writing_tests", evidence=red_evidence())
    decision = first.decide(record, event, Facts(changeset=changeset("ok")))
    assert decision.outcome is Outcome.noted
    assert decision.commit is not None and decision.commit.digest == DIGEST
    assert decision.check is None  # the verdict comes once the commit is made


def test_a_red_proof_moves_to_the_sign_off_and_is_recorded(first: Any) -> None:
    record = first.record("writing_tests", work=work(pull_request=None))
    event = report(
        first,
        "writing_tests",
        result("blocked", next_state="failed"),  # the agent's word and proposal are not read
        evidence=red_evidence(),
        nonce=record.dispatch.nonce if record.dispatch else "",
    )
    decision = first.decide(record, event, Facts(changeset=changeset("committed", oid=COMMITTED)))
    assert (decision.outcome, decision.state) == (Outcome.transition, "tests_review")
    assert decision.record is not None and decision.record.tests is not None
    tests = decision.record.tests
    assert tests.red == RedProof(
        commit=COMMITTED,
        sets=SignedOff(fail_to_pass=(NEW,), pass_to_pass=(OLD,)),
        files=FILES,
        at=decision.record.entered_at,
    )
    assert tests.counts == ProofCounts(red=1)
    assert decision.check is not None
    assert (decision.check.commit, decision.check.conclusion) == (COMMITTED, "neutral")
    assert record.dispatch is not None
    assert decision.check.external_id == record.dispatch.nonce != ""
    message = decision.message or ""
    assert "The red proof to sign off (`eeeeeee`)" in message
    # The failing test and its message, escaped as issue text is (`::` broken up).
    assert f"- tests.test_csv:{Z}:test_export: AttributeError: no attribute 'export'" in message


@pytest.mark.parametrize(
    ("fields", "why", "conclusion"),
    [
        pytest.param(
            {"tests": (case(OLD, "failed", "boom"), case(NEW, "failed"))},
            "tests that are not new failed: tests.test_calc::test_add",
            "failure",
            id="the file says red, but an old test fails too: failing",
        ),
        pytest.param(
            {"tests": GREEN_TESTS, "exit_status": 0},
            "2 passed, 0 skipped",
            "success",  # the check says what the tests showed: they pass
            id="the new test already passes: green is no red proof",
        ),
        pytest.param(
            {"verdict": "broken", "reason": "the test command timed out after 20m"},
            "the test command timed out after 20m",
            "failure",
            id="a broken run stays broken whatever its tests show",
        ),
    ],
)
def test_evidence_that_is_no_red_proof_sends_the_tester_back_with_it(
    first: Any, fields: dict[str, Any], why: str, conclusion: str
) -> None:
    record = first.record("writing_tests", work=work(pull_request=None))
    event = report(
        first,
        "writing_tests",
        evidence=red_evidence(**fields),
    )
    decision = first.decide(record, event, Facts(changeset=changeset("committed", oid=COMMITTED)))
    assert (decision.outcome, decision.state) == (Outcome.retry, "writing_tests")
    assert decision.record is not None and decision.record.attempt == 2
    assert decision.record.feedback[0].endswith(why)
    assert decision.record.tests is not None and decision.record.tests.red is None
    assert decision.check is not None and decision.check.conclusion == conclusion
    assert why.split(":")[0] in (decision.message or "")


# --- no evidence, stale evidence --------------------------------------------------------------
@pytest.mark.parametrize(
    ("event", "why"),
    [
        pytest.param({}, "no evidence came with the result", id="none"),
        pytest.param(
            {"evidence_problem": "not JSON"},
            "the evidence beside the result could not be read: not JSON",
            id="unreadable",
        ),
    ],
)
def test_a_proof_state_without_evidence_is_a_failed_attempt(
    first: Any, event: dict[str, Any], why: str
) -> None:
    record = first.record("writing_tests", work=work(pull_request=None))
    decision = first.decide(
        record, report(first, "writing_tests", **event), Facts(changeset=changeset("ok"))
    )
    assert (decision.outcome, decision.state) == (Outcome.retry, "writing_tests")
    assert decision.commit is None  # nothing is committed without a proof
    assert decision.record is not None and decision.record.feedback[0].startswith(why)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        pytest.param(
            {"commit": HEAD}, "the tests ran on ccccccc, not on aaaaaaa", id="another commit"
        ),
        pytest.param(
            {"changeset": "sha256:" + "9" * 64},
            "the tests ran with another changeset than this report's",
            id="another changeset",
        ),
    ],
)
def test_stale_evidence_moves_nothing_and_runs_the_agent_again(
    first: Any, fields: dict[str, Any], why: str
) -> None:
    record = first.record("writing_tests", work=work(pull_request=None, stale_runs=1))
    event = report(first, "writing_tests", evidence=red_evidence(**fields))
    decision = first.decide(record, event, Facts(changeset=changeset("ok")))
    assert (decision.outcome, decision.state) == (Outcome.retry, "writing_tests")
    assert why in decision.reason
    assert decision.commit is None and decision.check is None
    assert decision.record is not None and decision.record.attempt == 1  # not counted
    assert decision.record.work is not None and decision.record.work.stale_runs == 2
    assert decision.agent == "tester"


def test_stale_evidence_too_often_in_a_row_goes_to_a_human(first: Any) -> None:
    record = first.record("proving", work=work(stale_runs=MAX_STALE_RUNS))
    decision = first.decide(record, report(first, "proving", evidence=evidence("b" * 40)))
    assert decision.state == ESCALATED
    assert f"{MAX_STALE_RUNS + 1} times in a row" in decision.reason


def test_a_green_run_on_no_commit_of_batons_is_stale(first: Any) -> None:
    record = first.record("proving", work=None)
    decision = first.decide(record, report(first, "proving", evidence=evidence()))
    assert decision.outcome is Outcome.retry
    assert "cannot tie to the issue's work" in decision.reason


# --- the green proof --------------------------------------------------------------------------
def test_green_on_battons_last_commit_opens_the_way_to_the_pull_request(first: Any) -> None:
    record = first.record("proving", work=work(), tests=signed())
    event = report(first, "proving", result(next_state="implementing"), evidence=evidence())
    decision = first.decide(record, event)
    assert (decision.outcome, decision.state) == (Outcome.transition, "creating_pr")
    assert decision.record is not None and decision.record.tests is not None
    assert decision.record.tests.counts == ProofCounts(red=1, green=1)
    assert decision.check is not None
    assert (decision.check.commit, decision.check.conclusion) == (HEAD, "success")
    assert "Tests that failed in the red proof and pass now" in decision.check.summary


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        pytest.param(
            {"tests": (case(OLD, "passed"),)},
            "signed-off tests that must pass did not: tests.test_csv::test_export",
            id="a signed-off test that must pass did not run",
        ),
        pytest.param(
            {"files": OTHER_FILES},
            "signed-off test files changed since eeeeeee",
            id="the signed-off test files changed",
        ),
        pytest.param(
            {"files": None},
            "signed-off test files changed since eeeeeee",
            id="evidence that cannot show the files unchanged",
        ),
    ],
)
def test_green_needs_the_signed_off_tests_as_signed(
    first: Any, fields: dict[str, Any], why: str
) -> None:
    record = first.record("proving", work=work(), tests=signed(green=1))
    decision = first.decide(record, report(first, "proving", evidence=evidence(**fields)))
    assert (decision.outcome, decision.state) == (Outcome.transition, "implementing")
    assert decision.record is not None and decision.record.tests is not None
    assert decision.record.tests.counts == ProofCounts(red=1, green=1, failing=1)
    assert decision.record.tests.green_broke  # it had been green before
    assert decision.record.feedback[0] == f"The tests ran on ccccccc: failing: {why}"
    assert decision.check is not None and decision.check.conclusion == "failure"


def test_a_first_failing_verdict_does_not_say_a_green_broke(first: Any) -> None:
    record = first.record("proving", work=work(), tests=signed())
    failing = evidence(tests=(case(OLD, "failed", "boom"), case(NEW, "passed")), exit_status=1)
    decision = first.decide(record, report(first, "proving", evidence=failing))
    assert decision.record is not None and decision.record.tests is not None
    assert not decision.record.tests.green_broke
    assert decision.record.feedback[1] == f"{OLD} (failed): boom"


def test_fresh_evidence_ends_a_row_of_stale_runs(first: Any) -> None:
    record = first.record("proving", work=work(stale_runs=2))
    decision = first.decide(record, report(first, "proving", evidence=evidence()))
    assert decision.record is not None and decision.record.work is not None
    assert decision.record.work.stale_runs == 0


# --- issue-lifecycle with `tests:` ------------------------------------------------------------
@pytest.mark.parametrize(
    ("state", "found", "target"),
    [
        pytest.param("running_tests", evidence(), "implementing", id="running_tests green"),
        pytest.param(
            "running_tests",
            evidence(tests=(case(OLD, "failed"),), exit_status=1),
            "fixing_issues",
            id="running_tests failing",
        ),
    ],
)
def test_issue_lifecycle_moves_on_the_verdict_with_tests(
    lifecycle_tests: Any, state: str, found: Evidence, target: str
) -> None:
    record = lifecycle_tests.record(state, work=work())
    # The tester's word says the opposite of the evidence; the evidence wins.
    said = result("failure", issues_found=["it broke"]) if target == "implementing" else result()
    decision = lifecycle_tests.decide(record, report(lifecycle_tests, state, said, evidence=found))
    assert decision.state == target


def test_issue_lifecycle_creating_tests_moves_on_a_red_proof(lifecycle_tests: Any) -> None:
    record = lifecycle_tests.record("creating_tests", work=work())
    event = report(
        lifecycle_tests,
        "creating_tests",
        result("failure"),
        evidence=red_evidence(),
    )
    assert (
        lifecycle_tests.decide(
            record, event, Facts(changeset=changeset("committed", oid=COMMITTED))
        ).state
        == "implementing"
    )


def test_a_broken_run_in_running_tests_climbs_the_retry_ladder(lifecycle_tests: Any) -> None:
    record = lifecycle_tests.record("running_tests", work=work(), attempt=3)
    broken = evidence(verdict="broken", reason="no JUnit was written", tests=())
    decision = lifecycle_tests.decide(
        record, report(lifecycle_tests, "running_tests", evidence=broken)
    )
    assert decision.state == ESCALATED


# --- without `tests:`, exactly as before --------------------------------------------------------
@pytest.mark.parametrize(
    ("preset", "state", "said", "target"),
    [
        ("issue-lifecycle", "running_tests", result(), "implementing"),
        ("issue-lifecycle", "running_tests", result("failure"), "fixing_issues"),
        ("issue-lifecycle", "creating_tests", result(), "implementing"),
        ("issue-lifecycle", "creating_tests", result("failure"), "analyzing_requirements"),
        ("test-first", "proving", result(), "creating_pr"),
        ("test-first", "writing_tests", result(), "tests_review"),
    ],
)
def test_without_tests_the_agents_report_moves_the_issue_as_before(
    build_of: Any, preset: str, state: str, said: AgentResult, target: str
) -> None:
    build = build_of(load_preset(preset))
    record = build.record(state, work=work())
    contrary = red_evidence(verdict="broken") if target != "fixing_issues" else evidence()
    with_file = build.decide(record, report(build, state, said, evidence=contrary))
    without = build.decide(record, report(build, state, said))
    assert with_file.state == without.state == target
    assert with_file.check is None
    assert with_file.record is not None and with_file.record.tests is None
    assert "tests" not in with_file.record.model_dump()


# --- the sign-off -----------------------------------------------------------------------------
def test_an_approval_at_the_sign_off_signs_the_red_proof(first: Any) -> None:
    record = first.record("tests_review", work=work(), tests=TestsRecord(red=red_proof()))
    decision = first.decide(record, first.commented("approved", "maria", "tests_review"))
    assert (decision.outcome, decision.state) == (Outcome.transition, "implementing")
    assert decision.record is not None and decision.record.tests is not None
    assert decision.record.tests.red is None
    assert decision.record.tests.signed == SignOff(
        proof=red_proof(), by="maria", at=decision.record.entered_at
    )
    assert "signing off the tests" in decision.reason


def test_an_approval_with_no_red_proof_to_sign_is_refused(first: Any) -> None:
    record = first.record("tests_review", work=work(), tests=signed())
    decision = first.decide(record, first.commented("approved", "maria", "tests_review"))
    assert (decision.outcome, decision.state) == (Outcome.refused, "tests_review")
    assert "there is nothing to sign off" in (decision.message or "")
    assert decision.reaction is not None and decision.reaction.content == "confused"


def test_an_approving_review_at_the_sign_off_signs_too(first: Any) -> None:
    record = first.record("tests_review", work=work(), tests=TestsRecord(red=red_proof()))
    decision = first.decide(record, first.reviewed("approved", "maria", "tests_review"))
    assert decision.state == "implementing"
    assert decision.record is not None and decision.record.tests is not None
    assert decision.record.tests.signed is not None


def test_without_tests_the_sign_off_state_is_a_plain_gate(build_of: Any) -> None:
    build = build_of(load_preset("test-first"))
    record = build.record("tests_review", work=work())
    decision = build.decide(record, build.commented("approved", "maria", "tests_review"))
    assert decision.state == "implementing"
    assert decision.record is not None and decision.record.tests is None


# --- what a changeset may do to the test files --------------------------------------------------
def test_which_states_check_the_test_files(first: Any) -> None:
    plain = first.record("implementing")
    assert proof.test_files(first.workflow, first.policy, plain) is None
    red = proof.test_files(first.workflow, first.policy, first.record("writing_tests"))
    assert red is not None and (red.tests_only, red.frozen) == (True, False)
    after = proof.test_files(
        first.workflow, first.policy, first.record("implementing", tests=signed())
    )
    assert after is not None and (after.tests_only, after.frozen) == (False, True)
    without = type(first)(load_preset("test-first"))
    assert (
        proof.test_files(without.workflow, without.policy, without.record("writing_tests")) is None
    )


def test_a_red_proof_of_many_long_ids_keeps_a_record_that_fits_one_comment(first: Any) -> None:
    many = tuple(case(f"tests.test_{i:03}::" + "x" * 900, "failed") for i in range(150))
    record = first.record("writing_tests", work=work(pull_request=None))
    found = red_evidence(tests=(case(OLD, "passed"), *many), new=tuple(t.id for t in many))
    event = report(
        first,
        "writing_tests",
        evidence=found,
    )
    decision = first.decide(record, event, Facts(changeset=changeset("committed", oid=COMMITTED)))
    assert decision.state == "tests_review"
    assert decision.record is not None and decision.record.tests is not None
    red = decision.record.tests.red
    assert red is not None
    assert red.sets.fail_to_pass == tuple(t.id for t in many[:2])  # 2,000 characters of ids
    assert red.sets.pass_to_pass == (OLD,)
    assert len(decision.record.model_dump_json()) < 10_000


# --- each rule on its own -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("work_of", "changes", "fields", "why"),
    [
        pytest.param(
            work(), changeset("refused"), {"commit": HEAD, "changeset": None}, None, id="refused"
        ),
        pytest.param(
            None, changeset("refused"), {"changeset": None}, None, id="no work: the refused base"
        ),
        pytest.param(
            None,
            None,
            {},
            "the tests ran on a commit Baton cannot tie to the issue's work",
            id="nothing to tie to",
        ),
        pytest.param(
            work(),
            changeset("ok"),
            {"commit": HEAD},
            "the tests ran on ccccccc, not on aaaaaaa",
            id="another commit",
        ),
        pytest.param(
            work(),
            changeset("ok"),
            {"changeset": OTHER_FILES},
            "the tests ran with another changeset than this report's",
            id="another changeset",
        ),
        pytest.param(
            work(),
            None,
            {"commit": HEAD},
            "the tests ran with a changeset, and none came with this report",
            id="a changeset where none came",
        ),
    ],
)
def test_stale_says_exactly_why_the_evidence_is_not_this_reports(
    first: Any,
    work_of: Work | None,
    changes: ChangesetFacts | None,
    fields: dict[str, Any],
    why: str | None,
) -> None:
    record = first.record("writing_tests", work=work_of)
    event = report(first, "writing_tests", evidence=red_evidence(**fields))
    assert proof.stale(record, event, changes) == why


def test_a_stale_run_replaces_the_last_stale_note_and_dispatches_the_agent_anew(
    first: Any,
) -> None:
    old_note = f"{proof.STALE_EVIDENCE}the tests ran on bbbbbbb, not on aaaaaaa."
    record = first.record(
        "writing_tests", work=work(pull_request=None), feedback=[old_note, "name the test"]
    )
    event = report(first, "writing_tests", evidence=red_evidence(commit=HEAD))
    decision = first.decide(record, event, Facts(changeset=changeset("ok")))
    assert decision.record is not None
    assert decision.record.feedback == [
        "The evidence was stale: the tests ran on ccccccc, not on aaaaaaa. Do the work again on "
        "the head; this run does not count as a failed attempt.",
        "name the test",
    ]
    sent = decision.record.dispatch
    assert sent is not None and (sent.agent, sent.state, sent.attempt) == (
        "tester",
        "writing_tests",
        1,
    )
    assert sent.by == event.id and sent.at != ENTERED


def test_the_rules_of_one_verdict_read_it_whole(first: Any) -> None:
    record = first.record("proving", work=None, tests=signed())
    broken = evidence(verdict="broken", reason="", exit_status=None, tests=())
    judged = proof.verdict_of(record, report(first, "proving", evidence=broken))
    assert (judged.verdict, judged.reason) == ("broken", "the run left no result to trust")
    judged = proof.Judged("green", "2 passed, 0 skipped", evidence(), HEAD, now_pass=(NEW,))
    assert proof.check(judged, "n1").title == "green: 2 passed, 0 skipped"
    assert "pass now\n\n- tests.test_csv:" in proof.note("proving", judged)
    told = proof.as_result(result(next_state="implementing"), judged)
    assert told.next_state is None
    counted = proof.recorded(record, judged, "green", ENTERED)
    assert counted.work is None and counted.tests is not None
    assert counted.tests.counts == ProofCounts(red=1, green=1)


def test_kept_ids_fill_the_characters_to_the_last_one() -> None:
    half = proof.KEEP_CHARS // 2
    assert proof.kept(("a" * half, "b" * half, "c")) == ("a" * half, "b" * half)
    assert proof.kept(("a" * half, "b" * (half + 1))) == ("a" * half,)


def test_only_the_sign_off_state_signs_and_shows_a_red_proof(first: Any) -> None:
    assert proof.signs_off(first.workflow, first.policy, "tests_review")
    assert not proof.signs_off(first.workflow, first.policy, "awaiting_approval")
    assert proof.red_message(first.record("tests_review")) is None
    assert proof.red_message(first.record("tests_review", tests=signed())) is None
    shown = proof.red_message(first.record("tests_review", tests=TestsRecord(red=red_proof())))
    assert shown is not None and shown.startswith("#### 🔴 The red proof to sign off (`eeeeeee`)")


def test_the_test_files_rule_needs_a_record_and_names_the_suite(first: Any) -> None:
    assert proof.test_files(first.workflow, first.policy, None) is None
    red = proof.test_files(first.workflow, first.policy, first.record("writing_tests"))
    assert red is not None and red.suite == SUITE
