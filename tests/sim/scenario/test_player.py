"""Every scenario in tests/sim/scenarios plays through `baton simulate` with its expectations met.

A scenario's first line may name the command-line options it needs (`# args: --workflow
approval-gate`); without one it plays on the issue-lifecycle preset, never on whatever
`.github/baton.yml` happens to sit in the working directory.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.cli import cli
from baton.sim.scenario.epic import player_for
from baton.sim.scenario.format import ACTIONS, parse_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config
from support.memory import configured, writes

SCENARIOS = sorted((Path(__file__).parents[1] / "scenarios").glob("*.yml"))
DOC = Path(__file__).resolve().parents[3] / "docs" / "scenarios.md"
DEFAULT_ARGS = ["--workflow", "issue-lifecycle"]


def args_of(path: Path) -> list[str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    if first.startswith("# args:"):
        return shlex.split(first.removeprefix("# args:"))
    return DEFAULT_ARGS


def simulate(path: Path):
    return CliRunner().invoke(cli, ["simulate", str(path), *args_of(path)])


def test_there_are_scenarios_to_play():
    assert len(SCENARIOS) >= 4


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem.replace("_", " "))
def test_the_scenario_plays_with_every_expectation_met(path):
    result = simulate(path)

    assert result.exit_code == 0, result.output
    assert "✗" not in result.output
    assert "✓ as expected" in result.output


def test_a_scenario_whose_expectation_fails_exits_non_zero(tmp_path):
    wrong = tmp_path / "wrong.yml"
    wrong.write_text(
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - label: baton\n"
        "    by: maria\n"
        "  - expect: {state: completed}\n",
        encoding="utf-8",
    )

    result = simulate(wrong)

    assert result.exit_code == 1
    assert "state is received, expected completed" in result.output


def play(text: str):
    player = Player(parse_scenario(text, "inline"), load_config(None), lambda _: None)
    assert player.play() == 0, player.failures
    return player.gh


def test_comments_on_an_issue_outside_the_workflow_make_no_writes():
    gh = play(
        "people: {maria: maintain, wendy: write}\n"
        "steps:\n"
        "  - open: true\n"
        "  - comment: approved\n"
        "    by: wendy\n"
        "  - comment: /retry please\n"
        "    by: maria\n"
        "  - comment: Any news?\n"
        "  - expect: {state: null, labels: []}\n"
    )

    assert writes(gh) == 0


def test_an_ignored_comment_costs_no_more_than_a_read_of_the_issue():
    gh = play(
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - label: baton\n"
        "    by: maria\n"
        "  - expect: {state: received}\n"
    )
    entry_calls = len(gh.sent)

    gh2 = play(
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - label: baton\n"
        "    by: maria\n"
        "  - comment: Thanks for picking this up!\n"
        "  - expect: {state: received, transitioned: false}\n"
    )

    assert len(gh2.sent) - entry_calls <= 1
    assert writes(gh2) == writes(gh)


def test_an_open_step_by_someone_sends_the_opened_event_as_them():
    text = "issue: {author: alice}\nsteps:\n  - open: true\n    by: bob\n"
    scenario = parse_scenario(text + "  - expect: {state: received}\n", "inline")
    player = Player(scenario, configured(entry={"on_open": True}), lambda _: None)

    assert player.play() == 0, player.failures

    assert player.gh.issue(1).author == "bob"
    record = player.record()
    assert record is not None
    assert [(e.to_state, e.actor) for e in record.history] == [("received", "bob")]


# --- docs/scenarios.md ----------------------------------------------------------------------
def test_the_scenario_doc_examples_play_with_every_expectation_met():
    examples = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    shown: set[str] = set()
    for number, example in enumerate(examples, 1):
        scenario = parse_scenario(example, f"docs/scenarios.md example {number}")
        player = player_for(scenario, load_config(None), lambda _: None)

        assert player.play() == 0, (number, player.failures)
        shown |= {step.action for step in scenario.steps}

    assert shown == set(ACTIONS), "the examples show every kind of step between them"


# --- the work, through the same code as a real run --------------------------------------------
def test_a_reports_changes_reach_the_branch_as_the_commit_of_the_bot():
    gh = play(
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - label: status:implementing\n"
        "    by: maria\n"
        "  - report:\n"
        "      agent: developer\n"
        "      confidence: 0.95\n"
        "      summary: Add the export\n"
        '      changes: {src/export.py: "def to_csv(): ...\\n", README.md: null}\n'
    )

    head = gh.git.commits[gh.git.head("baton/issue-1") or ""]
    assert head.author == gh.bot_login
    assert head.headline == "developer: Add the export (#1)"
    assert dict(head.tree) == {"src/export.py": b"def to_csv(): ...\n"}
    commits = [c.operation for c in gh.sent if c.operation and "Commit" in c.operation]
    assert commits == ["BatonCommitOpening"]  # one commit, opening the pull request with it


def test_a_failing_checks_name_and_summary_reach_the_developers_briefing():
    player = Player(
        parse_scenario(
            "people: {maria: maintain}\n"
            "steps:\n"
            "  - label: status:implementing\n"
            "    by: maria\n"
            "  - report:\n"
            "      agent: developer\n"
            "      confidence: 0.85\n"
            '      changes: {src/export.py: "pass\\n"}\n'
            "  - report: {agent: pm}\n"
            '  - checks: {name: ci, conclusion: failure, summary: "test_csv: 1 failed"}\n'
            "  - expect: {state: fixing_issues, agent: developer}\n",
            "inline",
        ),
        load_config(None),
        lambda _: None,
    )
    assert player.play() == 0, player.failures
    record = player.record()
    assert record is not None

    assert any("ci" in item and "test_csv: 1 failed" in item for item in record.feedback)
