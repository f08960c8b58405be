"""The click command `baton agent`; `baton.cli` registers it.

It runs a command-line coding agent in the checkout, with no credential in its environment
(`agents.handoff`: the exec, `agents.contained`: after it), or, for a state settled by
evidence, `baton verify` (`evidence.job`); `action.agent_choice` says which.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from baton.action import entry
from baton.action.env import ActionEnv
from baton.action.inputs import DEFAULT_AGENT_TIMEOUT
from baton.action.outputs import annotation


def _env() -> ActionEnv:
    """The Action's environment, or one `::error::` line per bad value and exit status 1."""
    return entry.action_env(click.echo)


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


@click.command()
@click.option(
    "--issue",
    type=int,
    envvar="INPUT_ISSUE",
    help="The issue number; its briefing is fetched with the token (not needed with --prompt).",
)
@click.option(
    "--prompt",
    "prompt_path",
    type=click.Path(exists=True, dir_okay=False),
    help="A briefing already fetched (`baton context --output`): no GitHub call, no token.",
)
@click.option(
    "--command",
    "command",
    help="The agent's command line; default: the `agent-command` input (BATON_AGENT_COMMAND).",
)
@click.option(
    "--output",
    default="baton-result.json",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="Where to write the result for `baton report`.",
)
@click.option(
    "--changeset",
    "changeset_path",
    type=click.Path(dir_okay=False),
    help="Where to write what the agent changed; default: baton-changeset.json beside --output.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    help="Seconds the agent may run; default: the `agent-timeout` input "
    f"(BATON_AGENT_TIMEOUT), else {DEFAULT_AGENT_TIMEOUT:.0f}.",
)
@click.option(
    "--role", help="The role due (`agent` output): its config's profile, else --agent, --command."
)
@click.option(
    "--state",
    help="The state due (the briefing's `state` output): with `tests:`, a state with `proof: "
    "green` runs the built-in `tests` profile instead, and one with `proof: red` verifies the "
    "agent's changeset after it.",
)
@click.option("--agent", "ready", help="A ready profile (the `agent` input); not with --command.")
@click.option("--print-setup", is_flag=True, help="Print the role's (else --agent's) install line.")
@click.option("--handoff", "handoff_fd", type=int, hidden=True)
def agent(
    issue: int | None,
    prompt_path: str | None,
    command: str | None,
    output: str,
    changeset_path: str | None,
    timeout: float | None,
    role: str | None,
    state: str | None,
    ready: str | None,
    print_setup: bool,
    handoff_fd: int | None,
) -> None:
    """Run a command-line coding agent in this checkout; write its result and its changeset.

    The agent runs without any GitHub token or Baton setting in its environment, from a process
    whose environment block holds none either. What it changed relative to the commit it started
    from (committed or not, .gitignore'd files left out) is written as a changeset beside the
    result, for the report job to check and commit."""
    import os

    from baton.action.agent_choice import agent_setup, choose_agent
    from baton.action.commands import CommandResult, agent_handoff, wrap_up
    from baton.agents.handoff import reexec
    from baton.errors import AgentSetupError

    if handoff_fd is not None:
        _contained_agent(handoff_fd)
        return
    env = _env()
    result_file = Path(output)
    try:
        if print_setup:  # the install line of the role's profile (none: empty)
            return click.echo(agent_setup(env, role=role, ready=ready, state=state))
        chosen = choose_agent(env, role=role, given=command, ready=ready, state=state)
        if chosen.profile:
            click.echo(f"agent profile {chosen.profile} for {role}: {chosen.command}", err=True)
        command = chosen.command
        timeout = timeout if timeout is not None else chosen.timeout
        if prompt_path is None and issue is None and not chosen.runs_tests:
            _fail("give --issue N (the briefing is fetched with the token) or --prompt FILE")
        handoff = agent_handoff(
            env,
            command=command,
            issue=issue,
            prompt_path=prompt_path,
            result_file=result_file,
            changeset_path=changeset_path,
            timeout=timeout,
            proof=chosen.proof,
        )
    except AgentSetupError as exc:
        _agent_setup_error(result_file, str(exc))
    if isinstance(handoff, CommandResult):  # the briefing could not be fetched
        sys.exit(wrap_up(env, handoff, lambda line: click.echo(line, err=True)))
    reexec(handoff, os.environ)


def _agent_setup_error(result_file: Path, message: str) -> NoReturn:
    """A setup error, not a failed attempt: no result is written, and the marker beside it tells
    the report job to fail once with this message instead of spending an attempt."""
    from baton.agents.contained import write_setup_error

    write_setup_error(result_file, message)
    click.echo(annotation("error", message))
    sys.exit(1)


def _contained_agent(handoff_fd: int) -> None:
    """`baton agent` after the exec (`agents.contained`, `evidence.job`): no credential in its
    environment."""
    from baton.agents.handoff import receive
    from baton.errors import AgentSetupError, ResultUnwritable
    from baton.evidence.job import run

    handoff = receive(handoff_fd)
    try:  # the agent, or (with `tests:`) the proof the state asks for: evidence/job.py
        line = run(handoff, lambda text: click.echo(annotation("warning", text)))
    except AgentSetupError as exc:
        _agent_setup_error(Path(handoff.result_file), str(exc))
    except ResultUnwritable as exc:
        _fail(str(exc))
    click.echo(line)
