"""The evidence figures from records whose tests are known: verdicts counted, sign-offs, how
often the first green held, and the issues that moved on agents' reports alone."""

from __future__ import annotations

from baton.core.model.evidence import ProofCounts
from baton.dashboard.figures import figures
from baton.dashboard.model import Figures, LastProof, Worked
from baton.dashboard.proofs import last_red, proofs
from baton.workflow.model import load_preset
from support.records import at

from .proof_records import P1, evidence, signed, worked

LIFECYCLE = load_preset("issue-lifecycle")


def compute(items: list[Worked], *, configured: bool = True) -> Figures:
    return figures(
        items,
        [],
        {LIFECYCLE.name: LIFECYCLE},
        now=at(600),
        window_days=90,
        bot_login="github-actions[bot]",
        tests=configured,
    )


def test_verdicts_are_summed_over_the_issues_with_evidence_and_the_rest_moved_on_reports() -> None:
    found = proofs(worked(), configured=True)
    assert (found.configured, found.issues, found.reports_alone) == (True, 3, 3)
    assert found.counts == ProofCounts(red=4, green=3, failing=1, broken=1)
    assert found.signed_off == 2


def test_the_first_green_held_on_one_issue_of_the_two_with_a_green() -> None:
    found = proofs(worked(), configured=True)
    assert (found.green_issues, found.first_green_held, found.first_green_rate) == (2, 1, 0.5)
    held = {line.number: line.first_green_held for line in found.per_issue}
    assert held == {1: True, 2: False, 3: None}


def test_issues_are_listed_most_verdicts_first_with_their_last_red_proof() -> None:
    found = proofs(worked(), configured=True)
    assert [(line.number, line.signed) for line in found.per_issue] == [
        (2, True),
        (1, True),
        (3, False),
    ]
    lasts = [line.last_red for line in found.per_issue]
    assert lasts == [
        LastProof(commit="3" * 40, at=at(60), fail_to_pass=3, pass_to_pass=1, signed=False),
        LastProof(commit="1" * 40, at=at(20), fail_to_pass=2, pass_to_pass=5, signed=True),
        LastProof(commit="4" * 40, at=at(20), fail_to_pass=1, pass_to_pass=9, signed=False),
    ]


def test_a_red_proof_kept_after_its_sign_off_is_the_signed_one() -> None:
    kept = last_red(evidence(1, 0, waiting=P1, sign=signed(P1)))
    assert kept is not None and (kept.commit, kept.signed) == ("1" * 40, True)
    assert last_red(evidence(0, 1)) is None


def test_no_record_with_evidence_gives_no_figures_but_counts_every_issue_as_reports_alone() -> None:
    found = compute([w for w in worked() if w.number in (4, 5, 6)], configured=False).evidence
    assert (found.configured, found.issues, found.reports_alone) == (False, 0, 3)
    assert (found.counts, found.signed_off, found.first_green_rate) == (ProofCounts(), 0, None)
    assert found.per_issue == []


def test_the_dashboards_figures_carry_the_evidence_of_the_window_issues() -> None:
    found = compute(worked())
    assert found.evidence == proofs(worked(), configured=True)
    assert compute(worked(), configured=False).evidence.configured is False
