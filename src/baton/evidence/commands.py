"""The click command `baton verify`; `baton.cli` registers it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from baton.agents import reaper
from baton.core.model.evidence import EVIDENCE_FILE
from baton.errors import BatonError
from baton.names import CONFIG_PATH

if TYPE_CHECKING:
    from baton.core.model.changeset import Changeset


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
@click.option(
    "--changeset",
    "changeset_path",
    type=click.Path(dir_okay=False),
    help="An agent's changeset (baton-changeset.json) to verify applied on HEAD, in a "
    "temporary worktree; --base is then HEAD.",
)
def verify(base: str | None, output: str, config: str, changeset_path: str | None) -> None:
    """Run the tests of `tests:` in this checkout and write what they showed: the verdict (red,
    green, failing, broken), the commit, the exit status, each test, and the new ones."""
    from baton.evidence.changes import GitError
    from baton.evidence.verify import summary, verify, verify_changeset, write
    from baton.workflow.config import load_config

    try:
        suite = load_config(Path(config), required=config != CONFIG_PATH).config.tests
    except BatonError as exc:
        _fail(str(exc))
    if suite is None:
        _fail(f"{config} has no `tests:` section: there are no tests to verify")
    changeset = _changeset(changeset_path, base) if changeset_path else None
    reaper.become_subreaper()  # a process that leaves the tests' group is still found
    try:
        if changeset is not None:
            evidence = verify_changeset(Path.cwd(), changeset, suite)
        else:
            evidence = verify(Path.cwd(), suite, base=base or None)
    except GitError as exc:
        _fail(f"not verified: {exc}")
    try:
        write(evidence, Path(output))
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror}")
    click.echo(summary(evidence))


def _changeset(path: str, base: str | None) -> Changeset:
    """The changeset at `path`, bound to this checkout's HEAD; else a one-line failure."""
    from baton.core.model.changeset import parse_changeset
    from baton.errors import InvalidChangeset
    from baton.evidence.changes import GitError, commit_of

    if base:
        _fail("--base is the changeset's own base (HEAD) with --changeset: give one or the other")
    try:
        changeset = parse_changeset(Path(path).read_text(encoding="utf-8"))
        head = commit_of(Path.cwd(), "HEAD")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read the changeset {path}: {exc}")
    except (InvalidChangeset, GitError) as exc:
        _fail(f"not verified: {exc}")
    if changeset.base != head:
        _fail(f"the changeset is bound to {changeset.base[:40]!r}, not to HEAD ({head})")
    return changeset


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)
