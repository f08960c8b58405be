"""An `expect` step (`sim/scenario/expect.py`): every difference is one line, none when all is
as expected."""

from __future__ import annotations

from baton.core.model.decision import CheckPlan
from baton.sim.scenario import expect
from baton.sim.scenario.format import Expect
from baton.sim.scenario.player import Player


def test_all_as_expected_is_no_problem(
    worked: Player,
) -> None:
    player = worked
    want = Expect(
        branch_files={"src/export.py": "def to_csv(): ...\n", "docs/gone.md": None},
        pull_request="draft",
        commits=1,
    )

    assert expect.problems(player, want, player.last) == []


def test_each_difference_is_its_own_line(
    worked: Player,
) -> None:
    player = worked
    want = Expect(
        state="completed",
        agent="pm",
        transitioned=False,
        branch_files={"src/export.py": None},
        pull_request="merged",
        commits=2,
    )

    assert expect.problems(player, want, player.last) == [
        "state is running_tests, expected completed",
        f"agent is {player.last.agent if player.last else None}, expected pm",
        "transitioned is True, expected False",
        "src/export.py on baton/issue-1 is 'def to_csv(): ...\\n', expected absent",
        "the pull request is draft, expected merged",
        "Baton made 1 commit(s) on the branch, expected 2",
    ]


def test_labels_are_compared_in_any_order(
    worked: Player,
) -> None:
    player = worked
    labels = player.gh.labels_of(player.number)

    assert expect.problems(player, Expect(labels=labels[::-1]), player.last) == []
    assert expect.problems(player, Expect(labels=[]), player.last) == [
        f"labels are {sorted(labels)}, expected []"
    ]


def test_the_check_run_of_the_last_decision_is_its_conclusion_or_none(worked: Player) -> None:
    player = worked
    assert player.last is not None
    plan = CheckPlan(commit="a" * 40, conclusion="neutral", title="red", summary="")
    checked = player.last.model_copy(update={"check": plan})

    assert expect.problems(player, Expect(check="none"), player.last) == []
    assert expect.problems(player, Expect(check="neutral"), checked) == []
    assert expect.problems(player, Expect(check="success"), checked) == [
        "the check run is neutral, expected success"
    ]
    assert expect.problems(player, Expect(check="failure"), None) == [
        "the check run is none, expected failure"
    ]


def test_a_record_without_a_sign_off_is_not_signed_off(worked: Player) -> None:
    player = worked

    assert expect.problems(player, Expect(signed_off=False), player.last) == []
    assert expect.problems(player, Expect(signed_off=True), player.last) == [
        "signed_off is False, expected True"
    ]
