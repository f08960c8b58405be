"""The evidence figures: what the tests showed, from `Record.tests` alone (docs/dashboard.md).

A record counts the verdicts that settled one of its issue's states (`ProofCounts`), keeps the
last red proof until it is signed off or replaced, the sign-off, and whether a failing verdict
came after the issue's first green one (`green_broke`). An issue whose record counts no verdict
has no evidence: its states moved on agents' reports alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from baton.core.model.evidence import ProofCounts, TestsRecord
from baton.dashboard.model import LastProof, ProofLine, Proofs, Worked


def verdicts(counts: ProofCounts) -> int:
    """How many verdicts settled a state (0: no evidence)."""
    return counts.red + counts.green + counts.failing + counts.broken


def last_red(tests: TestsRecord) -> LastProof | None:
    """The issue's last red proof: the one waiting for (or past) a sign-off, else the one
    signed off."""
    signed = tests.signed
    proof = tests.red if tests.red is not None else signed.proof if signed is not None else None
    if proof is None:
        return None
    return LastProof(
        commit=proof.commit,
        at=proof.at,
        fail_to_pass=len(proof.sets.fail_to_pass),
        pass_to_pass=len(proof.sets.pass_to_pass),
        signed=signed is not None and signed.proof == proof,
    )


def _line(item: Worked, tests: TestsRecord) -> ProofLine:
    held = None if tests.counts.green == 0 else not tests.green_broke
    return ProofLine(
        number=item.number,
        title=item.title,
        counts=tests.counts,
        signed=tests.signed is not None,
        first_green_held=held,
        last_red=last_red(tests),
    )


def proofs(items: Sequence[Worked], *, configured: bool) -> Proofs:
    """The evidence figures over the window's issues; `configured`: the config has `tests:`."""
    lines = [
        _line(item, tests)
        for item in items
        if (tests := item.record.tests) is not None and verdicts(tests.counts)
    ]
    total = ProofCounts(
        red=sum(line.counts.red for line in lines),
        green=sum(line.counts.green for line in lines),
        failing=sum(line.counts.failing for line in lines),
        broken=sum(line.counts.broken for line in lines),
    )
    greens = [line for line in lines if line.first_green_held is not None]
    held = sum(1 for line in greens if line.first_green_held)
    lines.sort(key=lambda line: (-verdicts(line.counts), line.number))
    return Proofs(
        configured=configured,
        issues=len(lines),
        reports_alone=len(items) - len(lines),
        counts=total,
        signed_off=sum(1 for line in lines if line.signed),
        green_issues=len(greens),
        first_green_held=held,
        first_green_rate=round(held / len(greens), 4) if greens else None,
        per_issue=lines,
    )
