"""The verdict on a test run: what the tests show, computed, never an agent's word.

- `broken`: no result to trust: the run could not be read (no JUnit, hostile or unreadable
  XML, a timeout, a setup that failed), an exit status other than 0 or 1 (pytest: 2 interrupted
  or a collection error, 3 internal error, 4 usage error, 5 no tests), no test at all, every
  test skipped, an error in collection, setup or teardown, or an exit status of 1 while the
  JUnit shows nothing failing;
- `red`: at least one new or changed test, every one of them failed in its call phase, and
  every other test passed or was skipped: the tests fail for the right reason;
- `green`: every test passed or was skipped, and of the signed-off set every FAIL_TO_PASS id
  passed and every PASS_TO_PASS id ran without failing;
- `failing`: tests ran and failed in a way `red` does not explain.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from baton.core.model.evidence import SignedOff, TestCase, Verdict

# pytest's exit statuses past "tests failed" (PITFALLS.md): no result to trust.
EXIT_MEANING = {
    2: "interrupted or a collection error",
    3: "an internal error",
    4: "a usage error",
    5: "no tests collected",
}
NAMED = 3  # ids a reason names before "and N more"


def named(ids: Iterable[str]) -> str:
    """A few ids for a one-line reason, and how many more."""
    listed = list(ids)
    shown = ", ".join(listed[:NAMED])
    more = len(listed) - NAMED
    return shown + (f" and {more} more" if more > 0 else "")


def _exit_problem(exit_status: int | None) -> str | None:
    if exit_status is None:
        return "the test command did not finish"
    if exit_status in (0, 1):
        return None
    if exit_status in EXIT_MEANING:
        return f"the test command exited {exit_status} ({EXIT_MEANING[exit_status]})"
    return f"the test command exited {exit_status}: no test result to trust"


def _signed_off_problem(outcomes: dict[str, str], signed_off: SignedOff) -> str | None:
    not_passed = [i for i in signed_off.fail_to_pass if outcomes.get(i) != "passed"]
    if not_passed:
        return f"signed-off tests that must pass did not: {named(not_passed)}"
    gone = [i for i in signed_off.pass_to_pass if i not in outcomes]
    if gone:
        return f"signed-off tests that must keep passing did not run: {named(gone)}"
    return None


def _failed_verdict(tests: Sequence[TestCase], new: Collection[str]) -> tuple[Verdict, str]:
    failed = [t.id for t in tests if t.outcome == "failed"]
    fresh = [t for t in tests if t.id in new]
    old_failed = [t.id for t in tests if t.outcome == "failed" and t.id not in new]
    if not fresh:
        return "failing", f"{len(failed)} failed and none is new or changed: {named(failed)}"
    if old_failed:
        return "failing", f"tests that are not new failed: {named(old_failed)}"
    not_failing = [t.id for t in fresh if t.outcome != "failed"]
    if not_failing:
        return "failing", f"new or changed tests that do not fail: {named(not_failing)}"
    return "red", f"{len(fresh)} new or changed failed, every other test passed"


def judge(
    tests: Sequence[TestCase],
    new: Collection[str],
    exit_status: int | None,
    *,
    problem: str | None = None,
    signed_off: SignedOff | None = None,
) -> tuple[Verdict, str]:
    """The verdict on one run and the one-line reason for it. `problem` is why the run left
    nothing to read (a timeout, no JUnit, hostile XML), `new` the ids of the tests new or
    changed since the base, `signed_off` the sets a human approved (green must keep them)."""
    problem = problem or _exit_problem(exit_status)
    if problem:
        return "broken", problem
    if not tests:
        return "broken", "no test ran"
    errors = [t.id for t in tests if t.outcome == "error"]
    if errors:
        return "broken", f"errors in collection, setup or teardown: {named(errors)}"
    if all(t.outcome == "skipped" for t in tests):
        return "broken", f"all {len(tests)} tests were skipped"
    if any(t.outcome == "failed" for t in tests):
        return _failed_verdict(tests, new)
    if exit_status == 1:
        return "broken", "the test command exited 1 but its JUnit shows no failing test"
    if signed_off is not None:
        missing = _signed_off_problem({t.id: t.outcome for t in tests}, signed_off)
        if missing:
            return "failing", missing
    passed = sum(t.outcome == "passed" for t in tests)
    return "green", f"{passed} passed, {len(tests) - passed} skipped"
