"""States settled by evidence: a `proof` state moves on what the tests showed, not on what its
agent said (issue 26).

With `tests:` in the config, a report in a state with `proof: red` or `proof: green` is settled
by the `baton-evidence.json` beside it:

- none, or unreadable: a failed attempt (the retry ladder), saying so;
- stale (the tests ran on another commit than the changeset's base, or than Baton's last
  commit when no changeset came; or with another changeset than this report's): nothing
  moves, and the agent runs again on the head as after a stale changeset, up to
  `MAX_STALE_RUNS` times in a row;
- fresh: the verdict is judged again from the evidence's tests (`core/rules/evidence.judge`,
  never the file's own verdict, except that a broken run stays broken), green with a sign-off
  also needs the signed-off files unchanged, and the verdict is the rule fact `verdict` that
  picks the state's edge (the agent's `next_state` is not read there).

A red verdict in a `proof: red` state is the red proof (`Record.tests.red`); an approval at a
`signs_off` waiting state signs it off (`Record.tests.signed`), and from then on the test and
frozen files are the tester's alone (`test_files`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from baton.core.model.agent_result import AgentResult
from baton.core.model.changeset import TestFiles
from baton.core.model.decision import CheckPlan, Outcome
from baton.core.model.events import AgentReported
from baton.core.model.evidence import (
    KEEP_IDS,
    Evidence,
    ProofCounts,
    RedProof,
    SignedOff,
    SignOff,
    TestsRecord,
    Verdict,
)
from baton.core.model.record import KEEP_FEEDBACK, Record
from baton.core.model.work import ChangesetFacts
from baton.core.rules.context import (
    BATON,
    MAX_STALE_RUNS,
    Ctx,
    Draft,
    agent_due,
    dispatch,
    escalate,
    seen,
)
from baton.core.rules.evidence import judge
from baton.core.rules.work_product import work_of
from baton.core.text import evidence as words
from baton.workflow.config import Policy
from baton.workflow.model import StateKind, Workflow

Proof = Literal["red", "green"]
CONCLUSION: dict[Verdict, Literal["success", "failure", "neutral"]] = {
    "green": "success",
    "red": "neutral",
    "failing": "failure",
    "broken": "failure",
}
# Characters of ids a set keeps besides `KEEP_IDS`: an id may be 1,000 characters, and the
# record, with a red proof and a sign-off of two sets each, must stay one small comment.
KEEP_CHARS = 2_000
FILES_CHANGED = "signed-off test files changed"
STALE_EVIDENCE = "The evidence was stale: "
NOTHING_TO_SIGN = (
    "there is nothing to sign off: no red proof of the tests was accepted since the last "
    "sign-off; the tests must fail for the right reason first"
)


def proof_of(workflow: Workflow, policy: Policy, state: str) -> Proof | None:
    """The state's proof when evidence settles it: only with `tests:` in the config."""
    if policy.tests is None or state not in workflow.states:
        return None
    return workflow.spec(state).proof


def test_files(workflow: Workflow, policy: Policy, record: Record | None) -> TestFiles | None:
    """What a changeset in the record's state may do to the test and frozen files (None:
    nothing to check: no `tests:`, or neither a red proof's state nor a sign-off)."""
    if policy.tests is None or record is None:
        return None
    proof = proof_of(workflow, policy, record.state)
    signed = record.tests is not None and record.tests.signed is not None
    if proof != "red" and not signed:
        return None
    return TestFiles(suite=policy.tests, tests_only=proof == "red", frozen=signed)


# --- the evidence beside a report -------------------------------------------------------------
def missing(event: AgentReported) -> str | None:
    """Why there is no evidence to settle the state by, or None."""
    if event.evidence is not None:
        return None
    if event.evidence_problem:
        return f"the evidence beside the result could not be read: {event.evidence_problem}"
    return "no evidence came with the result: the tests' verdict is what settles this state"


def stale(
    record: Record, event: AgentReported, changes: ChangesetFacts | None = None
) -> str | None:
    """Why the evidence is not about this report's work, or None: the tests ran on the
    changeset's base with that very changeset (`changes`, as the run judged it), or on
    Baton's last commit when none came."""
    found = event.evidence
    if found is None:
        return None
    came = changes is not None and changes.status in ("ok", "committed")
    if came and changes is not None:
        expected, digest = changes.base, changes.digest
    else:
        work = record.work
        expected = (work.head if work is not None else "") or (changes.base if changes else "")
        digest = None
    if not expected:
        return "the tests ran on a commit Baton cannot tie to the issue's work"
    if found.commit != expected:
        return f"the tests ran on {found.commit[:7]}, not on {expected[:7]}"
    if found.changeset != digest:
        return (
            "the tests ran with another changeset than this report's"
            if digest is not None
            else "the tests ran with a changeset, and none came with this report"
        )
    return None


def rerun(ctx: Ctx, why: str, agent: str, runs: int) -> Draft:
    """Stale evidence moves nothing: the agent runs again on the head with the same attempt
    (the move was no fault of its own), `runs` stale runs in a row counted as a stale
    changeset's are, so evidence that never matches reaches a human instead of looping."""
    record = ctx.record
    if runs >= MAX_STALE_RUNS:
        return escalate(ctx, f"stale evidence: {why}, {runs + 1} times in a row", actor=BATON)
    work = work_of(record, ctx.policy)
    note = (
        f"{STALE_EVIDENCE}{why}. Do the work again on the head; this run does not count as a "
        "failed attempt."
    )
    kept = [f for f in record.feedback if not f.startswith(STALE_EVIDENCE)]
    updated = seen(ctx).model_copy(
        update={
            "work": work.model_copy(update={"stale_runs": runs + 1}),
            "feedback": [note, *kept][:KEEP_FEEDBACK],
            "dispatch": dispatch(ctx, ctx.workflow.agent_of(ctx.state), ctx.state, record.attempt),
        }
    )
    return Draft(
        Outcome.retry,
        f"stale evidence: {why}; the {agent} runs again (attempt {record.attempt}, not counted)",
        record=updated,
        agent=agent_due(ctx, updated),
    )


@dataclass(frozen=True)
class Judged:
    """The verdict Baton reached on fresh evidence, and the evidence itself."""

    verdict: Verdict
    reason: str
    evidence: Evidence
    commit: str  # the commit the tests showed: Baton's commit of the changeset, or the head
    now_pass: tuple[str, ...] = ()  # signed-off FAIL_TO_PASS ids that pass now


def verdict_of(
    record: Record, event: AgentReported, changes: ChangesetFacts | None = None
) -> Judged:
    """The verdict judged again from the evidence's tests (a broken run stays broken), with
    the signed-off sets; green also needs the signed-off files as they were signed."""
    found = event.evidence
    assert found is not None  # `missing` said so
    tests = record.tests
    signed = tests.signed.proof if tests is not None and tests.signed is not None else None
    commit = changes.oid if changes is not None and changes.status == "committed" else ""
    commit = commit or found.commit
    if found.verdict == "broken":
        return Judged("broken", found.reason or "the run left no result to trust", found, commit)
    verdict, reason = judge(
        found.tests,
        frozenset(found.new),
        found.exit_status,
        signed_off=signed.sets if signed is not None else None,
    )
    if verdict == "green" and signed is not None and signed.files not in (None, found.files):
        verdict, reason = "failing", f"{FILES_CHANGED} since {signed.commit[:7]}"
    passed = {t.id for t in found.tests if t.outcome == "passed"}
    now_pass = tuple(i for i in signed.sets.fail_to_pass if i in passed) if signed else ()
    return Judged(verdict, reason, found, commit, now_pass)


def kept(ids: tuple[str, ...]) -> tuple[str, ...]:
    """The first ids of a set a record keeps: at most `KEEP_IDS`, in at most `KEEP_CHARS`
    characters; the rest are held by the signed-off files' digest (green needs them as
    signed)."""
    out: list[str] = []
    room = KEEP_CHARS
    for test_id in ids[:KEEP_IDS]:
        room -= len(test_id)
        if room < 0:
            break
        out.append(test_id)
    return tuple(out)


def recorded(record: Record, judged: Judged, proof: Proof, now: datetime) -> Record:
    """The record counting the verdict, keeping whether the first green held, and, for a red
    verdict in a red proof's state, the red proof (its `kept` ids; the test and frozen files'
    digest holds the rest)."""
    tests = record.tests or TestsRecord()
    counts = tests.counts
    bumped = ProofCounts(
        **{**counts.model_dump(), judged.verdict: getattr(counts, judged.verdict) + 1}
    )
    update: dict[str, object] = {"counts": bumped}
    if judged.verdict == "failing" and counts.green > 0:
        update["green_broke"] = True
    if judged.verdict == "red" and proof == "red":
        found = judged.evidence
        new = set(found.new)
        fail = tuple(t.id for t in found.tests if t.id in new and t.outcome == "failed")
        passed = tuple(t.id for t in found.tests if t.outcome == "passed")
        sets = SignedOff(fail_to_pass=kept(fail), pass_to_pass=kept(passed))
        update["red"] = RedProof(commit=judged.commit, sets=sets, files=found.files, at=now)
    work = record.work
    if work is not None and work.stale_runs:  # fresh evidence ends a row of stale runs
        work = work.model_copy(update={"stale_runs": 0})
    return record.model_copy(update={"tests": tests.model_copy(update=update), "work": work})


def as_result(result: AgentResult, judged: Judged) -> AgentResult:
    """The result the state's rules read: the agent's proposal dropped (evidence settles the
    state), its issues the evidence's (the next agent is told which tests failed and why)."""
    found = judged.evidence
    issues = words.feedback(judged.verdict, judged.reason, found)
    return result.model_copy(update={"next_state": None, "issues_found": issues})


def check(judged: Judged, nonce: str) -> CheckPlan:
    """`Baton / tests` on the commit the tests showed: the verdict, the failing tests, why."""
    return CheckPlan(
        commit=judged.commit,
        conclusion=CONCLUSION[judged.verdict],
        title=words.title(judged.verdict, judged.reason),
        summary=words.summary(
            judged.verdict, judged.reason, judged.evidence, now_pass=judged.now_pass
        ),
        external_id=nonce,
    )


def note(state: str, judged: Judged) -> str:
    """What the issue is told of the evidence that settled `state`."""
    return words.issue_note(
        state, judged.verdict, judged.reason, judged.evidence, now_pass=judged.now_pass
    )


# --- the sign-off -------------------------------------------------------------------------------
def signs_off(workflow: Workflow, policy: Policy, state: str) -> bool:
    """An approval in `state` signs off the red proof (only with `tests:`)."""
    if policy.tests is None or state not in workflow.states:
        return False
    spec = workflow.spec(state)
    return spec.kind is StateKind.waiting and spec.signs_off


def signed_off(record: Record, login: str, now: datetime) -> Record | None:
    """The record with its red proof signed off by `login`, or None: no red proof to sign."""
    tests = record.tests
    if tests is None or tests.red is None:
        return None
    signed = SignOff(proof=tests.red, by=login, at=now)
    return record.model_copy(
        update={"tests": tests.model_copy(update={"red": None, "signed": signed})}
    )


def red_message(record: Record, evidence: Evidence | None = None) -> str | None:
    """The red proof shown where it waits for a sign-off, or None without one."""
    tests = record.tests
    if tests is None or tests.red is None:
        return None
    return words.red_proof(tests.red, evidence)
