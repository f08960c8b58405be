"""`baton demo`: the built-in scenario played on the in-memory GitHub and told step by step,
then the outcome; the path as a Mermaid diagram only when asked (a terminal cannot draw it)."""

from __future__ import annotations

from collections.abc import Callable

from baton.sim.scenario.format import demo_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import Settings

HEADER = (
    "Baton demo: one issue through the issue-lifecycle workflow, on an in-memory GitHub.\n"
    "Every step is a GitHub event or an agent report, handled exactly as `baton run` and "
    "`baton report` handle them."
)
NEXT_AGENT = (
    "“next agent” is the agent Baton starts next: in a job of the same workflow run "
    "(follow-up job) or in a run it dispatches."
)
DIAGRAM_HINT = (
    "The path as a Mermaid diagram: `baton demo --diagram` (GitHub draws Mermaid in Markdown).\n"
    "The whole workflow: `baton graph`, drawn in the README."
)


def show(
    echo: Callable[[str], None],
    settings: Settings,
    *,
    quiet: bool,
    diagram: bool,
    dashboard: bool = False,
) -> int:
    """Play the demo; its exit status (1 if the scenario's own check failed). With
    `dashboard`, it ends with the page `baton dashboard` makes of the demo's repository."""
    echo(HEADER if quiet else f"{HEADER}\n{NEXT_AGENT}")
    player = Player(demo_scenario(), settings, (lambda _: None) if quiet else echo)
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
