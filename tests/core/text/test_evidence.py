"""The words of evidence: the check run's summary and title, the issue's note, the red proof an
approver signs off, the pull request's account. Test ids and failure messages come from
agent-written tests, so they are escaped as issue text is: exact outputs pin the shapes, a
property pins that nothing a test reports can pass for Baton's own Markdown, and 64 KB of
hostile text is rendered in bounded time and size."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from baton.core.model.decision import CheckPlan
from baton.core.model.evidence import (
    MAX_ID,
    MAX_MESSAGE,
    Evidence,
    ProofCounts,
    RedProof,
    SignedOff,
    SignOff,
    TestCase,
    TestsRecord,
)
from baton.core.text import evidence as words
from baton.core.text.markdown import ZWSP as Z
from support.property_budget import budget

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
RUN = Evidence(
    verdict="failing",
    reason="tests that are not new failed: t::a",
    commit="c" * 40,
    exit_status=1,
    tests=(
        TestCase(id="t::a", outcome="failed", message="assert 1 == 2\n@maria see #3 <b>"),
        TestCase(id="t::b", outcome="passed"),
        TestCase(id="t::c", outcome="error", message="fixture 'db' not found"),
        TestCase(id="t::d", outcome="skipped"),
    ),
    new=("t::b",),
)
PROOF = RedProof(
    commit="e" * 40,
    sets=SignedOff(fail_to_pass=("t::a",), pass_to_pass=("t::b",)),
    files=None,
    at=AT,
)


def test_the_check_summary_says_the_verdict_the_counts_and_each_failing_test() -> None:
    assert words.summary("failing", RUN.reason, RUN, now_pass=("t::b",)) == (
        "**❌ failing**: the tests fail in a way a red proof does not explain.\n\n"
        f"Why: tests that are not new failed: t:{Z}:a\n\n"
        "On `ccccccc`: 1 passed, 1 failed, 1 errors, 1 skipped; 1 new or changed.\n\n"
        "#### Tests that failed in the red proof and pass now\n\n"
        f"- t:{Z}:b\n\n"
        "#### Failing tests\n\n"
        f"- t:{Z}:a: assert 1 == 2 @{Z}maria see #{Z}3 &lt;b&gt;\n"
        f"- t:{Z}:c (error): fixture 'db' not found"
    )


def test_a_green_summary_lists_no_failing_test() -> None:
    green = RUN.model_copy(update={"tests": (TestCase(id="t::b", outcome="passed"),)})
    assert words.summary("green", "1 passed, 0 skipped", green) == (
        "**🟢 green**: the tests pass.\n\n"
        "Why: 1 passed, 0 skipped\n\n"
        "On `ccccccc`: 1 passed, 0 failed, 0 errors, 0 skipped; 1 new or changed."
    )


def test_the_issue_note_names_the_state_above_the_summary() -> None:
    note = words.issue_note("proving", "failing", RUN.reason, RUN)
    assert note.startswith("### 🧪 The tests in `proving`: failing\n\n**❌ failing**")
    assert note.endswith(words.summary("failing", RUN.reason, RUN))


def test_the_title_is_one_line_of_data() -> None:
    assert words.title("broken", "no JUnit\nwas written by @bot for #4") == (
        f"broken: no JUnit was written by @{Z}bot for #{Z}4"
    )
    assert len(words.title("broken", "x" * 5000)) == words.TITLE


def test_the_red_proof_shows_the_failing_tests_with_their_messages() -> None:
    assert words.red_proof(PROOF, RUN) == (
        "#### 🔴 The red proof to sign off (`eeeeeee`)\n\n"
        "1 new or changed tests fail and must pass (FAIL_TO_PASS); 1 passed and must keep "
        "passing (PASS_TO_PASS).\n\n"
        f"- t:{Z}:a: assert 1 == 2 @{Z}maria see #{Z}3 &lt;b&gt;\n\n"
        "Approving signs these tests off: from then on only the tester changes the test files, "
        "through a new red proof and a new sign-off."
    )


def test_without_the_evidence_the_red_proof_lists_its_ids() -> None:
    assert f"\n\n- t:{Z}:a\n\nApproving" in words.red_proof(PROOF)


def test_the_agent_is_told_the_verdict_and_each_failing_test() -> None:
    assert words.feedback("failing", "why\nnot", RUN) == [
        "The tests ran on ccccccc: failing: why not",
        "t::a (failed): assert 1 == 2 @maria see #3 <b>",
        "t::c (error): fixture 'db' not found",
    ]


def test_the_agent_is_told_at_most_feedback_tests() -> None:
    many = RUN.model_copy(
        update={"tests": tuple(TestCase(id=f"t::{i}", outcome="failed") for i in range(50))}
    )
    assert len(words.feedback("failing", "x", many)) == words.FEEDBACK + 1


def test_more_failing_tests_than_shown_are_counted() -> None:
    many = tuple(TestCase(id=f"t{i}", outcome="failed") for i in range(words.SHOWN_TESTS + 7))
    lines = words.failures(many)
    assert len(lines) == words.SHOWN_TESTS + 1
    assert lines[-1] == "- …and 7 more"


def test_the_pull_request_says_the_verdicts_and_the_signed_off_tests() -> None:
    tests = TestsRecord(
        red=PROOF,
        signed=SignOff(proof=PROOF, by="maria", at=AT),
        counts=ProofCounts(red=2, green=1, failing=1),
        green_broke=True,
    )
    assert words.pull_request_lines(tests) == [
        "### The tests",
        "",
        "Evidence so far: 2 red, 1 green, 1 failing, 0 broken.",
        "",
        "Signed off by `maria` (`eeeeeee`): 1 tests failed and must pass, 1 must keep passing.",
        "",
        f"- t:{Z}:a",
        "",
        "A red proof (`eeeeeee`) waits for a sign-off: 1 new or changed tests fail.",
        "",
        "⚠️ A failing verdict came after the first green one.",
    ]


def test_a_pull_request_with_no_proof_yet_says_only_the_counts() -> None:
    assert words.pull_request_lines(TestsRecord(counts=ProofCounts(broken=1))) == [
        "### The tests",
        "",
        "Evidence so far: 0 red, 0 green, 0 failing, 1 broken.",
    ]


def test_each_outcome_is_counted_however_many_tests_have_it() -> None:
    tests = [TestCase(id=f"t::{i}", outcome="passed") for i in range(3)]
    tests += [TestCase(id="t::f", outcome="failed"), TestCase(id="t::g", outcome="failed")]
    assert words.tally(tests) == "3 passed, 2 failed, 0 errors, 0 skipped"


def test_a_failing_test_without_a_message_or_a_printable_id_is_one_plain_line() -> None:
    quiet = (TestCase(id="t::a", outcome="failed"), TestCase(id=" \n", outcome="error"))
    assert words.failures(quiet) == [f"- t:{Z}:a", "- an unnamed test (error)"]
    assert words.feedback("failing", "x", RUN.model_copy(update={"tests": quiet})) == [
        "The tests ran on ccccccc: failing: x",
        "t::a (failed)",
        " \n (error)",
    ]


def test_a_summary_without_a_reason_says_none_was_given() -> None:
    assert "\n\nWhy: no reason given\n\n" in words.summary("broken", " \n", RUN)


def test_the_issue_note_lists_the_tests_that_pass_now() -> None:
    note = words.issue_note("proving", "failing", RUN.reason, RUN, now_pass=("t::b",))
    assert note.endswith(words.summary("failing", RUN.reason, RUN, now_pass=("t::b",)))
    assert f"pass now\n\n- t:{Z}:b\n\n" in note


def test_ids_up_to_the_shown_ones_are_all_listed_and_the_rest_counted() -> None:
    exactly = tuple(f"t{i}" for i in range(words.SHOWN_TESTS))
    listed = words.red_proof(PROOF.model_copy(update={"sets": SignedOff(fail_to_pass=exactly)}))
    assert "more" not in listed and f"- t{words.SHOWN_TESTS - 1}\n" in listed
    over = (*exactly, "t98", "t99", " ")
    listed = words.red_proof(PROOF.model_copy(update={"sets": SignedOff(fail_to_pass=over)}))
    assert f"- t{words.SHOWN_TESTS - 1}\n- …and 3 more\n" in listed
    unnamed = words.red_proof(PROOF.model_copy(update={"sets": SignedOff(fail_to_pass=(" ",))}))
    assert "\n\n- an unnamed test\n\n" in unnamed


def test_the_pull_request_lists_at_most_shown_in_body_signed_off_tests() -> None:
    ids = tuple(f"t{i}" for i in range(words.SHOWN_IN_BODY + 2))
    proof = PROOF.model_copy(update={"sets": SignedOff(fail_to_pass=ids)})
    lines = words.pull_request_lines(TestsRecord(signed=SignOff(proof=proof, by="maria", at=AT)))
    assert lines[-2:] == [f"- t{words.SHOWN_IN_BODY - 1}", "- …and 2 more"]


# --- hostile tests ------------------------------------------------------------------------------
_OURS = re.compile(r"^(?:#### (?:Failing tests|Tests that failed in the red proof and pass now)|)$")


def _hostile_run(test_id: str, message: str, reason: str) -> Evidence:
    return RUN.model_copy(
        update={
            "reason": reason,
            "tests": (TestCase(id=test_id, outcome="failed", message=message),),
        }
    )


@budget(150)
@given(
    test_id=st.text(min_size=1, max_size=80),
    message=st.text(max_size=120),
    reason=st.text(max_size=120),
)
def test_nothing_a_test_reports_passes_for_batons_own_markdown(
    test_id: str, message: str, reason: str
) -> None:
    run = _hostile_run(test_id, message, reason)
    summary = words.summary("failing", reason, run)
    signed = PROOF.model_copy(update={"sets": SignedOff(fail_to_pass=(test_id,))})
    proof = words.red_proof(signed, run)
    for line in summary.split("\n")[1:] + proof.split("\n")[1:]:
        # Every line that could open a block is Baton's: a heading of its own, or an item
        # Baton began, whose text after the marker starts no block of its own.
        if line.startswith("#"):
            assert _OURS.match(line), line
        assert not line.startswith((">", "<", "|", "```", "    ")), line
    for text in (summary, proof):
        assert "<" not in text.replace("&lt;", "")
        assert re.search(r"@[A-Za-z0-9_-]", text) is None  # no mention
        assert re.search(r"#\d", text) is None  # no reference
    assert "\n" not in words.title("failing", reason)


def test_64_kb_of_hostile_test_output_renders_in_bounded_time_and_size() -> None:
    hostile = "`*[<@#1&\\|~$>]" * 40  # every escaped character, in a message's length
    tests = tuple(
        TestCase(id=(f"t{i}::" + hostile)[:MAX_ID], outcome="failed", message=hostile[:MAX_MESSAGE])
        for i in range(130)
    )
    run = RUN.model_copy(update={"tests": tests, "reason": hostile * 120})
    assert sum(len(t.id) + len(t.message) for t in tests) > 64 * 1024
    started = time.process_time()
    summary = words.summary("failing", run.reason, run, now_pass=tuple(t.id for t in tests))
    proof = words.red_proof(
        PROOF.model_copy(update={"sets": SignedOff(fail_to_pass=tuple(t.id for t in tests))}), run
    )
    title = words.title("failing", run.reason)
    assert time.process_time() - started < 1.0
    CheckPlan(commit="c" * 40, conclusion="failure", title=title, summary=summary)  # fits
    assert len(summary) < 40_000 and len(proof) < 40_000
    assert "- …and 100 more" in summary and "- …and 100 more" in proof
