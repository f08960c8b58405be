"""The `baton` command line: click wiring only; every command calls into the modules."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from baton import __version__
from baton.action import entry
from baton.action.env import ActionEnv
from baton.errors import BatonError
from baton.names import CONFIG_PATH
from baton.workflow.checks import check, proof_notes
from baton.workflow.config import Settings, load_config, placed, settings_from
from baton.workflow.graph import to_json, to_mermaid
from baton.workflow.model import to_yaml
from baton.workflow.sources import from_working_directory, is_workflow_file


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _settings(config: str | None, workflow: str | None, *, checked: bool = True) -> Settings:
    """The settings a command works on: a config file, a preset or workflow file (read as the
    config's `workflow:` reads one, by `workflow.sources.load_workflow`), or the defaults.
    `checked=False`: the workflow's structural errors are left for `validate` to list."""
    if workflow:
        from baton.workflow.config import Config

        source = workflow if is_workflow_file(workflow) else f"preset {workflow}"
        return settings_from(
            Config(workflow=workflow),
            source=source,
            read_file=from_working_directory,
            checked=checked,
        )
    path = Path(config) if config else Path(CONFIG_PATH)
    return load_config(path, required=config is not None, checked=checked)


config_option = click.option(
    "--config", "config", type=click.Path(dir_okay=False), help="Config file (.github/baton.yml)."
)
workflow_option = click.option(
    "--workflow", "workflow", help="A preset by name, or a workflow file (a path: FILE.yml)."
)


# Commands imported only when named or listed, by the module that holds them.
LAZY = {
    "dashboard": "baton.dashboard.commands",
    "doctor": "baton.adopt.commands",
    "init": "baton.adopt.commands",
    "agent": "baton.action.agent_command",
    "report": "baton.action.report",
    "verify": "baton.evidence.commands",
}


class _Commands(click.Group):
    """The group whose LAZY commands are imported only when named or listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY:
            command: click.Command = getattr(importlib.import_module(LAZY[name]), name)
            return command
        return super().get_command(ctx, name)


@click.group(cls=_Commands)
@click.version_option(__version__, prog_name="baton")
def cli() -> None:
    """Baton walks GitHub issues through a state machine of AI-agent work, with humans in the
    loop. `baton demo` shows a whole issue lifecycle on an in-memory GitHub."""


@cli.command()
@click.option("--quiet", is_flag=True, help="Print only the outcome, not each step.")
@click.option("--epic", is_flag=True, help="Play a whole epic: discovery, tasks, breaker, merge.")
@click.option("--diagram", is_flag=True, help="End with the path (the plan) as Mermaid.")
@click.option("--dashboard", is_flag=True, help="End with the demo repository's dashboard.")
@click.option("--test-first", is_flag=True, help="Test-first: red proof, sign-off, refusal, green.")
def demo(epic: bool, test_first: bool, **shown: bool) -> None:
    """Walk one issue through the default workflow with scripted agents and humans: the
    agents' files committed to the issue's branch, its pull request reviewed and merged."""
    if epic and test_first:
        _fail("--epic and --test-first are two demos: choose one")
    from baton.sim import demo as issue_demo

    if epic:
        sys.exit(issue_demo.show_epic(click.echo, quiet=shown["quiet"], diagram=shown["diagram"]))
    sys.exit(issue_demo.main(click.echo, test_first=test_first, **shown))


@cli.command()
@click.argument("scenario_file", type=click.Path(exists=True, dir_okay=False))
@config_option
@workflow_option
def simulate(scenario_file: str, config: str | None, workflow: str | None) -> None:
    """Replay SCENARIO_FILE (a YAML list of events) against the in-memory GitHub; with
    `agents:` scripted, a whole epic (see examples/epic-scenario.yml).

    Exit status 1 if an `expect` step does not hold."""
    from baton.sim.scenario.epic import player_for
    from baton.sim.scenario.format import load_scenario, one_line

    try:
        settings = _settings(config, workflow)
        scenario = load_scenario(Path(scenario_file))
    except BatonError as exc:
        _fail(str(exc))
    click.echo(f"Simulating {scenario.name} on workflow {settings.workflow.name}")
    player = player_for(scenario, settings, click.echo)
    try:
        status = player.play()
    except BatonError as exc:
        _fail(one_line(str(exc)))
    click.echo(f"\n{player.tally()}.")
    work = player.work()
    if work:
        click.echo(f"The work: {work}.")
    click.echo("\nPath:\n\n```mermaid")
    click.echo(player.path())
    click.echo("```")
    if player.failures:
        click.echo(f"\n{len(player.failures)} expectation(s) failed", err=True)
    sys.exit(status)


@cli.command()
@config_option
@workflow_option
def validate(config: str | None, workflow: str | None) -> None:
    """Check a config or workflow; exit status 1 on errors (warnings alone pass)."""
    try:
        settings = _settings(config, workflow, checked=False)
    except BatonError as exc:
        _fail(str(exc))
    report = check(settings.workflow, prefix=settings.policy.label_prefix)
    for problem in report.problems:
        click.echo(placed(problem, settings))
    errors, warnings = len(report.errors), len(report.warnings)
    click.echo(f"{settings.workflow.name}: {errors} error(s), {warnings} warning(s)")
    notes = proof_notes(settings.workflow, settings.config.tests, settings.workflows.values())
    for note in [] if workflow else notes:
        click.echo(f"note: {note}")
    sys.exit(1 if errors else 0)


@cli.command()
@config_option
@workflow_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["mermaid", "json", "workflow"]),
    default="mermaid",
    show_default=True,
    help="mermaid: a diagram; json: the graph (states, edges, escapes) for tools; workflow: "
    "the definition as YAML, to copy into a workflow file or under `workflow:` in the config.",
)
def graph(config: str | None, workflow: str | None, fmt: str) -> None:
    """Print the workflow as a Mermaid diagram, a JSON graph, or a definition to edit.

    `--format workflow` is the one to start a workflow of your own from: `baton validate`
    accepts it back (as a file with --workflow, or inline under `workflow:` in the config) as
    the same workflow. The JSON graph is a drawing for tools, not a definition."""
    try:
        settings = _settings(config, workflow)
    except BatonError as exc:
        _fail(str(exc))
    if fmt == "json":
        click.echo(json.dumps(to_json(settings.workflow), indent=2))
    elif fmt == "workflow":
        click.echo(to_yaml(settings.workflow), nl=False)
    else:
        click.echo(to_mermaid(settings.workflow))


@cli.command()
def schema() -> None:
    """Print the JSON Schema of .github/baton.yml."""
    from baton.workflow.schema import config_schema_text

    click.echo(config_schema_text(), nl=False)


# --- the Action's commands -------------------------------------------------------------
issue_option = click.option(
    "--issue", type=int, envvar="INPUT_ISSUE", required=True, help="The issue number."
)


def _env() -> ActionEnv:
    """The Action's environment, or one `::error::` line per bad value and exit status 1."""
    return entry.action_env(click.echo)


@cli.command()
def run() -> None:
    """Act on the GitHub event of this job (the Action's entry point)."""
    sys.exit(entry.run(click.echo))


@cli.command()
def sweep() -> None:
    """The scheduled run: timeouts, repairs and silent agents, within a budget of calls."""
    from baton.action.commands import sweep_command, wrap_up

    env = _env()
    sys.exit(wrap_up(env, sweep_command(env), click.echo))


@cli.command()
@issue_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown")
@click.option("--output", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
@click.option("--state", help="Nothing unless the record waits for this state's agent.")
@click.option(
    "--handover",
    default="",
    help="The hand-over Baton dispatched (<nonce>.<digest>): nothing unless the bot's one "
    "record comment is the one handed over and waits for that run.",
)
def context(issue: int, fmt: str, output: str | None, state: str | None, handover: str) -> None:
    """What the agent due on ISSUE needs: the task, the issue, human replies, feedback."""
    import os

    from baton.action.commands import context_command, wrap_up
    from baton.action.outputs import context_for_stdout

    env = _env()
    outcome, text = context_command(
        env, issue=issue, fmt=fmt, state=state or None, handover=handover or ""
    )
    if text:
        if output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            click.echo(context_for_stdout(text, sys.stdout, os.environ), nl=False)
    sys.exit(wrap_up(env, outcome, lambda line: click.echo(line, err=True)))


def main() -> None:
    cli()
