"""The environment GitHub sets for the Action, read once into one model.

Inputs arrive as `INPUT_<NAME>`; GitHub keeps the hyphens of input names, so both
`INPUT_DRY-RUN` and `INPUT_DRY_RUN` are read. The token is kept as a SecretStr and never
printed. What a run hands back is written by `action/outputs.py`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, SecretStr

DEFAULT_API_URL = "https://api.github.com"


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    upper = name.upper()
    for key in (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}"):
        value = env.get(key)
        if value is not None and value.strip() != "":
            return value.strip()
    return default


def _seconds(value: str, *, default: int) -> int:
    return int(value) if value.strip().isdigit() and int(value) > 0 else default


def _flag(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


class ActionEnv(BaseModel):
    model_config = ConfigDict(frozen=True)

    event_name: str = ""
    event_path: Path | None = None
    repository: str = ""
    api_url: str = DEFAULT_API_URL
    token: SecretStr | None = None
    run_id: str = ""
    run_attempt: int = 1
    output: Path | None = None
    summary: Path | None = None
    workflow_ref: str = ""
    config: str = ".github/baton.yml"
    config_given: bool = False
    dry_run: bool = False
    bot_login: str = "github-actions[bot]"
    record_secret: SecretStr | None = None
    http_timeout: int = 15  # seconds per GitHub request (BATON_HTTP_TIMEOUT)

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> ActionEnv:
        env = os.environ if env is None else env
        token = _input(env, "github-token") or env.get("GITHUB_TOKEN", "").strip() or None
        secret = _input(env, "record-secret") or None
        config = _input(env, "config")
        attempt = env.get("GITHUB_RUN_ATTEMPT", "1")
        return cls(
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            event_path=Path(env["GITHUB_EVENT_PATH"]) if env.get("GITHUB_EVENT_PATH") else None,
            repository=env.get("GITHUB_REPOSITORY", ""),
            api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            token=SecretStr(token) if token else None,
            run_id=env.get("GITHUB_RUN_ID", ""),
            run_attempt=int(attempt) if attempt.isdigit() else 1,
            output=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            summary=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
            workflow_ref=env.get("GITHUB_WORKFLOW_REF", ""),
            config=config or ".github/baton.yml",
            config_given=bool(config) and config != ".github/baton.yml",
            dry_run=_flag(_input(env, "dry-run", "false")),
            bot_login=_input(env, "bot-login", "github-actions[bot]"),
            record_secret=SecretStr(secret) if secret else None,
            http_timeout=_seconds(env.get("BATON_HTTP_TIMEOUT", ""), default=15),
        )

    def secret_value(self) -> str | None:
        return self.record_secret.get_secret_value() if self.record_secret else None
