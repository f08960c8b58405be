"""The names the fast path shares with the rest of Baton: who the bot is, where its config
lives, and how an issue's branch is named and read back.

Standard library only and at the bottom layer, so `action.fast_path` and `core.rules.triage` read
them before any heavy import, and no layer keeps a copy that could drift.
"""

from __future__ import annotations

BOT_LOGIN = "github-actions[bot]"  # whom GITHUB_TOKEN writes as
CONFIG_PATH = ".github/baton.yml"
BRANCH_PREFIX = "baton/issue-"  # an issue's branch is the prefix and its number


def issue_of_branch(prefix: str, branch: str) -> int | None:
    """The issue a branch belongs to by its name, or None. Only a hint: the record decides
    whether a pull request is the issue's."""
    if not branch.startswith(prefix):
        return None
    rest = branch[len(prefix) :]
    ok = rest.isascii() and rest.isdigit() and len(rest) < 10 and not rest.startswith("0")
    return int(rest) if ok else None
