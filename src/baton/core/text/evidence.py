"""The words of evidence: what the tests showed, for the check run, the issue and the pull request.

Test ids, failure messages and a broken run's reason come from the tests, which are
agent-written code: each is escaped onto one line as issue text is (`markdown.escape`), so it
cannot pass for Baton's own lines, mention anyone or reference another issue, and clipped.
Only the first `SHOWN_TESTS` failing tests are listed, so the text stays within a check run's
summary and a comment whatever the run reported. Each function is one linear pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from baton.core.model.evidence import (
    Evidence,
    ProofCounts,
    RedProof,
    TestCase,
    TestsRecord,
    Verdict,
)
from baton.core.text import markdown, plaintext

SHOWN_TESTS = 30  # failing tests listed; the rest are counted
TEST_ID = 200  # characters of a test id shown
MESSAGE = 300  # characters of a failure message shown
REASON = 500  # characters of the verdict's reason shown
FEEDBACK = 20  # failing tests an agent is told about, each one line
TITLE = 200  # characters of a check run's title
SHOWN_IN_BODY = 10  # signed-off tests the pull request's body lists

ICON: dict[Verdict, str] = {"red": "🔴", "green": "🟢", "failing": "❌", "broken": "⚠️"}
MEANING: dict[Verdict, str] = {
    "red": "the new tests fail for the right reason",
    "green": "the tests pass",
    "failing": "the tests fail in a way a red proof does not explain",
    "broken": "no test result to trust",
}


def _line(text: str, limit: int) -> str:
    return markdown.clip(markdown.escape(text), limit)


def tally(tests: Sequence[TestCase]) -> str:
    """`3 passed, 1 failed, 0 errors, 2 skipped`."""
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for test in tests:
        counts[test.outcome] += 1
    return (
        f"{counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['error']} errors, {counts['skipped']} skipped"
    )


def _test_line(test: TestCase) -> str:
    name = _line(test.id, TEST_ID) or "an unnamed test"
    where = "" if test.outcome == "failed" else f" ({test.outcome})"
    message = _line(test.message, MESSAGE)
    return f"- {name}{where}" + (f": {message}" if message else "")


def failures(tests: Iterable[TestCase], shown: int = SHOWN_TESTS) -> list[str]:
    """The tests that failed or could not run, one escaped line each with its message."""
    lines: list[str] = []
    more = 0
    for test in tests:
        if test.outcome not in ("failed", "error"):
            continue
        if len(lines) < shown:
            lines.append(_test_line(test))
        else:
            more += 1
    if more:
        lines.append(f"- …and {more} more")
    return lines


def _ids(ids: Sequence[str], shown: int = SHOWN_TESTS) -> list[str]:
    lines = [f"- {_line(i, TEST_ID) or 'an unnamed test'}" for i in ids[:shown]]
    if len(ids) > shown:
        lines.append(f"- …and {len(ids) - shown} more")
    return lines


def summary(
    verdict: Verdict, reason: str, evidence: Evidence, *, now_pass: Sequence[str] = ()
) -> str:
    """The check run's summary (Markdown): the verdict and why, the counts, the tests that now
    pass that failed in the signed-off red proof, the failing tests with their messages."""
    lines = [
        f"**{ICON[verdict]} {verdict}**: {MEANING[verdict]}.",
        "",
        f"Why: {_line(reason, REASON) or 'no reason given'}",
        "",
        f"On {markdown.code(evidence.commit[:7])}: {tally(evidence.tests)}; "
        f"{len(evidence.new)} new or changed.",
    ]
    if now_pass:
        lines += ["", "#### Tests that failed in the red proof and pass now", "", *_ids(now_pass)]
    failed = failures(evidence.tests)
    if failed:
        lines += ["", "#### Failing tests", "", *failed]
    return "\n".join(lines)


def title(verdict: Verdict, reason: str) -> str:
    """The check run's title: the verdict and its reason on one line, as data."""
    return plaintext.line(f"{verdict}: {reason}", TITLE)


def issue_note(
    state: str, verdict: Verdict, reason: str, evidence: Evidence, *, now_pass: Sequence[str] = ()
) -> str:
    """What the issue is told when evidence settled a state (the same words as the check)."""
    heading = f"### 🧪 The tests in {markdown.code(state)}: {verdict}"
    return "\n".join([heading, "", summary(verdict, reason, evidence, now_pass=now_pass)])


def red_proof(proof: RedProof, evidence: Evidence | None = None) -> str:
    """The red proof an approver signs off: the tests that fail and must pass (with their
    messages when the evidence is at hand), how many passed and must keep passing."""
    lines = [
        f"#### 🔴 The red proof to sign off ({markdown.code(proof.commit[:7])})",
        "",
        f"{len(proof.sets.fail_to_pass)} new or changed tests fail and must pass "
        f"(FAIL_TO_PASS); {len(proof.sets.pass_to_pass)} passed and must keep passing "
        "(PASS_TO_PASS).",
        "",
    ]
    failed = [t for t in evidence.tests if t.id in set(proof.sets.fail_to_pass)] if evidence else []
    lines += failures(failed) if failed else _ids(proof.sets.fail_to_pass)
    lines += [
        "",
        "Approving signs these tests off: from then on only the tester changes the test files, "
        "through a new red proof and a new sign-off.",
    ]
    return "\n".join(lines)


def counts_line(counts: ProofCounts) -> str:
    """`Evidence so far: 1 red, 2 green, 1 failing, 0 broken.`"""
    return (
        f"Evidence so far: {counts.red} red, {counts.green} green, "
        f"{counts.failing} failing, {counts.broken} broken."
    )


def feedback(verdict: Verdict, reason: str, evidence: Evidence) -> list[str]:
    """What the next agent is told: the verdict and why, then each failing test and its
    message (plain lines; the briefing cleans what it shows an agent)."""
    lines = [f"The tests ran on {evidence.commit[:7]}: {verdict}: {' '.join(reason.split())}"]
    for test in evidence.tests:
        if len(lines) > FEEDBACK:
            break
        if test.outcome in ("failed", "error"):
            said = " ".join(test.message.split())
            lines.append(f"{test.id} ({test.outcome})" + (f": {said}" if said else ""))
    return lines


def pull_request_lines(tests: TestsRecord) -> list[str]:
    """The pull request's account of the evidence: the verdicts so far, the signed-off tests
    (the ones that change state: failing in the red proof, passing for green), a red proof
    waiting for its sign-off, and whether the first green held."""
    lines = ["### The tests", "", counts_line(tests.counts)]
    if tests.signed is not None:
        sets = tests.signed.proof.sets
        lines += [
            "",
            f"Signed off by {markdown.code(tests.signed.by)} "
            f"({markdown.code(tests.signed.proof.commit[:7])}): {len(sets.fail_to_pass)} "
            f"tests failed and must pass, {len(sets.pass_to_pass)} must keep passing.",
            "",
            *_ids(sets.fail_to_pass, SHOWN_IN_BODY),
        ]
    if tests.red is not None:
        lines += [
            "",
            f"A red proof ({markdown.code(tests.red.commit[:7])}) waits for a sign-off: "
            f"{len(tests.red.sets.fail_to_pass)} new or changed tests fail.",
        ]
    if tests.green_broke:
        lines += ["", "⚠️ A failing verdict came after the first green one."]
    return lines
