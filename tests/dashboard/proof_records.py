"""Records with known evidence (`Record.tests`), for the evidence figures and their section of
the page: three issues with evidence, three that moved on agents' reports alone."""

from __future__ import annotations

from baton.core.model.evidence import ProofCounts, RedProof, SignedOff, SignOff, TestsRecord
from baton.dashboard.model import Worked
from support.records import at, record

MOVES = [
    (0, "received", "maria", "entry"),
    (10, "creating_tests", "pm", "report"),
    (20, "implementing", "tester", "report"),
    (40, "running_tests", "developer", "report"),
]


def proof(commit: str, failing: int, passing: int, minute: float) -> RedProof:
    sets = SignedOff(
        fail_to_pass=tuple(f"t.py::test_new_{i}" for i in range(failing)),
        pass_to_pass=tuple(f"t.py::test_old_{i}" for i in range(passing)),
    )
    return RedProof(commit=commit * 40, sets=sets, files=None, at=at(minute))


P1, P2, P3, P4 = (
    proof("1", 2, 5, 20),
    proof("2", 1, 0, 20),
    proof("3", 3, 1, 60),
    proof("4", 1, 9, 20),
)


def signed(red: RedProof) -> SignOff:
    return SignOff(proof=red, by="alice", at=red.at)


def evidence(
    red: int,
    green: int,
    failing: int = 0,
    broken: int = 0,
    *,
    waiting: RedProof | None = None,
    sign: SignOff | None = None,
    broke: bool = False,
) -> TestsRecord:
    counts = ProofCounts(red=red, green=green, failing=failing, broken=broken)
    return TestsRecord(red=waiting, signed=sign, counts=counts, green_broke=broke)


HISTORIES = {
    # red, signed off, green: the first green held
    1: evidence(1, 1, sign=signed(P1)),
    # signed off, green, then failing: the first green broke; a new red proof waits for its own
    2: evidence(2, 2, 1, 1, waiting=P3, sign=signed(P2), broke=True),
    # a red proof, no green yet, never signed off
    3: evidence(1, 0, waiting=P4),
    # no `tests`: the agents' reports alone
    4: None,
    # a `tests` that counts no verdict is no evidence either
    5: TestsRecord(),
    6: None,
}


def worked() -> list[Worked]:
    return [
        Worked(n, f"issue {n}", True, record(n, MOVES, tests=kept)) for n, kept in HISTORIES.items()
    ]
