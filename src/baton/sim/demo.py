"""`baton demo`: the built-in scenario played on the in-memory GitHub and told step by step,
then the outcome; the path as a Mermaid diagram only when asked (a terminal cannot draw it).
`--test-first` plays `test_first.yml` instead: the tests, not the agents, move the work;
`--epic` plays `epic_demo.yml`, a whole epic with its agents scripted."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from baton.core.model.evidence import Evidence
from baton.core.model.record import Record
from baton.sim.scenario.epic import EpicPlayer
from baton.sim.scenario.format import demo_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import Config, Settings, parse_config, settings_from

HEADER = (
    "Baton demo: one issue through the issue-lifecycle workflow, on an in-memory GitHub.\n"
    "Every step is a GitHub event or an agent report, handled exactly as `baton run` and "
    "`baton report` handle them."
)
TEST_FIRST_HEADER = (
    "Baton demo: one issue through the test-first workflow, on an in-memory GitHub: the tests "
    "move the work, not the agents' word.\n"
    "Every step is a GitHub event or an agent report with the evidence of its tests, handled "
    "exactly as `baton run` and `baton report` handle them; offline, each report says what the "
    "tests showed and Baton judges it."
)
NEXT_AGENT = (
    "“next agent” is the agent Baton starts next: in a job of the same workflow run "
    "(follow-up job) or in a run it dispatches."
)
DIAGRAM_HINT = (
    "The path as a Mermaid diagram: `baton demo --diagram` (GitHub draws Mermaid in Markdown).\n"
    "The whole workflow: `baton graph`, drawn in the README."
)
EPIC_HEADER = (
    "Baton demo: one epic through discovery, planning, six tasks on their own branches and its "
    "pull request, on an in-memory GitHub.\nEvery step is a GitHub event, a dispatched run or an "
    "agent report, handled exactly as `baton run` and `baton report` handle them."
)
EPIC_CONFIG = "epic_demo_config.yml"
TEST_FIRST_CONFIG = "test_first_config.yml"
TEST_FIRST_COMMENT_LINES = 12  # a bot comment's lines said: the red proof's failing tests too


def settings_of(test_first: bool) -> Settings:
    """The demo's settings: the issue-lifecycle preset's defaults, or with `test_first` the
    config beside test_first.yml (the test-first preset, with `tests:`)."""
    if not test_first:
        return settings_from(Config(workflow="issue-lifecycle"), source="preset issue-lifecycle")
    text = (resources.files("baton.sim") / TEST_FIRST_CONFIG).read_text(encoding="utf-8")
    return parse_config(text, source=TEST_FIRST_CONFIG)


def main(
    echo: Callable[[str], None], *, test_first: bool, quiet: bool, diagram: bool, dashboard: bool
) -> int:
    """`baton demo` (but `--epic`): the demo's settings, then the demo played and told."""
    shown = dict(quiet=quiet, diagram=diagram, dashboard=dashboard, test_first=test_first)
    return show(echo, settings_of(test_first), **shown)


def show(
    echo: Callable[[str], None],
    settings: Settings,
    *,
    quiet: bool,
    diagram: bool,
    dashboard: bool = False,
    test_first: bool = False,
) -> int:
    """Play the demo; its exit status (1 if the scenario's own check failed). With
    `dashboard`, it ends with the page `baton dashboard` makes of the demo's repository; with
    `test_first`, the test-first scenario, ending with what its evidence showed."""
    header = TEST_FIRST_HEADER if test_first else HEADER
    echo(header if quiet else f"{header}\n{NEXT_AGENT}")
    scenario = demo_scenario("test_first.yml" if test_first else "demo.yml")
    player = Player(scenario, settings, (lambda _: None) if quiet else echo)
    if test_first:  # its waiting message carries the red proof: say the failing tests too
        player.comment_lines = TEST_FIRST_COMMENT_LINES
    status = player.play()
    record = player.record()
    echo("")
    if record:
        echo(
            f"Final state: {record.state} after {record.iteration} transitions ({player.tally()})."
        )
    work = player.work()
    if work:
        echo(f"The work: {work}.")
    if test_first:
        for line in evidence_lines(player.evidence, record):
            echo(line)
    if diagram:
        echo("\nThe path the issue took:\n\n```mermaid")
        echo(player.path())
        echo("```")
    else:
        echo("\n" + DIAGRAM_HINT)
    if dashboard:
        from baton.dashboard.commands import demo_page

        echo("\nThe demo repository's dashboard:\n\n" + demo_page(player.gh, settings))
    return status


def evidence_lines(shown: list[tuple[int, Evidence]], record: Record | None) -> list[str]:
    """What the evidence showed, report by report, and what the record keeps of it: the
    signed-off tests and how often each verdict settled a state."""
    lines = ["What the tests showed:"]
    for step, evidence in shown:
        failing = sum(t.outcome in ("failed", "error") for t in evidence.tests)
        lines.append(
            f"  step {step}: {evidence.verdict} on {evidence.commit[:7]}, {len(evidence.tests)} "
            f"test(s), {failing} failing: {evidence.reason}"
        )
    tests = record.tests if record else None
    if tests is not None and tests.signed is not None:
        sets = tests.signed.proof.sets
        lines.append(
            f"  signed off by {tests.signed.by}: {len(sets.fail_to_pass)} test(s) that must pass "
            f"(FAIL_TO_PASS), {len(sets.pass_to_pass)} that must keep passing (PASS_TO_PASS)"
        )
    if tests is not None:
        c = tests.counts
        lines.append(
            f"  states settled by evidence: {c.red} red, {c.green} green, {c.failing} failing, "
            f"{c.broken} broken"
        )
    return lines


def epic_player(say: Callable[[str], None]) -> EpicPlayer:
    """The player of `epic_demo.yml`, with the config beside it, not yet played."""
    scenario = demo_scenario("epic_demo.yml")
    text = (resources.files("baton.sim") / EPIC_CONFIG).read_text(encoding="utf-8")
    settings = parse_config(text, source=EPIC_CONFIG)
    assert scenario.agents is not None  # the shipped epic scripts its agents
    return EpicPlayer(scenario, scenario.agents, settings, say)


def show_epic(echo: Callable[[str], None], *, quiet: bool, diagram: bool = False) -> int:
    """`baton demo --epic`: the epic played, then its final state, work, table and figures; its
    plan as a Mermaid graph with `diagram`. Its exit status (1 if its own check failed)."""
    echo(EPIC_HEADER)
    player = epic_player((lambda _: None) if quiet else echo)
    status = player.play()
    record = player.record()
    echo("")
    echo(f"Final state: {record.state if record else '?'}.")
    work = player.work()
    if work:
        echo(f"The work: {work}.")
    echo("\n" + player.table())
    echo(f"\nFigures: {player.tally()}.")
    if diagram:
        echo("\nThe plan:\n")
        echo(player.mermaid())
    else:
        echo("\nThe plan as a Mermaid diagram: `baton demo --epic --diagram`.")
    return status
