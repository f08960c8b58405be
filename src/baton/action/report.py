"""`baton report`, the report job's command, as click wires it (loaded by `cli` only when
named): the files the agent's job handed back, found beside its result unless named, and the
state and attempt they are for. What it does is `commands.report_command`'s."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from baton.action import entry
from baton.core.model.changeset import CHANGESET_FILE
from baton.core.model.evidence import EVIDENCE_FILE

F = TypeVar("F", bound=Callable[..., Any])


def _beside_result(name: str, what: str) -> Callable[[F], F]:
    """`--NAME` (the Action's input NAME): a file the agent's job wrote beside its result."""
    return click.option(
        f"--{name}",
        f"{name}_path",
        envvar=f"INPUT_{name.upper()}",
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"{what}; default: baton-{name}.json beside the result.",
    )


@click.command()
@click.option("--issue", type=int, envvar="INPUT_ISSUE", required=True, help="The issue number.")
@click.option(
    "--result",
    "result_path",
    envvar="INPUT_RESULT",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The agent's result JSON.",
)
@_beside_result("changeset", "The agent's changeset JSON")
@_beside_result("evidence", "What `baton verify` saw (its JSON)")
@click.option("--state", envvar="INPUT_STATE", help="The state the agent worked on (stale check).")
@click.option("--agent", "agent", help="The agent that produced the result.")
@click.option(
    "--handover",
    envvar="INPUT_HANDOVER",
    default="",
    help="The hand-over the agent's run was dispatched with (its attempt): a report for "
    "another attempt is stale.",
)
def report(
    issue: int,
    result_path: Path,
    changeset_path: Path | None,
    evidence_path: Path | None,
    state: str | None,
    agent: str | None,
    handover: str,
) -> None:
    """Apply an agent's result (and commit its changeset) and start the next agent's run."""
    from baton.action.commands import report_command, wrap_up

    env = entry.action_env(click.echo)
    outcome = report_command(
        env,
        issue=issue,
        result_path=result_path,
        state=state or None,
        agent=agent,
        changeset_path=changeset_path or result_path.with_name(CHANGESET_FILE),
        evidence_path=evidence_path or result_path.with_name(EVIDENCE_FILE),
        handover=handover or "",
    )
    sys.exit(wrap_up(env, outcome, click.echo))
