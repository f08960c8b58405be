"""The agent job's proof: `baton verify` where the state due is settled by evidence.

After the exec (no credential in the process's environment), `run` does what the handoff's
proof asks. Green: the built-in `tests` profile, no model: the tests run on the checkout's HEAD
(Baton's last commit), `--base` the merge base with the default branch when the checkout has it;
`baton-evidence.json` is written beside the result, and the result is computed from it (success
only for green; the verdict and its reason; the failing tests with their messages). Red: the
role's agent runs as any agent does, and once its changeset and result are written, the tests
run on that changeset applied on its base (`verify_changeset`); an agent that changed nothing,
or whose changeset was refused, leaves no evidence, and the report says so.

A file where the evidence goes is removed first: the agent or the tests could have put one
there. Whatever goes wrong in `baton verify` itself (git, a file it cannot write) is a setup
error, as `baton agent` reports them, never a crash without a result.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from baton.agents import reaper
from baton.agents.contained import remove_planted_setup_error, run_contained
from baton.agents.file_commands import write_fresh
from baton.agents.handoff import Handoff
from baton.core.model.agent_result import MAX_ITEMS, AgentResult
from baton.core.model.changeset import Changeset
from baton.core.model.evidence import EVIDENCE_FILE, Evidence
from baton.errors import AgentSetupError, ResultUnwritable
from baton.evidence import changes
from baton.evidence.verify import summary, verify, verify_changeset
from baton.workflow.model import AgentStatus
from baton.workflow.suite import SuiteSettings

SHOWN_FAILURES = 10  # failing tests the result lists (each with its message), then how many more
CONFIDENCE = 1.0  # the verdict is computed, not judged


def run(handoff: Handoff, warn: Callable[[str], None]) -> str:
    """What the handoff asks for: the `tests` profile, or its agent (then, for a red proof,
    `baton verify` on its changeset). The log line."""
    if handoff.proof == "green":
        return run_tests(handoff, warn)
    return run_contained(handoff, warn, prover(handoff) if handoff.proof == "red" else None)


def _suite(handoff: Handoff) -> SuiteSettings:
    if handoff.suite is None:  # pragma: no cover - `baton agent` hands a suite with a proof
        raise AgentSetupError("the state asks for proof, but no `tests:` was handed over")
    return handoff.suite


def _environ(handoff: Handoff) -> dict[str, str]:
    """The tests' environment is the agent's (this process's); the handed secrets are added so
    that failure messages quoting one are redacted (the tests never get the credentials)."""
    return {**os.environ, **handoff.secrets}


def _discard(path: Path) -> None:
    """Remove whatever is at `path` (a file, a link, a folder) without following a link."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_fresh(path, data)
    except OSError as exc:
        raise ResultUnwritable(f"cannot write {exc.filename}: {exc.strerror}") from exc


def _verified(evidence_file: Path, verifying: Callable[[], Evidence]) -> Evidence:
    """The evidence `verifying` gives; any exception is a setup error, no evidence left."""
    try:
        _discard(evidence_file)
        return verifying()
    except Exception as exc:  # anything at all: the job says it once and reports no attempt
        raise AgentSetupError(f"baton verify could not run the tests: {exc}") from exc


def run_tests(handoff: Handoff, warn: Callable[[str], None]) -> str:
    """The `tests` profile: `baton verify` on HEAD, the evidence and the computed result."""
    reaper.become_subreaper()
    reaper.become_undumpable()
    suite = _suite(handoff)
    result_file = Path(handoff.result_file)
    evidence_file = result_file.with_name(EVIDENCE_FILE)
    checkout = Path.cwd()

    def verifying() -> Evidence:
        base = changes.merge_base(checkout, handoff.default_branch)
        return verify(checkout, suite, base=base, environ=_environ(handoff))

    evidence = _verified(evidence_file, verifying)
    removed = remove_planted_setup_error(result_file)
    if removed:
        warn(removed)
    result = result_of(evidence)
    # The evidence first: a result is never found without it.
    _write(evidence_file, _json(evidence))
    _write(result_file, result.model_dump_json(indent=2).encode("utf-8"))
    return (
        f"tests profile: {summary(evidence)} -> {evidence_file}; "
        f"result {result.status.value} -> {result_file}"
    )


def prover(handoff: Handoff) -> Callable[[Changeset], str]:
    """What runs after a red proof's agent: `baton verify` on its changeset, the log line."""
    suite = _suite(handoff)
    evidence_file = Path(handoff.result_file).with_name(EVIDENCE_FILE)

    def prove(changeset: Changeset) -> str:
        if changeset.refused or not changeset.files:
            _discard(evidence_file)
            why = "its changeset was refused" if changeset.refused else "it changed nothing"
            return f"no evidence: the agent's tests were not run, {why}"
        evidence = _verified(
            evidence_file,
            lambda: verify_changeset(Path.cwd(), changeset, suite, environ=_environ(handoff)),
        )
        _write(evidence_file, _json(evidence))
        return f"evidence: {summary(evidence)} -> {evidence_file}"

    return prove


def _json(evidence: Evidence) -> bytes:
    return (evidence.model_dump_json() + "\n").encode("utf-8")


def result_of(evidence: Evidence) -> AgentResult:
    """The `tests` profile's result: success only for green, the verdict and its reason, the
    tests that failed or erred with their messages (the first SHOWN_FAILURES, then a count)."""
    failing = [t for t in evidence.tests if t.outcome in {"failed", "error"}]
    issues = [f"{t.id}: {t.message}" if t.message else t.id for t in failing[:SHOWN_FAILURES]]
    if len(failing) > SHOWN_FAILURES:
        issues.append(f"and {len(failing) - SHOWN_FAILURES} more failing")
    green = evidence.verdict == "green"
    return AgentResult(
        status=AgentStatus.success if green else AgentStatus.failure,
        confidence=CONFIDENCE,
        summary=f"{evidence.verdict}: {evidence.reason}",
        issues_found=issues[:MAX_ITEMS],
    )
