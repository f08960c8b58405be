"""What the agent's process may hold of the job's environment, and which values are secrets.

The agent reads untrusted issue text, so it gets no GitHub credential: what it changed travels
as a changeset the report job validates and commits. Baton's own inputs and settings and the
runner's file commands are withheld too; everything else (its API keys, PATH, the runner's
variables) it keeps. The secrets found here are redacted wherever the agent's words travel.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase

from baton.agents import file_commands, secrets

# The job's credentials, as patterns of upper-cased variable names.
CREDENTIAL_PATTERNS = (
    "*GITHUB*TOKEN*",  # GITHUB_TOKEN, INPUT_GITHUB-TOKEN, INPUT_GITHUB_TOKEN, MY_GITHUB_TOKEN
    "GH_*TOKEN*",  # GH_TOKEN, GH_ENTERPRISE_TOKEN (the gh CLI's names)
    "GITHUB_PAT",
    "GH_PAT",
    "INPUT_RECORD-SECRET",
    "INPUT_RECORD_SECRET",
    "BATON_RECORD_SECRET",
    "BATON_APP_PRIVATE_KEY",
    # The runner's own credentials: artifacts, caches and OIDC tokens for the job.
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
)
# Not credentials, but Baton's alone: the action's inputs and Baton's settings, and the runner's
# file commands, through which a line would set variables or PATH for the job's later steps.
WITHHELD_PATTERNS = (*CREDENTIAL_PATTERNS, "INPUT_*", "BATON_*", *file_commands.FILE_COMMANDS)


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern) for pattern in patterns)


def credential(name: str) -> bool:
    """Whether the variable `name` holds one of the job's credentials."""
    return _matches(name, CREDENTIAL_PATTERNS)


def withheld(name: str) -> bool:
    """Whether the variable `name` is kept from the agent."""
    return _matches(name, WITHHELD_PATTERNS)


def agent_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the agent runs with: everything (its API keys, PATH, the runner's
    variables) except GitHub credentials, Baton's inputs and settings and the file commands."""
    return {k: v for k, v in environ.items() if not withheld(k)}


def secrets_of(environ: Mapping[str, str]) -> list[secrets.Secret]:
    """The secrets in `environ` that must not leave in a changeset or a result."""
    return secrets.secrets_of(secrets.held(environ, withheld=credential))
