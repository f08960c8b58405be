"""What `baton simulate` says (`sim/scenario/narration.py`): each step in one line, the
decision, and what the step changed on GitHub."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from baton.core.model.decision import CheckPlan
from baton.run import RunResult, handle
from baton.sim.scenario import narration
from baton.sim.scenario import player as player_module
from baton.sim.scenario.format import parse_scenario
from baton.sim.scenario.holding import Holding
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config


@pytest.mark.parametrize(
    ("step", "said"),
    [
        ("{label: baton, by: maria}", "maria adds label baton"),
        ("{comment: 'Any\n   news?'}", "alice comments: 'Any news?'"),
        ("{wait: 2h}", "time passes: 2:00:00"),
        ("{merge: {by: maria}}", "maria merges pull request #2"),
        ("{close_pr: true}", "alice closes pull request #2 without merging"),
        ("{review: {verdict: approved, by: wendy}}", "wendy reviews pull request #2: approves"),
        ("{report: {agent: pm, questions: [Why]}}", "pm reports success, confidence 0.90, 1 ques"),
    ],
    ids=[
        "a label",
        "a comment over lines, flattened",
        "the clock",
        "a merge by someone",
        "a close by the issue's author",
        "a review's verdict in words",
        "a report and its questions",
    ],
)
def test_each_step_is_said_in_one_line(worked: Player, step: str, said: str) -> None:
    player = worked
    (parsed,) = parse_scenario(f"steps:\n  - {step}\n", "inline").steps

    assert narration.describe(player, parsed, "alice").startswith(said)


def test_a_new_branch_is_said_with_its_commit_and_files_and_the_draft_pull_request(
    worked: Player,
) -> None:
    player = worked

    lines = narration.change_lines(player, Holding())

    assert lines[0].startswith("   GitHub: branch baton/issue-1 created at ")
    assert "by github-actions[bot]: developer: Add the export (#1)" in lines[1]
    assert lines[2] == "     + src/export.py"
    assert lines[3] == "   GitHub: pull request #2 opened as a draft from baton/issue-1"


def test_nothing_changed_is_nothing_said(
    worked: Player,
) -> None:
    player = worked

    assert narration.change_lines(player, player.holding()) == []


def test_the_work_is_one_line_or_none(played: Callable[[str], Player], worked: Player) -> None:
    head = (worked.holding().head or "")[:7]

    assert narration.work_line(played("steps:\n  - comment: hi\n")) is None
    assert narration.work_line(worked) == (
        f"baton/issue-1 at {head}, 1 commit(s) by Baton; pull request #2 draft"
    )


def _said(text: str) -> list[str]:
    said: list[str] = []
    Player(parse_scenario(text, "inline"), load_config(None), said.append).play()
    return "\n".join(said).splitlines()


def test_a_named_agent_overtaken_by_the_next_step_says_so_past_expectations() -> None:
    lines = _said(
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - {label: baton, by: maria}\n"
        "  - expect: {state: received}\n"
        "  - {wait: 1h}\n"
    )
    assert "   next agent: pm (follow-up job); step 3 happens before it reports" in lines


def test_a_named_agent_whose_report_comes_next_is_said_plainly() -> None:
    lines = _said(
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - {label: baton, by: maria}\n"
        "  - report: {agent: pm}\n"
    )
    assert "   next agent: pm (follow-up job)" in lines


def test_a_bot_comment_posted_again_is_named_by_its_step_with_its_heading_alone() -> None:
    message = "### Heading\nBody line one.\nBody line two.\n"
    told: dict[str, int] = {}
    first = narration.comment_lines(message, told, 4)
    again = narration.comment_lines(message, told, 9)
    assert first == [
        "   bot comments:",
        "     | ### Heading",
        "     | Body line one.",
        "     | Body line two.",
    ]
    assert again == ["   bot comments again, as at step 4:", "     | ### Heading"]
    assert narration.comment_lines("### Other\n", told, 9)[0] == "   bot comments:"


def test_a_decision_that_posts_a_check_run_says_its_conclusion_commit_and_title(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def checked(event: Any, *args: Any, **kwargs: Any) -> RunResult:
        result = handle(event, *args, **kwargs)
        plan = CheckPlan(
            commit="ab" * 20, conclusion="neutral", title="red:\n3 failing", summary="…"
        )
        return replace(result, decision=result.decision.model_copy(update={"check": plan}))

    monkeypatch.setattr(player_module, "handle", checked)
    said: list[str] = []
    Player(
        parse_scenario(
            "people: {maria: maintain}\nsteps:\n  - {label: baton, by: maria}\n", "inline"
        ),
        load_config(None),
        said.append,
    ).play()

    assert said[2:4] == [
        "   why: entered at received: trigger label by maria",
        "   check run: Baton / tests neutral on abababa: red: 3 failing",
    ]


def test_a_bot_comment_is_said_to_six_lines_unless_the_player_is_told_more() -> None:
    message = "".join(f"line {n}\n\n" for n in range(1, 10))

    assert narration.comment_lines(message, {}, 1)[1:] == [f"     | line {n}" for n in range(1, 7)]
    assert narration.comment_lines(message, {}, 1, 8)[1:] == [
        f"     | line {n}" for n in range(1, 9)
    ]
