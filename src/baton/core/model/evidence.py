"""Evidence: what `baton verify` saw when it ran the repository's tests on one commit.

`baton verify` writes it as `baton-evidence.json` beside an agent's result; it is plain data,
the verdict computed from the tests (`core/rules/evidence.py`), never a claim. The tests are
agent-written code, so the messages in it were clipped and cleaned before they got here, and
whoever reads the file validates it with this model first.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EVIDENCE_VERSION = 1
EVIDENCE_FILE = "baton-evidence.json"  # beside the result file, as the changeset is
MAX_MESSAGE = 500  # characters of one failure message kept
MAX_ID = 1000  # characters of a test id or a file path kept
MAX_TESTS = 100_000  # test cases one run may report; more is no evidence Baton reads

Outcome = Literal["passed", "failed", "error", "skipped"]
"""A test's outcome: `failed` is a failure or an exception inside the test body; `error` is an
error in collection, setup or teardown (JUnit's `<error>`)."""

Verdict = Literal["red", "green", "failing", "broken"]


class TestCase(BaseModel):
    """One test as the runner's JUnit reported it."""

    __test__ = False  # not a pytest test class, whatever its name says
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=MAX_ID)
    file: str | None = Field(default=None, max_length=MAX_ID)
    outcome: Outcome
    message: str = Field(default="", max_length=MAX_MESSAGE)


class SignedOff(BaseModel):
    """The tests a human signed off (SWE-bench's sets): the ids that failed in the red proof
    and must pass, and the ids that passed then and must not fail."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()


class Evidence(BaseModel):
    """`baton-evidence.json`: the verdict, the commit the tests ran on, the command's exit
    status (None when it never ran or was killed), every test, and the new or changed ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = 1  # EVIDENCE_VERSION
    verdict: Verdict
    reason: str = Field(description="One line: why this verdict.")
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    base: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")
    exit_status: int | None
    tests: tuple[TestCase, ...] = Field(default=(), max_length=MAX_TESTS)
    new: tuple[str, ...] = Field(default=(), max_length=MAX_TESTS)
