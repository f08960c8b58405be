"""The click commands `baton init` and `baton doctor`; `baton.cli` registers them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from baton import __version__
from baton.adopt.agents import AGENTS, DEFAULT_AGENT
from baton.errors import BatonError, TrackerError

DEFAULT_API_URL = "https://api.github.com"


@click.command()
@click.option(
    "--agent",
    type=click.Choice(list(AGENTS)),
    default=DEFAULT_AGENT,
    show_default=True,
    help="The coding agent every role runs (its install line, command line and key's secret).",
)
@click.option(
    "--ref",
    help=f"The commit SHA of the Baton release to pin (v{__version__}'s). Default: the commit "
    "pip installed this Baton from, else the release commit a release build records; a local "
    "install records neither and needs --ref.",
)
@click.option(
    "--dir",
    "root",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="The repository's checkout.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Rewrite the caller workflow if it exists (to switch agents); .github/baton.yml is kept.",
)
def init(agent: str, ref: str | None, root: str, force: bool) -> None:
    """Write .github/workflows/baton.yml (calling Baton's reusable workflow, pinned) and a
    starter .github/baton.yml (unless there is one), then print the secrets and the setting
    to add. Run it in the repository's checkout."""
    import shlex

    from baton.adopt.init import (
        check_root,
        direct_url_record,
        next_steps,
        release_record,
        setup_for,
        write,
    )

    again = ["baton", "init", "--agent", agent]
    again += ["--dir", root] if root != "." else []
    again += ["--force"] if force else []
    try:
        check_root(Path(root))
        setup = setup_for(
            agent,
            ref,
            direct_url=direct_url_record(),
            release=release_record(),
            again=shlex.join(again),
        )
        written = write(Path(root), setup, force=force)
    except BatonError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    for path in setup.files:
        said = "wrote" if path in written else "kept (it exists; init never rewrites it):"
        click.echo(f"{said} {path}")
    for line in next_steps(agent, setup):
        click.echo(line)


@click.command()
@click.option("--repo", "repository", required=True, help="The repository: owner/name.")
@click.option(
    "--api-url",
    envvar="GITHUB_API_URL",
    default=DEFAULT_API_URL,
    show_default=True,
    help="GitHub's API (GitHub Enterprise Server: https://HOST/api/v3).",
)
def doctor(repository: str, api_url: str) -> None:
    """Read a repository's setup through GitHub's API (token: GITHUB_TOKEN or GH_TOKEN) and
    list what is missing or wrong, each with its fix. Exit status 1 when something is wrong."""
    from baton.adopt.doctor import diagnose, healthy
    from baton.adopt.findings import report
    from baton.github.setup import OWNER_NAME, GitHubRepositorySetup

    if not OWNER_NAME.fullmatch(repository):
        click.echo(f"error: --repo {repository!r} is not owner/name, such as octo/repo", err=True)
        sys.exit(2)
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN")
    if not token:
        click.echo("error: no token: set GITHUB_TOKEN or GH_TOKEN (gh auth token)", err=True)
        sys.exit(2)
    try:
        findings = diagnose(GitHubRepositorySetup(repository, token, api_url=api_url))
    except TrackerError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    for line in report(findings):
        click.echo(line)
    sys.exit(0 if healthy(findings) else 1)
