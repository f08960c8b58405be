"""Pull requests and check runs: GitHub's refusals of a pull request, word for word, and how a
check run reads. Stdlib only (but for Baton's one list of failed conclusions).
"""

from __future__ import annotations

from baton.core import triage

ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS = (
    "GitHub Actions is not permitted to create or approve pull requests."
)


def pull_request_exists_message(owner: str, branch: str) -> str:
    return f"A pull request already exists for {owner}:{branch}."


def no_commits_message(base: str, head: str) -> str:
    return f"No commits between {base} and {head}"


# The conclusions of a check run that mean the change failed it; `neutral`, `skipped`,
# `cancelled` and `action_required` (a run awaiting a maintainer's approval) do not.
FAILED_CONCLUSIONS = triage.FAILED_CONCLUSIONS  # the one list Baton's triage and engine use
SUMMARY_LINES = 10


def check_summary(title: str, summary: str) -> str:
    """The first lines of what a check said: its output's title, then its summary."""
    lines = [line for line in [title, *summary.splitlines()] if line.strip()]
    return "\n".join(lines[:SUMMARY_LINES])
