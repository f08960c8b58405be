"""The click command `baton verify`; `baton.cli` registers it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from baton.agents import reaper
from baton.core.model.evidence import EVIDENCE_FILE
from baton.errors import BatonError
from baton.names import CONFIG_PATH


@click.command()
@click.option("--base", help="Tests new or changed since this commit (e.g. the default branch).")
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=EVIDENCE_FILE,
    show_default=True,
    help="Where to write the evidence.",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    envvar="INPUT_CONFIG",
    default=CONFIG_PATH,
    show_default=True,
    help="The config whose `tests:` to run.",
)
def verify(base: str | None, output: str, config: str) -> None:
    """Run the tests of `tests:` in this checkout and write what they showed: the verdict (red,
    green, failing, broken), the commit, the exit status, each test, and the new ones."""
    from baton.evidence.changes import GitError
    from baton.evidence.verify import summary, verify, write
    from baton.workflow.config import load_config

    try:
        suite = load_config(Path(config), required=config != CONFIG_PATH).config.tests
    except BatonError as exc:
        _fail(str(exc))
    if suite is None:
        _fail(f"{config} has no `tests:` section: there are no tests to verify")
    reaper.become_subreaper()  # a process that leaves the tests' group is still found
    try:
        evidence = verify(Path.cwd(), suite, base=base or None)
    except GitError as exc:
        _fail(f"not verified: {exc}")
    try:
        write(evidence, Path(output))
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror}")
    click.echo(summary(evidence))


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)
