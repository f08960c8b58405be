"""The figures `baton demo` and `baton simulate` print count what GitHub counts: round trips
(`requests`), as `GitHubTracker.requests` does, not the operations batched inside them."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from baton.cli import cli
from baton.sim.scenario import Player, demo_scenario, load_scenario
from baton.workflow.config import load_config

FIGURE = re.compile(r"(\d+) GitHub")
SCENARIOS = Path(__file__).parent / "scenarios"


def printed_figure(output: str) -> int:
    found = FIGURE.findall(output)
    assert len(found) == 1, output
    return int(found[0])


def test_the_demo_prints_the_round_trips_its_github_counted():
    player = Player(demo_scenario(), load_config(None), lambda _: None)
    player.play()

    result = CliRunner().invoke(cli, ["demo", "--quiet"])

    assert result.exit_code == 0, result.output
    assert printed_figure(result.output) == player.gh.requests
    assert player.gh.requests < sum(player.gh.calls.values()), "batched writes are one request"
    assert f"{player.gh.requests} GitHub API requests" in result.output


def test_simulate_prints_the_round_trips_its_github_counted():
    path = SCENARIOS / "retry_ladder_to_a_human.yml"
    player = Player(load_scenario(path), load_config(None), lambda _: None)
    player.play()

    result = CliRunner().invoke(cli, ["simulate", str(path)])

    assert printed_figure(result.output) == player.gh.requests
    assert f"{len(player.gh.dispatches)} workflow runs dispatched" in result.output
