"""The figures `baton demo` and `baton simulate` print count what GitHub counts: round trips
(`requests`), as `GitHubTracker.requests` does, not the operations batched inside them."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner
from graphql import DocumentNode, OperationDefinitionNode

from baton.cli import cli
from baton.sim.api.graphql_documents import parsed
from baton.sim.scenario.format import demo_scenario, load_scenario, parse_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import load_config


def root_fields(query: str) -> list[object]:
    """The fields a mutation document runs, one after another in its one round trip."""
    document = parsed(query)
    assert isinstance(document, DocumentNode)
    operation = document.definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    return list(operation.selection_set.selections)


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
    documents = [c for c in player.gh.writes_sent() if c.path == "/graphql"]
    fields = sum(len(root_fields(c.body["query"])) for c in documents)
    assert fields > len(documents), "batched writes are one request"
    assert f"{player.gh.requests} GitHub API requests" in result.output


def test_simulate_prints_the_round_trips_its_github_counted():
    path = SCENARIOS / "retry_ladder_to_a_human.yml"
    player = Player(load_scenario(path), load_config(None), lambda _: None)
    player.play()

    result = CliRunner().invoke(cli, ["simulate", str(path)])

    assert printed_figure(result.output) == player.gh.requests
    assert f"{len(player.gh.dispatches)} workflow runs dispatched" in result.output


def requests_of(text: str) -> int:
    player = Player(parse_scenario(text, "inline"), load_config(None), lambda _: None)
    assert player.play() == 0, player.failures
    return player.gh.requests


IMPLEMENTING = "people: {maria: maintain}\nsteps:\n  - label: status:implementing\n    by: maria\n"


def report(changes: str = "") -> str:
    return (
        "  - report:\n"
        "      agent: developer\n"
        "      confidence: 0.95\n"
        "      summary: Add the export.\n" + (f"      changes: {changes}\n" if changes else "")
    )


def test_a_commit_costs_one_round_trip_the_first_one_with_its_pull_request_too():
    plain = requests_of(IMPLEMENTING + report())
    first = requests_of(IMPLEMENTING + report('{a.py: "1\\n"}'))
    failed = "  - report: {agent: tester, status: failure}\n"  # to fixing_issues, which commits
    later = IMPLEMENTING + report('{a.py: "1\\n"}') + failed
    second = requests_of(later + report('{a.py: "2\\n"}'))
    without = requests_of(later + report())

    # The branch head rides in the read; the commit is one mutation document, which at the
    # first commit opens the draft pull request too (`createPullRequest` after
    # `createCommitOnBranch`); its body and ready state go in the record's document.
    assert first - plain == 1
    assert second - without == 1


def test_a_requested_change_costs_one_round_trip_more_than_an_approval_its_inline_notes():
    prefix = IMPLEMENTING + report('{a.py: "1\\n"}').replace("0.95", "0.85")
    prefix += "  - report: {agent: pm}\n"  # creating_pr to waiting_for_human_input
    approved = requests_of(prefix + "  - review: {verdict: approved, by: maria}\n")
    changes = requests_of(prefix + "  - review: {verdict: changes_requested, by: maria}\n")

    assert changes - approved == 1  # the review's inline comments: not in the payload
