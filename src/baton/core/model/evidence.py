"""Evidence: what `baton verify` saw when it ran the repository's tests on one commit.

`baton verify` writes it as `baton-evidence.json` beside an agent's result; it is plain data,
the verdict computed from the tests (`core/rules/evidence.py`), never a claim. The tests are
agent-written code, so the messages in it were clipped and cleaned before they got here, and
whoever reads the file validates it with this model first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from baton.core.model.changeset import matches

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
    changeset: str | None = Field(
        default=None,
        pattern=r"^sha256:[0-9a-f]{64}$",
        description="The digest of the agent's changeset the tests ran with, applied on "
        "`commit` (a red proof, before Baton commits it); None: `commit` itself.",
    )
    files: str | None = Field(
        default=None,
        pattern=r"^sha256:[0-9a-f]{64}$",
        description="The digest of the test and frozen files (path, mode, blob) of the tree the "
        "tests ran on: a signed-off set stays as signed while it is unchanged.",
    )


SHA256 = r"^sha256:[0-9a-f]{64}$"


def files_digest(
    entries: Iterable[tuple[str, str, str]], paths: Sequence[str], frozen: Sequence[str]
) -> str:
    """`Evidence.files`: the digest of a tree's test and frozen files. `entries` are the
    tree's files as (path, mode, blob oid); those matching a glob of `paths` (`tests.paths`) or
    `frozen` (`tests.frozen`) become the lines `"<mode> <blob-oid>\t<path>\n"`, sorted, and the
    digest is `sha256:` and the sha256 of their UTF-8 bytes. The same files give the same digest
    whatever else the tree holds: a signed-off set is unchanged while it is."""
    globs = (*paths, *frozen)
    lines = sorted(
        f"{mode} {oid}\t{path}\n"
        for path, mode, oid in entries
        if any(matches(path, glob) for glob in globs)
    )
    # A path git could not decode arrives with surrogates: hashed as the bytes git holds.
    data = "".join(lines).encode("utf-8", "surrogateescape")
    return "sha256:" + hashlib.sha256(data).hexdigest()


KEEP_IDS = 100  # signed-off ids a record keeps of each set; beyond them, their count and digest


class RedProof(BaseModel):
    """A red proof Baton accepted: the tests of an agent's changeset failing for the right
    reason, waiting for (or given) a human's sign-off."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    commit: str = Field(description="The commit Baton made of the changeset the tests ran with.")
    sets: SignedOff
    files: str | None = Field(default=None, pattern=SHA256)
    at: datetime


class SignOff(BaseModel):
    """The tests a human signed off: from then on the test and frozen files are only the
    tester's to change (a new red proof and a new sign-off)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    proof: RedProof
    by: str
    at: datetime


class ProofCounts(BaseModel):
    """How many times evidence settled a state, by verdict (the dashboard's figures)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    red: int = 0
    green: int = 0
    failing: int = 0
    broken: int = 0


class TestsRecord(BaseModel):
    """What an issue's record keeps of its evidence (`Record.tests`, written only with one)."""

    __test__ = False
    model_config = ConfigDict(extra="forbid", frozen=True)

    red: RedProof | None = None  # the last red proof, until it is signed off or replaced
    signed: SignOff | None = None
    counts: ProofCounts = Field(default_factory=ProofCounts)
    # A failing verdict came after the first green one: the first green did not hold.
    green_broke: bool = False
