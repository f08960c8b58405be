"""`baton dashboard`: the page (or its JSON) of a repository Baton works, read over GitHub's
API with a token (GITHUB_TOKEN or GH_TOKEN); `--publish` keeps it in the pinned dashboard issue
and the job summary. `demo_page` is what `baton demo --dashboard` ends with."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from baton.dashboard.publish import Built, build, publish
from baton.errors import BatonError
from baton.github.tracker import Board
from baton.names import BOT_LOGIN, CONFIG_PATH
from baton.workflow.config import Settings, load_config
from baton.workflow.durations import parse_duration

DEFAULT_WINDOW = "90d"
DEFAULT_API_URL = "https://api.github.com"


def demo_page(board: Board, settings: Settings) -> str:
    """The page of the demo's repository in memory, as of its simulated now."""
    now = board.clock()
    return build(board, settings, now=now, window=parse_duration(DEFAULT_WINDOW), secret=None).page


def output(built: Built, fmt: str) -> str:
    if fmt == "json":
        return built.figures.model_dump_json(indent=2)
    return built.page


def _secret(repository: str) -> str | None:
    """The records' key from BATON_RECORD_SECRET (the Action's `record-secret`), if set."""
    secret = os.environ.get("BATON_RECORD_SECRET")
    if not secret:
        return None
    from baton.issue.record_comment import record_key

    return record_key(secret, repository)


@click.command()
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown")
@click.option(
    "--window", default=DEFAULT_WINDOW, show_default=True, help="Closed issues: how far back."
)
@click.option("--repo", "repository", envvar="GITHUB_REPOSITORY", required=True, help="owner/name.")
@click.option("--config", "config", default=CONFIG_PATH, show_default=True, help="Baton's config.")
@click.option("--publish", "keep", is_flag=True, help="Keep the page in the pinned issue.")
@click.option("--api-url", envvar="GITHUB_API_URL", default=DEFAULT_API_URL, show_default=True)
@click.option(
    "--bot-login", default=BOT_LOGIN, show_default=True, help="The login Baton writes as."
)
def dashboard(
    fmt: str, window: str, repository: str, config: str, keep: bool, api_url: str, bot_login: str
) -> None:
    """Where issues wait and for whom, rework, humans' touchpoints, pull requests merged and
    what they cost, from Baton's records (docs/dashboard.md)."""
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN")
    if not token:
        click.echo("error: no token: set GITHUB_TOKEN or GH_TOKEN (gh auth token)", err=True)
        sys.exit(2)
    from baton.github.client import GitHubTracker

    try:
        span: timedelta = parse_duration(window)
        settings = load_config(Path(config), bot_login=bot_login)
        board = GitHubTracker(repository, token, api_url=api_url, bot_login=bot_login)
        now = datetime.now(UTC)
        built = build(board, settings, now=now, window=span, secret=_secret(repository))
    except BatonError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    click.echo(output(built, fmt))
    if keep:
        done = publish(board, built.page, built.collected.page_issue)
        for line in done.log:
            click.echo(line, err=True)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as file:
                file.write(built.page)
    click.echo(f"GitHub API calls: {board.requests}", err=True)
